//! The local encoder: its model fetched when a local method needs it, the vectors it computes for
//! the learner's fiches and questions, its worker's death.

use crate::data::vectors::VectorSet;
use crate::encoder::protocol::Request;
use crate::fr::messages;
use crate::lab::Method;

use super::super::effect::Effect;
use super::super::jobs::{Subject, Work};
use super::super::local::LocalModel;
use super::super::msg::LocalMsg;
use super::super::state::State;
use super::measure::request_measure;

/// The local vectors shipped with the page (the exercise's fiches and questions).
pub(super) fn vectors_loaded(s: &mut State, set: VectorSet) {
    let shipped = set.questions.clone();
    if s.data.lab.set_local_vectors(set).is_ok() {
        s.local_qvectors.extend(shipped);
        measure_local(s);
    }
}

/// The local vectors of the learner's fiches, then of its `questions`, in the order sent.
pub(super) fn texts_embedded(s: &mut State, questions: Vec<String>, mut vectors: Vec<Vec<f32>>) {
    s.data.ui.local_texts = None;
    let n = s.data.lab.fiches().len().min(vectors.len());
    let question_vectors = vectors.split_off(n);
    match VectorSet::new(crate::encoder::MODEL, s.data.lab.fiches(), vectors)
        .and_then(|set| s.data.lab.set_local_vectors(set))
    {
        Ok(()) => {
            s.local_qvectors
                .extend(questions.into_iter().zip(question_vectors));
            measure_local(s);
        }
        Err(e) => s.data.ui.local_error = Some(messages::vectors(&e)),
    }
}

/// The texts [`Subject::LocalTexts`] sends: the catalogue's fiches, then its questions whose
/// local vector is not known.
pub(super) fn work(s: &State) -> Work {
    let questions: Vec<String> = s
        .data
        .questions
        .iter()
        .map(|q| q.text.clone())
        .filter(|t| !s.local_qvectors.contains_key(t))
        .collect();
    let texts = s
        .data
        .lab
        .fiches()
        .iter()
        .map(|f| f.texte.clone())
        .chain(questions.iter().cloned())
        .collect();
    Work::EmbedLocalTexts { texts, questions }
}

/// A gesture that needs the model after its download failed: it is fetched again.
pub(super) fn retry(s: &mut State) {
    if s.local_retry && matches!(s.local, LocalModel::Unavailable(_)) {
        s.local = LocalModel::Idle;
        s.local_retry = false;
        s.local_asked = None;
    }
}

/// « Annuler » during the model's download: its request is aborted (its job stops), and the next
/// gesture that needs the model (a question typed, « Charger le modèle ») fetches it again.
pub(super) fn cancelled(s: &mut State) {
    if matches!(s.local, LocalModel::Fetching { .. }) {
        s.local = LocalModel::Unavailable(
            "Téléchargement du modèle local annulé. Tapez une question pour le reprendre."
                .to_owned(),
        );
        s.local_retry = true;
        s.local_asked = None;
    }
}

/// The model's download runs while the page waits for it (a new catalogue does not stop it); the
/// learner's texts are embedded while they are wanted.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if matches!(s.local, LocalModel::Fetching { .. }) {
        want(Subject::LocalModel);
    }
    if s.data.ui.local_texts.is_some() {
        want(Subject::LocalTexts);
    }
}

/// Rows of the model's table could not be fetched: said, and the next gesture that needs the
/// model tries again (the head from this browser's cache, the rows it already has from theirs).
pub(super) fn rows_failed(s: &mut State, why: String) {
    s.local_rows = None;
    s.local = LocalModel::Unavailable(format!(
        "Le modèle local n'a pas pu charger les lignes de cette question\u{a0}: {why}. Tapez une autre question pour réessayer\u{202f}; les autres méthodes restent utilisables."
    ));
    s.local_retry = true;
    s.local_asked = None;
    s.data.ui.local_texts = None;
}

/// The cached model was refused and deleted: it is fetched again, once (a download refused in
/// turn is [`LocalMsg::Failed`](super::super::msg::LocalMsg::Failed)).
pub(super) fn evicted(s: &mut State, why: String) {
    if matches!(s.local, LocalModel::Unavailable(_)) {
        return;
    }
    s.local = LocalModel::Idle;
    s.local_asked = None;
    let _ = why;
}

fn forget_vectors_away(s: &mut State) {
    if s.data.lab.vectors_away().is_some() {
        s.data.lab.forget_vectors_away();
        s.data.vectors_origin = "Vecteurs perdus : le calcul en arrière-plan qui les gardait s'est arrêté ; sens et hybride reviendront au rechargement de la page.".to_owned();
    }
}

