//! « Mesurer les réponses »: the method and model, the estimate and its confirmation, the
//! progress, and the evaluation beside the refusal threshold.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlProgressElement};

use crate::answer;
use crate::data::Fiche;
use crate::fr;
use crate::measure::compare;
use crate::mistral::{chat, prices};

use super::super::dom::{by_id, clear, replace_children, set_text, E};
use super::super::ids;
use super::answer::{method_options, model_options};
use super::{answer_view, Memo};
use crate::page::{model_or_default, Phase, State};

fn button(id: &str, text: &str) -> Element {
    E::new("button")
        .attr("type", "button")
        .attr("id", id)
        .text(text)
        .build()
}

pub fn render(s: &State, memo: &mut Memo) {
    super::shipped::render(s, memo);
    let methods = s.measured_methods();
    let method = s.evaluation_method();
    let model = model_or_default(&s.evaluation.model);
    if memo.changed("eval-methode", (&methods, method)) {
        replace_children(&by_id(ids::EVAL_METHODE), method_options(&methods, method));
    }
    if memo.changed("eval-modele", &model) {
        replace_children(&by_id(ids::EVAL_MODELE), model_options(&model));
    }
    let Some(method) = method else { return };
    let e = &s.evaluation;
    let actions = (&e.phase, e.confirming, s.key.is_some(), &model);
    if memo.changed("eval-actions", actions) {
        let controls: Vec<Element> = match (&e.phase, e.confirming, s.key.is_some()) {
            (Phase::Running { done, total }, _, _) => {
                let progress = E::new("progress")
                    .attr("id", ids::EVAL_PROGRESSION)
                    .attr("aria-label", "Réponses obtenues")
                    .build();
                if let Ok(p) = progress.clone().dyn_into::<HtmlProgressElement>() {
                    p.set_max((*total).max(1) as f64);
                    p.set_value(*done as f64);
                }
                vec![button(ids::EVAL_ANNULER, "Annuler"), progress]
            }
            (Phase::Idle, true, _) => vec![
                button(ids::EVAL_CONFIRMER, &format!("Confirmer avec {model}")),
                button(ids::EVAL_ANNULER, "Annuler"),
            ],
            (Phase::Idle, false, false) => vec![E::new("span")
                .text("Entrez votre clé Mistral pour mesurer les réponses.")
                .build()],
            (Phase::Idle, false, true) => vec![button(ids::EVAL_LANCER, "Mesurer les réponses")],
        };
        replace_children(&by_id(ids::EVAL_ACTIONS), controls);
    }
    let status_inputs = (
        s.data.epoch,
        method,
        &model,
        s.qvectors.len(),
        &e.phase,
        &e.message,
    );
    let status_changed = memo.changed("eval-etat", status_inputs);
    if let Phase::Running { done, total } = e.phase {
        if let Ok(p) = by_id(ids::EVAL_PROGRESSION).dyn_into::<HtmlProgressElement>() {
            p.set_value(done as f64);
        }
        set_text(
            &by_id(ids::EVAL_ETAT),
            &format!("{done} réponses sur {total}"),
        );
    } else if let Some(message) = &e.message {
        set_text(&by_id(ids::EVAL_ETAT), message);
    } else if status_changed {
        set_text(&by_id(ids::EVAL_ETAT), &estimate(s, method, &model));
    }
    let shown = e
        .outcomes
        .as_ref()
        .filter(|(m, mdl, outcomes)| *m == method && *mdl == model && !outcomes.is_empty());
    let result_inputs = (s.data.epoch, shown.map(|(m, mdl, o)| (m, mdl, o.len())));
    if memo.changed("eval-resultat", result_inputs) {
        let target = by_id(ids::EVAL_RESULTAT);
        match shown {
            None => clear(&target),
            Some((_, _, outcomes)) => {
                let ev = answer::evaluate(outcomes);
                let threshold = s
                    .data
                    .measured()
                    .into_iter()
                    .find(|x| x.method == method.name())
                    .and_then(compare::calibrate_split)
                    .map(|c| {
                        format!(
                            "À comparer : un seuil de score sous {} (calibré sur les questions de rang pair) trie {} des questions de test ; \
                             le modèle, lui, refuse {} des {} questions sans réponse et {} des {} qui en ont une.",
                            method.name(),
                            fr::percent(c.test_accuracy),
                            ev.correct_refusals,
                            ev.absent,
                            ev.false_refusals,
                            ev.answerable
                        )
                    })
                    .unwrap_or_default();
                replace_children(
                    &target,
                    [answer_view::render_evaluation(&ev, outcomes, &threshold)],
                );
            }
        }
    }
}

/// What a run would send, at most, and what that costs at the model's price (answers extra).
fn estimate(s: &State, method: crate::lab::Method, model: &str) -> String {
    // The method is measured: its first results per question are those a run sends (the first
    // five of the same search), read from the measurement instead of searched again.
    let measured = s
        .data
        .measured()
        .into_iter()
        .find(|m| m.method == method.name());
    let lab = &s.data.lab;
    let tokens: usize = s
        .data
        .questions
        .iter()
        .enumerate()
        .filter_map(|(i, q)| {
            let sent: Vec<Fiche> = match measured.and_then(|m| m.questions.get(i)) {
                Some(o) if o.question == q.text => o
                    .top
                    .iter()
                    .take(answer::FICHES_SENT)
                    .filter_map(|(id, _)| lab.fiches().get(lab.doc_of(id)?).cloned())
                    .collect(),
                _ => s.fiches_for(method, &q.text).ok()?,
            };
            let refs: Vec<&Fiche> = sent.iter().collect();
            Some(chat::estimate_tokens(&answer::prompt_sized(&q.text, &refs)))
        })
        .sum();
    let price = match prices::cost_usd(model, tokens as u64, 0) {
        Some(usd) => format!(
            "≈ {} au tarif de {model} relevé en {}, réponses en plus",
            fr::dollars(usd),
            prices::CHECKED
        ),
        None => format!("prix inconnu pour {model}"),
    };
    format!(
        "{} questions, au plus {} tokens envoyés ({price}) ; les réponses déjà obtenues ne coûtent rien.",
        s.data.questions.len(),
        fr::int(tokens as u64),
    )
}
