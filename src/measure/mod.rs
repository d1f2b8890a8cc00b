//! The measurement: every question searched, the expected fiche's rank read off, figures per
//! question type — and the seed's `mesurer.py` text, byte for byte.
//!
//! Definitions (per type `exacte` / `courante`, over the questions of that type):
//! - hit@1: questions whose expected fiche is ranked first (the seed's « bonne fiche en tête »);
//! - hit@5: questions whose expected fiche is in the first five (« dans les 5 premières »);
//! - MRR@10: the mean of 1/rank of the expected fiche, counting 0 when it is not in the first ten;
//! - missed: the questions whose expected fiche is not in the first five, in file order.
//!
//! For `absente` questions the interesting figure is the best score, compared with the best scores
//! of answerable questions: the seed shows that no threshold separates them.

/// Paired wins and losses with an exact sign test; refusal-threshold calibration.
pub mod compare;
/// CSV, JSON, TREC runs and qrels (for trec_eval and ranx).
pub mod export;
/// Python's `round` and `repr(float)`, for the seed's report byte for byte.
pub mod pyfmt;

use serde::Serialize;

use crate::data::{Question, QuestionKind};

/// A score as the seed prints it: rounded to `decimals` (if any), in Python's `repr`.
pub fn show_score(score: f64, decimals: Option<usize>) -> String {
    match decimals {
        Some(n) => pyfmt::repr(pyfmt::round(score, n)),
        None => pyfmt::repr(score),
    }
}

/// How many results are kept per question: enough for MRR@10.
pub const DEPTH: usize = 10;

/// One question's outcome under one method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionOutcome {
    #[serde(rename = "type")]
    pub kind: QuestionKind,
    pub question: String,
    pub expected: Option<String>,
    /// Rank (from 1) of the expected fiche in the first ten, if there.
    pub rank: Option<usize>,
    /// The first ten `[id, score]` pairs, raw scores.
    pub top: Vec<(String, f64)>,
}

/// The figures of one question type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindStats {
    #[serde(rename = "type")]
    pub kind: QuestionKind,
    pub questions: usize,
    pub hit1: usize,
    pub hit5: usize,
    pub mrr10: f64,
    pub missed: Vec<String>,
}

/// One method measured on one question set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    pub method: String,
    /// Decimals the method's scores are shown with (the seed rounds `mots` to 2, `sens` to 3, and
    /// leaves RRF scores unrounded): `None` for unrounded.
    pub score_decimals: Option<usize>,
    pub questions: Vec<QuestionOutcome>,
    /// `exacte` then `courante`.
    pub kinds: Vec<KindStats>,
    /// Lowest and highest best score among answerable questions (shown rounded).
    pub answered_best: Option<(f64, f64)>,
    /// Each absente question with its best score.
    pub absent_best: Vec<(String, f64)>,
}

impl Measurement {
    /// Searches every question with `search` (which returns the first results, best first, at
    /// least [`DEPTH`] when the catalogue has that many) and computes the figures.
    pub fn run(
        method: &str,
        score_decimals: Option<usize>,
        questions: &[Question],
        mut search: impl FnMut(&str) -> Vec<(String, f64)>,
    ) -> Measurement {
        let outcomes = questions
            .iter()
            .map(|q| Measurement::outcome(q, search(&q.text)))
            .collect();
        Measurement::from_outcomes(method, score_decimals, outcomes)
    }

    /// One question's outcome from its ranked `[id, score]` list (cut to [`DEPTH`]).
    pub fn outcome(q: &Question, mut top: Vec<(String, f64)>) -> QuestionOutcome {
        top.truncate(DEPTH);
        let rank = q
            .expected
            .as_ref()
            .and_then(|e| top.iter().position(|(id, _)| id == e))
            .map(|p| p + 1);
        QuestionOutcome {
            kind: q.kind,
            question: q.text.clone(),
            expected: q.expected.clone(),
            rank,
            top,
        }
    }

    /// The figures of already-searched questions.
    pub fn from_outcomes(
        method: &str,
        score_decimals: Option<usize>,
        outcomes: Vec<QuestionOutcome>,
    ) -> Measurement {
        let kinds = QuestionKind::ANSWERABLE
            .iter()
            .map(|&kind| {
                let lot: Vec<&QuestionOutcome> =
                    outcomes.iter().filter(|o| o.kind == kind).collect();
                let hit1 = lot.iter().filter(|o| o.rank == Some(1)).count();
                let hit5 = lot
                    .iter()
                    .filter(|o| o.rank.is_some_and(|r| r <= 5))
                    .count();
                let rr: f64 = lot
                    .iter()
                    .map(|o| o.rank.map_or(0.0, |r| 1.0 / r as f64))
                    .sum();
                let mrr10 = if lot.is_empty() {
                    0.0
                } else {
                    rr / lot.len() as f64
                };
                let missed = lot
                    .iter()
                    .filter(|o| !o.rank.is_some_and(|r| r <= 5))
                    .map(|o| o.question.clone())
                    .collect();
                KindStats {
                    kind,
                    questions: lot.len(),
                    hit1,
                    hit5,
                    mrr10,
                    missed,
                }
            })
            .collect();
        let best = |o: &QuestionOutcome| o.top.first().map_or(0.0, |t| t.1);
        let present: Vec<f64> = outcomes
            .iter()
            .filter(|o| o.kind != QuestionKind::Absente)
            .map(best)
            .collect();
        let answered_best = if present.is_empty() {
            None
        } else {
            let min = present.iter().copied().fold(f64::INFINITY, f64::min);
            let max = present.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Some((min, max))
        };
        let absent_best = outcomes
            .iter()
            .filter(|o| o.kind == QuestionKind::Absente)
            .map(|o| (o.question.clone(), best(o)))
            .collect();
        Measurement {
            method: method.to_owned(),
            score_decimals,
            questions: outcomes,
            kinds,
            answered_best,
            absent_best,
        }
    }

    /// A score as the seed prints it for this method.
    pub fn show_score(&self, score: f64) -> String {
        show_score(score, self.score_decimals)
    }

    /// The seed's `mesurer.py` output for this measurement, byte for byte (trailing newline
    /// included).
    pub fn seed_report(&self) -> String {
        let mut out = format!("Méthode : {}\n", self.method);
        for k in &self.kinds {
            out += &format!(
                "Questions {}s : {} ; bonne fiche en tête : {} ; dans les 5 premières : {}\n",
                k.kind.as_str(),
                k.questions,
                k.hit1,
                k.hit5
            );
            for q in &k.missed {
                out += &format!("  ratée : {q}\n");
            }
        }
        out.push('\n');
        if let Some((min, max)) = self.answered_best {
            out += &format!(
                "Meilleur score, questions qui ont une réponse : de {} à {}\n",
                self.show_score(min),
                self.show_score(max)
            );
        }
        for (q, s) in &self.absent_best {
            out += &format!(
                "Meilleur score, sans réponse : {:>5}  {q}\n",
                self.show_score(*s)
            );
        }
        out
    }
}
