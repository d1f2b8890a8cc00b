//! The shipped answers measured: seed 001's figures and faithfulness for one method's answers,
//! and a reranking against its first stage and its ceiling.

use serde::Serialize;

use super::{Answered, Reranked, RerankedList, Tokens};
use crate::answer::judge;
use crate::answer::judge::Verdict;
use crate::answer::rerank;
use crate::answer::AnswerEvaluation;
use crate::answer::AnswerOutcome;
use crate::data::Question;

/// A set of answers measured: seed 001's figures, faithfulness, and the answers judged NON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswersMeasured {
    pub evaluation: AnswerEvaluation,
    pub faithfulness: judge::Faithfulness,
    /// Indexes of the questions whose answer the judge said NON: to be re-read by hand.
    pub non: Vec<usize>,
    /// Indexes of the questions whose verdict could not be read.
    pub unparsed: Vec<usize>,
    /// Tokens of the answers (the judge's apart).
    pub tokens: Tokens,
    pub judge_tokens: Tokens,
}

/// Measures `answers` (one per question, in order) against `questions`. A refusal is judged like
/// any answer; faithfulness counts every answer judged.
pub fn measure(answers: &[Answered], questions: &[Question]) -> AnswersMeasured {
    let outcomes: Vec<AnswerOutcome> = answers
        .iter()
        .zip(questions)
        .map(|(a, q)| a.outcome(q))
        .collect();
    let verdicts: Vec<Verdict> = answers.iter().map(Answered::verdict).collect();
    AnswersMeasured::of(
        &outcomes,
        &verdicts,
        answers.iter().fold(Tokens::default(), |t, a| t + a.tokens),
        answers
            .iter()
            .fold(Tokens::default(), |t, a| t + a.judge_tokens),
    )
}

impl AnswersMeasured {
    /// The figures of checked answers and their verdicts (one per answer, in the same order).
    pub fn of(
        outcomes: &[AnswerOutcome],
        verdicts: &[Verdict],
        tokens: Tokens,
        judge_tokens: Tokens,
    ) -> AnswersMeasured {
        let pick = |want: fn(&Verdict) -> bool| {
            verdicts
                .iter()
                .enumerate()
                .filter(|(_, v)| want(v))
                .map(|(i, _)| i)
                .collect()
        };
        AnswersMeasured {
            evaluation: crate::answer::evaluate(outcomes),
            faithfulness: judge::faithfulness(verdicts),
            non: pick(|v| *v == Verdict::Non),
            unparsed: pick(|v| matches!(v, Verdict::Unparsed(_))),
            tokens,
            judge_tokens,
        }
    }
}

/// A first stage and its reranking, measured on the answerable questions: where the expected
/// fiche stands before and after, and what no reranker of that stage can beat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RerankMeasured {
    pub answerable: usize,
    /// Expected fiche first, before and after.
    pub first_before: usize,
    pub first_after: usize,
    /// Expected fiche among the [`rerank::KEPT`] kept, before and after.
    pub kept_before: usize,
    pub kept_after: usize,
    /// Expected fiche among the [`rerank::READ`] read: the ceiling's count.
    pub within_read: usize,
    /// [`rerank::ceiling`] over the answerable questions.
    pub ceiling: Option<f64>,
    /// Replies with a fiche omitted, invented, marked twice, or a line unread.
    pub replies_with_omitted: usize,
    pub replies_with_invented: usize,
    pub replies_with_unparsed: usize,
    pub tokens: Tokens,
}

pub fn measure_reranked(r: &Reranked, questions: &[Question]) -> RerankMeasured {
    let mut m = RerankMeasured {
        answerable: 0,
        first_before: 0,
        first_after: 0,
        kept_before: 0,
        kept_after: 0,
        within_read: 0,
        ceiling: None,
        replies_with_omitted: 0,
        replies_with_invented: 0,
        replies_with_unparsed: 0,
        tokens: Tokens::default(),
    };
    let mut ranks = Vec::new();
    for (l, q) in r.lists.iter().zip(questions) {
        m.tokens = m.tokens + l.tokens;
        let marks = l.marks();
        m.replies_with_omitted +=
            usize::from(!marks.omitted.is_empty() || !marks.repeated.is_empty());
        m.replies_with_invented += usize::from(!marks.invented.is_empty());
        m.replies_with_unparsed += usize::from(!marks.unparsed.is_empty());
        let Some(expected) = q.expected.as_deref() else {
            continue;
        };
        m.answerable += 1;
        let before = l.read.iter().position(|id| id == expected);
        let after = l.order().iter().position(|(id, _)| id == expected);
        m.first_before += usize::from(before == Some(0));
        m.first_after += usize::from(after == Some(0));
        m.kept_before += usize::from(before.is_some_and(|p| p < rerank::KEPT));
        m.kept_after += usize::from(after.is_some_and(|p| p < rerank::KEPT));
        m.within_read += usize::from(before.is_some());
        ranks.push(before.map(|p| p + 1));
    }
    m.ceiling = rerank::ceiling(&ranks);
    m
}

/// The reranked lists as a run: each question's ids in the reranker's order with its mark as the
/// score (-1 for a fiche left unmarked), for [`crate::measure::Measurement::outcome`].
pub fn reranked_top(l: &RerankedList) -> Vec<(String, f64)> {
    l.order()
        .into_iter()
        .map(|(id, mark)| (id, mark.map_or(-1.0, f64::from)))
        .collect()
}

/// The name of the reranked method, as tables and exports show it (`mots+ reclassé`).
pub fn reranked_name(stage: &str) -> String {
    format!("{stage} reclassé")
}
