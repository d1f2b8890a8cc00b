//! « Questions »: the pool of the measured methods' first fiches, judged by hand one pair at a
//! time (four grades, one tap or one key each, « Annuler », progress), and the questions
//! measured. The pair's controls are in `www/index.html` and only their texts change: a grade
//! button keeps the focus from one pair to the next.

use wasm_bindgen::JsCast;
use web_sys::Element;

use super::super::dom::{by_id, document, replace_children, set_disabled, set_hidden, set_text, E};
use super::Memo;
use crate::page::{JudgeMsg, Msg, State};

const ETAT: &str = "juger-etat";
const PROGRES: &str = "juger-progres";
const PAIRE: &str = "juger-paire";
const QUESTION_N: &str = "juger-question-n";
const QUESTION: &str = "juger-question";
const FICHE_NOM: &str = "juger-fiche-nom";
const FICHE_ID: &str = "juger-fiche-id";
const FICHE_TEXTE: &str = "juger-fiche-texte";
const ANNULER: &str = "juger-annuler";
const EXPORTER: &str = "juger-exporter";
const MESSAGE: &str = "juger-message";
const LISTE: &str = "questions-liste";
const REFUS: &str = "juger-refus";
const ACCORD: &str = "juger-accord";
pub const IDS: &[&str] = &[
    ETAT,
    PROGRES,
    PAIRE,
    QUESTION_N,
    QUESTION,
    FICHE_NOM,
    FICHE_ID,
    FICHE_TEXTE,
    ANNULER,
    EXPORTER,
    MESSAGE,
    LISTE,
    REFUS,
    ACCORD,
];

