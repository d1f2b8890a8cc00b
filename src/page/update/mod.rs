//! [`update`]: the one place the page's state changes. Each message changes the state and returns
//! the effects to run, as data; `update` performs none. One room per concern: the key and its
//! calls ([`key`]), the catalogue ([`catalogue`]), the question and its vectors ([`question`]),
//! Mistral's fiche vectors ([`vectors`]), measurements and runs ([`measure`]), the answer and its
//! evaluation ([`answer`]), the journal ([`journal`]), the local encoder ([`local`]).
//!
//! After every message, [`wanted`] derives from the state what should be running (the local
//! model, a question's vectors) and starts what is missing: that decision is made in one place.

mod answer;
mod catalogue;
mod improve;
mod journal;
mod judging;
mod key;
mod local;
mod measure;
mod question;
mod vectors;

pub use answer::{judged_about, outcome, read_shipped};
pub use measure::RUN_MAX_BYTES;
pub use vectors::{embedding_cost, vectors_cache_key};

use super::effect::Effect;
use super::jobs::{JobKey, Report, RunId, Subject, Work};
use super::msg::{LocalMsg, Msg, NavMsg};
use super::state::State;
use crate::encoder::protocol::Request;

/// Applies `msg` to `s` and says what to start. `now` is the clock's reading (ISO 8601), given
/// by the shell: the journal dates its entries with it.
pub fn update(s: &mut State, msg: Msg, now: &str) -> Vec<Effect> {
    // What a committed question's dense methods were waiting for may have come with this message.
    let arrival = matches!(
        msg,
        Msg::Report(_, Report::DenseFound { .. })
            | Msg::Report(_, Report::QuestionEmbedded(_))
            | Msg::Local(LocalMsg::QuestionEmbedded { .. })
            | Msg::Report(_, Report::VectorsAttached { .. })
            | Msg::Report(_, Report::LocalVectors(Some(_)))
    );
    let mut fx = Vec::new();
    match msg {
        Msg::Report(run, report) => {
            // A stopped run's report: dropped before any feature sees it.
            let Some(key) = s.jobs.key_of(run).cloned() else {
                // What it holds is let go.
                match &report {
                    Report::DatasetLoaded(data) => catalogue::dropped(data, &mut fx),
                    Report::VectorsAttached { set, .. } => {
                        fx.push(Effect::Worker(Request::Forget { set: *set }))
                    }
                    _ => {}
                }
                return fx;
            };
            reported(s, run, key, report, now, &mut fx);
        }
        msg => apply(s, msg, now, &mut fx),
    }
    if arrival && !s.data.ui.journal_waiting.is_empty() {
        journal::retry_unanswered(s, now, &mut fx);
    }
    wanted(s, &mut fx);
    fx
}

fn apply(s: &mut State, msg: Msg, now: &str, fx: &mut Vec<Effect>) {
    match msg {
        Msg::Search(m) => question::update(s, m, now, fx),
        Msg::Nav(m) => nav(s, m, fx),
        Msg::Key(m) => key::update(s, m, fx),
        Msg::Vectors(m) => vectors::update(s, m, fx),
        Msg::Measure(m) => measure::update(s, m, fx),
        Msg::Journal(m) => journal::update(s, m, fx),
        Msg::Judge(m) => judging::update(s, m, fx),
        Msg::Local(m) => local::update(s, m),
        Msg::Answer(m) => answer::update(s, m),
        Msg::Catalogue(m) => catalogue::update(s, m, fx),
        Msg::Settled => s.settled = true,
        Msg::Improve(c) => improve::change(s, c),
        Msg::Step => {
            s.stepping = false;
            improve::step(s);
            measure::step(s);
        }
        Msg::Report(..) => {}
    }
}

/// What a [`NavMsg`] changes: the view, the guide, the link.
fn nav(s: &mut State, msg: NavMsg, fx: &mut Vec<Effect>) {
    match msg {
        NavMsg::ViewChosen(v) => s.view = v,
        NavMsg::TabKey(v) => question::tab_key(s, v, fx),
        NavMsg::GuideClosed => {
            s.guide_hidden = true;
            fx.push(Effect::HideGuide);
        }
        NavMsg::SettingsRequested => fx.push(Effect::OpenSettings),
        NavMsg::FragmentChanged(link) => {
            improve::from_link(s, link.settings.clone(), link.refused.clone());
            question::fragment(s, link)
        }
        NavMsg::CopyLink(link) => {
            s.share = Some((link.clone(), None));
            fx.push(Effect::Clipboard(link));
        }
        NavMsg::LinkCopied(ok) => {
            if let Some((_, copied)) = &mut s.share {
                *copied = Some(ok);
            }
        }
    }
}

