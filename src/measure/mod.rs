//! The measurement: every question searched, the expected fiche's rank read off, figures per
//! question type — and the seed's `mesurer.py` text, byte for byte.
//!
//! Definitions (per type `exacte` / `courante`, over the questions of that type):
//! - hit@1: questions whose expected fiche is ranked first (the seed's « bonne fiche en tête »);
//! - hit@5: questions whose expected fiche is in the first five (« dans les 5 premières »);
//! - MRR@10: the mean of 1/rank of the expected fiche, counting 0 when it is not in the first ten;
//! - missed: the questions whose expected fiche is not in the first five, in file order.
//!
//! Each figure is computed twice: **as ranked** (the method's order, ties broken by its tie rule:
//! the seed's larger id first for BM25) and **pessimistically**: every fiche whose score equals the
//! expected fiche's counts as ranked above it, so a tie never helps. The two differ only where the
//! expected fiche ties with others; the gap is how much a figure owes to the tie rule.
//!
//! For `absente` questions the interesting figure is the best score, compared with the best scores
//! of answerable questions: the seed shows that no threshold separates them.

/// Paired wins and losses with an exact sign test; refusal-threshold calibration.
pub mod compare;
/// CSV, JSON, TREC runs and qrels (for trec_eval and ranx).
pub mod export;
/// Graded judgments (TREC qrels, 0 to 3) and nDCG@10, recall@10, Judged@10.
pub mod graded;
/// Any engine's TREC run, read back and measured as a method.
pub mod import;
/// The pool of several methods' first fiches, judged by hand, and the judgments as qrels.
pub mod judging;
/// Every pair of methods on every measure, with Holm's correction over the pairs.
pub mod pairs;
/// Where an engine's run ranks as one of our methods, beyond ties.
pub mod parity;
/// Products and their variants: the expected fiche's siblings.
pub mod products;
/// Python's `round` and `repr(float)`, for the seed's report byte for byte.
pub mod pyfmt;
/// A difference between two methods: bootstrap interval, t-test, effect size, the questions
/// needed; Holm's correction.
pub mod stats;

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
    /// The eleventh result, kept only when its score equals the tenth's: a tie that runs past the
    /// first ten (it makes the tenth's rank a range, and a TREC export holds it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tied_beyond: Option<(String, f64)>,
    /// The ranks (from 1) the expected fiche shares with the fiches of equal score: `(r, r)` when
    /// nobody ties with it; the last is [`DEPTH`] + 1 when the tie runs past the first ten.
    pub tie_ranks: Option<(usize, usize)>,
    /// Rank (from 1) of the first fiche of the expected fiche's product (itself or a sibling
    /// variant) in the first ten; set by [`Measurement::with_products`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_rank: Option<usize>,
}

impl QuestionOutcome {
    /// The expected fiche's rank when every fiche of equal score is counted above it, if that is
    /// still within the first ten.
    pub fn worst_rank(&self) -> Option<usize> {
        self.tie_ranks.map(|t| t.1).filter(|&r| r <= DEPTH)
    }

    /// Whether the expected fiche shares its score with another fiche.
    pub fn tied(&self) -> bool {
        self.tie_ranks.is_some_and(|(a, b)| a != b)
    }
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
    /// The same three figures, pessimistic: ties count against the expected fiche.
    pub worst_hit1: usize,
    pub worst_hit5: usize,
    pub worst_mrr10: f64,
    /// hit@1, hit@5 and MRR@10 at the product level ([`Measurement::with_products`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product: Option<ProductFigures>,
}

/// A question type's figures counted at the product level: any variant of the expected product.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProductFigures {
    pub hit1: usize,
    pub hit5: usize,
    pub mrr10: f64,
}

