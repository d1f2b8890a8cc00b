//! What `update` asks the shell to do, as data. The model never holds a browser handle: calls,
//! files and the worker are named here by ids, and the shell (`web::app`) owns what they name.

use crate::data::Question;

use crate::mistral::chat::Message;
use crate::mistral::WaitReason;

use super::jobs::{RunId, Work};

/// A file the learner chose, named by the model; the shell keeps the browser's `File` under
/// `id` until the effect that reads it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub id: u64,
    pub name: String,
    pub size: u64,
}

/// A wait before a call's next attempt: the seconds left and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wait {
    pub seconds: u32,
    pub reason: WaitReason,
}

/// Where the focus goes (the shell maps each place to its element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Results,
    TabChercher,
    TabMesurer,
    TabAmeliorer,
    TabQuestions,
}

/// What a change starts; the controller runs it (see `app`).
pub enum Effect {
    /// Starts the work of a new job key, as run `run` (see [`super::jobs`]).
    Start {
        run: RunId,
        work: Work,
    },
    /// Stops run `run`: its request is aborted, no retry follows, its reports are dropped.
    Stop(RunId),
    /// Start-up's reads are done and the exercise's vectors looked for: the page says it is
    /// ready (`data-ready`) and keeps its build for use offline. Once in a page's life.
    Ready,
    /// Stores journal entries, each as its own record under its key (never a rewrite of the whole
    /// journal: a tab writes only what it added), then tells the other tabs and the page
    /// ([`super::JournalMsg::Changed`]).
    JournalAppend(Vec<(String, crate::journal::Entry)>),
    /// Erases every stored entry, then tells the other tabs and the page.
    JournalErase,
    /// Keeps a catalogue's hand judgments on this device: `text` (TREC qrels) under `entry`;
    /// the shell says whether it could ([`super::JudgeMsg::Kept`]).
    KeepJudgments {
        entry: String,
        text: String,
    },
    /// Asks the local encoder's worker (a question, a catalogue's texts, a stop).
    Worker(crate::encoder::protocol::Request),
    /// Deletes a question's cached mistral-embed vector, found unusable.
    ForgetQuestionVector(String),
    /// Ends a run's wait before its next attempt (« Réessayer maintenant »).
    SkipWait(RunId),
    RememberKey(Option<String>),
    Clipboard(String),
    Download(String, Vec<u8>),
    /// A turn of the event loop, then [`super::Msg::Step`]: long work of the model (« Améliorer »'s
    /// measurements) goes on in bounded steps, the page's input and rendering between them.
    Step,
    /// Scrolls to and focuses this place.
    Focus(Focus),
    /// Opens « Réglages » and focuses the key field.
    OpenSettings,
    HideGuide,
}

/// One question of « Reclasser les 20 premières », prepared when the run starts.
#[derive(Clone)]
pub struct RerankItem {
    /// The method's first [`crate::answer::rerank::READ`] ids, best first.
    pub read: Vec<String>,
    /// Exactly what is sent: the reranker's instructions, the fiches read and the question.
    pub messages: Vec<Message>,
}

/// One question of « Mesurer les réponses », prepared when the run starts.
#[derive(Clone)]
pub struct EvalItem {
    pub question: Question,
    /// Exactly what is sent: the prompt with the fiches found, and their ids.
    pub messages: Vec<Message>,
    pub ids: Vec<String>,
}