/// A keyed job's report, its run still tracked (under `key`).
fn reported(
    s: &mut State,
    run: RunId,
    key: JobKey,
    report: Report,
    now: &str,
    fx: &mut Vec<Effect>,
) {
    match report {
        Report::Waiting(wait) => key::waiting(s, run, wait),
        Report::Paused => {
            if let Subject::Pause(q, n) = key.subject {
                s.paused = Some((q, n));
            }
        }
        Report::KeyChecked(verdict) => s.key_ui.check = Some(Some(verdict)),
        Report::QuestionEmbedded(vector) => {
            if let Subject::Embed(q) = key.subject {
                question::embedded(s, q, vector, fx)
            }
        }
        Report::QuestionFailed(message) => {
            if let Subject::Embed(q) = key.subject {
                s.search_error = Some((q, message));
            }
        }
        Report::ComputeProgress { done, total } => {
            s.data.ui.compute = super::parts::Phase::Running { done, total };
        }
        Report::ComputeEnded(message) => {
            s.data.ui.compute = super::parts::Phase::Idle;
            s.vectors_message = Some(message);
        }
        Report::DenseProgress(vectors) => vectors::dense_progress(s, vectors, fx),
        Report::DenseEnded(message) => vectors::dense_ended(s, message),
        Report::AnswerShown(result) => answer::shown(s, result, now, fx),
        Report::Chatted(outcome) => {
            // A control's one chat: its reply kept for it, with what it is about.
            if let Subject::Chat(control, _) = key.subject {
                if let Some(ask) = s.data.chats.asked.remove(&control) {
                    s.data.chats.replies.insert(control, (ask.about, outcome));
                }
            }
        }
        Report::EvalProgress { done, total } => {
            s.data.evaluation.phase = super::parts::Phase::Running { done, total };
        }
        Report::EvalEnded(outcome) => answer::eval_ended(s, outcome),
        Report::RerankProgress { done, total } => {
            s.data.evaluation.rerank_phase = super::parts::Phase::Running { done, total };
        }
        Report::RerankEnded(outcome) => answer::rerank_ended(s, outcome),
        Report::DatasetLoaded(data) => catalogue::loaded(s, *data, fx),
        Report::VectorsAttached {
            set,
            info,
            questions,
            origin,
            bytes,
        } => vectors::loaded(s, set, info, questions, (origin, bytes), fx),
        Report::VectorsRefused(origin) => s.data.vectors_origin = origin,
        Report::VectorsSought => s.data.looked.vectors = true,
        Report::LocalVectors(set) => {
            s.data.looked.local = true;
            if let Some(set) = set {
                local::vectors_loaded(s, *set);
            }
        }
        Report::AnswersShipped(outcome) => answer::shipped(s, outcome),
        Report::JournalRead(stored) => {
            if let Subject::ReadJournal(n) = key.subject {
                if let Some(stored) = stored {
                    s.journal = stored;
                }
                s.journal_reads.1 = n;
            }
        }
        Report::JudgmentsRead(text) => judging::read(s, text),
        Report::FilesRefused(errors) => catalogue::files_refused(s, errors),
        Report::RunsRead(read) => match key.subject {
            Subject::ReadRuns(n) => measure::runs_read(s, n, read),
            Subject::ReadQrels(n) => judging::other_read(s, n, read),
            _ => {}
        },
        Report::LocalModelProgress { done, total } => {
            s.local = super::local::LocalModel::Fetching { done, total }
        }
        Report::LocalModelFetched => s.local = super::local::LocalModel::Preparing(0),
        Report::LocalModelDownloadFailed(why) => {
            s.local = super::local::LocalModel::Unavailable(why);
            s.local_retry = true;
        }
        Report::DenseFound { vectors, tops } => {
            if let Subject::DenseTops { set, .. } = key.subject {
                vectors::dense_found(s, set, vectors, tops)
            }
        }
        Report::DenseLost(reason) => {
            if let Subject::DenseTops { set, .. } = key.subject {
                vectors::lost(s, set, reason)
            }
        }
        Report::EpreuveRead(read, vectors) => improve::epreuve_read(s, read, vectors),
        Report::LocalTextsProgress(done) => {
            if let Some((d, _)) = s.data.ui.local_texts.as_mut() {
                *d = done;
            }
        }
        Report::LocalTextsEmbedded { questions, vectors } => {
            local::texts_embedded(s, questions, vectors)
        }
    }
}

