//! Graded measures: each question's fiches judged 0 to 3 (TREC qrels, `qid 0 docid grade`), and
//! three figures over a method's first ten: nDCG@10, recall@10 and Judged@10, as `trec_eval` and
//! `ir_measures` compute them (the check: `tests/graded.rs` against `ir_measures`).
//!
//! - **nDCG@10**: each fiche of the first ten gains its grade, divided by log2(rank + 1); the sum
//!   is divided by the same sum over the question's judged fiches in the best order.
//! - **recall@10**: the share of the question's fiches graded 1 or more found in the first ten.
//! - **Judged@10**: the share of the first ten (of those returned, when fewer) that has a grade:
//!   below 1, the figures above count unjudged fiches as misses, and say less than they seem.
//!
//! A question enters the means when the qrels hold at least one line for it: a question without
//! any (the exercise's « sans réponse » ones) is left out, as `trec_eval` leaves it out.
//!
//! For the exercise the qrels are derived ([`Qrels::derived`]): the expected fiche 3, the other
//! variants of its product 2 (a size or a colour the question never names).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::data::{Fiche, Question, QuestionKind};

use super::export::qid;
use super::products::Products;
use super::{Measurement, DEPTH};

/// The highest grade: « la réponse ».
pub const MAX_GRADE: u8 = 3;

/// Graded judgments: by question (its index in the question file), each judged fiche's grade.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qrels {
    by_question: BTreeMap<usize, BTreeMap<String, u8>>,
}

/// What is wrong with a qrels file, at line `line` (from 1).
#[derive(Debug, Clone, PartialEq)]
pub struct QrelsError {
    pub line: usize,
    pub problem: QrelsProblem,
}

#[derive(Debug, Clone, PartialEq)]
pub enum QrelsProblem {
    /// Not four fields separated by white space.
    Fields(usize),
    /// A query id that names no question of the file (`q01` is the first).
    UnknownQuestion(String),
    /// A fiche the catalogue does not hold.
    UnknownFiche(String),
    /// A grade that is not a whole number from 0 to 3.
    Grade(String),
    /// The same question and fiche judged twice.
    Duplicate { question: String, fiche: String },
}

impl Qrels {
    /// Reads TREC qrels: `qid 0 docid grade` per line (the second field is ignored, as TREC's
    /// tools do; blank lines are skipped). Query ids are `q01`, `q02`… in the order of
    /// `questions`; every fiche must be in `ids`. The first wrong line refuses the whole file.
    pub fn parse(
        text: &str,
        questions: &[Question],
        ids: &HashSet<&str>,
    ) -> Result<Qrels, QrelsError> {
        let mut out = Qrels::default();
        for (n, line) in text.lines().enumerate() {
            let fail = |problem| QrelsError {
                line: n + 1,
                problem,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.is_empty() {
                continue;
            }
            let [q, _, doc, grade] = fields[..] else {
                return Err(fail(QrelsProblem::Fields(fields.len())));
            };
            let question = question_index(q)
                .filter(|&i| i < questions.len())
                .ok_or_else(|| fail(QrelsProblem::UnknownQuestion(q.to_owned())))?;
            if !ids.contains(doc) {
                return Err(fail(QrelsProblem::UnknownFiche(doc.to_owned())));
            }
            let grade = grade
                .parse::<u8>()
                .ok()
                .filter(|g| *g <= MAX_GRADE)
                .ok_or_else(|| fail(QrelsProblem::Grade(grade.to_owned())))?;
            let judged = out.by_question.entry(question).or_default();
            if judged.insert(doc.to_owned(), grade).is_some() {
                return Err(fail(QrelsProblem::Duplicate {
                    question: q.to_owned(),
                    fiche: doc.to_owned(),
                }));
            }
        }
        Ok(out)
    }

    /// The exercise's graded qrels, derived from its one expected fiche per question: that fiche
    /// 3, the other variants of its product (`products`, of `fiches`) 2. Questions without an
    /// expected fiche have no line.
    pub fn derived(questions: &[Question], fiches: &[Fiche], products: &Products) -> Qrels {
        let mut out = Qrels::default();
        // The questions of each expected product, then one pass over the catalogue: a scan of the
        // catalogue per question is a long task in the page at scale (BENCHMARKS.md).
        let mut asked: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, q) in questions.iter().enumerate() {
            let Some(expected) = &q.expected else {
                continue;
            };
            out.by_question
                .entry(i)
                .or_default()
                .insert(expected.clone(), MAX_GRADE);
            if let Some(p) = products.product_of(expected) {
                asked.entry(p).or_default().push(i);
            }
        }
        for f in fiches {
            let Some(questions) = products.product_of(&f.id).and_then(|p| asked.get(&p)) else {
                continue;
            };
            for i in questions {
                out.by_question
                    .entry(*i)
                    .or_default()
                    .entry(f.id.clone())
                    .or_insert(2);
            }
        }
        out
    }

