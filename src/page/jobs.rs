//! Long work as keyed jobs. After every message each feature says what should be running now, as
//! [`JobKey`]s (the catalogue, the feature and its subject); the [`Tracker`] compares them with
//! what runs: a new key starts ([`super::Effect::Start`], with a fresh [`RunId`]), a vanished one
//! stops ([`super::Effect::Stop`]). A task's reports carry its run's id, and a report whose run is
//! no longer tracked is dropped before any feature sees it. A feature never names a call, an
//! epoch or a generation: it only says what it wants.
//!
//! A key that stays wanted after its task ended is not started again: a feature stops wanting a
//! key when the report it waited for arrives (a verdict, a vector, an end).

use std::collections::HashMap;

use crate::answer::Source;
use crate::data::intake::Selection;
use crate::data::Fiche;
use crate::lab::Method;
use crate::mistral::chat::Message;
use crate::mistral::ApiKey;

use super::dataset::Dataset;
use super::effect::{EvalItem, FileRef, RerankItem, Wait};
use super::parts::{AnswerResult, EvalRun, RerankRun};
use super::state::Chats;

/// One run of a job, named by the tracker; never reused within a page's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunId(pub u64);

/// The controls that ask Mistral's chat once, each with its own job ([`Subject::Chat`]): the
/// feature asks ([`super::ChatDesk::ask`]), the reply is kept for it, and the rest is the same
/// for every such control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Control {
    /// « Demander au juge » under the answer shown.
    Judge,
}

/// What a job is: the catalogue it works over, and its subject.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JobKey {
    pub catalogue: u64,
    pub subject: Subject,
}

/// A job's subject: which feature, and about what.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// « Vérifier ma clé ».
    CheckKey,
    /// The pause in typing after this question and the key's `n`th edit, before the question is
    /// embedded (the debounce): typing in either box starts it again.
    Pause(String, u64),
    /// This question's mistral-embed vector.
    Embed(String),
    /// The catalogue's fiche vectors, computed with the key.
    ComputeVectors,
    /// The questions' vectors for « Mesurer » the dense methods.
    MeasureDense,
    /// The answer asked for (a digest of the model, the question and the fiches sent).
    Answer(u64),
    /// One call to Mistral's chat asked by `control` (a digest of its model and messages).
    Chat(Control, u64),
    /// « Mesurer les réponses ».
    Evaluate,
    /// « Reclasser les 20 premières ».
    Rerank,
    /// The learner's catalogue files of selection number `n`.
    ReadFiles(u64),
    /// TREC run files of import number `n`.
    ReadRuns(u64),
    /// The local encoder's model, fetched (or read from this browser's cache) for its worker.
    LocalModel,
    /// The local encoder's vectors of the learner's fiches and questions, computed by the
    /// page's worker.
    LocalTexts,
    /// The catalogue's Mistral fiche vectors looked for: shipped with the page, else computed
    /// before in this browser.
    FindVectors,
    /// The local encoder's vectors shipped with the exercise.
    LocalVectors,
    /// The answers computed once and shipped with the exercise.
    ShippedAnswers,
    /// « L'épreuve »'s questions, read when a pass asks for them.
    ReadEpreuve,
    /// Dense tops searched by the page's worker in the Mistral fiche vectors it keeps as `set`:
    /// of the question in the box (`in_box`: a newer one supersedes it in the worker's queue),
    /// or of a `batch` a measurement or committed questions waiting to be journaled need (a
    /// digest of its vectors).
    DenseTops { set: u64, batch: u64, in_box: bool },
    /// The stored journal's read number `n` (it spans catalogues: the journal is this
    /// browser's).
    ReadJournal(u64),
    /// The hand judgments this device keeps for the catalogue.
    ReadJudgments,
    /// Another judge's qrels file, of import number `n` (read as run files are).
    ReadQrels(u64),
}

