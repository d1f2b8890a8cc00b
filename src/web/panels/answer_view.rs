//! Rendering the model's answer: its text with each citation linked to the fiche sent, invented
//! citations and uncited answers flagged, refusals marked; and the evaluation over a question set.

use web_sys::Element;

use super::super::dom::{append_text, E};
use crate::answer::judge::Verdict;
use crate::answer::shipped::AnswersMeasured;
use crate::answer::{AnswerCheck, AnswerOutcome};
use crate::data::Fiche;
use crate::fr;
use crate::mistral::chat::Chat;
use crate::mistral::prices;

/// The answer's text, each `[ID]` a link to the fiche sent (or flagged when it was not sent).
fn answer_text(text: &str, check: &AnswerCheck) -> Element {
    let p = E::new("p").class("texte-reponse").build();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|c| open + c) else {
            break;
        };
        append_text(&p, &rest[..open]);
        let inside = &rest[open + 1..close];
        let ids: Vec<&str> = inside.split([',', ';']).map(str::trim).collect();
        let is_citation = ids.iter().all(|id| check.citations.iter().any(|c| c == id));
        if is_citation && !inside.is_empty() {
            append_text(&p, "[");
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    append_text(&p, ", ");
                }
                let invented = check.invented.iter().any(|x| x == id);
                let el = if invented {
                    E::new("span")
                        .class("citation inventee")
                        .attr(
                            "title",
                            "numéro absent des fiches envoyées : citation inventée",
                        )
                        .text(id)
                } else {
                    E::new("a")
                        .class("citation")
                        .attr("href", &format!("#source-{id}"))
                        .text(id)
                };
                p.append_child(&el.build()).ok();
            }
            append_text(&p, "]");
        } else {
            append_text(&p, &rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    append_text(&p, rest);
    p
}

/// The answer, its checks, its cost and the fiches sent.
pub fn render_answer(
    model: &str,
    chat: &Chat,
    check: &AnswerCheck,
    sent: &[&Fiche],
    cached: bool,
) -> Element {
    let mut flags: Vec<Element> = Vec::new();
    if chat.is_cut() {
        flags.push(
            E::new("p")
                .class("drapeau alerte coupee")
                .attr("role", "alert")
                .text("Réponse coupée (limite de longueur) : sa fin, et peut-être ses citations, manquent.")
                .build(),
        );
    }
    if check.refused {
        flags.push(
            E::new("p")
                .class("drapeau refus")
                .text("Refus : « pas dans le catalogue ».")
                .build(),
        );
    }
    if !check.invented.is_empty() {
        flags.push(
            E::new("p")
                .class("drapeau alerte")
                .attr("role", "alert")
                .text(&format!(
                    "Citation inventée : {} ne fait pas partie des fiches envoyées.",
                    check.invented.join(", ")
                ))
                .build(),
        );
    }
    if check.uncited && !chat.is_cut() {
        flags.push(
            E::new("p")
                .class("drapeau alerte")
                .text("Réponse sans citation : rien ne permet de vérifier d'où elle vient.")
                .build(),
        );
    }
    let cost = if cached {
        // What it was computed from is the model and the fiches listed below (the cache key is a
        // hash of exactly what was sent); its date says when.
        let when = chat
            .obtained
            .as_deref()
            .and_then(|d| d.get(..16))
            .map(|d| format!(" le {} à {}", &d[..10], &d[11..16]))
            .unwrap_or_default();
        format!(
            "Réponse déjà obtenue (cache de ce navigateur{when} UTC, {model}, pour les fiches ci-dessous) : rien de plus à payer."
        )
    } else {
        let (sent_t, got_t) = (chat.prompt_tokens, chat.completion_tokens);
        let price = match prices::cost_usd(model, sent_t, got_t) {
            Some(usd) => format!(
                "environ {} (tarif de {model} relevé en {})",
                fr::dollars(usd),
                prices::CHECKED
            ),
            None => format!("prix inconnu pour {model}"),
        };
        format!(
            "{} tokens envoyés, {} reçus : {price}.",
            fr::int(sent_t),
            fr::int(got_t),
        )
    };
    let sources = sent.iter().map(|f| {
        let cited = check.citations.iter().any(|c| c == &f.id);
        E::new("li")
            .attr("id", &format!("source-{}", f.id))
            .class(if cited { "citee" } else { "" })
            .child(E::new("span").class("id").text(&f.id))
            .text(&format!(" {}", f.nom))
            .build()
    });
    E::new("div")
        .class("reponse-rendue")
        .child(answer_text(&chat.content, check))
        .children(flags)
        .child(E::new("p").class("cout-reponse").text(&cost))
        .child(E::new("h4").text("Fiches envoyées"))
        .child(E::new("ol").class("sources").children(sources))
        .build()
}

/// The evaluation table: seed 001's figures, and each question's answer.
pub fn render_evaluation(
    measured: &AnswersMeasured,
    outcomes: &[AnswerOutcome],
    verdicts: &[Verdict],
    judge: &str,
    threshold: &str,
) -> Element {
    let e = &measured.evaluation;
    let row = |label: &str, value: String, class: &str| {
        E::new("tr")
            .class(class)
            .child(E::new("th").attr("scope", "row").text(label))
            .child(E::new("td").text(&value))
            .build()
    };
    let summary = E::new("table").class("mesure evaluation").children([
        row(
            "Refus corrects (questions sans réponse refusées)",
            format!("{}/{}", e.correct_refusals, e.absent),
            "refus-corrects",
        ),
        row(
            "Faux refus (questions avec réponse refusées)",
            format!("{}/{}", e.false_refusals, e.answerable),
            "faux-refus",
        ),
        row(
            "Réponses qui citent la bonne fiche",
            format!("{}/{}", e.cite_expected, e.answerable),
            "citent-attendue",
        ),
        row(
            "Réponses avec une citation inventée",
            e.with_invented.to_string(),
            "inventees",
        ),
        row(
            "Réponses sans citation",
            e.uncited.to_string(),
            "sans-citation",
        ),
        row(
            "Réponses coupées (limite de longueur)",
            e.cut.to_string(),
            "coupees",
        ),
        row(
            &format!("Fidélité (réponses jugées OUI par {judge})"),
            super::shipped::faithfulness_text(measured),
            "fidelite",
        ),
    ]);
    let rows = outcomes.iter().enumerate().map(|(i, o)| {
        let verdict_text = match verdicts.get(i) {
            Some(Verdict::Oui) => "OUI".to_owned(),
            Some(Verdict::Non) => "NON".to_owned(),
            Some(Verdict::Unparsed(t)) => {
                format!("illisible : {}", t.chars().take(60).collect::<String>())
            }
            None => "—".to_owned(),
        };
        let verdict = if o.cut && o.check.citations.is_empty() {
            "réponse coupée (limite de longueur)".to_owned()
        } else if o.check.refused {
            "refus".to_owned()
        } else if !o.check.invented.is_empty() {
            format!("inventée : {}", o.check.invented.join(", "))
        } else if o.check.citations.is_empty() {
            "sans citation".to_owned()
        } else {
            o.check.citations.join(", ")
        };
        let (mark, class, title) = if o.is_right() {
            ("✓", "juste", "juste")
        } else {
            ("✗", "faux", "faux")
        };
        E::new("tr")
            .children([
                E::new("td")
                    .class(class)
                    .child(E::new("span").attr("aria-hidden", "true").text(mark))
                    .child(E::new("span").class("titre-vue").text(title))
                    .build(),
                E::new("td").text(&o.question).build(),
                E::new("td").text(o.kind.as_str()).build(),
                E::new("td")
                    .text(o.expected.as_deref().unwrap_or("—"))
                    .build(),
                E::new("td").text(&verdict).build(),
                E::new("td").class("juge").text(&verdict_text).build(),
                E::new("td").class("texte-court").text(&o.answer).build(),
            ])
            .build()
    });
    let head = E::new("tr").children(
        [
            "juste ?",
            "question",
            "type",
            "attendue",
            "citations",
            "juge",
            "réponse",
        ]
        .iter()
        .map(|h| {
            let th = E::new("th").attr("scope", "col");
            let th = if *h == "réponse" {
                th.class("texte-court")
            } else {
                th
            };
            th.text(h).build()
        }),
    );
    E::new("div")
        .class("evaluation-reponses")
        .child(summary)
        .child(E::new("p").class("seuil-compare").text(threshold))
        .child(
            E::new("details")
                .child(E::new("summary").text("Chaque réponse"))
                .child(
                    E::new("div")
                        .class("grille-conteneur")
                        .child(super::super::dom::scroller(
                            "Chaque réponse",
                            E::new("table")
                                .class("grille reponses")
                                .child(E::new("thead").child(head))
                                .child(E::new("tbody").children(rows))
                                .build(),
                        )),
                ),
        )
        .build()
}
