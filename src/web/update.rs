//! [`update`]: the one place the page's state changes. Each message changes the state and returns
//! the effects to run; results of tasks started under another catalogue (epoch) are dropped.

use crate::answer::{self, AnswerOutcome};
use crate::data::intake;
use crate::data::vectors::VectorSet;
use crate::encoder::protocol::Request;
use crate::fr::messages;
use crate::journal::{Entry, Journal, Verdict};
use crate::lab::{Encoder, Keyword, Method, QuestionVectors, SearchError};
use crate::measure::{export, Measurement};
use crate::mistral::chat::Chat;
use crate::mistral::{self, ApiKey};

use super::api::Call;
use super::state::{
    model_or_default, Costs, Dataset, Effect, EvalItem, Job, LocalModel, Measuring, Msg, Phase,
    State,
};

/// Applies `msg` to `s` and says what to start.
pub fn update(s: &mut State, msg: Msg) -> Vec<Effect> {
    // What a committed question's dense methods were waiting for may have come with this message.
    let arrival = matches!(
        msg,
        Msg::DenseFound { .. }
            | Msg::QuestionEmbedded { .. }
            | Msg::LocalQuestionEmbedded { .. }
            | Msg::VectorsLoaded { .. }
            | Msg::LocalVectorsLoaded { .. }
    );
    let mut effects = apply(s, msg);
    if arrival && !s.journal_waiting.is_empty() {
        retry_unanswered(s, &mut effects);
    }
    effects
}

