//! Does an engine rank as one of our methods? An engine configured « like `mots+` » (Lucene,
//! PostgreSQL, SQLite FTS5…) is compared with it question by question, on the first
//! [`DEPTH`](super::DEPTH) results, **beyond ties**: fiches of equal score may come in any order
//! (each engine breaks ties its own way: Lucene by internal id, the seed by the larger id), so
//! only an order that no tie explains counts as a difference.
//!
//! Ties are read from both lists: positions whose fiches tie in ours or in the engine's (whose
//! scores may be float32, where two of ours that differ in the last digits become equal) form one
//! group, and within a group the same fiches must be listed, in any order. A tie that runs past
//! the last position shown (its other members unseen) accepts, in that group, any fiche not
//! listed above it. Our fiches of score 0 (no word matched: the seed's BM25 lists them, an
//! engine does not) may be missing from the engine's end.

use std::collections::HashSet;

use super::{export, Measurement, QuestionOutcome};

/// How an engine's first results compare with ours for one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Agreement {
    /// The same fiches in the same order.
    Same,
    /// The same fiches; only fiches of equal score are in another order.
    SameUpToTies,
    /// From rank `at` (from 1), a fiche that no tie explains: both lists from there.
    Differs {
        at: usize,
        ours: Vec<String>,
        theirs: Vec<String>,
    },
}

/// One question's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionParity {
    /// The question's TREC qid (`q01`…, [`export::qid`]).
    pub qid: String,
    pub question: String,
    pub agreement: Agreement,
}

/// Every question's comparison of run `theirs` with method `ours`.
#[derive(Debug, Clone, PartialEq)]
pub struct Parity {
    pub ours: String,
    pub theirs: String,
    pub questions: Vec<QuestionParity>,
}

/// Compares `theirs` (an engine's run, [`super::import::measure`]) with `ours`, question by
/// question. Both measure the same questions, in the same order.
pub fn compare(ours: &Measurement, theirs: &Measurement) -> Parity {
    let questions = ours
        .questions
        .iter()
        .zip(&theirs.questions)
        .enumerate()
        .map(|(i, (o, t))| QuestionParity {
            qid: export::qid(i),
            question: o.question.clone(),
            agreement: agreement(o, t),
        })
        .collect();
    Parity {
        ours: ours.method.clone(),
        theirs: theirs.method.clone(),
        questions,
    }
}

/// The fiches at positions `[start, end)` of `top` (fewer where it is shorter).
fn ids(top: &[(String, f64)], start: usize, end: usize) -> HashSet<&str> {
    top.iter()
        .take(end)
        .skip(start)
        .map(|x| x.0.as_str())
        .collect()
}

/// The maximal runs of equal scores of `top`, as `[start, end)` positions.
fn tie_groups(top: &[(String, f64)]) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=top.len() {
        if i == top.len() || top[i].1 != top[start].1 {
            groups.push((start, i));
            start = i;
        }
    }
    groups
}

fn agreement(ours: &QuestionOutcome, theirs: &QuestionOutcome) -> Agreement {
    let (mut o, t) = (&ours.top[..], &theirs.top[..]);
    if o.iter().map(|x| &x.0).eq(t.iter().map(|x| &x.0)) {
        return Agreement::Same;
    }
    // Fiches of score 0 matched no word: the seed's BM25 lists them (a sorted list of every
    // fiche), an engine does not. Where the engine stops, ours may end with them.
    let zeros = t.len() < o.len() && o[t.len()..].iter().all(|x| x.1 == 0.0);
    if zeros {
        o = &o[..t.len()];
    }
    let n = o.len().max(t.len());
    // Group boundaries: a position starts a group only where neither list ties across it.
    let mut joined = vec![false; n + 1];
    for top in [o, t] {
        for (start, end) in tie_groups(top) {
            for j in joined.iter_mut().take(end).skip(start + 1) {
                *j = true;
            }
        }
    }
    // Each group ends before a position that starts one, or at the end.
    let ends = (1..=n).filter(|&end| end == n || !joined[end]);
    let mut start = 0;
    for end in ends {
        let (mine, other) = (ids(o, start, end), ids(t, start, end));
        // A tie past the last position: its unseen members may be listed instead of those
        // shown (earlier groups matched, and a run lists a fiche once, so none of them is one
        // ranked above the tie).
        let open = (ours.tied_beyond.is_some() && !zeros) || theirs.tied_beyond.is_some();
        let same = if end == n && open {
            o.len() == t.len()
        } else {
            mine == other
        };
        if !same {
            let from =
                |top: &[(String, f64)]| top.iter().skip(start).map(|x| x.0.clone()).collect();
            return Agreement::Differs {
                at: start + 1,
                ours: from(o),
                theirs: from(t),
            };
        }
        start = end;
    }
    Agreement::SameUpToTies
}

