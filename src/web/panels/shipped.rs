//! « Réponses calculées d'avance »: the answer's lessons computed once for the exercise
//! (`data/reponses.json`) and shown to every learner, key or not — each method's answers with
//! their faithfulness and the answers judged NON to re-read, the whole catalogue in the prompt as
//! the control, and each first stage's top 20 reranked against its ceiling — marked with the date,
//! the models, and whether a real model or the tests' mock wrote them.

use web_sys::Element;

use crate::answer::shipped::{self, Answered, AnswersMeasured, Reranked, ShippedAnswers};
use crate::answer::{judge, rerank, Source};
use crate::data::{Fiche, Question};
use crate::fr;
use crate::mistral::prices;

use super::super::dom::{by_id, replace_children, scroller, E};
use super::super::ids;
use super::Memo;
use crate::page::State;

pub fn render(s: &State, memo: &mut Memo) {
    let shipped = s.data.shipped.as_ref();
    let inputs = (
        s.data.epoch,
        shipped.map(|r| r.as_ref().map(|f| std::rc::Rc::as_ptr(f) as usize)),
        s.shipped_none(),
    );
    if !memo.changed("reponses-livrees", inputs) {
        return;
    }
    let target = by_id(ids::REPONSES_LIVREES);
    let mut content: Vec<Element> = match shipped {
        // The exercise's deploy publishes none: what they would show, and how they come.
        None if s.shipped_none() => vec![E::new("p")
            .class("etat")
            .attr("data-reponses-absentes", "")
            .text(&none_published(s.data.questions.len()))
            .build()],
        None => Vec::new(),
        Some(Err(message)) => vec![E::new("p")
            .class("etat alerte")
            .attr("role", "alert")
            .text(message)
            .build()],
        Some(Ok(file)) => lessons(file, &s.data.questions, s.data.lab.fiches()),
    };
    if !content.is_empty() {
        let title = E::new("h4")
            .attr("id", "livrees-titre")
            .text("Réponses calculées d'avance, visibles sans clé")
            .build();
        content.insert(0, title);
    }
    if content.is_empty() {
        target.set_attribute("hidden", "").ok();
    } else {
        target.remove_attribute("hidden").ok();
    }
    replace_children(&target, content);
}

/// What « Réponses calculées d'avance » would show, said where a deploy publishes none.
fn none_published(questions: usize) -> String {
    format!(
        "Ce site n'en publie pas. Calculées une fois avec une clé par qui déploie la page (la commande «\u{202f}reponses\u{202f}», ou le déploiement GitHub Pages avec le secret MISTRAL_API_KEY\u{a0}: voir le README), elles montreraient ici à chacun, sans clé, les réponses de chaque méthode aux {questions} questions avec leur fidélité, celles jugées NON à relire, «\u{202f}tout le catalogue\u{202f}» en témoin, et les 20 premières reclassées par un modèle. Avec votre clé, «\u{202f}Mesurer les réponses\u{202f}» les calcule ici pour vous."
    )
}

fn cell(text: &str) -> Element {
    E::new("td").text(text).build()
}

fn head(labels: &[&str]) -> Element {
    E::new("thead")
        .child(
            E::new("tr").children(
                labels
                    .iter()
                    .map(|h| E::new("th").attr("scope", "col").text(h).build()),
            ),
        )
        .build()
}

/// Dollars per question of `tokens` with `model`, or « prix inconnu ».
fn per_question(model: &str, t: shipped::Tokens, n: usize) -> String {
    match prices::cost_usd(model, t.prompt, t.completion) {
        Some(usd) => fr::dollars(usd / n.max(1) as f64),
        None => "prix inconnu".into(),
    }
}

/// One row of an answers table: where the fiches came from, the answers measured, and the model
/// that wrote them (for their cost).
pub struct AnswerRow<'a> {
    pub name: &'a str,
    pub measured: AnswersMeasured,
    pub model: &'a str,
}

/// Faithfulness in words: « 98 % (39 OUI sur 40) », and the illegible verdicts.
pub fn faithfulness_text(m: &AnswersMeasured) -> String {
    let f = &m.faithfulness;
    match f.share {
        Some(share) => {
            let mut t = format!(
                "{} ({} OUI sur {})",
                fr::percent(share),
                f.oui,
                f.oui + f.non
            );
            if f.unparsed > 0 {
                t += &format!(", {} verdict(s) illisible(s)", f.unparsed);
            }
            t
        }
        None => "aucun verdict lisible".into(),
    }
}

