//! The catalogue: the learner's files chosen and read, the exercise's come back to, and the one
//! place a catalogue is installed. The last gesture wins: every selection is a read job of its
//! own, which a newer selection (or « Revenir au catalogue de l'exercice ») stops; a catalogue it
//! read meanwhile is dropped, its worker's vectors set with it.

use crate::data::intake;
use crate::encoder::protocol::Request;
use crate::fr::messages;

use super::super::dataset::Dataset;
use super::super::effect::{Effect, FileRef};
use super::super::jobs::{Subject, Work};
use super::super::msg::CatalogueMsg;
use super::super::state::State;
use super::vectors::adopt_question_vectors;

pub(super) fn files_chosen(s: &mut State, files: Vec<FileRef>) {
    let listed: Vec<(String, u64)> = files.iter().map(|f| (f.name.clone(), f.size)).collect();
    match intake::sort_files(&listed, s.fiches_max) {
        Ok(selection) => {
            s.selection += 1;
            s.data_errors.clear();
            s.data_status = "Lecture des fichiers…".into();
            s.reading = Some((s.selection, files, selection));
        }
        Err(errors) => {
            s.data_errors = errors.iter().map(messages::intake).collect();
            s.data_status = String::new();
        }
    }
}

pub(super) fn files_refused(s: &mut State, errors: Vec<String>) {
    s.reading = None;
    s.data_errors = errors;
    s.data_status = "Fichiers refusés : le catalogue en cours reste chargé.".into();
}

/// The catalogue read from the files being read: installed.
pub(super) fn loaded(s: &mut State, data: Dataset, fx: &mut Vec<Effect>) {
    s.reading = None;
    install(s, data, fx);
}

/// A catalogue read by a job stopped meanwhile: the vectors its worker keeps are let go.
pub(super) fn dropped(data: &Dataset, fx: &mut Vec<Effect>) {
    if let Some(set) = data.lab.vectors_away() {
        fx.push(Effect::Worker(Request::Forget { set }));
    }
}

/// The read of the files chosen last, while it runs.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if let Some((n, _, _)) = &s.reading {
        want(Subject::ReadFiles(*n));
    }
    let looked = s.data.looked;
    if !looked.vectors && !s.data.lab.has_vectors(crate::lab::Encoder::Mistral) {
        want(Subject::FindVectors);
    }
    let shipped = s.shipped_files.as_ref().filter(|_| s.data.label.is_none());
    if let Some(files) = shipped {
        if !looked.local && files.local_vectors.is_some() {
            want(Subject::LocalVectors);
        }
        if !looked.answers && files.answers.is_some() {
            want(Subject::ShippedAnswers);
        }
    }
}

/// What these jobs do.
pub(super) fn work(s: &State, subject: &Subject) -> Option<Work> {
    let shipped = s.shipped_files.as_ref().filter(|_| s.data.label.is_none());
    let lab = &s.data.lab;
    let ids = || lab.fiches().iter().map(|f| f.id.clone()).collect();
    match subject {
        Subject::ReadFiles(_) => s
            .reading
            .as_ref()
            .map(|(_, files, selection)| Work::ReadFiles {
                files: files.clone(),
                selection: selection.clone(),
            }),
        Subject::FindVectors => Some(Work::FindVectors {
            shipped: shipped.and_then(|f| f.vectors.clone()),
            cache_key: super::vectors_cache_key(lab.fingerprint()),
            ids: ids(),
            fingerprint: lab.fingerprint().to_owned(),
        }),
        Subject::LocalVectors => Some(Work::FetchLocalVectors {
            name: shipped?.local_vectors.clone()?,
        }),
        Subject::ShippedAnswers => Some(Work::FetchAnswers {
            name: shipped?.answers.clone()?,
            fingerprint: lab.fingerprint().to_owned(),
            ids: ids(),
            questions: s.data.questions.clone(),
        }),
        _ => None,
    }
}

pub(super) fn back_to_exercise(s: &mut State, fx: &mut Vec<Effect>) {
    s.reading = None;
    let (f, q) = s.bundled.clone();
    let data = Dataset::new(s.data.epoch + 1, f, q, None);
    install(s, data, fx);
}

/// Replaces the catalogue: a new epoch, so every job keyed by the old one stops. Everything that belonged to the old
/// catalogue goes with its [`Dataset`] (its [`CatalogueUi`](super::super::dataset::CatalogueUi)
/// included); what ran over it is stopped, and said where a learner waited for it.
fn install(s: &mut State, mut data: Dataset, fx: &mut Vec<Effect>) {
    data.epoch = s.data.epoch.max(data.epoch) + 1;
    // « Améliorer » starts a new session over the new catalogue, with the settings in use.
    data.improve.settings = s.data.improve.settings.take();
    let reranking = s.data.evaluation.rerank_phase.is_running();
    let stopped = s.data.evaluation.phase.is_running()
        || s.data.ui.compute.is_running()
        || s.data.ui.dense.is_running();
    if let Some(old) = s.data.lab.vectors_away() {
        if data.lab.vectors_away() != Some(old) {
            fx.push(Effect::Worker(Request::Forget { set: old }));
        }
    }
    s.data = data;
    s.link_note = None;
    // The question belonged to the old catalogue's view: a new one starts empty.
    s.question.clear();
    s.vectors_message = stopped.then(|| "Calcul arrêté : un autre catalogue a été chargé.".into());
    s.data.evaluation.rerank_message = reranking.then(|| {
        "Reclassement arrêté : un autre catalogue a été chargé ; relancez-le sur celui-ci.".into()
    });
    s.data.evaluation.message = stopped.then(|| {
        "Mesure arrêtée : un autre catalogue a été chargé ; relancez-la sur celui-ci.".into()
    });
    s.data_errors.clear();
    // A vectors file refused while the fiches and questions were read: said, the rest kept.
    if let Some(note) = s.data.intake_note.take() {
        s.data_errors.push(note);
    }
    // The local encoder's vectors of the learner's fiches and questions, from their file: the
    // local methods are measured at once.
    let local = std::mem::take(&mut s.data.shipped_local_questions);
    s.local_qvectors.extend(local);
    if s.data.lab.local_vectors().is_some() {
        super::local::measure_local(s);
    }
    s.data_status = match &s.data.label {
        Some(_) => "Vos données sont chargées, dans ce navigateur seulement.".into(),
        None => "Catalogue de l'exercice.".into(),
    };
    // Question vectors in the learner's vectors file: their questions are measured without a key.
    let shipped = std::mem::take(&mut s.data.shipped_questions);
    if !shipped.is_empty() {
        adopt_question_vectors(s, shipped);
    }
}

/// What a [`CatalogueMsg`] changes.
pub(super) fn update(s: &mut State, msg: CatalogueMsg, fx: &mut Vec<Effect>) {
    match msg {
        CatalogueMsg::FilesChosen(files) => files_chosen(s, files),
        CatalogueMsg::BackToExercise => back_to_exercise(s, fx),
    }
}
