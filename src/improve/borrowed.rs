//! Enrichments whose words come from the questions they are measured on. Adding a question's
//! own words to its expected fiche always helps that question: the gain is then measured on the
//! questions that inspired it, and says nothing of others. The verdict says so, and points to
//! questions kept apart (« l'épreuve », or another questions file).

use serde::Serialize;

use super::Settings;
use crate::data::Question;
use crate::lab::Lab;

/// An enrichment that adds words of measured questions expecting a fiche it enriches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Borrowed {
    /// Its position among the settings' enrichments.
    pub enrichment: usize,
    pub id: String,
    /// Its words found in those questions, as the enrichment writes them, once each, in order.
    pub words: Vec<String>,
    /// Those questions' rows in the question file (from 0).
    pub rows: Vec<usize>,
}

/// The enrichments of `settings` whose words (as its keyword analysis sees them: stop words
/// dropped, stems compared when it stems) occur in a question of `questions` that expects a fiche
/// the enrichment adds them to (its product's variants too when it enriches them all).
pub fn borrowed(lab: &Lab, settings: &Settings, questions: &[Question]) -> Vec<Borrowed> {
    let analyzer = settings.analysis.analyzer();
    let mut out = Vec::new();
    for (i, e) in settings.enrich.iter().enumerate() {
        let targets = |id: &str| id == e.id || (e.product && lab.products().same(&e.id, id));
        let added = analyzer.analyze(&e.words);
        let mut found = Borrowed {
            enrichment: i,
            id: e.id.clone(),
            words: Vec::new(),
            rows: Vec::new(),
        };
        for (row, q) in questions.iter().enumerate() {
            if !q.expected.as_deref().is_some_and(targets) {
                continue;
            }
            let asked = analyzer.terms(&q.text);
            let mut shared = false;
            for token in added.iter().filter(|t| asked.contains(&t.term)) {
                shared = true;
                let word = &e.words[token.start..token.end];
                if !found.words.iter().any(|w| w == word) {
                    found.words.push(word.to_owned());
                }
            }
            if shared {
                found.rows.push(row);
            }
        }
        if !found.rows.is_empty() {
            out.push(found);
        }
    }
    out
}

/// The warning, in French: which fiche was given which question words, how many questions they
/// come from, then `check` (where to measure it on questions kept apart). Empty when nothing is
/// borrowed.
pub fn warning(borrowed: &[Borrowed], check: &str) -> String {
    if borrowed.is_empty() {
        return String::new();
    }
    let each: Vec<String> = borrowed
        .iter()
        .map(|b| {
            let words: Vec<String> = b
                .words
                .iter()
                .map(|w| format!("«\u{202f}{w}\u{202f}»"))
                .collect();
            let n = b.rows.len();
            format!(
                "{} + {}\u{a0}: {n} question{}",
                b.id,
                words.join(", "),
                if n > 1 { "s" } else { "" }
            )
        })
        .collect();
    format!(
        "Attention\u{a0}: des mots ajoutés viennent des questions mesurées ({}). Le gain est mesuré sur les questions mêmes qui les ont inspirés\u{a0}: il ne dit pas ce que l'enrichissement vaut pour d'autres. {check}",
        each.join("\u{a0}; ")
    )
}
