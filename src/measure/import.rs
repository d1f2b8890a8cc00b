//! Any engine's TREC run, measured as our methods are: Elasticsearch, OpenSearch, Qdrant, Lucene
//! or tantivy run on the exported questions, and their run comes back into the lab.
//!
//! A run has one line per result: `qid Q0 docid rank score tag`, fields separated by spaces or
//! tabs; qids as our exports write them (`q01`, `q02`… in the question file's order, see
//! [`export::qid`]). Within a question the **score** orders the results, as trec_eval does; equal
//! scores keep the run's rank order (trec_eval would reorder them by docid, without saying so).
//! A question missing from the run found nothing. A run that is wrong anywhere is refused whole,
//! with the line and the reason: nothing of it is measured.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::data::{IdNormalizer, Question};
use crate::measure::{export, Measurement, DEPTH};

/// At most this many lines per question (trec_eval's usual depth is 1,000).
pub const MAX_PER_QUESTION: usize = 1_000;

/// What is wrong with a run, at line `line` (from 1, as an editor counts).
#[derive(Debug, Clone, PartialEq)]
pub struct RunError {
    pub line: usize,
    pub problem: RunProblem,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RunProblem {
    /// Not `qid Q0 docid rank score tag`: the number of fields found.
    Fields(usize),
    /// A qid that no question has.
    UnknownQuestion(String),
    /// A docid that no fiche has.
    UnknownFiche(String),
    /// A rank that is not a whole number.
    Rank(String),
    /// A score that is not a finite number.
    Score(String),
    /// The same rank twice for one question.
    DuplicateRank { qid: String, rank: u64 },
    /// The same fiche twice for one question.
    DuplicateFiche { qid: String, fiche: String },
    /// More than [`MAX_PER_QUESTION`] lines for one question.
    TooMany { qid: String },
    /// Two run names (sixth field) in one file.
    Tags { first: String, other: String },
    /// No line at all (`line` is 0).
    Empty,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.problem {
            RunProblem::Fields(n) => {
                write!(f, "{n} fields, expected 6: qid Q0 docid rank score tag")
            }
            RunProblem::UnknownQuestion(q) => write!(f, "no question has the qid {q:?}"),
            RunProblem::UnknownFiche(d) => write!(f, "no fiche has the id {d:?}"),
            RunProblem::Rank(r) => write!(f, "the rank {r:?} is not a whole number"),
            RunProblem::Score(s) => write!(f, "the score {s:?} is not a finite number"),
            RunProblem::DuplicateRank { qid, rank } => {
                write!(f, "rank {rank} given twice for {qid}")
            }
            RunProblem::DuplicateFiche { qid, fiche } => {
                write!(f, "{fiche} ranked twice for {qid}")
            }
            RunProblem::TooMany { qid } => {
                write!(f, "more than {MAX_PER_QUESTION} results for {qid}")
            }
            RunProblem::Tags { first, other } => {
                write!(f, "two runs in one file ({first:?} then {other:?})")
            }
            RunProblem::Empty => write!(f, "the run is empty"),
        }
    }
}

impl std::error::Error for RunError {}

/// One result line, checked.
struct Line {
    rank: u64,
    score: f64,
    fiche: String,
}

/// One question's results, best first: `(fiche id, score)`.
pub type Results = Vec<(String, f64)>;

