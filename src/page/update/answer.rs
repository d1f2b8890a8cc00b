//! « La réponse, qui cite ses fiches » and « Mesurer les réponses »: each a paid call started by
//! a gesture, cancelled by a newer one, « Annuler » or a forgotten key.

use std::rc::Rc;

use crate::answer::shipped::{self, Reranked, ShippedAnswers};
use crate::answer::{self, judge, rerank, AnswerOutcome, Source};
use crate::journal::Verdict;
use crate::measure::Measurement;
use crate::mistral::chat::Chat;

use crate::mistral::ApiKey;

use super::super::effect::{Effect, EvalItem, RerankItem};
use super::super::jobs::{Control, Subject, Work};
use super::super::msg::AnswerMsg;
use super::super::parts::{
    judge_or_default, model_or_default, AnswerAsk, AnswerResult, EvalAsk, EvalRun, Phase,
    RerankAsk, RerankRun,
};
use super::super::state::State;
use super::journal::unanswered;

/// An answer came back: a refusal by the model goes into the journal; it is shown only if the
/// question in the box is still the one it answers.
pub(super) fn shown(s: &mut State, result: AnswerResult, now: &str, fx: &mut Vec<Effect>) {
    s.data.answering.pending = None;
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
                    if s.journal.add(e.clone()) {
                        super::journal::append(s, vec![e], fx);
                    }
                }
            }
        }
    }
    if result.question == s.question {
        s.data.answering.result = Some(result);
    }
}

/// « Demander au juge »: the answer shown, its question and fiches, sent to the judge model; its
/// reply is about that answer ([`judged_about`]).
pub(super) fn judge_requested(s: &mut State) {
    let Some(r) = &s.data.answering.result else {
        return;
    };
    let Ok((chat, _)) = &r.outcome else { return };
    let refs: Vec<&crate::data::Fiche> = r.sent.iter().collect();
    let messages = judge::judge_prompt(&r.question, &refs, &chat.content);
    let model = judge_or_default(&s.choices.judge);
    let about = judged_about(&chat.content, &model);
    s.data.chats.ask(Control::Judge, model, messages, about);
}

/// What the judge's reply is about: the answer's text and the judge model (a newer answer is not
/// judged by it, and a verdict is never shown under another judge's name).
pub fn judged_about(answer: &str, judge: &str) -> u64 {
    crate::page::jobs::digest([answer, judge])
}

/// The key forgotten: the answer asked for, the controls' chats, « Mesurer les réponses » and
/// the reranking stop; what ran is said to be interrupted.
pub(super) fn key_forgotten(s: &mut State) {
    s.data.answering.pending = None;
    s.data.chats.asked.clear();
    let e = &mut s.data.evaluation;
    e.confirming = false;
    if e.asked.take().is_some() {
        e.phase = Phase::Idle;
        e.message = Some("Mesure interrompue\u{a0}: la clé a été oubliée.".into());
    }
    e.rerank_confirming = false;
    if e.rerank_asked.take().is_some() {
        e.rerank_phase = Phase::Idle;
        e.rerank_message = Some("Reclassement interrompu\u{a0}: la clé a été oubliée.".into());
    }
}

pub(super) fn eval_cancelled(s: &mut State) {
    s.data.evaluation.confirming = false;
    if s.data.evaluation.asked.take().is_some() {
        s.data.evaluation.phase = Phase::Idle;
        s.data.evaluation.message = Some(
            "Mesure annulée. Les réponses déjà obtenues sont gardées : relancer ne les repaie pas."
                .into(),
        );
    }
}

pub(super) fn eval_ended(s: &mut State, outcome: Result<EvalRun, String>) {
    s.data.evaluation.phase = Phase::Idle;
    s.data.evaluation.asked = None;
    match outcome {
        Ok(run) => {
            let e = &mut s.data.evaluation;
            e.runs
                .retain(|r| !r.is_for(run.source, &run.model, &run.judge));
            e.runs.push(run);
            e.message = None;
        }
        Err(message) => s.data.evaluation.message = Some(message),
    }
}

pub(super) fn rerank_cancelled(s: &mut State) {
    s.data.evaluation.rerank_confirming = false;
    if s.data.evaluation.rerank_asked.take().is_some() {
        s.data.evaluation.rerank_phase = Phase::Idle;
        s.data.evaluation.rerank_message = Some(
            "Reclassement annulé. Les notes déjà obtenues sont gardées : relancer ne les repaie pas."
                .into(),
        );
    }
}