/// What should be running, derived from the state after every message: « Améliorer »'s steps,
/// the local encoder's model and vectors, the dense tops the view needs, and the keyed jobs —
/// those started and stopped by comparing the keys wanted with the tracker's.
fn wanted(s: &mut State, fx: &mut Vec<Effect>) {
    improve::ensure(s);
    judging::ensure(s);
    local::wanted(s, fx);
    // Work done in steps, one per turn of the event loop.
    if !s.stepping && (improve::can_step(s) || measure::can_step(s)) {
        s.stepping = true;
        fx.push(Effect::Step);
    }
    let mut subjects = Vec::new();
    let mut want = |subject: Subject| subjects.push(subject);
    // A chat asked without a key is dropped: a key typed later pays nothing by itself.
    if s.key.is_none() {
        s.data.chats.asked.clear();
    }
    if s.key.is_some() {
        for (control, ask) in &s.data.chats.asked {
            want(Subject::Chat(*control, ask.digest()));
        }
        key::jobs(s, &mut want);
        question::jobs(s, &mut want);
        vectors::jobs(s, &mut want);
        answer::jobs(s, &mut want);
    }
    catalogue::jobs(s, &mut want);
    journal::jobs(s, &mut want);
    judging::jobs(s, &mut want);
    measure::jobs(s, &mut want);
    local::jobs(s, &mut want);
    vectors::dense_jobs(s, &mut want);
    improve::jobs(s, &mut want);
    let keys: Vec<JobKey> = subjects.into_iter().map(|x| s.job_key(x)).collect();
    // Ready once start-up's reads are done and the catalogue's vectors looked for.
    let seeking = keys.iter().any(|k| {
        matches!(
            k.subject,
            Subject::FindVectors | Subject::LocalVectors | Subject::ReadJournal(_)
        )
    });
    if s.settled && !seeking && !s.ready {
        s.ready = true;
        fx.push(Effect::Ready);
    }
    let (started, stopped) = s.jobs.reconcile(&keys);
    for run in stopped {
        if s.waiting.is_some_and(|(_, r)| r == run) {
            s.waiting = None;
        }
        fx.push(Effect::Stop(run));
    }
    for (run, key) in started {
        match work(s, &key.subject) {
            Some(work) => fx.push(Effect::Start { run, work }),
            None => s.jobs.forget(run),
        }
    }
}

/// The work of a job whose key is new, built from the state.
fn work(s: &State, subject: &Subject) -> Option<Work> {
    if !subject.needs_key() {
        return match subject {
            Subject::ReadRuns(n) => measure::work(s, *n),
            Subject::LocalModel => Some(Work::LoadLocalModel),
            Subject::LocalTexts => Some(local::work(s)),
            Subject::ReadJournal(_) => Some(Work::ReadJournal),
            Subject::ReadJudgments => Some(judging::work(s)),
            Subject::ReadQrels(n) => judging::read_work(s, *n),
            Subject::DenseTops { .. } => vectors::dense_work(s, subject),
            Subject::ReadEpreuve => Some(Work::FetchQuestions {
                name: crate::page::improve::EPREUVE_FILE.to_owned(),
                vectors: crate::page::improve::EPREUVE_LOCAL_FILE.to_owned(),
            }),
            _ => catalogue::work(s, subject),
        };
    }
    let key = s.key.clone()?;
    match subject {
        Subject::CheckKey => Some(Work::CheckKey { key }),
        Subject::Pause(..) => Some(Work::Pause {
            ms: question::DEBOUNCE_MS,
        }),
        Subject::Embed(question) => Some(Work::EmbedQuestion {
            key,
            question: question.clone(),
        }),
        Subject::ComputeVectors | Subject::MeasureDense => vectors::work(s, subject, key),
        Subject::Chat(control, _) => s.data.chats.asked.get(control).map(|ask| Work::Chat {
            key,
            model: ask.model.clone(),
            messages: ask.messages.clone(),
            cached: s.answers.clone(),
        }),
        Subject::Answer(_) | Subject::Evaluate | Subject::Rerank => answer::work(s, subject, key),
        _ => None,
    }
}

/// The key forgotten: each feature that spends it lets go of what it asked (its jobs are no
/// longer wanted), saying so where a learner waited for it.
fn key_forgotten(s: &mut State) {
    vectors::key_forgotten(s);
    answer::key_forgotten(s);
}

/// Stops the job `run` at the learner's request (« Annuler » during its wait), saying so where
/// its feature shows it.
fn cancel_run(s: &mut State, run: RunId) {
    let Some(key) = s.jobs.key_of(run).cloned() else {
        return;
    };
    match key.subject {
        Subject::CheckKey => s.key_ui.check = None,
        Subject::Pause(q, _) | Subject::Embed(q) => {
            s.search_error = Some((q, "Annulé.".to_owned()))
        }
        Subject::ComputeVectors => vectors::compute_cancelled(s),
        Subject::MeasureDense => vectors::dense_cancelled(s),
        Subject::Answer(_) => s.data.answering.pending = None,
        Subject::Chat(control, _) => {
            s.data.chats.asked.remove(&control);
        }
        Subject::Evaluate => answer::eval_cancelled(s),
        Subject::Rerank => answer::rerank_cancelled(s),
        // Jobs without a key show no wait to cancel.
        _ => {}
    }
}
