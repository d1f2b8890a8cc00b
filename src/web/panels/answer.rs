//! « La réponse, qui cite ses fiches »: the method whose fiches are sent, the model, exactly what
//! will be sent, and the answer with its citations checked.

use crate::answer::{self, judge};
use crate::data::Fiche;
use crate::fr;
use crate::mistral::chat;

use super::super::dom::{by_id, options, replace_children, set_disabled, set_text, E};
use super::super::ids;
use super::{answer_view, Memo};
use crate::page::update::judged_about;
use crate::page::{judge_or_default, model_or_default, AnswerMsg, Control, Msg, State};
use web_sys::Element;

/// The `<option>`s of the models the page offers, `selected` marked.
pub fn model_options(selected: &str) -> Vec<web_sys::Element> {
    options(chat::models().map(|m| (m, m)), Some(selected))
}

/// The `<option>`s of `methods`, `selected` marked.
pub fn method_options(
    methods: &[crate::lab::Method],
    selected: Option<crate::lab::Method>,
) -> Vec<web_sys::Element> {
    options(
        methods.iter().map(|m| (m.name(), m.name())),
        selected.map(|m| m.name()),
    )
}

pub fn render(s: &State, memo: &mut Memo) {
    let method = s.answer_method();
    let model = model_or_default(&s.choices.answer_model);
    let offered = s.answer_methods();
    if memo.changed("reponse-methode", (&offered, method)) {
        replace_children(
            &by_id(ids::REPONSE_METHODE),
            method_options(&offered, method),
        );
    }
    if memo.changed("reponse-modele", &model) {
        replace_children(&by_id(ids::REPONSE_MODELE), model_options(&model));
    }
    // No button that can only fail: without a key, say what it needs instead.
    set_disabled(
        &by_id(ids::REDIGER),
        s.key.is_none() || s.data.answering.pending.is_some(),
    );
    let hint = if s.key.is_none() {
        "Rédiger une réponse demande votre clé Mistral (Réglages, en bas de page)."
    } else {
        ""
    };
    set_text(&by_id(ids::REDIGER_ETAT), hint);
    let preview_inputs = (
        s.data.epoch,
        &s.question,
        method,
        &model,
        s.question_vector().is_some(),
        s.data.lab.has_vectors(crate::lab::Encoder::Mistral),
        s.dense_inputs(),
    );
    if memo.changed("envoi", preview_inputs) {
        set_text(&by_id(ids::ENVOI_TEXTE), &preview(s, method, &model));
    }
    let result = s.data.answering.result.as_ref();
    let result_inputs = (
        s.data.answering.pending.is_some(),
        result.map(|r| {
            (
                &r.question,
                r.sent.iter().map(|f| &f.id).collect::<Vec<_>>(),
            )
        }),
        result.map(|r| match &r.outcome {
            Ok((chat, cached)) => (
                r.model.clone(),
                chat.content.clone(),
                chat.finish_reason.clone(),
                *cached,
            ),
            Err(e) => (r.model.clone(), e.clone(), None, false),
        }),
        s.data.chats.asking(Control::Judge),
        judged(s),
        s.key.is_some(),
        judge_or_default(&s.choices.judge),
    );
    if memo.changed("reponse-resultat", result_inputs) {
        let target = by_id(ids::REPONSE_RESULTAT);
        match (s.data.answering.pending.is_some(), result) {
            (true, _) => set_text(&target, "Rédaction en cours…"),
            (false, None) => set_text(&target, ""),
            (false, Some(r)) => match &r.outcome {
                Ok((chat, cached)) => {
                    let sent: Vec<&Fiche> = r.sent.iter().collect();
                    let ids: Vec<&str> = sent.iter().map(|f| f.id.as_str()).collect();
                    let check = answer::check(&chat.content, &ids);
                    replace_children(
                        &target,
                        [
                            answer_view::render_answer(&r.model, chat, &check, &sent, *cached),
                            verdict(s),
                        ],
                    );
                }
                Err(message) => {
                    let p = E::new("p")
                        .class("erreur-api")
                        .attr("role", "alert")
                        .text(message);
                    replace_children(&target, [p.build()]);
                }
            },
        }
    }
}