fn apply(s: &mut State, msg: Msg) -> Vec<Effect> {
    let mut effects = Vec::new();
    match msg {
        Msg::QuestionTyped(text) => {
            s.question = text;
            s.question_from_link = false;
            s.example = None;
            s.question_generation += 1;
        }
        Msg::ExamplePicked(i) => {
            s.example = i.filter(|&i| i < s.data.questions.len());
            s.question_from_link = false;
            if let Some(q) = s.example_question() {
                s.question = q.text.clone();
            }
            s.question_generation += 1;
        }
        Msg::QuestionOpened(i) => {
            if let Some(q) = s.data.questions.get(i) {
                s.question = q.text.clone();
                s.example = Some(i);
                s.question_from_link = false;
                s.view = crate::link::View::Chercher;
                s.question_generation += 1;
                effects.push(Effect::Focus(super::ids::RESULTATS));
            }
        }
        Msg::MethodToggled(m, on) => {
            s.shown.retain(|x| *x != m);
            if on {
                s.shown.push(m);
                s.shown
                    .sort_by_key(|x| Method::ALL.iter().position(|y| y == x));
            }
        }
        Msg::ViewChosen(v) => s.view = v,
        Msg::TabKey(v) => {
            s.view = v;
            effects.push(Effect::Focus(match v {
                crate::link::View::Chercher => super::ids::ONGLET_CHERCHER,
                crate::link::View::Mesurer => super::ids::ONGLET_MESURER,
            }));
        }
        Msg::GuideClosed => {
            s.guide_hidden = true;
            effects.push(Effect::HideGuide);
        }
        Msg::Settled => s.settled = true,
        Msg::SettingsRequested => effects.push(Effect::OpenSettings),
        Msg::LocalMethodsChosen => {
            for m in [Method::SensLocal, Method::HybrideLocal] {
                if !s.shown.contains(&m) {
                    s.shown.push(m);
                }
            }
            s.shown
                .sort_by_key(|x| Method::ALL.iter().position(|y| y == x));
        }
        Msg::FragmentChanged(link) => {
            s.view = link.view;
            if let Some(q) = link.question {
                if q != s.question {
                    s.example = s.data.questions.iter().position(|x| x.text == q);
                    s.question = q;
                    // A link (or a page that rewrites the fragment) never spends the key by itself.
                    s.question_from_link = true;
                    s.question_generation += 1;
                }
            }
            if !link.methods.is_empty() {
                s.shown = link.methods;
            }
            if let Some((a, b)) = link.compare {
                s.compare = Some((a.name().to_owned(), b.name().to_owned()));
            }
            if link.set == crate::link::QuestionSet::VosDonnees && s.data.label.is_none() {
                s.data_status = "Ce lien porte sur des données chargées dans un autre navigateur : elles ne voyagent pas avec le lien. \
                     Chargez les mêmes fichiers pour retrouver la vue."
                    .into();
            }
        }
        Msg::CopyLink(link) => {
            s.share = Some((link.clone(), None));
            effects.push(Effect::Clipboard(link));
        }
        Msg::LinkCopied(ok) => {
            if let Some((_, copied)) = &mut s.share {
                *copied = Some(ok);
            }
        }
        Msg::KeyTyped(raw) => {
            let parsed = ApiKey::parse(&raw);
            s.key_problem = match &parsed {
                Err(e @ mistral::KeyError::BadCharacter { .. }) => Some(messages::key(e)),
                _ => None,
            };
            s.key = parsed.ok();
            if s.key.is_none() {
                // An emptied (or unusable) field forgets the key everywhere: memory, storage,
                // and every call that would still send it.
                let problem = s.key_problem.take();
                forget_key(s, &mut effects);
                s.key_problem = problem;
            } else if s.remembered {
                effects.push(Effect::RememberKey(Some(raw.trim().to_owned())));
            }
            s.search_error = None;
            s.key_check = None;
            if let Some(c) = s.calls.check.take() {
                c.cancel();
            }
        }
        Msg::RememberToggled(on) => {
            if on && s.key.is_some() && s.shared_origin {
                // Other pages of this origin could read it: say so before storing anything.
                s.remember_warning = true;
            } else {
                s.remember_warning = false;
                s.remembered = on && s.key.is_some();
                let kept = s.key.as_ref().filter(|_| on).map(|k| k.secret().to_owned());
                effects.push(Effect::RememberKey(kept));
            }
        }
        Msg::RememberConfirmed => {
            s.remember_warning = false;
            s.remembered = s.key.is_some();
            let kept = s.key.as_ref().map(|k| k.secret().to_owned());
            effects.push(Effect::RememberKey(kept));
        }
        Msg::KeyForgotten => forget_key(s, &mut effects),
        Msg::KeyCheckRequested => {
            if let (Some(key), None) = (s.key.clone(), &s.calls.check) {
                let job = job(s, key);
                s.calls.check = Some(job.call.clone());
                s.key_check = Some(None);
                effects.push(Effect::CheckKey { job });
            }
        }
        Msg::KeyChecked(verdict) => {
            if s.calls.check.take().is_some() {
                s.key_check = Some(Some(verdict));
            }
        }
        Msg::ComputeRequested => {
            if let (Some(key), false) = (s.key.clone(), s.compute.is_running()) {
                let job = job(s, key);
                s.calls.compute = Some(job.call.clone());
                s.compute = Phase::Running {
                    done: 0,
                    total: s.data.lab.fiches().len(),
                };
                s.vectors_message = None;
                let fiches = s.data.lab.fiches().to_vec();
                effects.push(Effect::ComputeVectors { job, fiches });
            }
        }
        Msg::ComputeCancelled => {
            if let Some(c) = s.calls.compute.take() {
                c.cancel();
            }
        }
        Msg::ComputeProgress { epoch, done, total } if epoch == s.data.epoch => {
            s.compute = Phase::Running { done, total };
        }
        Msg::ComputeEnded { epoch, message } if epoch == s.data.epoch => {
            s.compute = Phase::Idle;
            s.calls.compute = None;
            s.vectors_message = Some(message);
        }
        Msg::DownloadRequested => {
            if let Some(bytes) = &s.data.computed {
                effects.push(Effect::Download(
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
        } if epoch == s.data.epoch => {
            // Checked by the worker against these fiches' ids and fingerprint.
            if let Some(old) = s.data.lab.vectors_away() {
                effects.push(Effect::Encoder(Request::Forget { set: old }));
            }
            s.data.lab.set_vectors_away(set, info);
            s.data.vectors_origin = origin;
            if bytes.is_some() {
                s.data.computed = bytes;
            }
            // Question vectors shipped in the same file: valid for exactly their texts.
            adopt_question_vectors(s, questions, &mut effects);
        }
        // Kept by the worker for a catalogue replaced meanwhile: dropped there too.
        Msg::VectorsLoaded { set, .. } => {
            effects.push(Effect::Encoder(Request::Forget { set }));
        }
        Msg::DenseFound { set, vectors, tops } => {
            if s.data.lab.vectors_away() == Some(set) {
                for (v, top) in vectors.iter().zip(tops) {
                    let top = top
                        .into_iter()
                        .map(|(doc, score)| crate::lab::Ranked {
                            doc: doc as usize,
                            score,
                        })
                        .collect();
                    s.data.lab.remember_dense(Encoder::Mistral, v, top);
                }
            }
        }
        Msg::VectorsLost { set, reason } => {
            if s.data.lab.vectors_away() == Some(set) {
                s.data.lab.forget_vectors_away();
                s.data.vectors_origin = format!("Vecteurs perdus : {reason}.");
            }
        }
        Msg::VectorsRefused { epoch, origin } if epoch == s.data.epoch => {
            s.data.vectors_origin = origin;
        }
        Msg::Waiting(call, wait) => match wait {
            Some(w) => s.waiting = Some((w, call)),
            None => {
                if s.waiting.as_ref().is_some_and(|(_, c)| c.same(&call)) {
                    s.waiting = None;
                }
            }
        },
        Msg::RetryNow => {
            if let Some((_, call)) = &s.waiting {
                call.skip_wait();
            }
        }
        Msg::WaitCancelled => {
            if let Some((_, call)) = s.waiting.take() {
                call.cancel();
                // The answer and the question's embedding report nothing when cancelled: their
                // state is settled here. The long tasks report their own end.
                if s.calls.answer.as_ref().is_some_and(|c| c.same(&call)) {
                    s.calls.answer = None;
                    s.answering.pending = false;
                }
                if let Some((q, c)) = &s.calls.search {
                    if c.same(&call) {
                        s.search_error = Some((q.clone(), "Annulé.".to_owned()));
                        s.calls.search = None;
                    }
                }
            }
        }
        Msg::Paid(c) => {
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
        Msg::QuestionEmbedded { question, vector } => {
            if s.calls.search.as_ref().is_some_and(|(q, _)| *q == question) {
                s.calls.search = None;
            }
            s.qvectors.insert(question, vector);
        }
        Msg::QuestionFailed { question, message } => {
            if s.calls.search.as_ref().is_some_and(|(q, _)| *q == question) {
                s.calls.search = None;
            }
            s.search_error = Some((question, message));
        }
        Msg::DenseMeasureRequested => {
            let questions: Vec<String> = s
                .data
                .questions
                .iter()
                .map(|q| q.text.clone())
                .filter(|q| !s.qvectors.contains_key(q))
                .collect();
            if questions.is_empty() && s.data.lab.has_vectors(crate::lab::Encoder::Mistral) {
                // Every question's vector is known (shipped, or embedded before): no call.
                s.dense_message = None;
                measure_dense(s, &mut effects);
            } else if let (Some(key), false) = (s.key.clone(), s.dense.is_running()) {
                let job = job(s, key);
                s.calls.dense = Some(job.call.clone());
                s.dense = Phase::Running {
                    done: 0,
                    total: questions.len(),
                };
                s.dense_message = None;
                effects.push(Effect::MeasureDense { job, questions });
            }
        }
        Msg::DenseProgress { epoch, vectors } => {
            let n = vectors.len();
            s.qvectors.extend(vectors);
            if let Phase::Running { done, .. } = &mut s.dense {
                if epoch == s.data.epoch {
                    *done += n;
                }
            }
        }
        Msg::DenseEnded { epoch, message } if epoch == s.data.epoch => {
            s.dense = Phase::Idle;
            s.calls.dense = None;
            s.dense_message = message;
            if s.dense_message.is_none() {
                measure_dense(s, &mut effects);
            }
        }
        Msg::GridSorted(by) => s.grid_sort = by,
        Msg::GridMore => s.grid_limit += super::panels::charts::GRID_PAGE,
        Msg::PairSide { first, name } => {
            if let Some((a, b)) = s.compared_pair() {
                s.compare = Some(if first { (name, b) } else { (a, name) });
            }
        }
        Msg::RunFilesChosen(files) => {
            let too_big: Vec<String> = files
                .iter()
                .filter(|f| f.size() > RUN_MAX_BYTES as f64)
                .map(|f| f.name())
                .collect();
            s.run_messages.clear();
            if let Some(name) = too_big.first() {
                s.run_messages.push(Err(format!(
                    "{name} : plus de {} Mo, au-delà de ce qu'un run de {} résultats par question peut peser : il n'a pas été lu.",
                    RUN_MAX_BYTES / 1_000_000,
                    crate::measure::run::MAX_PER_QUESTION
                )));
            } else if !files.is_empty() {
                effects.push(Effect::ReadRuns {
                    epoch: s.data.epoch,
                    files,
                });
            }
        }
        Msg::RunFileRead { epoch, name, text } if epoch == s.data.epoch => {
            let said = import_run(s, &name, text);
            s.run_messages.push(said);
        }
        Msg::RunFileRead { .. } => {}
        Msg::QuestionCommitted => note_unanswered(s, &mut effects),
        Msg::QuestionEntered => {
            if !s.question.trim().is_empty() {
                s.committed = Some(s.question.clone());
            }
        }
        Msg::LocalVectorsLoaded { epoch, set } if epoch == s.data.epoch => {
            let shipped = set.questions.clone();
            if s.data.lab.set_local_vectors(*set).is_ok() {
                s.local_qvectors.extend(shipped);
                measure_local(s, &mut effects);
            }
        }
        Msg::LocalVectorsLoaded { .. } => {}
        Msg::LocalFichesProgress { epoch, done } if epoch == s.data.epoch => {
            if let Some((e, d, _)) = s.local_fiches.as_mut() {
                if *e == epoch {
                    *d = done;
                }
            }
        }
        Msg::LocalTextsEmbedded { epoch, mut vectors }
            if epoch == s.data.epoch && s.local_fiches.is_some_and(|(e, _, _)| e == epoch) =>
        {
            s.local_fiches = None;
            let n = s.data.lab.fiches().len().min(vectors.len());
            let questions = vectors.split_off(n);
            let sent = std::mem::take(&mut s.local_sent_questions);
            match VectorSet::new(crate::encoder::MODEL, s.data.lab.fiches(), vectors)
                .and_then(|set| s.data.lab.set_local_vectors(set))
            {
                Ok(()) => {
                    s.local_qvectors.extend(sent.into_iter().zip(questions));
                    measure_local(s, &mut effects);
                }
                Err(e) => s.local_fiches_error = Some((epoch, messages::vectors(&e))),
            }
        }
        Msg::LocalFichesProgress { .. } | Msg::LocalTextsEmbedded { .. } => {}
        Msg::LocalQuestionEmbedded { question, vector } => {
            s.local_qvectors.insert(question, vector);
        }
        // Once unavailable (its worker died meanwhile, say), the download's news change nothing.
        Msg::LocalModelProgress { .. } | Msg::LocalModelPreparing(_) | Msg::LocalModelReady
            if matches!(s.local, LocalModel::Unavailable(_)) => {}
        Msg::LocalModelProgress { done, total } => s.local = LocalModel::Fetching { done, total },
        Msg::LocalModelPreparing(p) => s.local = LocalModel::Preparing(p),
        Msg::LocalModelReady => s.local = LocalModel::Ready,
        Msg::LocalModelFailed(why) => {
            s.local = LocalModel::Unavailable(why);
            s.local_fiches = None;
        }
        Msg::LocalWorkerDied(detail) => {
            if s.data.lab.vectors_away().is_some() {
                s.data.lab.forget_vectors_away();
                s.data.vectors_origin = "Vecteurs perdus : le calcul en arrière-plan qui les gardait s'est arrêté ; sens et hybride reviendront au rechargement de la page.".to_owned();
            }
            s.local = LocalModel::Unavailable(format!(
                "Le calcul local s'est arrêté : sens local et hybride local sont indisponibles jusqu'au rechargement de la page ; les autres méthodes restent utilisables. (Détail du navigateur : {detail})"
            ));
            s.local_fiches = None;
        }
        Msg::JournalLoaded(stored) => s.journal.merge_stored(stored),
        Msg::JournalExported(what) => {
            let (name, text) = match what.as_str() {
                "csv" => ("questions-sans-reponse.csv", s.journal.to_csv()),
                _ => ("questions-sans-reponse.jsonl", s.journal.to_jsonl()),
            };
            effects.push(Effect::Download(name.into(), text.into_bytes()));
        }
        Msg::JournalErased => {
            s.journal = Journal::default();
            effects.push(Effect::SaveJournal(String::new()));
        }
        Msg::RunsCleared => {
            s.data.runs.clear();
            s.run_messages.clear();
        }
        Msg::ExportRequested(what) => {
            if let Some((name, text)) = export_file(s, &what) {
                effects.push(Effect::Download(name, text.into_bytes()));
            }
        }
        Msg::AnswerMethodChosen(m) => s.answering.method = Some(m),
        Msg::AnswerModelChosen(m) => s.answering.model = Some(m),
        Msg::AnswerRequested => request_answer(s, &mut effects),
        Msg::AnswerObtained { key, chat } => {
            s.answers.insert(key, chat);
        }
        Msg::AnswerShown { epoch, result } if epoch == s.data.epoch => {
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
                        );
                        if let Ok(e) = entry {
                            if s.journal.add(e) {
                                effects.push(Effect::SaveJournal(s.journal.to_jsonl()));
                            }
                        }
                    }
                }
            }
            // A changed question makes this answer stale: it is not shown.
            if result.question == s.question {
                s.answering.result = Some(result);
            }
        }
        Msg::EvalMethodChosen(m) => s.evaluation.method = Some(m),
        Msg::EvalModelChosen(m) => s.evaluation.model = Some(m),
        Msg::EvalAsked => {
            if s.key.is_some() && !s.evaluation.phase.is_running() {
                s.evaluation.confirming = true;
            }
        }
        Msg::EmbedRequested => s.question_from_link = false,
        Msg::EvalConfirmed => {
            if s.evaluation.confirming {
                s.evaluation.confirming = false;
                start_evaluation(s, &mut effects);
            }
        }
        Msg::EvalCancelled => {
            s.evaluation.confirming = false;
            if let Some(c) = s.calls.eval.take() {
                c.cancel();
                s.evaluation.phase = Phase::Idle;
                s.evaluation.message = Some(
                    "Mesure annulée. Les réponses déjà obtenues sont gardées : relancer ne les repaie pas."
                        .into(),
                );
            }
        }
        Msg::EvalProgress { epoch, done, total } if epoch == s.data.epoch => {
            s.evaluation.phase = Phase::Running { done, total };
        }
        // A run stopped by « Annuler » or « oublier la clé » already says why: its task's own
        // report of the cancellation is not shown over it.
        Msg::EvalEnded {
            outcome: Err(_), ..
        } if s.calls.eval.is_none() => {}
        Msg::EvalEnded { epoch, outcome } if epoch == s.data.epoch => {
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
        Msg::FilesChosen(files) => {
            let listed: Vec<(String, u64)> =
                files.iter().map(|f| (f.name(), f.size() as u64)).collect();
            match intake::sort_files(&listed) {
                Ok(selection) => {
                    s.data_errors.clear();
                    s.data_status = "Lecture des fichiers…".into();
                    effects.push(Effect::ReadFiles { files, selection });
                }
                Err(errors) => {
                    s.data_errors = errors.iter().map(messages::intake).collect();
                    s.data_status = String::new();
                }
            }
        }
        Msg::FilesRefused(errors) => {
            s.data_errors = errors;
            s.data_status = "Fichiers refusés : le catalogue en cours reste chargé.".into();
        }
        Msg::DatasetLoaded { data } => install(s, *data, &mut effects),
        Msg::MeasureProgress { seq, done } => {
            if let Some(m) = s.measuring.iter_mut().find(|m| m.seq == seq) {
                m.done = done;
            }
        }
        Msg::Measured { seq, epoch, result } if epoch == s.data.epoch => measured(s, seq, result),
        Msg::Measured { .. } => {}
        Msg::BackToExercise => {
            let (f, q) = &s.bundled;
            if let (Ok(f), Ok(q)) = (
                crate::data::parse_fiches_with(f, super::nfc),
                crate::data::parse_questions(q),
            ) {
                let data = Dataset::new(s.data.epoch + 1, f, q, None);
                install(s, data, &mut effects);
            }
        }
        // A result from another catalogue's task: dropped.
        Msg::ComputeProgress { .. }
        | Msg::ComputeEnded { .. }
        | Msg::VectorsRefused { .. }
        | Msg::DenseEnded { .. }
        | Msg::AnswerShown { .. }
        | Msg::EvalProgress { .. }
        | Msg::EvalEnded { .. } => {}
    }
    if s.wants_local_fiche_vectors() {
        match &s.local {
            LocalModel::Idle => {
                s.local = LocalModel::Fetching {
                    done: 0,
                    total: None,
                };
                effects.push(Effect::LoadLocalModel);
            }
            LocalModel::Ready if s.local_fiches.is_none_or(|(e, _, _)| e != s.data.epoch) => {
                let questions: Vec<String> = s
                    .data
                    .questions
                    .iter()
                    .map(|q| q.text.clone())
                    .filter(|t| !s.local_qvectors.contains_key(t))
                    .collect();
                let texts: Vec<String> = s
                    .data
                    .lab
                    .fiches()
                    .iter()
                    .map(|f| f.texte.clone())
                    .chain(questions.iter().cloned())
                    .collect();
                s.local_fiches = Some((s.data.epoch, 0, texts.len()));
                s.local_sent_questions = questions;
                effects.push(Effect::Encoder(Request::Texts {
                    epoch: s.data.epoch,
                    texts,
                }));
            }
            _ => {}
        }
    }
    if s.wants_local_vector() {
        if matches!(s.local, LocalModel::Idle) {
            s.local = LocalModel::Fetching {
                done: 0,
                total: None,
            };
            effects.push(Effect::LoadLocalModel);
        }
        // Sent at once, even while the model comes: the worker keeps the latest question and
        // embeds it as soon as it can (5-10 ms), between two fiches if it is computing some.
        if !matches!(s.local, LocalModel::Unavailable(_))
            && s.local_asked.as_deref() != Some(s.question.as_str())
        {
            s.local_asked = Some(s.question.clone());
            effects.push(Effect::Encoder(Request::Question {
                text: s.question.clone(),
            }));
        }
    }
    if s.wants_question_vector() {
        if let Some(key) = s.key.clone() {
            // A committed question's embedding goes on (see `State::committed`).
            if let Some((q, old)) = s.calls.search.take() {
                if s.committed.as_ref() != Some(&q) {
                    old.cancel();
                }
            }
            let job = job(s, key);
            s.calls.search = Some((s.question.clone(), job.call.clone()));
            effects.push(Effect::EmbedQuestion {
                job,
                question: s.question.clone(),
                generation: s.question_generation,
            });
        }
    }
    effects
}

/// A new paid task under the current catalogue, with its own call.
fn job(s: &State, key: ApiKey) -> Job {
    Job {
        epoch: s.data.epoch,
        key,
        call: Call::new(),
    }
}

/// Forgets the key: in memory, in storage, and every call that would still send it.
fn forget_key(s: &mut State, effects: &mut Vec<Effect>) {
    s.key = None;
    s.key_problem = None;
    s.remembered = false;
    s.remember_warning = false;
    s.calls.cancel_all();
    s.waiting = None;
    s.key_check = None;
    s.compute = Phase::Idle;
    s.dense = Phase::Idle;
    s.answering.pending = false;
    s.evaluation.confirming = false;
    if s.evaluation.phase.is_running() {
        s.evaluation.phase = Phase::Idle;
        s.evaluation.message = Some("Mesure interrompue : la clé a été oubliée.".into());
    }
    effects.push(Effect::RememberKey(None));
}

/// Replaces the catalogue: a new epoch, every call cancelled, every result of the old one gone.
fn install(s: &mut State, mut data: Dataset, effects: &mut Vec<Effect>) {
    s.calls.cancel_all();
    s.waiting = None;
    s.key_check = None;
    data.epoch = s.data.epoch.max(data.epoch) + 1;
    let stopped = s.evaluation.phase.is_running() || s.compute.is_running() || s.dense.is_running();
    if let Some(old) = s.data.lab.vectors_away() {
        if data.lab.vectors_away() != Some(old) {
            effects.push(Effect::Encoder(Request::Forget { set: old }));
        }
    }
    s.data = data;
    s.journal_waiting.clear();
    s.example = None;
    s.question.clear();
    s.question_generation += 1;
    s.grid_sort = None;
    s.grid_limit = super::panels::charts::GRID_PAGE;
    s.compare = None;
    s.run_messages.clear();
    s.compute = Phase::Idle;
    s.dense = Phase::Idle;
    s.dense_message = None;
    s.vectors_message = stopped.then(|| "Calcul arrêté : un autre catalogue a été chargé.".into());
    s.answering.pending = false;
    s.answering.result = None;
    s.evaluation.confirming = false;
    s.evaluation.phase = Phase::Idle;
    s.evaluation.outcomes = None;
    s.evaluation.message = stopped.then(|| {
        "Mesure arrêtée : un autre catalogue a été chargé ; relancez-la sur celui-ci.".into()
    });
    s.data_errors.clear();
    s.data_status = match &s.data.label {
        Some(_) => "Vos données sont chargées, dans ce navigateur seulement.".into(),
        None => "Catalogue de l'exercice.".into(),
    };
    s.measuring.clear();
    s.measure_latest.clear();
    // The local encoder's worker drops the texts of the catalogue before.
    if s.local_fiches.take().is_some() {
        effects.push(Effect::Encoder(Request::Stop {
            epoch: s.data.epoch,
        }));
    }
    if !s.data.lab.has_vectors(crate::lab::Encoder::Mistral) {
        effects.push(Effect::LoadVectors {
            epoch: s.data.epoch,
        });
    }
    // Question vectors in the learner's vectors file: their questions are measured without a key.
    let shipped = std::mem::take(&mut s.data.shipped_questions);
    if !shipped.is_empty() {
        adopt_question_vectors(s, shipped, effects);
    }
}

/// Question vectors that came with fiche vectors (valid for exactly their texts): kept, and when
/// every question of the catalogue has its vector, measuring is free, so it starts at once (unless
/// the dense methods are measured already).
fn adopt_question_vectors(
    s: &mut State,
    shipped: Vec<(String, Vec<f32>)>,
    effects: &mut Vec<Effect>,
) {
    s.data.questions_shipped = shipped.len();
    s.qvectors.extend(shipped);
    if s.data
        .questions
        .iter()
        .all(|q| s.qvectors.contains_key(&q.text))
        && !s.data.has_dense_measurements()
    {
        measure_dense(s, effects);
    }
}

/// `sens`, `hybride` and `hybride+` measured once every question has its vector.
fn measure_dense(s: &mut State, effects: &mut Vec<Effect>) {
    let methods = vec![
        Method::Sens,
        Method::Hybride(Keyword::Mots),
        Method::Hybride(Keyword::MotsPlus),
    ];
    let vectors = s.qvectors.clone();
    request_measure(s, effects, methods, vectors);
}

/// Starts measuring `methods` in steps (see [`super::state::Measuring`]); a measurement of the
/// same methods under way is superseded.
fn request_measure(
    s: &mut State,
    effects: &mut Vec<Effect>,
    methods: Vec<Method>,
    vectors: QuestionVectors,
) {
    s.measure_seq += 1;
    let seq = s.measure_seq;
    s.measuring
        .retain(|m| !m.methods.iter().any(|x| methods.contains(x)));
    for m in &methods {
        s.measure_latest.insert(m.name(), seq);
    }
    s.measuring.push(Measuring {
        seq,
        epoch: s.data.epoch,
        methods: methods.clone(),
        done: 0,
        total: s.data.questions.len(),
    });
    effects.push(Effect::Measure {
        seq,
        epoch: s.data.epoch,
        methods,
        vectors,
    });
}

/// A stepped measurement ended: each method's measurement replaces the one before, unless a
/// newer measurement of that method was asked for meanwhile.
fn measured(s: &mut State, seq: u64, result: Result<Vec<Measurement>, String>) {
    let dense = s.measuring.iter().find(|m| m.seq == seq).is_some_and(|m| {
        m.methods
            .iter()
            .any(|x| x.encoder() == Some(Encoder::Mistral))
    });
    s.measuring.retain(|m| m.seq != seq);
    match result {
        Ok(ms) => {
            for m in ms {
                if s.measure_latest.get(m.method.as_str()) != Some(&seq) {
                    continue;
                }
                s.data.measurements.retain(|x| x.method != m.method);
                s.data.measurements.push(m);
                s.data.measure_version += 1;
            }
        }
        Err(message) if dense => s.dense_message = Some(format!("Mesure impossible : {message}")),
        Err(_) => {}
    }
}

fn request_answer(s: &mut State, effects: &mut Vec<Effect>) {
    let model = model_or_default(&s.answering.model);
    let Some(key) = s.key.clone() else {
        s.answering.result = Some(super::state::AnswerResult {
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
            s.answering.result = Some(super::state::AnswerResult {
                question,
                model,
                sent: Vec::new(),
                outcome: Err(message),
            });
        }
        Ok(sent) => {
            if let Some(old) = s.calls.answer.take() {
                old.cancel();
            }
            let job = job(s, key);
            s.calls.answer = Some(job.call.clone());
            s.answering.pending = true;
            effects.push(Effect::Answer {
                job,
                model,
                question,
                sent,
            });
        }
    }
}

fn start_evaluation(s: &mut State, effects: &mut Vec<Effect>) {
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
                s.evaluation.message = Some(format!("Mesure impossible : {message}"));
                return;
            }
        }
    }
    let job = job(s, key);
    s.calls.eval = Some(job.call.clone());
    s.evaluation.message = None;
    let total = items.len();
    s.evaluation.phase = Phase::Running { done: 0, total };
    effects.push(Effect::Evaluate {
        job,
        model,
        method,
        items,
    });
}