/// Reads a run over `questions` and the fiche ids `fiche_ids`: its name (the tag) and, for each
/// question in order, its results best first (score, then the run's rank).
///
/// Fiche ids are compared in Unicode NFC through `normalize` (as the fiches' own ids are): an id
/// written in another normal form is the same id.
pub fn read(
    text: &str,
    questions: &[Question],
    fiche_ids: &HashSet<&str>,
    normalize: IdNormalizer,
) -> Result<(String, Vec<Results>), RunError> {
    let qids: HashMap<String, usize> = (0..questions.len()).map(|i| (export::qid(i), i)).collect();
    let mut lines: Vec<Vec<Line>> = (0..questions.len()).map(|_| Vec::new()).collect();
    let mut seen: Vec<(HashSet<u64>, HashSet<String>)> =
        (0..questions.len()).map(|_| Default::default()).collect();
    let mut tag: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let fail = |problem| RunError { line, problem };
        if raw.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = raw.split_whitespace().collect();
        let [qid, _q0, fiche, rank, score, name] = f[..] else {
            return Err(fail(RunProblem::Fields(f.len())));
        };
        let &i = qids
            .get(qid)
            .ok_or_else(|| fail(RunProblem::UnknownQuestion(qid.to_owned())))?;
        let fiche = normalize(fiche);
        let fiche = fiche.as_str();
        if !fiche_ids.contains(fiche) {
            return Err(fail(RunProblem::UnknownFiche(fiche.to_owned())));
        }
        let rank: u64 = rank
            .parse()
            .map_err(|_| fail(RunProblem::Rank(rank.to_owned())))?;
        let score: f64 = score
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite())
            .ok_or_else(|| fail(RunProblem::Score(score.to_owned())))?;
        match &tag {
            None => tag = Some(name.to_owned()),
            Some(first) if first != name => {
                return Err(fail(RunProblem::Tags {
                    first: first.clone(),
                    other: name.to_owned(),
                }))
            }
            Some(_) => {}
        }
        let (ranks, fiches) = &mut seen[i];
        if !ranks.insert(rank) {
            return Err(fail(RunProblem::DuplicateRank {
                qid: qid.to_owned(),
                rank,
            }));
        }
        if !fiches.insert(fiche.to_owned()) {
            return Err(fail(RunProblem::DuplicateFiche {
                qid: qid.to_owned(),
                fiche: fiche.to_owned(),
            }));
        }
        if lines[i].len() == MAX_PER_QUESTION {
            return Err(fail(RunProblem::TooMany {
                qid: qid.to_owned(),
            }));
        }
        lines[i].push(Line {
            rank,
            score,
            fiche: fiche.to_owned(),
        });
    }
    let tag = tag.ok_or(RunError {
        line: 0,
        problem: RunProblem::Empty,
    })?;
    let ranked = lines
        .into_iter()
        .map(|mut l| {
            l.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.rank.cmp(&b.rank)));
            l.into_iter().map(|x| (x.fiche, x.score)).collect()
        })
        .collect();
    Ok((tag, ranked))
}