impl Subject {
    /// Whether the job is the same whatever the catalogue (a new catalogue does not stop it).
    pub fn spans_catalogues(&self) -> bool {
        matches!(
            self,
            Subject::LocalModel | Subject::ReadJournal(_) | Subject::CheckKey
        )
    }

    /// Whether the job calls Mistral with the learner's key (or leads to a call that does, as
    /// the pause in typing): it is wanted only while a key is there, and its wait can be
    /// cancelled.
    pub fn needs_key(&self) -> bool {
        !matches!(
            self,
            Subject::ReadFiles(_)
                | Subject::ReadRuns(_)
                | Subject::LocalModel
                | Subject::LocalTexts
                | Subject::FindVectors
                | Subject::LocalVectors
                | Subject::ShippedAnswers
                | Subject::ReadJournal(_)
                | Subject::ReadJudgments
                | Subject::ReadQrels(_)
                | Subject::ReadEpreuve
                | Subject::DenseTops { .. }
        )
    }
}

/// What a run does, built from the state when its key is new.
pub enum Work {
    CheckKey {
        key: ApiKey,
    },
    /// Waits `ms`, then reports [`Report::Paused`].
    Pause {
        ms: u32,
    },
    EmbedQuestion {
        key: ApiKey,
        question: String,
    },
    /// The catalogue's fiche vectors, computed, kept in this browser and handed to the page's
    /// worker ([`Report::VectorsAttached`]).
    ComputeVectors {
        key: ApiKey,
        fiches: Vec<Fiche>,
    },
    MeasureDense {
        key: ApiKey,
        questions: Vec<String>,
    },
    Answer {
        key: ApiKey,
        model: String,
        question: String,
        sent: Vec<Fiche>,
        /// The chats obtained so far: an answer found there is not asked again.
        cached: Chats,
    },
    /// One call to Mistral's chat, its reply from `cached` when the same messages went to the
    /// same model before ([`Report::Chatted`]).
    Chat {
        key: ApiKey,
        model: String,
        messages: Vec<Message>,
        cached: Chats,
    },
    /// « Mesurer les réponses »: each item answered by `model`, then judged by `judge`.
    Evaluate {
        key: ApiKey,
        model: String,
        judge: String,
        source: Source,
        items: Vec<EvalItem>,
        /// The chats obtained so far: an answer found there is not asked again.
        cached: Chats,
    },
    /// « Reclasser les 20 premières » of `method`: each item's fiches marked by `model`.
    Rerank {
        key: ApiKey,
        model: String,
        method: Method,
        items: Vec<RerankItem>,
        /// The chats obtained so far: an answer found there is not asked again.
        cached: Chats,
    },
    /// Reads, checks and indexes the learner's catalogue files.
    ReadFiles {
        files: Vec<FileRef>,
        selection: Selection,
    },
    /// Reads TREC run files.
    ReadRuns {
        files: Vec<FileRef>,
    },
    /// Fetches (or reads from the cache) the local encoder's model, and hands it to the worker.
    LoadLocalModel,
    /// The page's worker embeds `texts` with the local encoder (the catalogue's fiches, then
    /// `questions`), reporting its progress ([`Report::LocalTextsProgress`]) and the vectors
    /// ([`Report::LocalTextsEmbedded`]); stopping the run stops the worker's computation.
    EmbedLocalTexts {
        texts: Vec<String>,
        questions: Vec<String>,
    },
    /// Hands the catalogue's Mistral fiche vectors to the page's worker, checked against its
    /// fiches `ids` and their `fingerprint`: the file `shipped` with the page if it is named and
    /// accepted, else the one this browser keeps under `cache_key`. Reports
    /// [`Report::VectorsAttached`] or [`Report::VectorsRefused`], then [`Report::VectorsSought`].
    FindVectors {
        shipped: Option<String>,
        cache_key: String,
        ids: Vec<String>,
        fingerprint: String,
    },
    /// Fetches and checks the local encoder's vectors file `name` (in `data/`).
    FetchLocalVectors {
        name: String,
    },
    /// Reads the stored journal ([`Report::JournalRead`]).
    ReadJournal,
    /// Reads the judgments kept under `entry` ([`Report::JudgmentsRead`]).
    ReadJudgments {
        entry: String,
    },
    /// Fetches the questions file `name` (in `data/`) and reads it, with the local encoder's
    /// vectors of its questions from the file `vectors` ([`Report::EpreuveRead`]).
    FetchQuestions {
        name: String,
        vectors: String,
    },
    /// The page's worker searches `vectors` in its vectors `set` ([`Report::DenseFound`]).
    DenseTops {
        set: u64,
        vectors: Vec<Vec<f32>>,
        in_box: bool,
    },
    /// Fetches the answers file `name` (in `data/`) and checks it against the catalogue: its
    /// `fingerprint`, its fiches `ids` and its `questions`.
    FetchAnswers {
        name: String,
        fingerprint: String,
        ids: Vec<String>,
        questions: Vec<crate::data::Question>,
    },
}