/// The file « Exporter » offers for `what`: `csv`, `json`, `qrels` or `run:<method>`.
fn export_file(s: &State, what: &str) -> Option<(String, String)> {
    let ms: Vec<_> = s.data.measured().into_iter().cloned().collect();
    match what {
        "csv" => Some(("mesures.csv".into(), export::csv(&ms))),
        "json" => Some(("mesures.json".into(), export::json(&ms))),
        "qrels" => ms.first().map(|m| ("qrels.txt".into(), export::qrels(m))),
        other => {
            let name = other.strip_prefix("run:")?;
            let m = ms.iter().find(|m| m.method == name)?;
            Some((format!("run-{}.txt", run_slug(name)), export::trec_run(m)))
        }
    }
}

/// The journal entry for `question` under `method`: its best score and the method's refusal
/// threshold (calibrated as « Mesurer » shows it, on the questions of even rank).
fn unanswered(
    s: &State,
    question: &str,
    method: Method,
    verdict: Verdict,
    model: Option<String>,
) -> Result<Entry, SearchError> {
    let vector = s.vector_for(method, question);
    let best = s
        .data
        .lab
        .search(method, question, vector, 1)?
        .first()
        .map_or(0.0, |r| r.score);
    let threshold = s
        .data
        .measured()
        .into_iter()
        .find(|m| m.method == method.name())
        .and_then(crate::measure::compare::calibrate_split)
        .map(|c| c.calibration.threshold);
    Ok(Entry {
        date: String::from(js_sys::Date::new_0().to_iso_string()),
        question: question.to_owned(),
        method: method.name().to_owned(),
        best,
        threshold,
        verdict,
        model,
    })
}