pub(super) fn worker_died(s: &mut State, detail: String) {
    forget_vectors_away(s);
    s.local = LocalModel::Unavailable(format!(
        "Le calcul local s'est arrêté : sens local et hybride local sont indisponibles jusqu'au rechargement de la page ; les autres méthodes restent utilisables. (Détail du navigateur : {detail})"
    ));
    s.data.ui.local_texts = None;
}

/// The worker could not start (its module not fetched: offline, a server's error): said, and
/// the next gesture that needs it starts a new one, which is given the model again.
pub(super) fn worker_not_started(s: &mut State, detail: String) {
    // Vectors handed to it never reached it: lost as when it dies.
    forget_vectors_away(s);
    s.local = LocalModel::Unavailable(format!(
        "Le calcul local n'a pas pu démarrer ({detail}). Tapez une autre question pour réessayer\u{202f}; les autres méthodes restent utilisables."
    ));
    s.local_retry = true;
    s.local_asked = None;
    s.data.ui.local_texts = None;
    s.local_rows = None;
}

/// The local methods measured, when every question has its local vector.
pub(super) fn measure_local(s: &mut State) {
    let all = s
        .data
        .questions
        .iter()
        .all(|q| s.local_qvectors.contains_key(&q.text));
    if !all {
        return;
    }
    let vectors = s.local_qvectors.clone();
    request_measure(s, vec![Method::SensLocal, Method::HybrideLocal], vectors);
}

/// What the local encoder should be doing, from the state: the model fetched, the learner's
/// fiches embedded, the question in the box embedded.
pub(super) fn wanted(s: &mut State, fx: &mut Vec<Effect>) {
    // No local method shown any more: the learner's fiches are no longer embedded (minutes of a
    // core at 100,000 fiches; their job stops); ticking one again starts over.
    let shown = s
        .shown
        .iter()
        .any(|m| m.encoder() == Some(crate::lab::Encoder::Local));
    if !shown {
        s.data.ui.local_texts = None;
        // The download's job stops: its request is aborted at once.
        if matches!(s.local, LocalModel::Fetching { .. }) {
            s.local = LocalModel::Idle;
            s.local_asked = None;
        }
    }
    if s.wants_local_fiche_vectors() {
        match &s.local {
            LocalModel::Idle => {
                s.local = LocalModel::Fetching {
                    done: 0,
                    total: None,
                };
            }
            LocalModel::Ready if s.data.ui.local_texts.is_none() => {
                let questions = s
                    .data
                    .questions
                    .iter()
                    .filter(|q| !s.local_qvectors.contains_key(&q.text))
                    .count();
                s.data.ui.local_texts = Some((0, s.data.lab.fiches().len() + questions));
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
        }
        // Sent at once, even while the model comes: the worker keeps the latest question and
        // embeds it as soon as it can, between two fiches if it is computing some.
        if !matches!(s.local, LocalModel::Unavailable(_))
            && s.local_asked.as_deref() != Some(s.question.as_str())
        {
            s.local_asked = Some(s.question.clone());
            fx.push(Effect::Worker(Request::Question {
                text: s.question.clone(),
            }));
        }
    }
}

/// What a [`LocalMsg`] changes.
pub(super) fn update(s: &mut State, msg: LocalMsg) {
    match msg {
        LocalMsg::QuestionEmbedded { question, vector } => {
            s.local_qvectors.insert(question, vector);
        }
        LocalMsg::Preparing(_) | LocalMsg::Ready
            if matches!(s.local, crate::page::local::LocalModel::Unavailable(_)) => {}
        LocalMsg::Preparing(p) => s.local = crate::page::local::LocalModel::Preparing(p),
        LocalMsg::Ready => s.local = crate::page::local::LocalModel::Ready,
        LocalMsg::Failed(why) => {
            s.local = crate::page::local::LocalModel::Unavailable(why);
            s.data.ui.local_texts = None;
        }
        LocalMsg::WorkerDied(detail) => worker_died(s, detail),
        LocalMsg::WorkerNotStarted(detail) => worker_not_started(s, detail),
        LocalMsg::Evicted(why) => evicted(s, why),
        LocalMsg::NotKept => s.local_not_kept = true,
        LocalMsg::Requested => {
            s.local_download_ok = true;
            retry(s);
        }
        LocalMsg::Cancelled => cancelled(s),
        LocalMsg::Rows { done, total, bytes } => {
            s.local_rows = (done < total).then_some((done, total, bytes));
        }
        LocalMsg::RowsFailed(why) => rows_failed(s, why),
    }
}