/// The answers of each source side by side: right fiche cited, refusals, faithfulness, tokens
/// and cost per question (`n` questions).
pub fn answers_table(label: &str, rows: &[AnswerRow], n: usize) -> Element {
    let rows = rows.iter().map(|r| {
        let m = &r.measured;
        let e = &m.evaluation;
        let tokens = (m.tokens.prompt + m.tokens.completion) / n.max(1) as u64;
        E::new("tr")
            .attr("data-methode", r.name)
            .children([
                E::new("th").attr("scope", "row").text(r.name).build(),
                cell(&format!("{}/{}", e.cite_expected, e.answerable)),
                cell(&format!("{}/{}", e.correct_refusals, e.absent)),
                cell(&format!("{}/{}", e.false_refusals, e.answerable)),
                E::new("td")
                    .class("fidelite")
                    .text(&faithfulness_text(m))
                    .build(),
                cell(&fr::int(tokens)),
                cell(&per_question(r.model, m.tokens, n)),
            ])
            .build()
    });
    scroller(
        label,
        E::new("table")
            .class("mesure reponses-livrees")
            .child(head(&[
                "fiches de",
                "bonne fiche citée",
                "refus corrects",
                "faux refus",
                "fidélité (juge)",
                "tokens par question",
                "coût par question",
            ]))
            .child(E::new("tbody").children(rows))
            .build(),
    )
}

/// Each first stage's reranking (by `model`): the expected fiche first and among the 5 kept,
/// before and after, the ceiling, the replies' faults and the cost per question.
pub fn rerank_table(label: &str, rows: &[(&str, &Reranked)], questions: &[Question]) -> Element {
    let n = questions.len();
    let rows = rows.iter().map(|(model, r)| {
        let m = shipped::measure_reranked(r, questions);
        let ceiling = m.ceiling.map_or("—".into(), |c| {
            format!("{} ({}/{})", fr::percent(c), m.within_read, m.answerable)
        });
        E::new("tr")
            .attr("data-methode", &r.stage)
            .children([
                E::new("th").attr("scope", "row").text(&r.stage).build(),
                cell(&format!("{} → {}", m.first_before, m.first_after)),
                cell(&format!("{} → {}", m.kept_before, m.kept_after)),
                E::new("td").class("plafond").text(&ceiling).build(),
                cell(&malformed(&m)),
                cell(&per_question(model, m.tokens, n)),
            ])
            .build()
    });
    scroller(
        label,
        E::new("table")
            .class("mesure reclassement")
            .child(head(&[
                "première étape",
                "bonne fiche en tête (avant → après)",
                "dans les 5 gardées (avant → après)",
                "plafond : dans les 20 lues",
                "réponses du modèle mal formées",
                "coût par question",
            ]))
            .child(E::new("tbody").children(rows))
            .build(),
    )
}

/// A text sent to the model, shown exactly as sent (a `pre`, as « La réponse » shows its
/// request).
fn verbatim(text: &str, label: &str) -> Element {
    E::new("pre")
        .class("consigne")
        .attr("tabindex", "0")
        .attr("aria-label", label)
        .text(text)
        .build()
}

/// What the judge and the reranker read, before anything is sent.
pub fn instructions() -> Element {
    E::new("details")
        .class("consignes")
        .child(E::new("summary").text("Ce que lisent le juge et le reclasseur"))
        .child(E::new("p").class("etat").text(
            "Le juge reçoit les fiches envoyées, la question et la réponse, avec cette consigne :",
        ))
        .child(verbatim(judge::JUDGE_INSTRUCTIONS, "Consigne du juge"))
        .child(E::new("p").class("etat").text(
            "Le reclasseur reçoit les 20 premières fiches et la question, avec cette consigne :",
        ))
        .child(verbatim(
            rerank::RERANK_INSTRUCTIONS,
            "Consigne du reclasseur",
        ))
        .build()
}

