//! « La réponse, qui cite ses fiches » and « Mesurer les réponses »: each a paid call started by
//! a gesture, cancelled by a newer one, « Annuler » or a forgotten key.

use std::rc::Rc;

use crate::answer::shipped::{self, ShippedAnswers};
use crate::answer::{self, AnswerOutcome};
use crate::journal::Verdict;
use crate::lab::Method;
use crate::measure::Measurement;
use crate::mistral::chat::Chat;

use super::super::effect::{Effect, EvalItem};
use super::super::parts::{model_or_default, AnswerResult, Phase};
use super::super::state::State;
use super::job;
use super::journal::unanswered;

/// An answer came back: a refusal by the model goes into the journal; it is shown only if the
/// question in the box is still the one it answers.
pub(super) fn shown(s: &mut State, result: AnswerResult, now: &str, fx: &mut Vec<Effect>) {
    s.answering.pending = false;
    s.calls.answer = None;
    if let Ok((chat, _)) = &result.outcome {
        if answer::is_refusal(&chat.content) {
            if let Some(method) = s.answer_method() {
                let entry = unanswered(
                    s,
                    &result.question,
                    method,
                    Verdict::ModelRefused,
                    Some(result.model.clone()),
                    now,
                );
                if let Ok(e) = entry {
                    if s.journal.add(e) {
                        fx.push(Effect::SaveJournal(s.journal.to_jsonl()));
                    }
                }
            }
        }
    }
    if result.question == s.question {
        s.answering.result = Some(result);
    }
}

pub(super) fn eval_cancelled(s: &mut State, fx: &mut Vec<Effect>) {
    s.evaluation.confirming = false;
    if let Some(c) = s.calls.eval.take() {
        fx.push(Effect::Cancel(c));
        s.evaluation.phase = Phase::Idle;
        s.evaluation.message = Some(
            "Mesure annulée. Les réponses déjà obtenues sont gardées : relancer ne les repaie pas."
                .into(),
        );
    }
}

pub(super) fn eval_ended(
    s: &mut State,
    outcome: Result<(Method, String, Vec<AnswerOutcome>), String>,
) {
    s.evaluation.phase = Phase::Idle;
    s.calls.eval = None;
    match outcome {
        Ok(done) => {
            s.evaluation.outcomes = Some(done);
            s.evaluation.message = None;
        }
        Err(message) => s.evaluation.message = Some(message),
    }
}

pub(super) fn request(s: &mut State, fx: &mut Vec<Effect>) {
    let model = model_or_default(&s.answering.model);
    let Some(key) = s.key.clone() else {
        s.answering.result = Some(AnswerResult {
            question: s.question.clone(),
            model,
            sent: Vec::new(),
            outcome: Err("Entrez votre clé Mistral pour demander une réponse.".into()),
        });
        return;
    };
    let question = s.question.clone();
    let outcome = if question.trim().is_empty() {
        Err("Tapez d'abord une question.".to_owned())
    } else {
        s.answer_method()
            .ok_or_else(|| "Choisissez une méthode affichée.".to_owned())
            .and_then(|m| s.fiches_for(m, &question))
    };
    match outcome {
        Err(message) => {
            s.answering.result = Some(AnswerResult {
                question,
                model,
                sent: Vec::new(),
                outcome: Err(message),
            });
        }
        Ok(sent) => {
            if let Some(old) = s.calls.answer.take() {
                fx.push(Effect::Cancel(old));
            }
            let job = job(s, key);
            s.calls.answer = Some(job.call);
            s.answering.pending = true;
            fx.push(Effect::Answer {
                job,
                model,
                question,
                sent,
            });
        }
    }
}

pub(super) fn start_evaluation(s: &mut State, fx: &mut Vec<Effect>) {
    let model = model_or_default(&s.evaluation.model);
    let (Some(key), Some(method)) = (s.key.clone(), s.evaluation_method()) else {
        return;
    };
    let mut items = Vec::new();
    for q in &s.data.questions {
        match s.fiches_for(method, &q.text) {
            Ok(sent) => {
                let refs: Vec<&crate::data::Fiche> = sent.iter().collect();
                items.push(EvalItem {
                    question: q.clone(),
                    messages: answer::prompt(&q.text, &refs),
                    ids: sent.iter().map(|f| f.id.clone()).collect(),
                });
            }
            Err(message) => {
                s.evaluation.message = Some(format!("Mesure impossible : {message}"));
                return;
            }
        }
    }
    let job = job(s, key);
    s.calls.eval = Some(job.call);
    s.evaluation.message = None;
    let total = items.len();
    s.evaluation.phase = Phase::Running { done: 0, total };
    fx.push(Effect::Evaluate {
        job,
        model,
        method,
        items,
    });
}

/// The shipped answers arrived: kept, and each first stage's reranked lists measured like a
/// method (« mots+ reclassé »), so that they appear in every table, the grid and the exports.
pub(super) fn shipped(s: &mut State, outcome: Result<Box<ShippedAnswers>, String>) {
    match outcome {
        Ok(file) => {
            let data = &mut s.data;
            data.reranked = file
                .reranked
                .iter()
                .map(|r| {
                    let outcomes = r
                        .lists
                        .iter()
                        .zip(&data.questions)
                        .map(|(l, q)| Measurement::outcome(q, shipped::reranked_top(l)))
                        .collect();
                    data.lab
                        .measurement(&shipped::reranked_name(&r.stage), Some(0), outcomes)
                })
                .collect();
            data.measure_version += 1;
            data.shipped = Some(Ok(Rc::new(*file)));
        }
        Err(message) => s.data.shipped = Some(Err(message)),
    }
}

/// One outcome of « Mesurer les réponses ».
pub fn outcome(item: &EvalItem, chat: Chat) -> AnswerOutcome {
    let ids: Vec<&str> = item.ids.iter().map(String::as_str).collect();
    AnswerOutcome {
        kind: item.question.kind,
        question: item.question.text.clone(),
        expected: item.question.expected.clone(),
        check: answer::check(&chat.content, &ids),
        cut: chat.is_cut(),
        answer: chat.content,
    }
}