impl Work {
    /// Whether its task may spend the learner's key, or leads to one that does (the pause in
    /// typing): the page says how many such tasks run (`data-appels`).
    pub fn is_paid(&self) -> bool {
        !matches!(
            self,
            Work::ReadFiles { .. }
                | Work::ReadRuns { .. }
                | Work::LoadLocalModel
                | Work::EmbedLocalTexts { .. }
                | Work::FindVectors { .. }
                | Work::FetchLocalVectors { .. }
                | Work::FetchAnswers { .. }
                | Work::ReadJournal
                | Work::ReadJudgments { .. }
                | Work::FetchQuestions { .. }
                | Work::DenseTops { .. }
        )
    }
}

/// What a running job tells the page.
pub enum Report {
    /// The call waits before its next attempt (`None`: the wait is over).
    Waiting(Option<Wait>),
    /// The pause in typing is over.
    Paused,
    /// The verdict of « Vérifier ma clé »: what was accepted, or why not.
    KeyChecked(Result<String, String>),
    QuestionEmbedded(Vec<f32>),
    QuestionFailed(String),
    ComputeProgress {
        done: usize,
        total: usize,
    },
    ComputeEnded(String),
    /// Question vectors obtained for « Mesurer ».
    DenseProgress(Vec<(String, Vec<f32>)>),
    DenseEnded(Option<String>),
    AnswerShown(AnswerResult),
    /// A chat's reply (its text), or why there is none (in French).
    Chatted(Result<String, String>),
    EvalProgress {
        done: usize,
        total: usize,
    },
    EvalEnded(Result<EvalRun, String>),
    RerankProgress {
        done: usize,
        total: usize,
    },
    RerankEnded(Result<RerankRun, String>),
    /// The catalogue read from the files.
    DatasetLoaded(Box<Dataset>),
    /// Mistral fiche vectors the page's worker read, checked and keeps as `set` (with the
    /// question vectors their file carried), from `origin` (said in French); `bytes`: the file,
    /// kept for « Télécharger », when it was computed in this browser.
    VectorsAttached {
        set: u64,
        info: crate::data::vectors::VectorsInfo,
        questions: Vec<(String, Vec<f32>)>,
        origin: String,
        bytes: Option<Vec<u8>>,
    },
    /// The vectors shipped with the page were refused (why, in French).
    VectorsRefused(String),
    /// The catalogue's vectors were looked for everywhere they may be.
    VectorsSought,
    /// The local encoder's shipped vectors, read and checked (`None`: they could not be).
    LocalVectors(Option<Box<crate::data::vectors::VectorSet>>),
    /// The journal as stored (`None`: the store could not be read, as in a private window: the
    /// journal shown stays).
    JournalRead(Option<crate::journal::Journal>),
    /// The hand judgments kept on this device (TREC qrels), `None` when there are none.
    JudgmentsRead(Option<String>),
    /// The shipped answers, read and checked against the catalogue, or why they were refused.
    AnswersShipped(Result<Box<crate::answer::shipped::ShippedAnswers>, String>),
    /// The files could not be used (one message per problem).
    FilesRefused(Vec<String>),
    /// Run files read, in the order chosen: each one's name, and its text or why it could not be
    /// read.
    RunsRead(Vec<(String, Result<String, String>)>),
    /// The model's bytes received, of how many (when the server says).
    LocalModelProgress {
        done: u64,
        total: Option<u64>,
    },
    /// The model is here (fetched or from the cache): its worker prepares it.
    LocalModelFetched,
    /// The model's download failed (the server's answer, the network, a stall): the next gesture
    /// that needs it tries again.
    LocalModelDownloadFailed(String),
    /// The dense tops of [`Work::DenseTops`]'s vectors, one per vector, each `(fiche, score)`
    /// best first.
    DenseFound {
        vectors: Vec<Vec<f32>>,
        tops: Vec<Vec<(u32, f64)>>,
    },
    /// The page's worker could not search its vectors set: they are dropped, and why is said.
    DenseLost(String),
    /// « L'épreuve »'s questions, or why they could not be read (in French); and their vectors
    /// by the local encoder, shipped beside them ([`crate::page::improve::EPREUVE_LOCAL_FILE`];
    /// empty when that file could not be read).
    EpreuveRead(
        Result<Vec<crate::data::Question>, String>,
        crate::lab::QuestionVectors,
    ),
    /// Texts of [`Work::EmbedLocalTexts`] embedded so far.
    LocalTextsProgress(usize),
    /// The vectors of [`Work::EmbedLocalTexts`]: its fiches', then its `questions`', in the
    /// order sent.
    LocalTextsEmbedded {
        questions: Vec<String>,
        vectors: Vec<Vec<f32>>,
    },
}