    /// The qrels as TREC writes them, by question then fiche.
    pub fn to_trec(&self) -> String {
        let mut out = String::new();
        for (i, judged) in &self.by_question {
            for (doc, grade) in judged {
                out += &format!("{} 0 {doc} {grade}\n", qid(*i));
            }
        }
        out
    }

    /// Grades `fiche` `grade` for question `i` (from 0), over any grade it had.
    pub fn set(&mut self, i: usize, fiche: &str, grade: u8) {
        self.by_question
            .entry(i)
            .or_default()
            .insert(fiche.to_owned(), grade.min(MAX_GRADE));
    }

    /// The grades of question `i` (from 0), if it has any line.
    pub fn of(&self, i: usize) -> Option<&BTreeMap<String, u8>> {
        self.by_question.get(&i)
    }

    /// Every judged question (from 0) with its grades.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &BTreeMap<String, u8>)> {
        self.by_question.iter().map(|(q, g)| (*q, g))
    }

    /// How many judgments the qrels hold.
    pub fn len(&self) -> usize {
        self.by_question.values().map(BTreeMap::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The question index `q07` names (from 0), if it is one of ours.
fn question_index(qid: &str) -> Option<usize> {
    let n: usize = qid.strip_prefix('q')?.parse().ok()?;
    n.checked_sub(1)
}

/// One question's graded figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradedOutcome {
    pub ndcg10: f64,
    pub recall10: f64,
    pub judged10: f64,
}

/// The graded figures of `top` (fiche ids, best first) against a question's `grades`.
pub fn question(top: &[String], grades: &BTreeMap<String, u8>) -> GradedOutcome {
    let top = &top[..top.len().min(DEPTH)];
    let discount = |rank: usize| 1.0 / ((rank + 2) as f64).log2();
    let grade = |id: &String| grades.get(id).copied().unwrap_or(0);
    let dcg: f64 = top
        .iter()
        .enumerate()
        .map(|(r, id)| f64::from(grade(id)) * discount(r))
        .sum();
    let mut best: Vec<u8> = grades.values().copied().filter(|g| *g > 0).collect();
    best.sort_unstable_by(|a, b| b.cmp(a));
    let ideal: f64 = best
        .iter()
        .take(DEPTH)
        .enumerate()
        .map(|(r, g)| f64::from(*g) * discount(r))
        .sum();
    let relevant = best.len();
    let found = top.iter().filter(|id| grade(id) > 0).count();
    let judged = top.iter().filter(|id| grades.contains_key(*id)).count();
    GradedOutcome {
        ndcg10: if ideal > 0.0 { dcg / ideal } else { 0.0 },
        recall10: if relevant > 0 {
            found as f64 / relevant as f64
        } else {
            0.0
        },
        judged10: if top.is_empty() {
            0.0
        } else {
            judged as f64 / top.len() as f64
        },
    }
}

/// The means of a set of questions' graded figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradedFigures {
    /// The questions judged (with at least one line in the qrels).
    pub questions: usize,
    pub ndcg10: f64,
    pub recall10: f64,
    pub judged10: f64,
}

impl GradedFigures {
    fn mean(outcomes: &[GradedOutcome]) -> GradedFigures {
        let n = outcomes.len();
        let mean = |f: fn(&GradedOutcome) -> f64| {
            if n == 0 {
                0.0
            } else {
                outcomes.iter().map(f).sum::<f64>() / n as f64
            }
        };
        GradedFigures {
            questions: n,
            ndcg10: mean(|o| o.ndcg10),
            recall10: mean(|o| o.recall10),
            judged10: mean(|o| o.judged10),
        }
    }
}

/// A method's graded figures: over every judged question, and by type.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    pub method: String,
    pub all: GradedFigures,
    pub kinds: Vec<(QuestionKind, GradedFigures)>,
}

/// `m` measured against `qrels`: each judged question's first ten graded.
pub fn measure(m: &Measurement, qrels: &Qrels) -> Graded {
    let mut all = Vec::new();
    let mut by_kind: BTreeMap<u8, (QuestionKind, Vec<GradedOutcome>)> = BTreeMap::new();
    for (i, q) in m.questions.iter().enumerate() {
        let Some(grades) = qrels.of(i) else {
            continue;
        };
        let top: Vec<String> = q.top.iter().map(|(id, _)| id.clone()).collect();
        let o = question(&top, grades);
        all.push(o);
        by_kind
            .entry(kind_order(q.kind))
            .or_insert_with(|| (q.kind, Vec::new()))
            .1
            .push(o);
    }
    Graded {
        method: m.method.clone(),
        all: GradedFigures::mean(&all),
        kinds: by_kind
            .into_values()
            .map(|(k, os)| (k, GradedFigures::mean(&os)))
            .collect(),
    }
}

fn kind_order(kind: QuestionKind) -> u8 {
    match kind {
        QuestionKind::Exacte => 0,
        QuestionKind::Courante => 1,
        QuestionKind::Absente => 2,
    }
}

