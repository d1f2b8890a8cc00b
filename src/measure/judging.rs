//! Pooled judgments by hand: the union of several methods' first fiches for each question (the
//! pool, as TREC pools its runs), judged one fiche at a time with the grades of
//! [`super::graded`] (3 « la réponse », 2 « une variante / presque », 1 « en rapport », 0 « hors
//! sujet »), kept in the order given so that the last one can be undone, and written as TREC
//! qrels — the file `mesurer --qrels` reads.
//!
//! The pool leaves out what the catalogue's own qrels already grade (for the exercise, each
//! expected fiche and its product's other variants): a learner judges only what no file says.
//! The qrels in force are those qrels with the hand judgments over them.

use std::collections::{HashMap, HashSet};

use crate::data::Question;

use super::export::qid;
use super::graded::{Qrels, QrelsError, MAX_GRADE};
use super::Measurement;

/// How deep each method's results enter the pool: its first ten, the depth every measure reads.
pub const POOL_DEPTH: usize = super::DEPTH;

/// One pair to judge: a question (its index in the question file) and a fiche.
pub type Item = (usize, String);

/// The pairs to judge, question by question; within a question, by the best rank any run gives
/// the fiche (a tie by the runs' order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pool {
    pub items: Vec<Item>,
}

impl Pool {
    /// The union of `runs`' first `depth` fiches for each question, without the pairs `known`
    /// already grades. The runs must be of the same questions (the first run's count is taken).
    pub fn new(runs: &[&Measurement], depth: usize, known: &Qrels) -> Pool {
        let questions = runs.iter().map(|m| m.questions.len()).min().unwrap_or(0);
        let mut items = Vec::new();
        for i in 0..questions {
            let graded = known.of(i);
            let mut seen: HashSet<&str> = HashSet::new();
            for rank in 0..depth {
                for m in runs {
                    let Some((id, _)) = m.questions[i].top.get(rank) else {
                        continue;
                    };
                    if graded.is_some_and(|g| g.contains_key(id)) || !seen.insert(id) {
                        continue;
                    }
                    items.push((i, id.clone()));
                }
            }
        }
        Pool { items }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The first pair `judged` has no grade for, if any is left.
    pub fn next<'a>(&'a self, judged: &Judgments) -> Option<&'a Item> {
        self.items
            .iter()
            .find(|(q, f)| judged.grade(*q, f).is_none())
    }

    /// How many of the pool's pairs `judged` grades.
    pub fn done(&self, judged: &Judgments) -> usize {
        self.items
            .iter()
            .filter(|(q, f)| judged.grade(*q, f).is_some())
            .count()
    }

    pub fn contains(&self, question: usize, fiche: &str) -> bool {
        self.items.iter().any(|(q, f)| *q == question && f == fiche)
    }
}

/// Hand judgments, in the order they were given (a pair judged again moves to the end).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Judgments {
    /// By question, each judged fiche's grade: looked up without building a key (the view asks
    /// for every pair of the pool at each render).
    grades: HashMap<usize, HashMap<String, u8>>,
    order: Vec<Item>,
}

impl Judgments {
    /// Grades `fiche` for question `question` (a grade over [`MAX_GRADE`] is taken as it).
    pub fn judge(&mut self, question: usize, fiche: &str, grade: u8) {
        let item = (question, fiche.to_owned());
        let had = self
            .grades
            .entry(question)
            .or_default()
            .insert(item.1.clone(), grade.min(MAX_GRADE));
        if had.is_some() {
            self.order.retain(|x| *x != item);
        }
        self.order.push(item);
    }

    /// Takes back the last judgment given: the pair it was about.
    pub fn undo(&mut self) -> Option<Item> {
        let last = self.order.pop()?;
        if let Some(of) = self.grades.get_mut(&last.0) {
            of.remove(&last.1);
            if of.is_empty() {
                self.grades.remove(&last.0);
            }
        }
        Some(last)
    }

    pub fn grade(&self, question: usize, fiche: &str) -> Option<u8> {
        self.grades.get(&question)?.get(fiche).copied()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The judgments as TREC qrels, in the order given: what is kept on the device.
    pub fn to_trec(&self) -> String {
        self.order
            .iter()
            .filter_map(|(q, f)| Some((q, f, self.grade(*q, f)?)))
            .map(|(q, f, g)| format!("{} 0 {f} {g}\n", qid(*q)))
            .collect()
    }

    /// Reads judgments written by [`Judgments::to_trec`] (or any qrels of these `questions` and
    /// fiches `ids`), in their order; a wrong line refuses the whole text.
    pub fn parse(
        text: &str,
        questions: &[Question],
        ids: &HashSet<&str>,
    ) -> Result<Judgments, QrelsError> {
        // Checked line by line as any qrels file (fields, question, fiche, grade, duplicates).
        Qrels::parse(text, questions, ids)?;
        let mut out = Judgments::default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if let [q, _, fiche, grade] = fields[..] {
                let (Some(i), Ok(g)) = (
                    q.strip_prefix('q')
                        .and_then(|n| n.parse::<usize>().ok())
                        .and_then(|n| n.checked_sub(1)),
                    grade.parse::<u8>(),
                ) else {
                    continue;
                };
                out.judge(i, fiche, g);
            }
        }
        Ok(out)
    }

