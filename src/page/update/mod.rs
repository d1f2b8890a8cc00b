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
mod key;
mod local;
mod measure;
mod question;
mod vectors;

pub use answer::outcome;
pub use measure::RUN_MAX_BYTES;
pub use vectors::{embedding_cost, vectors_cache_key};

use super::effect::Effect;
use super::jobs::{JobKey, Report, RunId, Subject, Work};
use super::msg::Msg;
use super::state::State;

/// Applies `msg` to `s` and says what to start. `now` is the clock's reading (ISO 8601), given
/// by the shell: the journal dates its entries with it.
pub fn update(s: &mut State, msg: Msg, now: &str) -> Vec<Effect> {
    // What a committed question's dense methods were waiting for may have come with this message.
    let arrival = matches!(
        msg,
        Msg::DenseFound { .. }
            | Msg::Report(_, Report::QuestionEmbedded(_))
            | Msg::LocalQuestionEmbedded { .. }
            | Msg::VectorsLoaded { .. }
            | Msg::LocalVectorsLoaded { .. }
    );
    let mut fx = Vec::new();
    match msg {
        Msg::Report(run, report) => {
            // A stopped run's report: dropped before any feature sees it.
            let Some(key) = s.jobs.key_of(run).cloned() else {
                // What it holds is let go.
                if let Report::DatasetLoaded(data) = &report {
                    catalogue::dropped(data, &mut fx);
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
        Msg::QuestionTyped(text) => question::typed(s, text),
        Msg::ExamplePicked(i) => question::example(s, i),
        Msg::QuestionOpened(i) => question::opened(s, i, fx),
        Msg::QuestionCommitted => journal::note_unanswered(s, now, fx),
        Msg::QuestionEntered => question::entered(s),
        Msg::EmbedRequested => s.question_from_link = false,
        Msg::MethodToggled(m, on) => question::toggled(s, m, on),
        Msg::LocalMethodsChosen => question::local_methods(s),
        Msg::ViewChosen(v) => s.view = v,
        Msg::TabKey(v) => question::tab_key(s, v, fx),
        Msg::GuideClosed => {
            s.guide_hidden = true;
            fx.push(Effect::HideGuide);
        }
        Msg::Settled => s.settled = true,
        Msg::SettingsRequested => fx.push(Effect::OpenSettings),
        Msg::FragmentChanged(link) => {
            improve::from_link(s, link.settings.clone(), link.refused.clone());
            question::fragment(s, link)
        }
        Msg::Improve(c) => improve::change(s, c),
        Msg::Step => improve::step(s),
        Msg::CopyLink(link) => {
            s.share = Some((link.clone(), None));
            fx.push(Effect::Clipboard(link));
        }
        Msg::LinkCopied(ok) => {
            if let Some((_, copied)) = &mut s.share {
                *copied = Some(ok);
            }
        }
        Msg::KeyTyped(raw) => key::typed(s, raw, fx),
        Msg::RememberToggled(on) => key::remember(s, on, fx),
        Msg::RememberConfirmed => key::remember_confirmed(s, fx),
        Msg::KeyForgotten => key::forget(s, fx),
        Msg::KeyCheckRequested => key::check(s),
        Msg::RetryNow => {
            if let Some((_, run)) = &s.waiting {
                fx.push(Effect::SkipWait(*run));
            }
        }
        Msg::WaitCancelled => {
            if let Some((_, run)) = s.waiting.take() {
                cancel_run(s, run);
            }
        }
        Msg::Paid(c) => key::paid(s, c),
        Msg::ComputeRequested => vectors::compute(s),
        Msg::ComputeCancelled => vectors::compute_cancelled(s),
        Msg::DownloadRequested => {
            if let Some(bytes) = &s.data.computed {
                fx.push(Effect::Download(
                    "vecteurs.safetensors".into(),
                    bytes.clone(),
                ));
            }
        }
        Msg::VectorsLoaded {
            epoch,
            set,
            info,
            questions,
            origin,
            bytes,
        } => vectors::loaded(s, epoch, set, info, questions, origin, bytes, fx),
        Msg::DenseFound { set, vectors, tops } => vectors::dense_found(s, set, vectors, tops),
        Msg::VectorsLost { set, reason } => vectors::lost(s, set, reason),
        Msg::DenseSuperseded { set, vector } => {
            s.dense_asked
                .remove(&(set, crate::lab::vector_key(&vector)));
        }
        Msg::VectorsRefused { epoch, origin } if epoch == s.data.epoch => {
            s.data.vectors_origin = origin;
        }
        Msg::AnswersShipped { epoch, outcome } if epoch == s.data.epoch => {
            answer::shipped(s, outcome)
        }
        Msg::DenseMeasureRequested => vectors::measure_requested(s, fx),
        Msg::GridSorted(by) => s.data.ui.grid_sort = by,
        Msg::GridMore => s.data.ui.grid_limit += super::dataset::GRID_PAGE,
        Msg::PairSide { first, name } => {
            if let Some((a, b)) = s.compared_pair() {
                s.data.ui.compare = Some(if first { (name, b) } else { (a, name) });
            }
        }
        Msg::RunFilesChosen(files) => measure::run_files_chosen(s, files),
        Msg::RunsCleared => {
            s.data.runs.clear();
            s.data.ui.run_messages.clear();
        }
        Msg::ExportRequested(what) => {
            if let Some((name, text)) = measure::export_file(s, &what) {
                fx.push(Effect::Download(name, text.into_bytes()));
            }
        }
        Msg::MeasureProgress { seq, done } => {
            if let Some(m) = s.data.ui.measuring.iter_mut().find(|m| m.seq == seq) {
                m.done = done;
            }
        }
        Msg::Measured { seq, epoch, result } if epoch == s.data.epoch => {
            measure::measured(s, seq, result)
        }
        Msg::LocalVectorsLoaded { epoch, set } if epoch == s.data.epoch => {
            local::vectors_loaded(s, *set, fx)
        }
        Msg::LocalFichesProgress { epoch, done } if epoch == s.data.epoch => {
            if let Some((e, d, _)) = s.local_fiches.as_mut() {
                if *e == epoch {
                    *d = done;
                }
            }
        }
        Msg::LocalTextsEmbedded { epoch, vectors }
            if epoch == s.data.epoch && s.local_fiches.is_some_and(|(e, _, _)| e == epoch) =>
        {
            local::texts_embedded(s, epoch, vectors, fx)
        }
        Msg::LocalQuestionEmbedded { question, vector } => {
            s.local_qvectors.insert(question, vector);
        }
        Msg::LocalModelPreparing(_) | Msg::LocalModelReady
            if matches!(s.local, super::local::LocalModel::Unavailable(_)) => {}
        Msg::LocalModelPreparing(p) => s.local = super::local::LocalModel::Preparing(p),
        Msg::LocalModelReady => s.local = super::local::LocalModel::Ready,
        Msg::LocalModelFailed(why) => {
            s.local = super::local::LocalModel::Unavailable(why);
            s.local_fiches = None;
        }
        Msg::LocalWorkerDied(detail) => local::worker_died(s, detail),
        Msg::LocalWorkerNotStarted(detail) => local::worker_not_started(s, detail),
        Msg::LocalModelEvicted(why) => local::evicted(s, why),
        Msg::LocalModelNotKept => s.local_not_kept = true,
        Msg::LocalModelRequested => {
            s.local_download_ok = true;
            local::retry(s);
        }
        Msg::LocalModelCancelled => local::cancelled(s),
        Msg::LocalRows { done, total, bytes } => {
            s.local_rows = (done < total).then_some((done, total, bytes));
        }
        Msg::LocalRowsFailed(why) => local::rows_failed(s, why),
        Msg::JournalLoaded(stored) => s.journal = stored,
        Msg::JournalExported(what) => journal::export(s, &what, fx),
        Msg::JournalErased => {
            s.journal = crate::journal::Journal::default();
            fx.push(Effect::JournalErase);
        }
        Msg::AnswerMethodChosen(m) => s.choices.answer_method = Some(m),
        Msg::AnswerModelChosen(m) => s.choices.answer_model = Some(m),
        Msg::AnswerRequested => answer::request(s),
        Msg::AnswerObtained { key, chat } => {
            s.answers.insert(key, chat);
        }
        Msg::EvalSourceChosen(m) => s.choices.eval_source = Some(m),
        Msg::EvalModelChosen(m) => s.choices.eval_model = Some(m),
        Msg::EvalJudgeChosen(m) => s.choices.judge = Some(m),
        Msg::EvalAsked => {
            if s.key.is_some() && !s.data.evaluation.phase.is_running() {
                s.data.evaluation.confirming = true;
                s.data.evaluation.message = None;
            }
        }
        Msg::EvalConfirmed => {
            if s.data.evaluation.confirming {
                s.data.evaluation.confirming = false;
                answer::start_evaluation(s);
            }
        }
        Msg::EvalCancelled => answer::eval_cancelled(s),
        Msg::AnswerJudgeRequested => answer::judge_requested(s),
        Msg::RerankAsked => {
            if s.key.is_some() && !s.data.evaluation.rerank_phase.is_running() {
                s.data.evaluation.rerank_confirming = true;
                s.data.evaluation.rerank_message = None;
            }
        }
        Msg::RerankConfirmed => {
            if s.data.evaluation.rerank_confirming {
                s.data.evaluation.rerank_confirming = false;
                answer::start_rerank(s);
            }
        }
        Msg::RerankCancelled => answer::rerank_cancelled(s),
        Msg::FilesChosen(files) => catalogue::files_chosen(s, files),
        Msg::BackToExercise => catalogue::back_to_exercise(s, fx),
        // A result from another catalogue's task: dropped.
        Msg::VectorsRefused { .. }
        | Msg::AnswersShipped { .. }
        | Msg::Measured { .. }
        | Msg::LocalVectorsLoaded { .. }
        | Msg::LocalFichesProgress { .. }
        | Msg::LocalTextsEmbedded { .. } => {}
        Msg::Report(..) => {}
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
        Report::KeyChecked(verdict) => s.key_check = Some(Some(verdict)),
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
        Report::DenseEnded(message) => vectors::dense_ended(s, message, fx),
        Report::AnswerShown(result) => answer::shown(s, result, now, fx),
        Report::Judged(outcome) => answer::judged(s, outcome),
        Report::EvalProgress { done, total } => {
            s.data.evaluation.phase = super::parts::Phase::Running { done, total };
        }
        Report::EvalEnded(outcome) => answer::eval_ended(s, outcome),
        Report::RerankProgress { done, total } => {
            s.data.evaluation.rerank_phase = super::parts::Phase::Running { done, total };
        }
        Report::RerankEnded(outcome) => answer::rerank_ended(s, outcome),
        Report::DatasetLoaded(data) => catalogue::loaded(s, *data, fx),
        Report::FilesRefused(errors) => catalogue::files_refused(s, errors),
        Report::RunsRead(read) => {
            if let Subject::ReadRuns(n) = key.subject {
                measure::runs_read(s, n, read)
            }
        }
        Report::LocalModelProgress { done, total } => {
            s.local = super::local::LocalModel::Fetching { done, total }
        }
        Report::LocalModelFetched => s.local = super::local::LocalModel::Preparing(0),
        Report::LocalModelDownloadFailed(why) => {
            s.local = super::local::LocalModel::Unavailable(why);
            s.local_retry = true;
        }
    }
}

/// What should be running, derived from the state after every message: « Améliorer »'s steps,
/// the local encoder's model and vectors, the dense tops the view needs, and the keyed jobs —
/// those started and stopped by comparing the keys wanted with the tracker's.
fn wanted(s: &mut State, fx: &mut Vec<Effect>) {
    improve::ensure(s, fx);
    local::wanted(s, fx);
    vectors::dense_wanted(s, fx);
    let mut keys = Vec::new();
    let epoch = s.data.epoch;
    let mut want = |subject: Subject| {
        let catalogue = if subject.spans_catalogues() { 0 } else { epoch };
        keys.push(JobKey { catalogue, subject })
    };
    if s.key.is_some() {
        key::jobs(s, &mut want);
        question::jobs(s, &mut want);
        vectors::jobs(s, &mut want);
        answer::jobs(s, &mut want);
    }
    catalogue::jobs(s, &mut want);
    measure::jobs(s, &mut want);
    local::jobs(s, &mut want);
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
    match subject {
        Subject::ReadFiles(_) => return catalogue::work(s),
        Subject::ReadRuns(n) => return measure::work(s, *n),
        Subject::LocalModel => return Some(Work::LoadLocalModel),
        _ => {}
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
        Subject::Answer(_) | Subject::Judge(_) | Subject::Evaluate | Subject::Rerank => {
            answer::work(s, subject, key)
        }
        Subject::ReadFiles(_) | Subject::ReadRuns(_) | Subject::LocalModel => None,
    }
}

/// Stops the job `run` at the learner's request (« Annuler » during its wait), saying so where
/// its feature shows it.
fn cancel_run(s: &mut State, run: RunId) {
    let Some(key) = s.jobs.key_of(run).cloned() else {
        return;
    };
    match key.subject {
        Subject::CheckKey => s.key_check = None,
        Subject::Pause(q, _) | Subject::Embed(q) => {
            s.search_error = Some((q, "Annulé.".to_owned()))
        }
        Subject::ComputeVectors => vectors::compute_cancelled(s),
        Subject::MeasureDense => vectors::dense_cancelled(s),
        Subject::Answer(_) => s.data.answering.pending = None,
        Subject::Judge(_) => s.data.answering.judging = None,
        Subject::Evaluate => answer::eval_cancelled(s),
        Subject::Rerank => answer::rerank_cancelled(s),
        Subject::ReadFiles(_) | Subject::ReadRuns(_) | Subject::LocalModel => {}
    }
}