/// `ms` measured against `qrels` (read from `source`), as the terminal prints them.
pub fn table(ms: &[Measurement], qrels: &Qrels, source: &str) -> String {
    let graded: Vec<Graded> = ms.iter().map(|m| measure(m, qrels)).collect();
    text_table(&graded, source)
}

/// The terminal's table of graded figures: one row per method, nDCG@10, recall@10 and
/// Judged@10 over every judged question, then nDCG@10 by type.
pub fn text_table(graded: &[Graded], source: &str) -> String {
    let width = super::name_width(&[]).max(
        graded
            .iter()
            .map(|g| g.method.chars().count())
            .max()
            .unwrap_or(0),
    );
    let Some(first) = graded.first() else {
        return String::new();
    };
    let mut out = format!(
        "Mesures graduées ({source} ; {} questions jugées) :\n",
        first.all.questions
    );
    let kinds: Vec<String> = first
        .kinds
        .iter()
        .map(|(k, f)| format!("nDCG@10 {} ({})", kind_label(*k), f.questions))
        .collect();
    out += &format!(
        "{:<width$}  {:>7} {:>9} {:>9}",
        "méthode", "nDCG@10", "rappel@10", "jugées@10"
    );
    for k in &kinds {
        out += &format!("  {k:>w$}", w = k.chars().count().max(7));
    }
    out += "\n";
    for g in graded {
        out += &format!(
            "{:<width$}  {:>7.3} {:>9.3} {:>9.3}",
            g.method, g.all.ndcg10, g.all.recall10, g.all.judged10
        );
        for (k, (_, f)) in kinds.iter().zip(&g.kinds) {
            out += &format!("  {:>w$.3}", f.ndcg10, w = k.chars().count().max(7));
        }
        out += "\n";
    }
    out
}

fn kind_label(kind: QuestionKind) -> &'static str {
    match kind {
        QuestionKind::Exacte => "exactes",
        QuestionKind::Courante => "courantes",
        QuestionKind::Absente => "sans réponse",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grades(list: &[(&str, u8)]) -> BTreeMap<String, u8> {
        list.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ndcg_gains_the_grade_and_discounts_by_the_rank() {
        // The figures ir_measures gives for the same run and qrels (0.4.3, pytrec_eval).
        let g = grades(&[("d1", 3), ("d2", 2), ("d5", 0)]);
        let o = question(&ids(&["d2", "d9", "d1"]), &g);
        assert!((o.ndcg10 - 0.821_237_770_539_823_7).abs() < 1e-12, "{o:?}");
        assert_eq!(o.recall10, 1.0);
        assert!((o.judged10 - 2.0 / 3.0).abs() < 1e-12);
        let none = question(&ids(&["d7", "d8"]), &grades(&[("d7", 0)]));
        assert_eq!((none.ndcg10, none.recall10, none.judged10), (0.0, 0.0, 0.5));
    }

    #[test]
    fn only_the_first_ten_count() {
        let g = grades(&[("d11", 3)]);
        let top: Vec<String> = (1..=11).map(|i| format!("d{i}")).collect();
        let o = question(&top, &g);
        assert_eq!((o.ndcg10, o.recall10, o.judged10), (0.0, 0.0, 0.0));
    }

    fn question_of(kind: QuestionKind, expected: Option<&str>) -> Question {
        Question {
            kind,
            text: "q".into(),
            expected: expected.map(str::to_owned),
        }
    }

    #[test]
    fn a_qrels_file_is_refused_at_its_first_wrong_line() {
        let qs = [
            question_of(QuestionKind::Exacte, Some("A")),
            question_of(QuestionKind::Absente, None),
        ];
        let ids: HashSet<&str> = ["A", "B"].into_iter().collect();
        let parse = |t: &str| Qrels::parse(t, &qs, &ids);
        let ok = parse("q01 0 A 3\n\nq01 0 B 2\nq02 0 B 0\n").unwrap();
        assert_eq!(ok.len(), 3);
        assert_eq!(ok.to_trec(), "q01 0 A 3\nq01 0 B 2\nq02 0 B 0\n");
        let problem = |t: &str| parse(t).unwrap_err();
        assert_eq!(problem("q01 0 A").problem, QrelsProblem::Fields(3));
        assert_eq!(
            problem("q01 0 A 3\nq03 0 A 1").problem,
            QrelsProblem::UnknownQuestion("q03".into())
        );
        assert_eq!(problem("q03 0 A 1").line, 1);
        assert_eq!(
            problem("q01 0 Z 1").problem,
            QrelsProblem::UnknownFiche("Z".into())
        );
        assert_eq!(
            problem("q01 0 A 4").problem,
            QrelsProblem::Grade("4".into())
        );
        assert_eq!(
            problem("q01 0 A -1").problem,
            QrelsProblem::Grade("-1".into())
        );
        assert_eq!(
            problem("q01 0 A 3\nq01 0 A 2").problem,
            QrelsProblem::Duplicate {
                question: "q01".into(),
                fiche: "A".into()
            }
        );
        assert_eq!(
            problem("q00 0 A 1").problem,
            QrelsProblem::UnknownQuestion("q00".into())
        );
    }
}