    /// `base` with these judgments over it: a pair judged by hand takes the hand's grade.
    pub fn over(&self, base: &Qrels) -> Qrels {
        let mut out = base.clone();
        for (q, f) in &self.order {
            if let Some(g) = self.grade(*q, f) {
                out.set(*q, f, g);
            }
        }
        out
    }
}

/// How two judges agree on the pairs both graded: the confusion table of their grades (rows the
/// first judge's, columns the second's, 0 to 3) and Cohen's κ with linear weights — a grade one
/// step apart counts two thirds of an agreement, three steps apart none; 1 is full agreement, 0
/// what chance alone gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub pairs: usize,
    pub confusion: [[usize; 4]; 4],
    /// `None` when chance alone agrees fully (every grade one and the same for both judges).
    pub kappa: Option<f64>,
}

impl Agreement {
    /// The agreement of `a` and `b` on the pairs both judge.
    pub fn between(a: &Qrels, b: &Qrels) -> Agreement {
        let mut confusion = [[0usize; 4]; 4];
        let mut pairs = 0;
        for (q, grades) in a.iter() {
            let Some(theirs) = b.of(q) else {
                continue;
            };
            for (fiche, &g) in grades {
                if let Some(&h) = theirs.get(fiche) {
                    confusion[usize::from(g.min(MAX_GRADE))][usize::from(h.min(MAX_GRADE))] += 1;
                    pairs += 1;
                }
            }
        }
        Agreement {
            pairs,
            confusion,
            kappa: weighted_kappa(&confusion),
        }
    }

    /// The terminal's report: `a`'s grades in rows, `b`'s in columns.
    pub fn report(&self, a: &str, b: &str) -> String {
        let mut out = format!(
            "Accord des notes ({a} contre {b} ; {} fiches notées des deux côtés) :\n",
            self.pairs
        );
        out += &format!(
            "  mêmes notes : {:.3} ; kappa pondéré (linéaire) : {}\n",
            self.exact(),
            self.kappa.map_or(
                "non défini (une seule note partout)".to_owned(),
                |k| format!("{k:.3}")
            )
        );
        out += &format!("  notes de {a} en ligne, de {b} en colonne :\n");
        out += &format!(
            "   {}\n",
            (0..=MAX_GRADE)
                .map(|g| format!("{g:>6}"))
                .collect::<String>()
        );
        for (g, row) in self.confusion.iter().enumerate() {
            out += &format!(
                "  {g}{}\n",
                row.iter().map(|n| format!("{n:>6}")).collect::<String>()
            );
        }
        out
    }

    /// The share of the pairs graded alike.
    pub fn exact(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        (0..4).map(|i| self.confusion[i][i]).sum::<usize>() as f64 / self.pairs as f64
    }
}