/// A question committed in the box: for each method shown that can rank it and has a threshold,
/// a best score under that threshold goes into the journal. Exercise questions are not typed
/// questions: they are measured in « Mesurer ».
///
/// A dense method that cannot rank it yet (its vector or its dense top is on the way, or the
/// fiche vectors are still loading) waits in `journal_waiting` and is tried again when one of
/// those arrives ([`retry_unanswered`]): pressing Enter before the embedding came back does not
/// lose its verdict.
fn note_unanswered(s: &mut State, effects: &mut Vec<Effect>) {
    let q = s.question.trim().to_owned();
    if q.is_empty() || s.data.questions.iter().any(|x| x.text == s.question) {
        return;
    }
    let question = s.question.clone();
    let mut added = false;
    for &method in &s.shown.clone() {
        added |= journal_one(s, &question, method);
    }
    if added {
        effects.push(Effect::SaveJournal(s.journal.to_jsonl()));
    }
}

/// Journals `question` under `method` if its best score is under the threshold (true when the
/// journal changed); if the method cannot rank it yet, puts it in the waiting list instead.
fn journal_one(s: &mut State, question: &str, method: Method) -> bool {
    match unanswered(s, question, method, Verdict::UnderThreshold, None) {
        Ok(e) => e.threshold.is_some_and(|t| e.best < t) && s.journal.add(e),
        Err(
            SearchError::Pending | SearchError::NoQuestionVector { .. } | SearchError::NoVectors,
        ) => {
            let item = (question.to_owned(), method);
            if !s.journal_waiting.contains(&item) {
                if s.journal_waiting.len() >= JOURNAL_WAITING_MAX {
                    s.journal_waiting.remove(0);
                }
                s.journal_waiting.push(item);
            }
            false
        }
        Err(SearchError::Dense(_)) => false,
    }
}