/// A grade button (`data-note`), « Annuler » and « Exporter » (`data-pool`); on the pair, the
/// keys 0 to 3 and Backspace.
pub fn event(kind: &str, target: &Element) -> Option<Msg> {
    target.closest("#juger").ok()??;
    match kind {
        "click" => {
            let button = target.closest("button").ok()??;
            if let Some(note) = button.get_attribute("data-note") {
                return graded(&note);
            }
            match button.get_attribute("data-pool")?.as_str() {
                "annuler" => Some(Msg::Judge(JudgeMsg::Undone)),
                "exporter" => Some(Msg::Judge(JudgeMsg::Exported)),
                "reprendre" => Some(Msg::Judge(JudgeMsg::Adopted)),
                _ => None,
            }
        }
        "keydown" => {
            let e = web_sys::window()?.event();
            let key = e.dyn_ref::<web_sys::KeyboardEvent>()?;
            if key.ctrl_key() || key.meta_key() || key.alt_key() {
                return None;
            }
            match key.key().as_str() {
                n @ ("0" | "1" | "2" | "3") => graded(n),
                "Backspace" => Some(Msg::Judge(JudgeMsg::Undone)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The grade `note` for the pair the view shows (named on `#juger-paire`).
fn graded(note: &str) -> Option<Msg> {
    let pair = by_id(PAIRE);
    if pair.has_attribute("hidden") {
        return None;
    }
    Some(Msg::Judge(JudgeMsg::Graded {
        question: pair.get_attribute("data-question")?.parse().ok()?,
        fiche: pair.get_attribute("data-fiche")?,
        grade: note.parse().ok()?,
    }))
}

pub fn render(s: &State, memo: &mut Memo) {
    let j = &s.data.judging;
    let total = j.pool.len();
    let done = j.pool.done(&j.hand);
    set_text(
        &by_id(ETAT),
        &if s.data.questions.is_empty() {
            crate::fr::labels::NO_QUESTIONS.to_owned()
        } else if j.read {
            crate::fr::labels::judging_progress(done, total, j.hand.len())
        } else {
            "Lecture des notes gardées sur cet appareil…".to_owned()
        },
    );
    let progress = by_id(PROGRES);
    progress
        .set_attribute("max", &total.max(1).to_string())
        .ok();
    progress.set_attribute("value", &done.to_string()).ok();
    set_hidden(&progress, total == 0);
    let next = j.read.then(|| j.pool.next(&j.hand)).flatten();
    let pair = by_id(PAIRE);
    set_hidden(&pair, next.is_none());
    if let Some((q, id)) = next {
        pair.set_attribute("data-question", &q.to_string()).ok();
        pair.set_attribute("data-fiche", id).ok();
        if let Some(question) = s.data.questions.get(*q) {
            set_text(
                &by_id(QUESTION_N),
                &format!(
                    "Question {} sur {} ({})\u{a0}:",
                    q + 1,
                    s.data.questions.len(),
                    question.kind.as_str()
                ),
            );
            set_text(&by_id(QUESTION), &question.text);
        }
        let fiche = s
            .data
            .lab
            .doc_of(id)
            .and_then(|d| s.data.lab.fiches().get(d));
        set_text(&by_id(FICHE_NOM), fiche.map_or("", |f| f.nom.as_str()));
        set_text(&by_id(FICHE_ID), id);
        set_text(&by_id(FICHE_TEXTE), fiche.map_or("", |f| f.texte.as_str()));
    }
    set_disabled(&by_id(ANNULER), j.hand.is_empty());
    set_disabled(&by_id(EXPORTER), j.qrels.is_empty());
    let message = by_id(MESSAGE);
    set_text(&message, j.message.as_deref().unwrap_or_default());
    set_hidden(&message, j.message.is_none());
    let refused = by_id(REFUS);
    set_text(&refused, j.refused.as_deref().unwrap_or_default());
    set_hidden(&refused, j.refused.is_none());
    other(s, memo);
    list(s, memo);
}

/// The questions measured, each with its type, its expected fiche and how many of its fiches
/// are graded (the catalogue's own and by hand).
fn list(s: &State, memo: &mut Memo) {
    let d = &s.data;
    if !memo.changed("questions", (d.epoch, d.judging.version)) {
        return;
    }
    // No questions: the state line above says what to do.
    if d.questions.is_empty() {
        replace_children(&by_id(LISTE), []);
        return;
    }
    let head = E::new("tr").children(
        ["N°", "Question", "Attendue", "Notes"]
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
    // The first rows only at scale, as « Mesurer »'s grid.
    let rows = d
        .questions
        .iter()
        .take(crate::page::GRID_PAGE)
        .enumerate()
        .map(|(i, q)| {
            let graded = d.judging.qrels.of(i).map_or(0, |g| g.len());
            E::new("tr")
                .children([
                    E::new("td").text(&(i + 1).to_string()).build(),
                    E::new("th")
                        .attr("scope", "row")
                        .child(E::new("span").class("type").text(q.kind.as_str()).build())
                        .child(document().create_text_node(&format!(" {}", q.text)))
                        .build(),
                    E::new("td")
                        .text(q.expected.as_deref().unwrap_or("—"))
                        .build(),
                    E::new("td").text(&graded.to_string()).build(),
                ])
                .build()
        });
    let table = E::new("table")
        .class("mesure questions")
        .child(E::new("caption").text(&caption(d.questions.len())))
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(rows))
        .build();
    replace_children(
        &by_id(LISTE),
        [super::super::dom::scroller("Les questions mesurées", table)],
    );
}

fn caption(n: usize) -> String {
    let all = crate::fr::numbers::count(n as u64, "question", "questions");
    if n > crate::page::GRID_PAGE {
        format!("{all}, les {} premières ici", crate::page::GRID_PAGE)
    } else {
        all
    }
}

/// Another judge's file against the hand judgments: in words, the confusion table, and
/// « Reprendre leurs notes » for the pairs the learner did not grade.
fn other(s: &State, memo: &mut Memo) {
    let j = &s.data.judging;
    let shown = by_id(ACCORD);
    let Some((name, theirs)) = &j.other else {
        set_hidden(&shown, true);
        return;
    };
    set_hidden(&shown, false);
    if !memo.changed(
        "juger-accord",
        (s.data.epoch, j.version, name, theirs.len()),
    ) {
        return;
    }
    let mine = j.hand.over(&Default::default());
    let agree = crate::measure::judging::Agreement::between(&mine, theirs);
    let untaken = theirs
        .iter()
        .map(|(q, g)| g.keys().filter(|f| j.hand.grade(q, f).is_none()).count())
        .sum::<usize>();
    let mut children = vec![E::new("p")
        .text(&crate::fr::labels::agreement(&agree, name))
        .build()];
    if agree.pairs > 0 {
        let head = E::new("tr").children(
            std::iter::once("vous \\ autre juge".to_owned())
                .chain((0..4).map(|g| g.to_string()))
                .map(|h| E::new("th").attr("scope", "col").text(&h).build()),
        );
        let rows = agree.confusion.iter().enumerate().map(|(g, row)| {
            E::new("tr")
                .child(
                    E::new("th")
                        .attr("scope", "row")
                        .text(&g.to_string())
                        .build(),
                )
                .children(row.iter().map(|n| {
                    E::new("td")
                        .class(if n > &0 { "compte" } else { "zero" })
                        .text(&n.to_string())
                        .build()
                }))
                .build()
        });
        children.push(
            E::new("table")
                .class("mesure confusion")
                .child(E::new("caption").text("Vos notes en ligne, les siennes en colonne"))
                .child(E::new("thead").child(head))
                .child(E::new("tbody").children(rows))
                .build(),
        );
    }
    let take = E::new("button")
        .attr("type", "button")
        .attr("data-pool", "reprendre")
        .text(&format!(
            "Reprendre ses notes là où vous n'en avez pas ({})",
            crate::fr::numbers::count(untaken as u64, "fiche", "fiches")
        ));
    let take = if untaken == 0 || !j.read {
        take.attr("disabled", "")
    } else {
        take
    };
    children.push(E::new("div").class("ligne").child(take.build()).build());
    replace_children(&shown, children);
}