impl Parity {
    /// How many questions are identical, identical up to ties, and different.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for q in &self.questions {
            match q.agreement {
                Agreement::Same => c.0 += 1,
                Agreement::SameUpToTies => c.1 += 1,
                Agreement::Differs { .. } => c.2 += 1,
            }
        }
        c
    }

    /// The comparison in French: one line per question that differs, then the sum.
    pub fn report(&self) -> String {
        let mut out = format!(
            "Parité de {} avec {} (les 10 premières fiches, égalités de score comprises) :\n",
            self.theirs, self.ours
        );
        for q in &self.questions {
            if let Agreement::Differs { at, ours, theirs } = &q.agreement {
                let list = |v: &[String]| {
                    if v.is_empty() {
                        "rien".to_owned()
                    } else {
                        v.iter().take(5).cloned().collect::<Vec<_>>().join(" ")
                    }
                };
                out += &format!(
                    "  {} « {} » : diffère au rang {at} : {} {} ; {} {}\n",
                    q.qid,
                    q.question,
                    self.ours,
                    list(ours),
                    self.theirs,
                    list(theirs)
                );
            }
        }
        let (same, ties, differ) = self.counts();
        let n = |count: usize, one: &str, many: &str| {
            format!("{count} {}", if count == 1 { one } else { many })
        };
        out += &format!(
            "  {} : {}, {}, {}\n",
            n(self.questions.len(), "question", "questions"),
            n(same, "identique", "identiques"),
            n(
                ties,
                "identique à égalités près",
                "identiques à égalités près"
            ),
            n(differ, "diffère", "diffèrent")
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::QuestionKind;

    fn outcome(top: &[(&str, f64)], beyond: Option<(&str, f64)>) -> QuestionOutcome {
        QuestionOutcome {
            kind: QuestionKind::Courante,
            question: "q".into(),
            expected: None,
            rank: None,
            top: top.iter().map(|(i, s)| ((*i).to_owned(), *s)).collect(),
            tied_beyond: beyond.map(|(i, s)| (i.to_owned(), s)),
            tie_ranks: None,
            product_rank: None,
        }
    }

    #[test]
    fn the_same_order_is_the_same() {
        let a = outcome(&[("A", 3.0), ("B", 2.0)], None);
        let b = outcome(&[("A", 9.0), ("B", 1.0)], None);
        assert_eq!(agreement(&a, &b), Agreement::Same);
        assert_eq!(
            agreement(&outcome(&[], None), &outcome(&[], None)),
            Agreement::Same
        );
    }

    #[test]
    fn a_swap_inside_our_tie_or_theirs_is_the_same_up_to_ties() {
        let ours = outcome(&[("A", 3.0), ("B", 2.0), ("C", 2.0), ("D", 1.0)], None);
        let theirs = outcome(&[("A", 3.0), ("C", 2.0), ("B", 2.0), ("D", 1.0)], None);
        assert_eq!(agreement(&ours, &theirs), Agreement::SameUpToTies);
        // Their float32 scores tie where ours differ in the last digits.
        let ours = outcome(&[("A", 3.0), ("B", 2.000_000_001), ("C", 2.0)], None);
        let theirs = outcome(&[("A", 3.0), ("C", 2.0), ("B", 2.0)], None);
        assert_eq!(agreement(&ours, &theirs), Agreement::SameUpToTies);
    }

    #[test]
    fn a_swap_no_tie_explains_differs_from_its_rank() {
        let ours = outcome(&[("A", 3.0), ("B", 2.0), ("C", 1.0)], None);
        let theirs = outcome(&[("A", 3.0), ("C", 2.0), ("B", 1.0)], None);
        assert_eq!(
            agreement(&ours, &theirs),
            Agreement::Differs {
                at: 2,
                ours: vec!["B".into(), "C".into()],
                theirs: vec!["C".into(), "B".into()],
            }
        );
        // Another fiche, or one result fewer.
        let theirs = outcome(&[("A", 3.0), ("B", 2.0), ("X", 1.0)], None);
        assert!(matches!(
            agreement(&ours, &theirs),
            Agreement::Differs { at: 3, .. }
        ));
        let theirs = outcome(&[("A", 3.0), ("B", 2.0)], None);
        assert!(matches!(
            agreement(&ours, &theirs),
            Agreement::Differs { at: 3, .. }
        ));
    }

    #[test]
    fn our_fiches_of_score_zero_may_be_missing_from_the_engine_s_end() {
        let ours = outcome(&[("A", 3.0), ("B", 0.0), ("C", 0.0)], Some(("D", 0.0)));
        let theirs = outcome(&[("A", 7.0)], None);
        assert_eq!(agreement(&ours, &theirs), Agreement::SameUpToTies);
        // Not a fiche that matched.
        let ours = outcome(&[("A", 3.0), ("B", 1.0), ("C", 0.0)], None);
        assert!(matches!(
            agreement(&ours, &theirs),
            Agreement::Differs { at: 2, .. }
        ));
    }

    #[test]
    fn a_tie_past_the_last_position_accepts_an_unseen_member_only() {
        // Ours: B and C tie, and so does an eleventh fiche (tied_beyond); the engine shows D.
        let ours = outcome(&[("A", 3.0), ("B", 2.0), ("C", 2.0)], Some(("D", 2.0)));
        let theirs = outcome(&[("A", 3.0), ("D", 5.0), ("B", 5.0)], None);
        assert_eq!(agreement(&ours, &theirs), Agreement::SameUpToTies);
        // But not a fiche ranked above the tie.
        let theirs = outcome(&[("B", 3.0), ("A", 5.0), ("C", 5.0)], None);
        assert!(matches!(
            agreement(&ours, &theirs),
            Agreement::Differs { at: 1, .. }
        ));
    }

    #[test]
    fn the_report_lists_what_differs_and_sums_up() {
        let m = |name: &str, tops: Vec<QuestionOutcome>| Measurement {
            method: name.into(),
            score_decimals: None,
            questions: tops,
            kinds: vec![],
            answered_best: None,
            absent_best: vec![],
        };
        let ours = m(
            "mots+",
            vec![
                outcome(&[("A", 2.0), ("B", 1.0)], None),
                outcome(&[("A", 2.0), ("B", 2.0)], None),
                outcome(&[("A", 2.0), ("B", 1.0)], None),
            ],
        );
        let theirs = m(
            "lucene",
            vec![
                outcome(&[("A", 2.0), ("B", 1.0)], None),
                outcome(&[("B", 2.0), ("A", 2.0)], None),
                outcome(&[("B", 2.0), ("A", 1.0)], None),
            ],
        );
        let p = compare(&ours, &theirs);
        assert_eq!(p.counts(), (1, 1, 1));
        assert_eq!(
            p.report(),
            "Parité de lucene avec mots+ (les 10 premières fiches, égalités de score comprises) :\n  \
             q03 « q » : diffère au rang 1 : mots+ A B ; lucene B A\n  \
             3 questions : 1 identique, 1 identique à égalités près, 1 diffère\n"
        );
    }
}