/// Committed questions whose dense methods wait, at most: the oldest is dropped past it (a
/// question whose vector never comes, without a key say, must not grow the list for ever).
const JOURNAL_WAITING_MAX: usize = 16;

/// The waiting committed questions tried again, after something they may wait for arrived.
fn retry_unanswered(s: &mut State, effects: &mut Vec<Effect>) {
    let waiting = std::mem::take(&mut s.journal_waiting);
    let mut added = false;
    for (question, method) in waiting {
        added |= journal_one(s, &question, method);
    }
    if added {
        effects.push(Effect::SaveJournal(s.journal.to_jsonl()));
    }
}

/// The local methods measured, when every question has its local vector (shipped with the page).
fn measure_local(s: &mut State, effects: &mut Vec<Effect>) {
    let all = s
        .data
        .questions
        .iter()
        .all(|q| s.local_qvectors.contains_key(&q.text));
    if !all {
        return;
    }
    let vectors = s.local_qvectors.clone();
    request_measure(
        s,
        effects,
        vec![Method::SensLocal, Method::HybrideLocal],
        vectors,
    );
}

/// A TREC run file is refused above this size before it is read.
pub const RUN_MAX_BYTES: u64 = 50_000_000;

/// A method's or run's name as a file name: `mots+` → `mots-plus`, anything but letters, digits,
/// `-` and `_` → `_`.
pub fn run_slug(name: &str) -> String {
    match Method::parse(name) {
        Some(m) => m.slug().to_owned(),
        None => name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect(),
    }
}