fn lessons(file: &ShippedAnswers, questions: &[Question], fiches: &[Fiche]) -> Vec<Element> {
    let models = &file.models;
    let mut out = vec![E::new("p")
        .class("provenance")
        .text(&format!(
            "Calculées le {} avec {} (réponses), {} (juge) et {} (reclassement), pour ces {} fiches et ces {} questions.",
            fr::date(&file.computed),
            models.answer,
            models.judge,
            models.rerank,
            fr::int(fiches.len() as u64),
            fr::int(questions.len() as u64),
        ))
        .build()];
    if !file.from_mistral() {
        out.push(
            E::new("p")
                .class("drapeau alerte simulee")
                .attr("role", "note")
                .text(&format!(
                    "Calculées par une API simulée ({}), pas par un modèle de Mistral : ces chiffres vérifient la page, ils ne disent rien d'un modèle.",
                    file.api
                ))
                .build(),
        );
    }
    let sources: Vec<(&str, &[Answered])> = file
        .methods
        .iter()
        .map(|m| (m.method.as_str(), m.answers.as_slice()))
        .chain(
            (!file.catalogue.is_empty()).then_some((Source::CATALOGUE, file.catalogue.as_slice())),
        )
        .collect();
    let rows: Vec<AnswerRow> = sources
        .iter()
        .map(|(name, answers)| AnswerRow {
            name,
            measured: shipped::measure(answers, questions),
            model: &models.answer,
        })
        .collect();
    out.push(
        E::new("h5")
            .text("Les réponses : citent-elles la bonne fiche, disent-elles ce que disent les fiches ?")
            .build(),
    );
    out.push(answers_table(
        "Réponses calculées d'avance",
        &rows,
        questions.len(),
    ));
    out.push(
        E::new("p")
            .class("intro")
            .text(&format!(
                "La fidélité : {} relit chaque réponse avec les fiches envoyées et dit OUI si tout ce qu'elle affirme y est, NON sinon. \
                 Une recherche peut trouver la bonne fiche et la réponse dire autre chose : relisez à la main les réponses jugées NON. \
                 « tout le catalogue » envoie les {} fiches avec chaque question, sans recherche : le témoin de toutes les méthodes, et son coût.",
                models.judge,
                fr::int(fiches.len() as u64)
            ))
            .build(),
    );
    for ((name, answers), row) in sources.iter().zip(&rows) {
        let items: Vec<Reread> = answers
            .iter()
            .zip(questions)
            .map(|(a, q)| Reread {
                question: &q.text,
                answer: &a.answer,
                sent: &a.sent,
            })
            .collect();
        if let Some(list) = non_list(name, &row.measured.non, &items) {
            out.push(list);
        }
    }
    if !file.reranked.is_empty() {
        out.push(
            E::new("h5")
                .text("Relire les 20 premières fiches et garder les 5 meilleures")
                .build(),
        );
        let rows: Vec<(&str, &Reranked)> = file
            .reranked
            .iter()
            .map(|r| (models.rerank.as_str(), r))
            .collect();
        out.push(rerank_table("Reclassement", &rows, questions));
        out.push(
            E::new("p")
                .class("intro")
                .text(&format!(
                    "{} note chaque fiche des 20 premières de 0 à 10 ; les fiches sont reclassées par note, une fiche non notée garde son rang après les notées. \
                     Aucun reclassement ne trouve une fiche que la première étape n'a pas lue : le plafond. \
                     Chaque liste reclassée est mesurée comme une méthode, « … reclassé », dans les tableaux, la grille et les exports ci-dessus.",
                    models.rerank
                ))
                .build(),
        );
    }
    out
}

/// What the reranker's replies got wrong, or « aucune ».
fn malformed(m: &shipped::RerankMeasured) -> String {
    let parts: Vec<String> = [
        (m.replies_with_omitted, "avec une fiche oubliée"),
        (m.replies_with_invented, "avec une fiche inventée"),
        (m.replies_with_unparsed, "avec une ligne illisible"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        "aucune".into()
    } else {
        parts.join(", ")
    }
}

/// One answer to re-read: its question, its text and the ids of the fiches it was written from.
pub struct Reread<'a> {
    pub question: &'a str,
    pub answer: &'a str,
    pub sent: &'a [String],
}

/// The answers judged NON for `name` (`non`: their indexes in `items`), each with its question
/// and the fiches it was written from: to be re-read by hand. `None` when there are none.
pub fn non_list(name: &str, non: &[usize], items: &[Reread]) -> Option<Element> {
    if non.is_empty() {
        return None;
    }
    let lis = non.iter().filter_map(|&i| {
        let r = items.get(i)?;
        let sent = if r.sent.len() > 10 {
            format!("{} fiches", r.sent.len())
        } else {
            r.sent.join(", ")
        };
        Some(
            E::new("li")
                .child(E::new("p").class("question").text(r.question))
                .child(E::new("p").class("texte-reponse").text(r.answer))
                .child(
                    E::new("p")
                        .class("etat")
                        .text(&format!("Fiches envoyées : {sent}")),
                )
                .build(),
        )
    });
    Some(
        E::new("details")
            .class("a-relire")
            .attr("data-methode", name)
            .child(E::new("summary").text(&format!(
                "{} : {} réponse(s) jugée(s) NON, à relire à la main",
                name,
                non.len()
            )))
            .child(E::new("ol").children(lis))
            .build(),
    )
}
