//! What one change did: the figures before and after, the questions that moved, and whether the
//! difference says anything (a paired sign test and a paired randomisation test, in words).

use serde::Serialize;

use crate::data::QuestionKind;
use crate::measure::compare::sign_test;
use crate::measure::{Measurement, DEPTH};

/// One answerable question whose expected fiche moved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    /// Its row in the question file (from 0).
    pub row: usize,
    pub kind: QuestionKind,
    pub question: String,
    pub before: Option<usize>,
    pub after: Option<usize>,
}

/// The change from `before` to `after` on the same questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    pub up: Vec<Moved>,
    pub down: Vec<Moved>,
    /// Answerable questions compared (exactes and courantes).
    pub questions: usize,
    pub wins: usize,
    pub losses: usize,
    /// Two-sided exact sign test on wins and losses.
    pub sign_p: f64,
    /// Two-sided paired randomisation test on the reciprocal ranks (MRR@10's terms).
    pub randomisation_p: f64,
    /// Whether the randomisation test enumerated every sign pattern (else `measure::stats::DRAWS` draws).
    pub exact: bool,
    pub verdict: String,
    /// The reciprocal ranks' difference (MRR@10's), with its interval, t-test and the questions
    /// it would take ([`crate::measure::stats`]).
    pub gap: crate::measure::stats::PairStats,
    /// [`Diff::gap`] in words.
    pub gap_said: String,
}

/// A rank's reciprocal (0 outside the first ten).
fn rr(rank: Option<usize>) -> f64 {
    rank.filter(|&r| r <= DEPTH).map_or(0.0, |r| 1.0 / r as f64)
}

/// The fewest questions that differ for which a sign test can reach p < 0.05: with 5, even 5 to
/// 0 gives p = 0.0625.
pub const FEWEST_TO_CONCLUDE: usize = 6;

/// A p-value as the page writes it.
pub fn show_p(p: f64) -> String {
    crate::fr::numbers::p_value(p)
}

/// The verdict in words.
fn verdict(wins: usize, losses: usize, sign_p: f64, rand_p: f64) -> String {
    let n = wins + losses;
    if n == 0 {
        return "Aucune question ne change de rang : rien à conclure.".to_owned();
    }
    let count = format!(
        "{wins} question{} gagnée{}, {losses} perdue{}",
        if wins > 1 { "s" } else { "" },
        if wins > 1 { "s" } else { "" },
        if losses > 1 { "s" } else { "" }
    );
    if n < FEWEST_TO_CONCLUDE {
        return format!(
            "{count} : avec {n} question{} qui change{}, on ne peut pas conclure — même toutes dans le même sens, il en faut au moins {FEWEST_TO_CONCLUDE} pour que le hasard ne suffise pas à l'expliquer.",
            if n > 1 { "s" } else { "" },
            if n > 1 { "nt" } else { "" },
        );
    }
    let p = format!(
        "test du signe p = {}, permutation des rangs réciproques p = {}",
        show_p(sign_p),
        show_p(rand_p)
    );
    if sign_p < 0.05 && rand_p < 0.05 {
        format!("{count} : différence nette ({p}).")
    } else {
        format!("{count} : rien de démontré, le hasard l'explique ({p}).")
    }
}

/// What changed from `before` to `after` (the same questions, in the same order).
pub fn diff(before: &Measurement, after: &Measurement) -> Diff {
    let (mut up, mut down) = (Vec::new(), Vec::new());
    let mut d = Vec::new();
    let mut questions = 0;
    for (row, (a, b)) in before.questions.iter().zip(&after.questions).enumerate() {
        if a.kind == QuestionKind::Absente {
            continue;
        }
        questions += 1;
        let key = |r: Option<usize>| r.unwrap_or(DEPTH + 1);
        let moved = Moved {
            row,
            kind: a.kind,
            question: a.question.clone(),
            before: a.rank,
            after: b.rank,
        };
        match key(b.rank).cmp(&key(a.rank)) {
            std::cmp::Ordering::Less => up.push(moved),
            std::cmp::Ordering::Greater => down.push(moved),
            std::cmp::Ordering::Equal => {}
        }
        d.push(rr(b.rank) - rr(a.rank));
    }
    let (wins, losses) = (up.len(), down.len());
    let sign_p = sign_test(wins, losses);
    let gap = crate::measure::stats::differences(&d);
    let (randomisation_p, exact) = (gap.randomisation_p, gap.randomisation_exact);
    let gap_said = if wins + losses == 0 {
        String::new()
    } else {
        crate::fr::labels::gap_sentence("MRR@10", &gap, &|x| crate::fr::decimal(x, 3))
    };
    Diff {
        gap,
        gap_said,
        verdict: verdict(wins, losses, sign_p, randomisation_p),
        up,
        down,
        questions,
        wins,
        losses,
        sign_p,
        randomisation_p,
        exact,
    }
}