/// A reranking ended: its lists measured like a method (« mots+ reclassé »), replacing the
/// shipped one of the same name, so that the tables, the grid and the exports show it.
pub(super) fn rerank_ended(s: &mut State, outcome: Result<RerankRun, String>) {
    s.data.evaluation.rerank_phase = Phase::Idle;
    s.data.evaluation.rerank_asked = None;
    match outcome {
        Ok(run) => {
            let m = reranked_measurement(s, &run.reranked);
            let data = &mut s.data;
            data.reranked.retain(|x| x.method != m.method);
            data.reranked.push(m);
            data.measure_version += 1;
            let e = &mut s.data.evaluation;
            e.reranks
                .retain(|r| !(r.reranked.stage == run.reranked.stage && r.model == run.model));
            e.reranks.push(run);
            e.rerank_message = None;
        }
        Err(message) => s.data.evaluation.rerank_message = Some(message),
    }
}

fn reranked_measurement(s: &State, r: &Reranked) -> Measurement {
    let outcomes = r
        .lists
        .iter()
        .zip(&s.data.questions)
        .map(|(l, q)| Measurement::outcome(q, shipped::reranked_top(l)))
        .collect();
    s.data
        .lab
        .measurement(&shipped::reranked_name(&r.stage), Some(0), outcomes)
}

pub(super) fn request(s: &mut State) {
    let model = model_or_default(&s.choices.answer_model);
    if s.key.is_none() {
        s.data.answering.result = Some(AnswerResult {
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
            s.data.answering.result = Some(AnswerResult {
                question,
                model,
                sent: Vec::new(),
                outcome: Err(message),
            });
        }
        Ok(sent) => {
            // A newer answer replaces the one asked before, and the judge of the one shown.
            s.data.chats.asked.remove(&Control::Judge);
            s.data.answering.pending = Some(AnswerAsk {
                model,
                question,
                sent,
            });
        }
    }
}

pub(super) fn start_evaluation(s: &mut State) {
    let model = model_or_default(&s.choices.eval_model);
    let judge = judge_or_default(&s.choices.judge);
    let (true, Some(source)) = (s.key.is_some(), s.evaluation_source()) else {
        return;
    };
    let mut items = Vec::new();
    for q in &s.data.questions {
        let item = match source {
            Source::Method(method) => s.fiches_for(method, &q.text).map(|sent| {
                let refs: Vec<&crate::data::Fiche> = sent.iter().collect();
                EvalItem {
                    question: q.clone(),
                    messages: answer::prompt(&q.text, &refs),
                    ids: sent.iter().map(|f| f.id.clone()).collect(),
                }
            }),
            Source::Catalogue => Ok(EvalItem {
                question: q.clone(),
                messages: answer::catalogue_prompt(&q.text, s.data.lab.fiches()),
                ids: s.data.lab.fiches().iter().map(|f| f.id.clone()).collect(),
            }),
        };
        match item {
            Ok(item) => items.push(item),
            Err(message) => {
                s.data.evaluation.message = Some(format!("Mesure impossible : {message}"));
                return;
            }
        }
    }
    s.data.evaluation.message = None;
    let total = items.len();
    s.data.evaluation.phase = Phase::Running { done: 0, total };
    s.data.evaluation.asked = Some(EvalAsk {
        model,
        judge,
        source,
        items,
    });
}

/// « Reclasser les 20 premières » confirmed: each question's top 20 under the method, sent to
/// the model with the reranker's instructions.
pub(super) fn start_rerank(s: &mut State) {
    let model = model_or_default(&s.choices.eval_model);
    let (true, Some(method)) = (s.key.is_some(), s.rerank_method()) else {
        return;
    };
    let mut items = Vec::new();
    for q in &s.data.questions {
        match s.first_stage(method, &q.text) {
            Ok(read) => {
                let refs: Vec<&crate::data::Fiche> = read.iter().collect();
                items.push(RerankItem {
                    read: read.iter().map(|f| f.id.clone()).collect(),
                    messages: rerank::rerank_prompt(&q.text, &refs),
                });
            }
            Err(message) => {
                s.data.evaluation.rerank_message =
                    Some(format!("Reclassement impossible : {message}"));
                return;
            }
        }
    }
    s.data.evaluation.rerank_message = None;
    s.data.evaluation.rerank_phase = Phase::Running {
        done: 0,
        total: items.len(),
    };
    s.data.evaluation.rerank_asked = Some(RerankAsk {
        model,
        method,
        items,
    });
}

/// The keyed jobs of the answer and its evaluation: each asked for and not yet ended.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if let Some(a) = &s.data.answering.pending {
        want(Subject::Answer(a.digest()));
    }
    if s.data.evaluation.asked.is_some() {
        want(Subject::Evaluate);
    }
    if s.data.evaluation.rerank_asked.is_some() {
        want(Subject::Rerank);
    }
}

