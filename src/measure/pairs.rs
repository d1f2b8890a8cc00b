//! Every pair of methods measured on the same questions, for each type of answerable question and
//! each measure (MRR@10, hit@1, hit@5): the difference with its bootstrap interval, the paired
//! t-test and randomisation test, the effect size, the questions won and lost, and the t-test's
//! p-value corrected by Holm over all the pairs of that type and measure — so that a table of
//! seven methods (21 pairs) claims a difference only where it survives being one of 21 looks.
//! `mesurer --all --json` prints them; the page shows the same numbers ([`t_tests`] for its
//! table of every pair, [`pair`] for the pair it compares).

use serde::Serialize;

use crate::data::QuestionKind;
use crate::measure::stats::{self, PairStats};
use crate::measure::{compare, Measurement};

/// The measures compared, by their names in the tables.
pub const MEASURES: [&str; 3] = ["MRR@10", "hit@1", "hit@5"];

/// One measure's difference between the pair's two methods (`a − b`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    pub measure: &'static str,
    #[serde(flatten)]
    pub stats: PairStats,
    /// The t-test's p-value corrected by Holm over every pair of this type and measure.
    pub t_p_holm: f64,
}

/// Two methods on the questions of one type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub a: String,
    pub b: String,
    #[serde(rename = "type")]
    pub kind: QuestionKind,
    /// Questions where `a` ranks the expected fiche higher than `b`, lower, the same.
    pub wins: usize,
    pub losses: usize,
    pub ties: usize,
    /// One per [`MEASURES`], in that order.
    pub gaps: Vec<Gap>,
}

/// The per-question values of `measure` (one of [`MEASURES`]) of `m`'s questions of `kind`.
pub fn values(m: &Measurement, kind: QuestionKind, measure: &str) -> Vec<f64> {
    let depth = match measure {
        "hit@1" => 1,
        "hit@5" => 5,
        _ => return stats::reciprocal_ranks(m, kind),
    };
    let value = |r: Option<usize>| f64::from(u8::from(r.is_some_and(|r| r <= depth)));
    m.questions
        .iter()
        .filter(|q| q.kind == kind)
        .map(|q| value(q.rank))
        .collect()
}

/// The pairs `(i, j)`, `i < j`, of `n` methods, in the order the tables list them.
pub fn indices(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// For every pair `(i, j)` of [`indices`], `i − j`'s mean difference on `measure`, its paired
/// t-test's p-value and that p-value's Holm correction over all the pairs: cheap (no
/// resampling), for the page's table of every pair.
pub fn t_tests(ms: &[Measurement], kind: QuestionKind, measure: &str) -> Vec<(f64, f64, f64)> {
    let v: Vec<Vec<f64>> = ms.iter().map(|m| values(m, kind, measure)).collect();
    let (delta, p): (Vec<f64>, Vec<f64>) = indices(ms.len())
        .into_iter()
        .map(|(i, j)| {
            let d: Vec<f64> = v[i].iter().zip(&v[j]).map(|(x, y)| x - y).collect();
            (stats::differences_mean(&d), stats::t_test(&d))
        })
        .unzip();
    let holm = stats::holm(&p);
    delta
        .into_iter()
        .zip(p)
        .zip(holm)
        .map(|((d, p), h)| (d, p, h))
        .collect()
}

/// The t-tests of every pair of `ms` on the questions of `kind`, one [`t_tests`] per measure in
/// [`MEASURES`]' order: what [`pair`] reads its Holm-corrected p-values from.
pub fn holm(ms: &[Measurement], kind: QuestionKind) -> Vec<Vec<(f64, f64, f64)>> {
    MEASURES.iter().map(|m| t_tests(ms, kind, m)).collect()
}

/// Methods `i` against `j` of `ms` (either may come first) on the questions of `kind`, in full,
/// its Holm-corrected p-values taken from `holm` ([`holm`]).
pub fn pair(
    ms: &[Measurement],
    (i, j): (usize, usize),
    kind: QuestionKind,
    holm: &[Vec<(f64, f64, f64)>],
) -> Pair {
    let (a, b) = (&ms[i], &ms[j]);
    let c = compare::paired(a, b, kind);
    let at = indices(ms.len())
        .iter()
        .position(|&x| x == (i.min(j), i.max(j)))
        .unwrap_or(0);
    let gaps = MEASURES
        .iter()
        .zip(holm)
        .map(|(&measure, corrected)| Gap {
            measure,
            stats: stats::paired(&values(b, kind, measure), &values(a, kind, measure)),
            t_p_holm: corrected.get(at).map_or(1.0, |x| x.2),
        })
        .collect();
    Pair {
        a: a.method.clone(),
        b: b.method.clone(),
        kind,
        wins: c.wins,
        losses: c.losses,
        ties: c.ties,
        gaps,
    }
}

/// Every pair of `ms` on every type of answerable question that has questions.
pub fn all(ms: &[Measurement]) -> Vec<Pair> {
    let mut out = Vec::new();
    for kind in QuestionKind::ANSWERABLE {
        let Some(first) = ms.first() else {
            break;
        };
        if values(first, kind, MEASURES[0]).is_empty() {
            continue;
        }
        let holm = holm(ms, kind);
        for ij in indices(ms.len()) {
            out.push(pair(ms, ij, kind, &holm));
        }
    }
    out
}

/// Which method leads on MRR@10 on one type of question, and which others it is not told apart
/// from.
#[derive(Debug, Clone, PartialEq)]
pub struct Leader {
    /// The method with the best MRR@10 (the first of equals).
    pub best: usize,
    /// The methods whose t-test against it on MRR@10, corrected by Holm over every pair, gives
    /// p ≥ [`stats::ALPHA`].
    pub close: Vec<usize>,
    /// Each method's sum of reciprocal ranks (MRR@10 times the questions), in the order given.
    pub mrr_sums: Vec<f64>,
    /// The pairs the correction ran over.
    pub pairs: usize,
}

/// The [`Leader`] of `ms` on the questions of `kind`. `None` with fewer than two methods or no
/// such question.
pub fn leader(ms: &[Measurement], kind: QuestionKind) -> Option<Leader> {
    if ms.len() < 2 || values(&ms[0], kind, MEASURES[0]).is_empty() {
        return None;
    }
    let mrr_sums: Vec<f64> = ms
        .iter()
        .map(|m| values(m, kind, MEASURES[0]).iter().sum())
        .collect();
    let best = (0..ms.len()).fold(0, |best, i| {
        if mrr_sums[i] > mrr_sums[best] {
            i
        } else {
            best
        }
    });
    let tests = t_tests(ms, kind, MEASURES[0]);
    let pairs = tests.len();
    let close = indices(ms.len())
        .into_iter()
        .zip(tests)
        .filter(|&((i, j), (_, _, holm))| (i == best || j == best) && holm >= stats::ALPHA)
        .map(|((i, j), _)| if i == best { j } else { i })
        .collect();
    Some(Leader {
        best,
        close,
        mrr_sums,
        pairs,
    })
}

/// What the statistics of [`Pair`] were computed with, stated beside them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    pub bootstrap_resamples: usize,
    /// Non-zero differences up to which the randomisation test enumerates every sign pattern.
    pub randomisation_exact_up_to: usize,
    /// The bootstrap's seed, in hexadecimal (a JSON number would lose its low bits in
    /// JavaScript).
    pub bootstrap_seed: String,
    pub randomisation_draws: u32,
    pub alpha: f64,
    pub power: f64,
    pub correction: &'static str,
}

