//! The learner's key, and the jobs that spend it: checking it, forgetting it (every job that
//! would still send it stopped), a job's wait before its next attempt, the costs paid.

use crate::fr::messages;
use crate::mistral::{self, ApiKey};

use super::super::effect::{Effect, Wait};
use super::super::jobs::{RunId, Subject};
use super::super::msg::KeyMsg;
use super::super::parts::{Costs, Phase};
use super::super::state::State;

pub(super) fn typed(s: &mut State, raw: String, fx: &mut Vec<Effect>) {
    s.key_edits += 1;
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

pub(super) fn check(s: &mut State) {
    if s.key.is_some() && s.key_check != Some(None) {
        s.key_check = Some(None);
    }
}

/// « Vérifier ma clé » runs while its verdict is awaited.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if s.key_check == Some(None) {
        want(Subject::CheckKey);
    }
}

/// Forgets the key: in memory, in storage, and every job that would still send it (none is
/// wanted without a key: they stop).
pub(super) fn forget(s: &mut State, fx: &mut Vec<Effect>) {
    s.key = None;
    s.key_problem = None;
    s.remembered = false;
    s.remember_warning = false;
    s.key_check = None;
    s.data.ui.compute = Phase::Idle;
    s.data.ui.dense = Phase::Idle;
    s.data.answering.pending = None;
    s.data.chats.asked.clear();
    s.data.evaluation.confirming = false;
    if s.data.evaluation.asked.take().is_some() {
        s.data.evaluation.phase = Phase::Idle;
        s.data.evaluation.message = Some("Mesure interrompue : la clé a été oubliée.".into());
    }
    s.data.evaluation.rerank_confirming = false;
    if s.data.evaluation.rerank_asked.take().is_some() {
        s.data.evaluation.rerank_phase = Phase::Idle;
        s.data.evaluation.rerank_message =
            Some("Reclassement interrompu : la clé a été oubliée.".into());
    }
    fx.push(Effect::RememberKey(None));
}

pub(super) fn waiting(s: &mut State, run: RunId, wait: Option<Wait>) {
    match wait {
        Some(w) => s.waiting = Some((w, run)),
        None => {
            if s.waiting.is_some_and(|(_, r)| r == run) {
                s.waiting = None;
            }
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

/// What a [`KeyMsg`] changes.
pub(super) fn update(s: &mut State, msg: KeyMsg, fx: &mut Vec<Effect>) {
    match msg {
        KeyMsg::Typed(raw) => typed(s, raw, fx),
        KeyMsg::RememberToggled(on) => remember(s, on, fx),
        KeyMsg::RememberConfirmed => remember_confirmed(s, fx),
        KeyMsg::Forgotten => forget(s, fx),
        KeyMsg::CheckRequested => check(s),
        KeyMsg::RetryNow => {
            if let Some((_, run)) = &s.waiting {
                fx.push(Effect::SkipWait(*run));
            }
        }
        KeyMsg::WaitCancelled => {
            if let Some((_, run)) = s.waiting.take() {
                super::cancel_run(s, run);
            }
        }
        KeyMsg::Paid(c) => paid(s, c),
    }
}