/// What those jobs send.
pub(super) fn work(s: &State, subject: &Subject, key: ApiKey) -> Option<Work> {
    match subject {
        Subject::Answer(_) => s.data.answering.pending.as_ref().map(|a| Work::Answer {
            key,
            model: a.model.clone(),
            question: a.question.clone(),
            sent: a.sent.clone(),
            cached: s.answers.clone(),
        }),
        Subject::Evaluate => s.data.evaluation.asked.as_ref().map(|e| Work::Evaluate {
            key,
            model: e.model.clone(),
            judge: e.judge.clone(),
            source: e.source,
            items: e.items.clone(),
            cached: s.answers.clone(),
        }),
        Subject::Rerank => s
            .data
            .evaluation
            .rerank_asked
            .as_ref()
            .map(|r| Work::Rerank {
                key,
                model: r.model.clone(),
                method: r.method,
                items: r.items.clone(),
                cached: s.answers.clone(),
            }),
        _ => None,
    }
}

/// The answers file shipped with the exercise, in `bytes`, checked against the catalogue (its
/// `fingerprint`, its fiches `ids`, its `questions`): a file computed for other texts is refused
/// whole, and why is said in French.
pub fn read_shipped(
    bytes: &[u8],
    fingerprint: &str,
    ids: &[String],
    questions: &[crate::data::Question],
) -> Result<Box<ShippedAnswers>, String> {
    let ids: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
    ShippedAnswers::parse(bytes, fingerprint, &ids, questions)
        .map(Box::new)
        .map_err(|e| crate::fr::messages::shipped(&e))
}

/// The shipped answers arrived: kept, and each first stage's reranked lists measured like a
/// method (« mots+ reclassé »), so that they appear in every table, the grid and the exports.
pub(super) fn shipped(s: &mut State, outcome: Result<Box<ShippedAnswers>, String>) {
    s.data.looked.answers = true;
    // The reranked lists must be this page's own first stages: a forged or stale list is never
    // measured as the reranker's work.
    let outcome = outcome.and_then(|file| {
        file.check_first_stages(&s.data.questions, |method, question| {
            let ids = s.first_stage(method, question).ok()?;
            Some(ids.into_iter().map(|f| f.id).collect())
        })
        .map_err(|e| crate::fr::messages::shipped(&e))?;
        Ok(file)
    });
    match outcome {
        Ok(file) => {
            let reranked: Vec<Measurement> = file
                .reranked
                .iter()
                .map(|r| reranked_measurement(s, r))
                .collect();
            s.data.reranked = reranked;
            s.data.measure_version += 1;
            s.data.shipped = Some(Ok(Rc::new(*file)));
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

/// What an [`AnswerMsg`] changes.
pub(super) fn update(s: &mut State, msg: AnswerMsg) {
    match msg {
        AnswerMsg::MethodChosen(m) => s.choices.answer_method = Some(m),
        AnswerMsg::ModelChosen(m) => s.choices.answer_model = Some(m),
        AnswerMsg::Requested => request(s),
        AnswerMsg::Obtained { key, chat } => {
            std::rc::Rc::make_mut(&mut s.answers).insert(key, chat);
        }
        AnswerMsg::EvalSourceChosen(m) => s.choices.eval_source = Some(m),
        AnswerMsg::EvalModelChosen(m) => s.choices.eval_model = Some(m),
        AnswerMsg::EvalJudgeChosen(m) => s.choices.judge = Some(m),
        AnswerMsg::EvalAsked if s.key.is_some() && !s.data.evaluation.phase.is_running() => {
            s.data.evaluation.confirming = true;
            s.data.evaluation.message = None;
        }
        AnswerMsg::EvalConfirmed if s.data.evaluation.confirming => {
            s.data.evaluation.confirming = false;
            start_evaluation(s);
        }
        AnswerMsg::EvalCancelled => eval_cancelled(s),
        AnswerMsg::JudgeRequested => judge_requested(s),
        AnswerMsg::RerankAsked
            if s.key.is_some() && !s.data.evaluation.rerank_phase.is_running() =>
        {
            s.data.evaluation.rerank_confirming = true;
            s.data.evaluation.rerank_message = None;
        }
        AnswerMsg::RerankConfirmed if s.data.evaluation.rerank_confirming => {
            s.data.evaluation.rerank_confirming = false;
            start_rerank(s);
        }
        AnswerMsg::RerankCancelled => rerank_cancelled(s),
        // A result from another catalogue's task, or a gesture its state does not allow now.
        _ => {}
    }
}