/// A run measured on `questions` like any method: its name is the run's tag.
pub fn measure(
    text: &str,
    questions: &[Question],
    fiche_ids: &HashSet<&str>,
    normalize: IdNormalizer,
) -> Result<Measurement, RunError> {
    let (tag, ranked) = read(text, questions, fiche_ids, normalize)?;
    let outcomes = questions
        .iter()
        .zip(ranked)
        .map(|(q, mut top)| {
            top.truncate(DEPTH + 1);
            Measurement::outcome(q, top)
        })
        .collect();
    Ok(Measurement::from_outcomes(&tag, None, outcomes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{parse_fiches, parse_questions};
    use crate::lab::{Lab, Method, QuestionVectors};

    fn exercise() -> (Lab, Vec<Question>) {
        let lab = Lab::new(parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap());
        let questions = parse_questions(include_str!("../../data/questions.csv")).unwrap();
        (lab, questions)
    }

    #[test]
    fn a_run_written_by_the_export_reads_back_to_the_same_figures() {
        let (lab, questions) = exercise();
        let ids: HashSet<&str> = lab.fiches().iter().map(|f| f.id.as_str()).collect();
        for method in Method::KEYWORD {
            let m = lab
                .measure(method, &questions, &QuestionVectors::new())
                .unwrap();
            let back = measure(&export::trec_run(&m), &questions, &ids, crate::data::nfc).unwrap();
            assert_eq!(back.method, m.method.replace('+', "-plus"));
            let back = back.with_products(lab.products());
            assert_eq!(back.kinds, m.kinds, "{}", m.method);
            for (a, b) in back.questions.iter().zip(&m.questions) {
                assert_eq!(
                    (&a.top, &a.tied_beyond, a.tie_ranks),
                    (&b.top, &b.tied_beyond, b.tie_ranks)
                );
            }
        }
    }

    #[test]
    fn the_score_orders_a_run_and_ties_keep_its_rank_order() {
        let (lab, questions) = exercise();
        let ids: HashSet<&str> = lab.fiches().iter().map(|f| f.id.as_str()).collect();
        // Written worst first, with a tie: read best first, the tie in rank order.
        let run = "q01 Q0 AR-0003 3 1.5 x\nq01 Q0 AR-0002 2 2.0 x\nq01 Q0 AR-0001 1 2.0 x\n";
        let (tag, ranked) = read(run, &questions, &ids, crate::data::nfc).unwrap();
        assert_eq!(tag, "x");
        let first: Vec<&str> = ranked[0].iter().map(|r| r.0.as_str()).collect();
        assert_eq!(first, ["AR-0001", "AR-0002", "AR-0003"]);
        assert!(
            ranked[1].is_empty(),
            "a question missing from the run found nothing"
        );
    }

    #[test]
    fn ten_malformed_runs_are_refused_with_their_line_and_reason() {
        let (lab, questions) = exercise();
        let ids: HashSet<&str> = lab.fiches().iter().map(|f| f.id.as_str()).collect();
        let good = "q01 Q0 AR-0001 1 2.5 x\n";
        let cases: [(String, usize, RunProblem); 9] = [
            (
                format!("{good}q01 Q0 AR-0002 2 2.5\n"),
                2,
                RunProblem::Fields(5),
            ),
            (
                format!("{good}q99 Q0 AR-0002 1 2.5 x\n"),
                2,
                RunProblem::UnknownQuestion("q99".into()),
            ),
            (
                format!("{good}q01 Q0 AR-9999 2 2.5 x\n"),
                2,
                RunProblem::UnknownFiche("AR-9999".into()),
            ),
            (
                format!("{good}q01 Q0 AR-0002 deux 2.5 x\n"),
                2,
                RunProblem::Rank("deux".into()),
            ),
            (
                format!("{good}q01 Q0 AR-0002 2 2,5 x\n"),
                2,
                RunProblem::Score("2,5".into()),
            ),
            (
                format!("{good}q01 Q0 AR-0002 2 NaN x\n"),
                2,
                RunProblem::Score("NaN".into()),
            ),
            (
                format!("{good}\nq01 Q0 AR-0002 1 2.0 x\n"),
                3,
                RunProblem::DuplicateRank {
                    qid: "q01".into(),
                    rank: 1,
                },
            ),
            (
                format!("{good}q01 Q0 AR-0001 2 2.0 x\n"),
                2,
                RunProblem::DuplicateFiche {
                    qid: "q01".into(),
                    fiche: "AR-0001".into(),
                },
            ),
            (
                format!("{good}q01 Q0 AR-0002 2 2.0 y\n"),
                2,
                RunProblem::Tags {
                    first: "x".into(),
                    other: "y".into(),
                },
            ),
        ];
        for (text, line, problem) in cases {
            let e = read(&text, &questions, &ids, crate::data::nfc)
                .err()
                .unwrap_or_else(|| panic!("accepted: {text:.80}"));
            assert_eq!(e, RunError { line, problem }, "{text:.80}");
            assert!(!e.to_string().is_empty());
        }
        assert_eq!(
            read(" \n\n", &questions, &ids, crate::data::nfc)
                .unwrap_err()
                .problem,
            RunProblem::Empty
        );
        // The tenth: more lines for one question than any engine's usual depth (a catalogue big
        // enough to hold that many distinct fiches).
        let names: Vec<String> = (0..=MAX_PER_QUESTION).map(|i| format!("D{i}")).collect();
        let big: HashSet<&str> = names.iter().map(String::as_str).collect();
        let many: String = names
            .iter()
            .enumerate()
            .map(|(r, d)| format!("q02 Q0 {d} {r} 1 x\n"))
            .collect();
        let e = read(&many, &questions, &big, crate::data::nfc).unwrap_err();
        assert_eq!(
            e,
            RunError {
                line: MAX_PER_QUESTION + 1,
                problem: RunProblem::TooMany { qid: "q02".into() }
            }
        );
    }

    #[test]
    fn b10_a_runs_fiche_id_in_another_normal_form_is_the_same_id() {
        let questions =
            parse_questions("type;question;fiche_attendue\nexacte;q;AR-\u{e9}\n").unwrap();
        let ids: HashSet<&str> = ["AR-\u{e9}"].into_iter().collect();
        let run = "q01 Q0 AR-e\u{301} 1 2.5 autre\n";
        let m = measure(run, &questions, &ids, crate::data::nfc).unwrap();
        assert_eq!(m.questions[0].rank, Some(1));
    }
}