/// A run file read: measured on the catalogue's questions and added, or refused whole.
fn import_run(s: &mut State, file: &str, text: Result<String, String>) -> Result<String, String> {
    let text = text?;
    let ids: std::collections::HashSet<&str> =
        s.data.lab.fiches().iter().map(|f| f.id.as_str()).collect();
    let mut m = crate::measure::run::measure(&text, &s.data.questions, &ids)
        .map_err(|e| messages::run(&e, file))?;
    let taken = |name: &str, data: &Dataset| data.measured().iter().any(|x| x.method == name);
    // A run exported by this page and imported back is named like its method: « mots (run) ».
    if taken(&m.method, &s.data) {
        m.method += " (run)";
    }
    if taken(&m.method, &s.data) {
        return Err(format!(
            "{file} : un run nommé « {} » est déjà mesuré : retirez les runs importés ou renommez celui-ci (6e colonne).",
            m.method
        ));
    }
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let said = format!(
        "Run « {} » ({file}, {} lignes) mesuré sur les {} questions : il est dans chaque tableau, la grille, la comparaison et les exports.",
        m.method,
        crate::fr::int(lines as u64),
        s.data.questions.len()
    );
    s.data.runs.push(m);
    Ok(said)
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

/// The costs of one embeddings call.
pub fn embedding_cost(fiches: u64, questions: u64) -> Costs {
    Costs {
        fiches,
        questions,
        calls: 1,
        ..Costs::default()
    }
}

/// The cache key of the fiche vectors of the fiches whose fingerprint is `fingerprint`.
pub fn vectors_cache_key(fingerprint: &str) -> String {
    mistral::cache::fiche_vectors(mistral::MODEL, fingerprint)
}