/// « Demander au juge »: a click on its button.
pub fn event(kind: &str, target: &Element) -> Option<Msg> {
    let button = target.closest("button[data-juger]").ok()??;
    (kind == "click" && !button.has_attribute("disabled"))
        .then_some(Msg::Answer(AnswerMsg::JudgeRequested))
}

/// The judge's reply about the answer shown, if there is one.
fn judged(s: &State) -> Option<&Result<String, String>> {
    let r = s.data.answering.result.as_ref()?;
    let Ok((chat, _)) = &r.outcome else {
        return None;
    };
    s.data.chats.reply(
        Control::Judge,
        judged_about(&chat.content, &judge_or_default(&s.choices.judge)),
    )
}

/// The judge's verdict on the answer shown, or the button that asks for it (with its model and
/// what it reads), or what the learner needs first.
fn verdict(s: &State) -> web_sys::Element {
    let judge = judge_or_default(&s.choices.judge);
    let p = E::new("div").class("verdict");
    let reply = judged(s);
    match (reply, s.data.chats.asking(Control::Judge), s.key.is_some()) {
        (_, true, _) => p.child(E::new("p").class("etat").text(&format!("{judge} relit la réponse…")).build()),
        (Some(Ok(text)), false, _) => {
            let (class, said) = match judge::parse_verdict(text) {
                judge::Verdict::Oui => ("oui", "OUI : chaque affirmation de la réponse est dans les fiches envoyées.".to_owned()),
                judge::Verdict::Non => ("non", "NON : la réponse affirme ce que les fiches envoyées ne disent pas ; relisez-la avec les fiches.".to_owned()),
                judge::Verdict::Unparsed(t) => ("illisible", format!("ni OUI ni NON, réponse non comptée : « {} »", t.chars().take(200).collect::<String>())),
            };
            p.child(
                E::new("p")
                    .class(&format!("drapeau juge-{class}"))
                    .text(&format!("Le juge ({judge}) : {said}"))
                    .build(),
            )
        }
        (Some(Err(message)), false, _) => p.child(E::new("p").class("erreur-api").attr("role", "alert").text(message).build()),
        (None, false, true) => p.child(
            E::new("button")
                .attr("type", "button")
                .attr("data-juger", "")
                .text(&format!("Demander au juge ({judge})"))
                .build(),
        ).child(E::new("span").class("etat").text(&format!(
            " il relit les fiches envoyées, la question et la réponse, et dit OUI ou NON : {}.",
            crate::page::estimate::judge_estimate(s).unwrap_or_default()
        )).build()),
        (None, false, false) => p,
    }
    .build()
}

/// Exactly what a call would send for the question in the box.
fn preview(s: &State, method: Option<crate::lab::Method>, model: &str) -> String {
    let Some(method) = method else {
        return "Choisissez une méthode affichée.".into();
    };
    if s.question.trim().is_empty() {
        return "Tapez une question : la demande envoyée s'affichera ici.".into();
    }
    match s.fiches_for(method, &s.question) {
        Ok(sent) => {
            let nothing = match method {
                crate::lab::Method::Keyword(_) => s
                    .data
                    .lab
                    .search(method, &s.question, None, answer::FICHES_SENT)
                    .is_ok_and(|hits| hits.iter().all(|h| h.score == 0.0)),
                _ => false,
            };
            let note = if nothing {
                "Aucune fiche ne contient les mots de la question : les 5 fiches envoyées ont toutes un score nul.\n\n"
            } else {
                ""
            };
            let refs: Vec<&Fiche> = sent.iter().collect();
            let messages = answer::prompt(&s.question, &refs);
            let (system, user) = match messages.as_slice() {
                [system, user] => (system.content.as_str(), user.content.as_str()),
                _ => ("", ""),
            };
            format!(
                "{note}POST https://api.mistral.ai{} — modèle {model}, température 0, environ {} tokens au plus\n\n[system]\n{system}\n\n[user]\n{user}",
                chat::CHAT_PATH,
                fr::int(chat::estimate_tokens(&messages) as u64),
            )
        }
        Err(e) => e,
    }
}