pub fn settings() -> Settings {
    Settings {
        bootstrap_resamples: stats::RESAMPLES,
        bootstrap_seed: format!("{:#018x}", stats::SEED),
        randomisation_exact_up_to: stats::EXACT_UP_TO,
        randomisation_draws: stats::DRAWS,
        alpha: stats::ALPHA,
        power: stats::POWER,
        correction: "holm",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{parse_fiches, parse_questions};
    use crate::lab::{Lab, Method, QuestionVectors};

    fn exercise() -> Vec<Measurement> {
        let fiches = parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        let questions = parse_questions(include_str!("../../data/questions.csv")).unwrap();
        let lab = Lab::new(fiches);
        let none = QuestionVectors::new();
        [Method::MOTS, Method::MOTS_PLUS]
            .into_iter()
            .map(|m| lab.measure(m, &questions, &none).unwrap())
            .collect()
    }

    #[test]
    fn a_pair_read_the_other_way_round_flips_its_gaps_and_keeps_its_p_values() {
        let ms = exercise();
        let holm = holm(&ms, QuestionKind::Courante);
        let ab = pair(&ms, (0, 1), QuestionKind::Courante, &holm);
        let ba = pair(&ms, (1, 0), QuestionKind::Courante, &holm);
        assert_eq!((ab.wins, ab.losses), (ba.losses, ba.wins));
        for (x, y) in ab.gaps.iter().zip(&ba.gaps) {
            assert_eq!(x.stats.delta, -y.stats.delta);
            assert_eq!((x.stats.t_p, x.t_p_holm), (y.stats.t_p, y.t_p_holm));
        }
        // One pair: Holm changes nothing; mots+ leads on the courantes, mots does not lose an
        // exacte.
        assert_eq!(ab.gaps[0].stats.t_p, ab.gaps[0].t_p_holm);
        let l = leader(&ms, QuestionKind::Courante).unwrap();
        assert_eq!((l.best, l.close, l.pairs), (1, Vec::new(), 1));
        assert!(l.mrr_sums[1] > l.mrr_sums[0]);
        let l = leader(&ms, QuestionKind::Exacte).unwrap();
        assert_eq!((l.best, l.close), (0, vec![1]));
        assert_eq!(all(&ms).len(), 2);
        assert_eq!(indices(4), [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    }
}
