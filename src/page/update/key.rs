//! The learner's key, and the jobs that spend it: checking it, forgetting it (every job that
//! would still send it stopped), a job's wait before its next attempt, the costs paid.

use crate::fr::messages;
use crate::mistral::{self, ApiKey};

use super::super::effect::{Effect, Wait};
use super::super::jobs::{RunId, Subject};
use super::super::msg::KeyMsg;
use super::super::parts::Costs;
use super::super::state::{KeyUi, State};

pub(super) fn typed(s: &mut State, raw: String, fx: &mut Vec<Effect>) {
    s.key_edits += 1;
    let parsed = ApiKey::parse(&raw);
    s.key_ui.problem = match &parsed {
        Err(e @ mistral::KeyError::BadCharacter { .. }) => Some(messages::key(e)),
        _ => None,
    };
    s.key = parsed.ok();
    if s.key.is_none() {
        // An emptied (or unusable) field forgets the key everywhere: memory, storage, and
        // every call that would still send it.
        let problem = s.key_ui.problem.take();
        forget(s, fx);
        s.key_ui.problem = problem;
    } else if s.key_ui.remembered {
        fx.push(Effect::RememberKey(Some(raw.trim().to_owned())));
    }
    s.search_error = None;
    s.key_ui.check = None;
}

pub(super) fn remember(s: &mut State, on: bool, fx: &mut Vec<Effect>) {
    if on && s.key.is_some() && s.shared_origin {
        // Other pages of this origin could read it: say so before storing anything.
        s.key_ui.remember_warning = true;
    } else {
        s.key_ui.remember_warning = false;
        s.key_ui.remembered = on && s.key.is_some();
        let kept = s.key.as_ref().filter(|_| on).map(|k| k.secret().to_owned());
        fx.push(Effect::RememberKey(kept));
    }
}

pub(super) fn remember_confirmed(s: &mut State, fx: &mut Vec<Effect>) {
    s.key_ui.remember_warning = false;
    s.key_ui.remembered = s.key.is_some();
    let kept = s.key.as_ref().map(|k| k.secret().to_owned());
    fx.push(Effect::RememberKey(kept));
}

pub(super) fn check(s: &mut State) {
    if s.key.is_some() && s.key_ui.check != Some(None) {
        s.key_ui.check = Some(None);
    }
}

/// « Vérifier ma clé » runs while its verdict is awaited.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if s.key_ui.check == Some(None) {
        want(Subject::CheckKey);
    }
}

/// Forgets the key: in memory, in storage, and every job that would still send it (none is
/// wanted without a key: they stop, and each feature lets go of what it asked with it).
pub(super) fn forget(s: &mut State, fx: &mut Vec<Effect>) {
    s.key = None;
    s.key_ui = KeyUi::default();
    super::key_forgotten(s);
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