/// The jobs running, by key, and the next run's id.
#[derive(Default)]
pub struct Tracker {
    running: HashMap<JobKey, RunId>,
    next: u64,
}

impl Tracker {
    /// Compares what is wanted with what runs: the keys to start (each with a new run id), and
    /// the runs to stop.
    pub fn reconcile(&mut self, wanted: &[JobKey]) -> (Vec<(RunId, JobKey)>, Vec<RunId>) {
        let set: std::collections::HashSet<&JobKey> = wanted.iter().collect();
        let mut stopped: Vec<RunId> = Vec::new();
        self.running.retain(|key, run| {
            let keep = set.contains(key);
            if !keep {
                stopped.push(*run);
            }
            keep
        });
        stopped.sort_by_key(|r| r.0);
        let mut started = Vec::new();
        for key in wanted {
            if !self.running.contains_key(key) {
                self.next += 1;
                let run = RunId(self.next);
                self.running.insert(key.clone(), run);
                started.push((run, key.clone()));
            }
        }
        (started, stopped)
    }

    /// The key of `run`, if it is still tracked.
    pub fn key_of(&self, run: RunId) -> Option<&JobKey> {
        self.running
            .iter()
            .find_map(|(k, r)| (*r == run).then_some(k))
    }

    /// The run of `key`, if it is tracked.
    pub fn run_of(&self, key: &JobKey) -> Option<RunId> {
        self.running.get(key).copied()
    }

    /// Whether a job with this key is tracked (running, or ended and still wanted).
    pub fn has(&self, key: &JobKey) -> bool {
        self.running.contains_key(key)
    }

    /// Forgets `run` (its work could not be built): its key may start again.
    pub fn forget(&mut self, run: RunId) {
        self.running.retain(|_, r| *r != run);
    }
}

/// A stable digest of texts, for a subject named by what it asks.
pub fn digest<'a>(parts: impl IntoIterator<Item = &'a str>) -> u64 {
    // FNV-1a: stable across builds and platforms (std's hasher is not promised to be).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
