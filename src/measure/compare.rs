//! Comparing methods and judging thresholds, for learners: paired wins and losses with an exact
//! sign test, and the calibration of a refusal threshold on the best scores (seed 003's method).

use serde::Serialize;

use crate::data::QuestionKind;
use crate::measure::{Measurement, DEPTH};

/// A rank outside the first ten counts as this, worse than any rank shown.
const OUTSIDE: usize = DEPTH + 1;

/// How method A fared against method B on the same answerable questions of one type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    /// Questions where A ranks the expected fiche higher (a smaller rank) than B.
    pub wins: usize,
    pub losses: usize,
    pub ties: usize,
    /// Two-sided exact sign test over wins and losses (ties left out): the probability of a split
    /// at least this uneven if neither method were better.
    pub p_value: f64,
}

/// Two-sided exact sign test: P(X ≤ min(w, l)) · 2 for X ~ Binomial(w + l, 1/2), capped at 1.
pub fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    if n == 0 {
        return 1.0;
    }
    let k = wins.min(losses);
    // Σ_{i ≤ k} C(n, i) / 2ⁿ, computed in f64 through ln to stay finite for large n.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_c = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_c + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Wins, losses and ties of `a` against `b` on the questions of `kind` (both measured on the same
/// question set, in the same order).
pub fn paired(a: &Measurement, b: &Measurement, kind: QuestionKind) -> Paired {
    let (mut wins, mut losses, mut ties) = (0, 0, 0);
    for (qa, qb) in a
        .questions
        .iter()
        .zip(&b.questions)
        .filter(|(q, _)| q.kind == kind)
    {
        let ra = qa.rank.unwrap_or(OUTSIDE);
        let rb = qb.rank.unwrap_or(OUTSIDE);
        match ra.cmp(&rb) {
            std::cmp::Ordering::Less => wins += 1,
            std::cmp::Ordering::Greater => losses += 1,
            std::cmp::Ordering::Equal => ties += 1,
        }
    }
    Paired {
        wins,
        losses,
        ties,
        p_value: sign_test(wins, losses),
    }
}

/// A refusal threshold: questions whose best score is below it are answered « pas dans le
/// catalogue ».
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    pub threshold: f64,
    /// Share of the calibration questions sorted right (covered ⇔ best score ≥ threshold).
    pub accuracy: f64,
    /// Whether some threshold sorts every calibration question right.
    pub separates: bool,
}

/// Seed 003's `calibrer`: candidates at the midpoints between neighbouring distinct best scores
/// (or the single score when all are equal), each scored by its accuracy; the best accuracy wins,
/// and among equals the lowest threshold (fewer false refusals). Unlike the seed, midpoints are not
/// rounded to 3 decimals: RRF scores differ in the fourth. `best` holds `(best score, covered)`.
pub fn calibrate(best: &[(f64, bool)]) -> Option<Calibration> {
    if best.is_empty() {
        return None;
    }
    let mut scores: Vec<f64> = best.iter().map(|b| b.0).collect();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    let candidates: Vec<f64> = if scores.len() == 1 {
        scores.clone()
    } else {
        scores.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect()
    };
    let mut chosen: Option<(f64, f64)> = None;
    for t in candidates {
        let acc = accuracy(best, t);
        let better = match chosen {
            None => true,
            Some((ct, ca)) => acc > ca || (acc == ca && t < ct),
        };
        if better {
            chosen = Some((t, acc));
        }
    }
    chosen.map(|(threshold, accuracy)| Calibration {
        threshold,
        accuracy,
        separates: accuracy == 1.0,
    })
}

/// Share of `best` sorted right by `threshold`.
pub fn accuracy(best: &[(f64, bool)], threshold: f64) -> f64 {
    if best.is_empty() {
        return 0.0;
    }
    let right = best
        .iter()
        .filter(|(s, covered)| (*s >= threshold) == *covered)
        .count();
    right as f64 / best.len() as f64
}

/// The best score of every question of a measurement, with whether it has an answer.
pub fn best_scores(m: &Measurement) -> Vec<(f64, bool)> {
    m.questions
        .iter()
        .map(|q| {
            (
                q.top.first().map_or(0.0, |t| t.1),
                q.kind != QuestionKind::Absente,
            )
        })
        .collect()
}

