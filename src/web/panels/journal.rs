//! « Questions sans réponse »: the journal of typed questions the catalogue seems not to cover,
//! with its exports and « Effacer ». Entries reach the DOM as text only.

use crate::fr::decimal;
use crate::journal::Entry;
use crate::page::JournalMsg;

use super::super::dom::{by_id, replace_children, E};
use super::Memo;
use crate::page::{Msg, State};
use web_sys::Element;

/// The journal's section and its list, which `www/index.html` provides.
pub const JOURNAL: &str = "journal";
pub const JOURNAL_LISTE: &str = "journal-liste";
pub const IDS: &[&str] = &[JOURNAL, JOURNAL_LISTE];

/// « Exporter » (`data-journal` = `jsonl` or `csv`) and « Effacer le journal » (`effacer`).
pub fn event(kind: &str, target: &Element) -> Option<Msg> {
    if kind != "click" {
        return None;
    }
    let what = target
        .closest("button")
        .ok()??
        .get_attribute("data-journal")?;
    Some(match what.as_str() {
        "effacer" => Msg::Journal(JournalMsg::Erased),
        _ => Msg::Journal(JournalMsg::Exported(what)),
    })
}

pub fn render(s: &State, memo: &mut Memo) {
    // The journal is replaced whole by the stored one (another tab's additions may land anywhere
    // by date): every entry's identity tells every change (at most 1,000 entries).
    let inputs: Vec<(&str, &str, &str, &str)> = s
        .journal
        .entries
        .iter()
        .map(|e: &Entry| {
            (
                e.date.as_str(),
                e.question.as_str(),
                e.method.as_str(),
                e.verdict.french(),
            )
        })
        .collect();
    if !memo.changed("journal", inputs) {
        return;
    }
    let list = by_id(JOURNAL_LISTE);
    if s.journal.entries.is_empty() {
        replace_children(
            &list,
            [E::new("p")
                .class("etat")
                .text("Aucune question sans réponse pour l'instant.")
                .build()],
        );
        return;
    }
    let head = E::new("tr").children(
        [
            "Date (UTC)",
            "Question",
            "Méthode",
            "Meilleur score",
            "Seuil",
            "Verdict",
        ]
        .iter()
        .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
    // Newest first.
    let rows = s.journal.entries.iter().rev().map(row);
    let table = E::new("table")
        .class("mesure journal")
        .child(E::new("caption").text(&match s.journal.entries.len() {
            1 => "1 question sans réponse".to_owned(),
            n => format!("{} questions sans réponse", crate::fr::int(n as u64)),
        }))
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(rows))
        .build();
    let button = |what: &str, label: &str| {
        E::new("button")
            .attr("type", "button")
            .attr("data-journal", what)
            .text(label)
            .build()
    };
    replace_children(
        &list,
        [
            super::super::dom::scroller("Questions sans réponse", table),
            E::new("div")
                .class("ligne")
                .children([
                    button("jsonl", "Exporter (JSONL)"),
                    button("csv", "Exporter (CSV)"),
                    button("effacer", "Effacer le journal"),
                ])
                .build(),
        ],
    );
}

fn row(e: &Entry) -> web_sys::Element {
    // An ISO 8601 timestamp shown to the minute, its `T` a space.
    let date = e.date.get(..16).unwrap_or(&e.date).replace('T', " ");
    let verdict = match &e.model {
        Some(model) => format!("{} ({model})", e.verdict.french()),
        None => e.verdict.french().to_owned(),
    };
    E::new("tr")
        .attr(
            "data-verdict",
            match e.verdict {
                crate::journal::Verdict::UnderThreshold => "seuil",
                crate::journal::Verdict::ModelRefused => "modele",
            },
        )
        .children([
            E::new("td").text(&date).build(),
            E::new("th").attr("scope", "row").text(&e.question).build(),
            E::new("td").text(&e.method).build(),
            E::new("td").text(&decimal(e.best, 3)).build(),
            E::new("td")
                .text(&e.threshold.map_or("—".to_owned(), |t| decimal(t, 3)))
                .build(),
            E::new("td").text(&verdict).build(),
        ])
        .build()
}
