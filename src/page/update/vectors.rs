//! Mistral's fiche vectors: computed with the key, loaded into the page's worker, lost with it;
//! the questions' vectors for « Mesurer », and the dense measurement once they are all known.

use crate::data::vectors::VectorsInfo;
use crate::encoder::protocol::Request;
use crate::lab::{Encoder, Keyword, Method, Ranked};
use crate::mistral::{self, ApiKey};

use super::super::effect::Effect;
use super::super::jobs::{Subject, Work};
use super::super::msg::VectorsMsg;
use super::super::parts::{Costs, Phase};
use super::super::state::State;
use super::measure::request_measure;

pub(super) fn compute(s: &mut State) {
    if s.key.is_some() && !s.data.ui.compute.is_running() {
        s.data.ui.compute = Phase::Running {
            done: 0,
            total: s.data.lab.fiches().len(),
        };
        s.vectors_message = None;
    }
}

/// « Annuler » the fiche vectors' computation: what was paid for stays in the cache.
pub(super) fn compute_cancelled(s: &mut State) {
    if let Phase::Running { done, .. } = s.data.ui.compute {
        s.data.ui.compute = Phase::Idle;
        s.vectors_message = Some(format!(
            "Calcul interrompu\u{a0}: Annulé. Les {done} vecteurs déjà obtenus sont gardés\u{a0}: relancer ne les repaie pas."
        ));
    }
}

/// The key forgotten: the fiche vectors' computation and « Mesurer »'s question vectors stop
/// (what was paid for stays in the cache).
pub(super) fn key_forgotten(s: &mut State) {
    s.data.ui.compute = Phase::Idle;
    s.data.ui.dense = Phase::Idle;
}

/// The question vectors for « Mesurer » stopped during a wait.
pub(super) fn dense_cancelled(s: &mut State) {
    if s.data.ui.dense.is_running() {
        s.data.ui.dense = Phase::Idle;
        s.data.ui.dense_message = Some("Mesure interrompue\u{a0}: Annulé.".into());
    }
}

/// The keyed jobs of Mistral's vectors with the key: the fiches' computation and the questions'
/// vectors for « Mesurer », each while it runs.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if s.data.ui.compute.is_running() {
        want(Subject::ComputeVectors);
    }
    if s.data.ui.dense.is_running() {
        want(Subject::MeasureDense);
    }
}

/// The dense tops to ask of the page's worker, each until it is known: the question in the
/// box's, when the view needs it; and, in one batch, those of committed questions waiting to be
/// journaled and those the measurements under way wait for (these neither supersede the box's
/// nor are superseded by it).
pub(super) fn dense_jobs(s: &State, want: &mut impl FnMut(Subject)) {
    for (set, in_box, vectors) in dense_batches(s) {
        want(Subject::DenseTops {
            set,
            batch: batch_digest(&vectors),
            in_box,
        });
    }
}

/// The work of [`Subject::DenseTops`]: the vectors of its batch, as they are wanted now.
pub(super) fn dense_work(s: &State, subject: &Subject) -> Option<Work> {
    let Subject::DenseTops { set, batch, in_box } = *subject else {
        return None;
    };
    dense_batches(s)
        .into_iter()
        .find(|(x, b, v)| (*x, *b) == (set, in_box) && batch_digest(v) == batch)
        .map(|(set, in_box, vectors)| Work::DenseTops {
            set,
            vectors,
            in_box,
        })
}

/// The dense tops wanted now, `(set, in_box, vectors)`, one batch per need: the question in the
/// box's, the measurements', the committed questions' waiting to be journaled. A vector two
/// needs share is searched for each: the batches stay the same while they run.
fn dense_batches(s: &State) -> Vec<(u64, bool, Vec<Vec<f32>>)> {
    let mut out = Vec::new();
    if let Some((set, vector)) = s.dense_wanted() {
        out.push((set, true, vec![vector]));
    }
    let Some(set) = s.data.lab.vectors_away() else {
        return out;
    };
    for batch in [super::measure::tops_wanted(s), s.dense_waiting()] {
        if !batch.is_empty() {
            out.push((set, false, batch));
        }
    }
    out
}

/// A batch of vectors named by their digest.
fn batch_digest(vectors: &[Vec<f32>]) -> u64 {
    let keys: Vec<String> = vectors
        .iter()
        .map(|v| crate::lab::vector_key(v).to_string())
        .collect();
    super::super::jobs::digest(keys.iter().map(String::as_str))
}

/// What those jobs send: the catalogue's fiches as they are now, the questions without a vector.
pub(super) fn work(s: &State, subject: &Subject, key: ApiKey) -> Option<Work> {
    match subject {
        Subject::ComputeVectors => Some(Work::ComputeVectors {
            key,
            fiches: s.data.lab.fiches().to_vec(),
        }),
        Subject::MeasureDense => Some(Work::MeasureDense {
            key,
            questions: missing_questions(s),
        }),
        _ => None,
    }
}

/// The catalogue's questions whose mistral-embed vector is not known.
fn missing_questions(s: &State) -> Vec<String> {
    s.data
        .questions
        .iter()
        .map(|q| q.text.clone())
        .filter(|q| !s.qvectors.contains_key(q))
        .collect()
}