/// hit@1, hit@5 and MRR@10 of a list of ranks (from 1; `None`: not in the first ten).
fn figures(ranks: impl Iterator<Item = Option<usize>> + Clone) -> (usize, usize, f64) {
    let n = ranks.clone().count();
    let hit1 = ranks.clone().filter(|r| *r == Some(1)).count();
    let hit5 = ranks.clone().filter(|r| r.is_some_and(|r| r <= 5)).count();
    let rr: f64 = ranks.map(|r| r.map_or(0.0, |r| 1.0 / r as f64)).sum();
    let mrr10 = if n == 0 { 0.0 } else { rr / n as f64 };
    (hit1, hit5, mrr10)
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
    /// least [`DEPTH`] + 1 when the catalogue has that many, so that a tie past the tenth is seen)
    /// and computes the figures.
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

    /// One question's outcome from its ranked `[id, score]` list, best first (cut to [`DEPTH`];
    /// give [`DEPTH`] + 1 results so that a tie with the tenth is seen).
    pub fn outcome(q: &Question, mut top: Vec<(String, f64)>) -> QuestionOutcome {
        top.truncate(DEPTH + 1);
        let tied_beyond = match (top.get(DEPTH - 1), top.get(DEPTH)) {
            (Some(tenth), Some(eleventh)) if tenth.1 == eleventh.1 => Some(eleventh.clone()),
            _ => None,
        };
        let position = q.expected.as_ref().and_then(|e| {
            top[..top.len().min(DEPTH)]
                .iter()
                .position(|(id, _)| id == e)
        });
        let tie_ranks = position.map(|p| {
            let score = top[p].1;
            let first = top[..p]
                .iter()
                .rposition(|t| t.1 != score)
                .map_or(0, |i| i + 1);
            let last = top[p..]
                .iter()
                .position(|t| t.1 != score)
                .map_or(top.len() - 1, |i| p + i - 1);
            (first + 1, last + 1)
        });
        top.truncate(DEPTH);
        QuestionOutcome {
            kind: q.kind,
            question: q.text.clone(),
            expected: q.expected.clone(),
            rank: position.map(|p| p + 1),
            top,
            tied_beyond,
            tie_ranks,
            product_rank: None,
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
                let (hit1, hit5, mrr10) = figures(lot.iter().map(|o| o.rank));
                let (worst_hit1, worst_hit5, worst_mrr10) =
                    figures(lot.iter().map(|o| o.worst_rank()));
                let missed = lot
                    .iter()
                    .filter(|o| o.rank.is_none_or(|r| r > 5))
                    .map(|o| o.question.clone())
                    .collect();
                KindStats {
                    kind,
                    questions: lot.len(),
                    hit1,
                    hit5,
                    mrr10,
                    missed,
                    worst_hit1,
                    worst_hit5,
                    worst_mrr10,
                    product: None,
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

    /// The same measurement with each question's [`QuestionOutcome::product_rank`] and each
    /// type's product figures, when some product has several fiches (else unchanged).
    pub fn with_products(mut self, products: &products::Products) -> Measurement {
        if !products.has_siblings() {
            return self;
        }
        for o in &mut self.questions {
            o.product_rank = o.expected.as_ref().and_then(|e| {
                o.top
                    .iter()
                    .position(|(id, _)| products.same(e, id))
                    .map(|p| p + 1)
            });
        }
        for k in &mut self.kinds {
            let ranks = self
                .questions
                .iter()
                .filter(|o| o.kind == k.kind)
                .map(|o| o.product_rank);
            let (hit1, hit5, mrr10) = figures(ranks);
            k.product = Some(ProductFigures { hit1, hit5, mrr10 });
        }
        self
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

/// One row of a comparison table: a method's hit@1, hit@5 and MRR@10 for exactes and courantes,
/// as ranked or pessimistic.
fn table_row(m: &Measurement, worst: bool, width: usize) -> String {
    let cell = |k: &KindStats| {
        let (h1, h5, mrr) = if worst {
            (k.worst_hit1, k.worst_hit5, k.worst_mrr10)
        } else {
            (k.hit1, k.hit5, k.mrr10)
        };
        format!(
            "{:>6} {:>9} {:>7.3}",
            format!("{h1}/{}", k.questions),
            format!("{h5}/{}", k.questions),
            mrr
        )
    };
    format!(
        "{:<width$}  {}    {}\n",
        m.method,
        cell(&m.kinds[0]),
        cell(&m.kinds[1])
    )
}

/// The width of the methods' column: 13 characters, or the longest name (an engine's run
/// named `postgres-hybride`).
pub fn name_width(ms: &[Measurement]) -> usize {
    ms.iter()
        .map(|m| m.method.chars().count())
        .max()
        .unwrap_or(0)
        .max(13)
}

/// The terminal's comparison: methods × exactes and courantes (hit@1, hit@5, MRR@10), as ranked,
/// then pessimistic (`mesurer --all`, the ablation, `pairs`).
pub fn text_tables(ms: &[Measurement]) -> String {
    let width = name_width(ms);
    let mut out = format!("{:<width$}  {:<24}    {:<24}\n", "", "exactes", "courantes");
    out += &format!(
        "{:<width$}  {:>6} {:>9} {:>7}    {:>6} {:>9} {:>7}\n",
        "méthode", "tête", "5 prem.", "MRR@10", "tête", "5 prem.", "MRR@10"
    );
    for m in ms {
        out += &table_row(m, false, width);
    }
    out += "\nPessimiste : chaque fiche de même score que l'attendue comptée devant elle (ex æquo) :\n";
    for m in ms {
        out += &table_row(m, true, width);
    }
    // The product level, where the catalogue has products of several variants.
    if ms
        .iter()
        .any(|m| m.kinds.iter().any(|k| k.product.is_some()))
    {
        out += "\nBon produit : la fiche attendue ou une autre variante du même produit :\n";
        for m in ms {
            let cell = |k: &KindStats| match &k.product {
                Some(p) => format!(
                    "{:>6} {:>9} {:>7.3}",
                    format!("{}/{}", p.hit1, k.questions),
                    format!("{}/{}", p.hit5, k.questions),
                    p.mrr10
                ),
                None => format!("{:>6} {:>9} {:>7}", "—", "—", "—"),
            };
            out += &format!(
                "{:<width$}  {}    {}\n",
                m.method,
                cell(&m.kinds[0]),
                cell(&m.kinds[1])
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(kind: QuestionKind, expected: &str) -> Question {
        Question {
            kind,
            text: format!("question {expected}"),
            expected: Some(expected.to_owned()),
        }
    }

    fn list(scores: &[(&str, f64)]) -> Vec<(String, f64)> {
        scores.iter().map(|(i, s)| (i.to_string(), *s)).collect()
    }

    #[test]
    fn a_long_method_name_widens_the_column_for_every_row() {
        let c = QuestionKind::Courante;
        let questions = [q(QuestionKind::Exacte, "A"), q(c, "B")];
        let m = |name: &str| {
            Measurement::run(name, None, &questions, |_| list(&[("A", 2.0), ("B", 1.0)]))
        };
        let text = text_tables(&[m("mots"), m("postgres-hybride")]);
        let rows: Vec<&str> = text.lines().filter(|l| l.contains("1/1")).collect();
        assert_eq!(rows.len(), 4, "{text}");
        // The first cell starts at the same column in every row: after the longest name.
        for row in rows {
            assert_eq!(
                row.chars().position(|ch| ch == '/'),
                Some(16 + 2 + 4),
                "{text}"
            );
        }
    }

    #[test]
    fn a_tie_counts_against_the_expected_fiche_only_pessimistically() {
        let c = QuestionKind::Courante;
        // Expected first, tied with the second: as ranked 1, pessimistic 2.
        let a = Measurement::outcome(&q(c, "B"), list(&[("B", 3.0), ("A", 3.0), ("C", 1.0)]));
        assert_eq!(
            (a.rank, a.tie_ranks, a.worst_rank()),
            (Some(1), Some((1, 2)), Some(2))
        );
        assert!(a.tied());
        // Alone at its score: the same either way.
        let b = Measurement::outcome(&q(c, "C"), list(&[("B", 3.0), ("A", 3.0), ("C", 1.0)]));
        assert_eq!(
            (b.rank, b.tie_ranks, b.worst_rank()),
            (Some(3), Some((3, 3)), Some(3))
        );
        assert!(!b.tied());
        // Tenth, tied with the eleventh: pessimistically outside the first ten.
        let mut long: Vec<(String, f64)> =
            (0..9).map(|i| (format!("X{i}"), 10.0 - i as f64)).collect();
        long.push(("E".into(), 0.5));
        long.push(("F".into(), 0.5));
        long.push(("G".into(), 0.1));
        let d = Measurement::outcome(&q(c, "E"), long.clone());
        assert_eq!(
            (d.rank, d.tie_ranks, d.worst_rank()),
            (Some(10), Some((10, 11)), None)
        );
        assert_eq!(d.top.len(), DEPTH);
        assert_eq!(d.tied_beyond, Some(("F".into(), 0.5)));
        // Beyond the first ten, or absent: no rank either way.
        let e = Measurement::outcome(&q(c, "F"), long);
        assert_eq!((e.rank, e.tie_ranks, e.worst_rank()), (None, None, None));
        let m = Measurement::from_outcomes("t", None, vec![a, b, d, e]);
        let k = &m.kinds[1];
        assert_eq!((k.hit1, k.hit5, k.worst_hit1, k.worst_hit5), (1, 2, 0, 2));
        let mrr = (1.0 + 1.0 / 3.0 + 0.1) / 4.0;
        let worst = (0.5 + 1.0 / 3.0) / 4.0;
        assert!((k.mrr10 - mrr).abs() < 1e-12 && (k.worst_mrr10 - worst).abs() < 1e-12);
    }
}
