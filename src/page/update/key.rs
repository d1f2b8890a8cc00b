//! The learner's key, and the calls that spend it: checking it, forgetting it (every call that
//! would still send it cancelled), a call's wait before its next attempt, the costs paid.

use crate::fr::messages;
use crate::mistral::{self, ApiKey};

use super::super::effect::{CallId, Effect, Wait};
use super::super::parts::{Costs, Phase};
use super::super::state::State;
use super::{cancel_all, job};

pub(super) fn typed(s: &mut State, raw: String, fx: &mut Vec<Effect>) {
    let parsed = ApiKey::parse(&raw);
    s.key_problem = match &parsed {
        Err(e @ mistral::KeyError::BadCharacter { .. }) => Some(messages::key(e)),
        _ => None,
    };
    s.key = parsed.ok();
    if s.key.is_none() {
        // An emptied (or unusable) field forgets the key everywhere: memory, storage, and
        // every call that would still send it.
        let problem = s.key_problem.take();
        forget(s, fx);
        s.key_problem = problem;
    } else if s.remembered {
        fx.push(Effect::RememberKey(Some(raw.trim().to_owned())));
    }
    s.search_error = None;
    s.key_check = None;
    if let Some(c) = s.calls.check.take() {
        fx.push(Effect::Cancel(c));
    }
}

pub(super) fn remember(s: &mut State, on: bool, fx: &mut Vec<Effect>) {
    if on && s.key.is_some() && s.shared_origin {
        // Other pages of this origin could read it: say so before storing anything.
        s.remember_warning = true;
    } else {
        s.remember_warning = false;
        s.remembered = on && s.key.is_some();
        let kept = s.key.as_ref().filter(|_| on).map(|k| k.secret().to_owned());
        fx.push(Effect::RememberKey(kept));
    }
}

pub(super) fn remember_confirmed(s: &mut State, fx: &mut Vec<Effect>) {
    s.remember_warning = false;
    s.remembered = s.key.is_some();
    let kept = s.key.as_ref().map(|k| k.secret().to_owned());
    fx.push(Effect::RememberKey(kept));
}

pub(super) fn check(s: &mut State, fx: &mut Vec<Effect>) {
    if let (Some(key), None) = (s.key.clone(), &s.calls.check) {
        let job = job(s, key);
        s.calls.check = Some(job.call);
        s.key_check = Some(None);
        fx.push(Effect::CheckKey { job });
    }
}

/// Forgets the key: in memory, in storage, and every call that would still send it.
pub(super) fn forget(s: &mut State, fx: &mut Vec<Effect>) {
    s.key = None;
    s.key_problem = None;
    s.remembered = false;
    s.remember_warning = false;
    cancel_all(s, fx);
    s.key_check = None;
    s.data.ui.compute = Phase::Idle;
    s.data.ui.dense = Phase::Idle;
    s.answering.pending = false;
    s.answering.judging = false;
    s.evaluation.confirming = false;
    if s.evaluation.phase.is_running() {
        s.evaluation.phase = Phase::Idle;
        s.evaluation.message = Some("Mesure interrompue : la clé a été oubliée.".into());
    }
    s.evaluation.rerank_confirming = false;
    if s.evaluation.rerank_phase.is_running() {
        s.evaluation.rerank_phase = Phase::Idle;
        s.evaluation.rerank_message =
            Some("Reclassement interrompu : la clé a été oubliée.".into());
    }
    fx.push(Effect::RememberKey(None));
}

pub(super) fn waiting(s: &mut State, call: CallId, wait: Option<Wait>) {
    match wait {
        Some(w) => s.waiting = Some((w, call)),
        None => {
            if s.waiting.is_some_and(|(_, c)| c == call) {
                s.waiting = None;
            }
        }
    }
}

/// « Annuler » during a wait: that call stops.
pub(super) fn wait_cancelled(s: &mut State, fx: &mut Vec<Effect>) {
    let Some((_, call)) = s.waiting.take() else {
        return;
    };
    fx.push(Effect::Cancel(call));
    // The answer and the question's embedding report nothing when cancelled: their state is
    // settled here. The long tasks report their own end.
    if s.calls.answer == Some(call) {
        s.calls.answer = None;
        s.answering.pending = false;
    }
    if let Some((q, c)) = &s.calls.search {
        if *c == call {
            s.search_error = Some((q.clone(), "Annulé.".to_owned()));
            s.calls.search = None;
        }
    }
}

pub(super) fn paid(s: &mut State, c: Costs) {
    let t = &mut s.costs;
    t.fiches += c.fiches;
    t.questions += c.questions;
    t.calls += c.calls;
    for (model, (i, o)) in c.chat {
        let slot = t.chat.entry(model).or_default();
        slot.0 += i;
        slot.1 += o;
    }
}