/// Fiche vectors kept by the worker as `set` for the catalogue of `epoch` (checked there against
/// these fiches' ids and fingerprint); a set kept for a catalogue replaced meanwhile is dropped
/// there too.
#[allow(clippy::too_many_arguments)]
pub(super) fn loaded(
    s: &mut State,
    set: u64,
    info: VectorsInfo,
    questions: Vec<(String, Vec<f32>)>,
    (origin, bytes): (String, Option<Vec<u8>>),
    fx: &mut Vec<Effect>,
) {
    if let Some(old) = s.data.lab.vectors_away() {
        fx.push(Effect::Worker(Request::Forget { set: old }));
    }
    s.data.lab.set_vectors_away(set, info);
    s.data.vectors_origin = origin;
    if bytes.is_some() {
        s.data.computed = bytes;
    }
    // Question vectors shipped in the same file: valid for exactly their texts.
    adopt_question_vectors(s, questions);
}

/// Dense tops computed by the worker in `set`: kept only if `set` is still the catalogue's.
pub(super) fn dense_found(
    s: &mut State,
    set: u64,
    vectors: Vec<Vec<f32>>,
    tops: Vec<Vec<(u32, f64)>>,
) {
    if s.data.lab.vectors_away() != Some(set) {
        return;
    }
    for (v, top) in vectors.iter().zip(tops) {
        let top = top
            .into_iter()
            .map(|(doc, score)| Ranked {
                doc: doc as usize,
                score,
            })
            .collect();
        s.data.lab.remember_dense(Encoder::Mistral, v, top);
    }
}

pub(super) fn lost(s: &mut State, set: u64, reason: String) {
    if s.data.lab.vectors_away() == Some(set) {
        s.data.lab.forget_vectors_away();
        let reason = reason.trim_end_matches('.');
        s.data.vectors_origin = format!("Vecteurs perdus : {reason}.");
    }
}

/// « Mesurer » the dense methods: free when every question's vector is known, else the missing
/// ones are embedded with the key first.
pub(super) fn measure_requested(s: &mut State) {
    let questions = missing_questions(s);
    if questions.is_empty() && s.data.lab.has_vectors(Encoder::Mistral) {
        s.data.ui.dense_message = None;
        measure_dense(s);
    } else if s.key.is_some() && !s.data.ui.dense.is_running() {
        s.data.ui.dense = Phase::Running {
            done: 0,
            total: questions.len(),
        };
        s.data.ui.dense_message = None;
    }
}

/// Question vectors embedded for « Mesurer »: kept whatever the catalogue (they are the
/// questions' own), and counted as progress.
pub(super) fn dense_progress(
    s: &mut State,
    vectors: Vec<(String, Vec<f32>)>,
    fx: &mut Vec<Effect>,
) {
    let n = vectors.len();
    for (question, vector) in vectors {
        // A damaged one (from the cache) is deleted there; « Mesurer » asks for it again.
        match super::question::usable(s, &vector) {
            Ok(()) => {
                s.qvectors.insert(question, vector);
            }
            Err(_) => fx.push(Effect::ForgetQuestionVector(question)),
        }
    }
    if let Phase::Running { done, .. } = &mut s.data.ui.dense {
        *done += n;
    }
}

pub(super) fn dense_ended(s: &mut State, message: Option<String>) {
    s.data.ui.dense = Phase::Idle;
    s.data.ui.dense_message = message;
    if s.data.ui.dense_message.is_none() {
        measure_dense(s);
    }
}

/// Question vectors that came with fiche vectors (valid for exactly their texts): kept, and when
/// every question of the catalogue has its vector, measuring is free, so it starts at once (unless
/// the dense methods are measured already).
pub(super) fn adopt_question_vectors(s: &mut State, shipped: Vec<(String, Vec<f32>)>) {
    s.data.questions_shipped = shipped.len();
    s.qvectors.extend(shipped);
    if s.data
        .questions
        .iter()
        .all(|q| s.qvectors.contains_key(&q.text))
        && !s.data.has_mistral_measurements()
    {
        measure_dense(s);
    }
}

/// `sens`, `hybride` and `hybride+` measured once every question has its vector.
pub(super) fn measure_dense(s: &mut State) {
    let methods = vec![
        Method::Sens,
        Method::Hybride(Keyword::Mots),
        Method::Hybride(Keyword::MotsPlus),
    ];
    let vectors = s.qvectors.clone();
    request_measure(s, methods, vectors);
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

/// What a [`VectorsMsg`] changes.
pub(super) fn update(s: &mut State, msg: VectorsMsg, fx: &mut Vec<Effect>) {
    match msg {
        VectorsMsg::ComputeRequested => compute(s),
        VectorsMsg::ComputeCancelled => compute_cancelled(s),
        VectorsMsg::DownloadRequested => {
            if let Some(bytes) = &s.data.computed {
                fx.push(Effect::Download(
                    "vecteurs.safetensors".into(),
                    bytes.clone(),
                ));
            }
        }
        VectorsMsg::DenseMeasureRequested => measure_requested(s),
    }
}