/// Cohen's κ of `table` with linear agreement weights 1 − |i − j| / 3.
fn weighted_kappa(table: &[[usize; 4]; 4]) -> Option<f64> {
    let n: usize = table.iter().flatten().sum();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let rows: Vec<f64> = table
        .iter()
        .map(|r| r.iter().sum::<usize>() as f64 / n)
        .collect();
    let cols: Vec<f64> = (0..4)
        .map(|j| table.iter().map(|r| r[j]).sum::<usize>() as f64 / n)
        .collect();
    let w = |i: usize, j: usize| 1.0 - i.abs_diff(j) as f64 / 3.0;
    let (mut observed, mut chance) = (0.0, 0.0);
    for i in 0..4 {
        for j in 0..4 {
            observed += w(i, j) * table[i][j] as f64 / n;
            chance += w(i, j) * rows[i] * cols[j];
        }
    }
    (chance < 1.0 - 1e-12).then(|| (observed - chance) / (1.0 - chance))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::QuestionKind;
    use crate::measure::QuestionOutcome;

    fn run(name: &str, tops: &[&[&str]]) -> Measurement {
        let outcomes = tops
            .iter()
            .map(|top| QuestionOutcome {
                kind: QuestionKind::Courante,
                question: String::new(),
                expected: None,
                rank: None,
                top: top
                    .iter()
                    .enumerate()
                    .map(|(r, id)| (id.to_string(), 10.0 - r as f64))
                    .collect(),
                tied_beyond: None,
                tie_ranks: None,
                product_rank: None,
            })
            .collect();
        Measurement::from_outcomes(name, None, outcomes)
    }

    #[test]
    fn the_pool_is_the_union_of_every_runs_first_fiches_by_best_rank_without_what_is_known() {
        let a = run("a", &[&["F1", "F2", "F3"], &["F4"]]);
        let b = run("b", &[&["F3", "F5", "F1"], &["F4", "F6"]]);
        let mut known = Qrels::default();
        known.set(1, "F6", 3);
        let pool = Pool::new(&[&a, &b], 2, &known);
        let items: Vec<(usize, &str)> = pool.items.iter().map(|(q, f)| (*q, f.as_str())).collect();
        // Rank 1 of a then of b, rank 2 of a then of b; F1 (b's 3rd) is past the depth there.
        assert_eq!(
            items,
            [(0, "F1"), (0, "F3"), (0, "F2"), (0, "F5"), (1, "F4")]
        );
    }

    #[test]
    fn judging_goes_to_the_next_pair_undo_takes_back_the_last_and_the_text_reads_back() {
        let a = run("a", &[&["F1", "F2"], &["F3"]]);
        let pool = Pool::new(&[&a], 10, &Qrels::default());
        let mut j = Judgments::default();
        assert_eq!(pool.next(&j), Some(&(0, "F1".to_owned())));
        j.judge(0, "F1", 3);
        j.judge(0, "F2", 0);
        assert_eq!(pool.next(&j), Some(&(1, "F3".to_owned())));
        assert_eq!(pool.done(&j), 2);
        assert_eq!(j.undo(), Some((0, "F2".to_owned())));
        assert_eq!(pool.next(&j), Some(&(0, "F2".to_owned())));
        j.judge(0, "F2", 1);
        // Judged again: the new grade, moved to the end.
        j.judge(0, "F1", 2);
        assert_eq!(j.to_trec(), "q01 0 F2 1\nq01 0 F1 2\n");
        let questions: Vec<Question> = (0..2)
            .map(|i| Question {
                text: format!("question {i}"),
                kind: QuestionKind::Courante,
                expected: None,
            })
            .collect();
        let ids: HashSet<&str> = ["F1", "F2", "F3"].into();
        let back = Judgments::parse(&j.to_trec(), &questions, &ids).unwrap();
        assert_eq!(back, j);
        assert!(Judgments::parse("q01 0 F9 1\n", &questions, &ids).is_err());
    }

    #[test]
    fn the_weighted_kappa_is_one_for_identical_grades_and_counts_near_misses_in_part() {
        let mut a = Qrels::default();
        let mut b = Qrels::default();
        for (i, (g, h)) in [(3, 3), (2, 2), (0, 0), (1, 1), (3, 2), (0, 1)]
            .iter()
            .enumerate()
        {
            a.set(0, &format!("F{i}"), *g);
            b.set(0, &format!("F{i}"), *h);
        }
        // A pair the second judge did not grade is left out.
        a.set(1, "F9", 3);
        let agree = Agreement::between(&a, &b);
        assert_eq!(agree.pairs, 6);
        assert_eq!(agree.confusion[3][2], 1);
        assert!((agree.exact() - 4.0 / 6.0).abs() < 1e-12);
        // By hand: observed (4 + 2 × 2/3) / 6 = 8/9, chance 31/54 from the margins
        // (2 1 1 2 and 1 2 2 1 sixths): κ = (8/9 − 31/54) / (1 − 31/54) = 17/23.
        let k = agree.kappa.unwrap();
        assert!((k - 17.0 / 23.0).abs() < 1e-12, "{k}");
        assert_eq!(Agreement::between(&a, &a).kappa, Some(1.0));
        let mut one = Qrels::default();
        one.set(0, "F0", 2);
        assert_eq!(Agreement::between(&one, &one).kappa, None);
    }

    #[test]
    fn the_hand_grades_override_the_derived_ones() {
        let mut base = Qrels::default();
        base.set(0, "F1", 3);
        base.set(0, "F2", 2);
        let mut j = Judgments::default();
        j.judge(0, "F2", 0);
        j.judge(1, "F7", 1);
        let all = j.over(&base);
        assert_eq!(all.of(0).unwrap().get("F2"), Some(&0));
        assert_eq!(all.of(0).unwrap().get("F1"), Some(&3));
        assert_eq!(all.of(1).unwrap().get("F7"), Some(&1));
        assert_eq!(all.len(), 3);
    }
}