/// Calibrated on the even rows (0, 2, 4…), tested on the odd rows, as seed 003's exercise does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitCalibration {
    pub calibration: Calibration,
    pub test_accuracy: f64,
    pub calibration_questions: usize,
    pub test_questions: usize,
}

pub fn calibrate_split(m: &Measurement) -> Option<SplitCalibration> {
    let best = best_scores(m);
    let even: Vec<(f64, bool)> = best.iter().step_by(2).copied().collect();
    let odd: Vec<(f64, bool)> = best.iter().skip(1).step_by(2).copied().collect();
    let calibration = calibrate(&even)?;
    Some(SplitCalibration {
        test_accuracy: accuracy(&odd, calibration.threshold),
        calibration,
        calibration_questions: even.len(),
        test_questions: odd.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_test_matches_the_binomial_tables() {
        // scipy.stats.binomtest(k, n, 0.5).pvalue: (0, 5) → 0.0625; (2, 8) → 0.109375;
        // (5, 5) → 1.0; (0, 10) → 0.001953125; (3, 12) → 0.03515625.
        assert!((sign_test(0, 5) - 0.0625).abs() < 1e-12);
        assert!((sign_test(2, 8) - 0.109375).abs() < 1e-12);
        assert!((sign_test(8, 2) - 0.109375).abs() < 1e-12);
        assert_eq!(sign_test(5, 5), 1.0);
        assert!((sign_test(0, 10) - 0.001953125).abs() < 1e-12);
        assert!((sign_test(3, 12) - 0.03515625).abs() < 1e-12);
        assert_eq!(sign_test(0, 0), 1.0);
        assert!(sign_test(0, 2000).is_finite());
    }

    #[test]
    fn calibration_separates_a_separable_list_at_the_midpoint() {
        let best = [(0.9, true), (0.8, true), (0.6, false), (0.5, false)];
        let c = calibrate(&best).unwrap();
        assert!((c.threshold - 0.7).abs() < 1e-12);
        assert_eq!((c.accuracy, c.separates), (1.0, true));
    }

    #[test]
    fn calibration_keeps_the_lowest_threshold_of_equal_accuracy() {
        // Midpoints 1.5, 2.5, 3.5: 1.5 → 3/4, 2.5 → 2/4, 3.5 → 3/4. Equal best: keep 1.5.
        let best = [(1.0, false), (2.0, true), (3.0, false), (4.0, true)];
        let c = calibrate(&best).unwrap();
        assert_eq!(c.threshold, 1.5);
        assert_eq!(c.accuracy, 0.75);
        assert!(!c.separates);
    }

    #[test]
    fn calibration_handles_ties_and_all_equal_scores() {
        // All equal: the single candidate is the score itself; everything counts as covered.
        let c = calibrate(&[(2.0, true), (2.0, false), (2.0, true)]).unwrap();
        assert_eq!(c.threshold, 2.0);
        assert!((c.accuracy - 2.0 / 3.0).abs() < 1e-12);
        // A covered and an uncovered question with the same score can never both be right.
        let c = calibrate(&[(1.0, false), (3.0, true), (3.0, false)]).unwrap();
        assert_eq!(c.threshold, 2.0);
        assert!((c.accuracy - 2.0 / 3.0).abs() < 1e-12);
        assert!(calibrate(&[]).is_none());
    }

    #[test]
    fn seed_mots_has_no_separating_threshold() {
        let fiches = crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        let questions =
            crate::data::parse_questions(include_str!("../../data/questions.csv")).unwrap();
        let lab = crate::lab::Lab::new(fiches);
        let m = lab.measure_keyword(crate::lab::Keyword::Mots, &questions);
        let all = calibrate(&best_scores(&m)).unwrap();
        // « radiateur électrique » (5.14) beats the weakest answered question (2.14).
        assert!(!all.separates);
        let split = calibrate_split(&m).unwrap();
        assert_eq!(
            (split.calibration_questions, split.test_questions),
            (20, 20)
        );
    }
}
