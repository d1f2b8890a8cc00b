//! Everything that can happen to the page: the learner's gestures and what the shell's tasks
//! report. Plain data: files and calls are named by ids ([`super::effect`]).

use crate::answer::shipped::ShippedAnswers;
use crate::answer::Source;
use crate::data::vectors::VectorSet;
use crate::journal::Journal;
use crate::lab::Method;
use crate::link::{View, ViewState};
use crate::measure::Measurement;
use crate::mistral::chat::Chat;

use super::effect::FileRef;
use super::jobs::{Report, RunId};
use super::parts::Costs;

/// Everything that can happen to the page.
pub enum Msg {
    // The learner's gestures.
    QuestionTyped(String),
    ExamplePicked(Option<usize>),
    MethodToggled(Method, bool),
    ViewChosen(View),
    /// An arrow key on a tab: that view, and its tab focused.
    TabKey(View),
    GuideClosed,
    /// Start-up's reads are done ([`State::settled`]).
    Settled,
    SettingsRequested,
    /// The columns of the local encoder's methods, asked for from the line that says what the
    /// Mistral methods need.
    LocalMethodsChosen,
    FragmentChanged(ViewState),
    /// A change in « Améliorer ».
    Improve(super::improve::Change),
    /// The turn of the event loop asked by [`super::Effect::Step`] is over: the work under way
    /// goes on.
    Step,
    CopyLink(String),
    LinkCopied(bool),
    KeyTyped(String),
    RememberToggled(bool),
    /// « Retenir quand même » after the shared-origin warning, or a key found remembered.
    RememberConfirmed,
    KeyForgotten,
    KeyCheckRequested,
    ComputeRequested,
    ComputeCancelled,
    DownloadRequested,
    DenseMeasureRequested,
    GridSorted(Option<String>),
    /// « Afficher … questions de plus » under the grid.
    GridMore,
    QuestionOpened(usize),
    /// One side of the pair compared: `first` is A (against B); a method's or a run's name.
    PairSide {
        first: bool,
        name: String,
    },
    /// « Importer un run »: TREC files chosen.
    RunFilesChosen(Vec<FileRef>),
    /// « Retirer les runs importés ».
    RunsCleared,
    /// The question box's value committed (Enter, or leaving the box after a change).
    QuestionCommitted,
    /// Enter in the question box (before its `change`): the question is validated, its embedding
    /// starts at once and a newer question does not cancel it. Leaving the box does not validate:
    /// a learner who types a question and then opens « Réglages » to paste a key did not mean it.
    QuestionEntered,
    /// The journal as stored, read back at start-up, after this tab wrote to it, and when another
    /// tab did: it replaces the one shown (what another tab erased is gone here too).
    JournalLoaded(Journal),
    /// « Exporter » the journal: `jsonl` or `csv`.
    JournalExported(String),
    /// « Effacer le journal ».
    JournalErased,
    /// The local encoder's fiche (and question) vectors shipped with the page.
    LocalVectorsLoaded {
        epoch: u64,
        set: Box<VectorSet>,
    },
    /// The local encoder's vectors of the learner's catalogue: texts done so far.
    LocalFichesProgress {
        epoch: u64,
        done: usize,
    },
    /// The local encoder's vectors of the learner's catalogue's fiches, then of its questions
    /// ([`State::local_sent_questions`]), in the order sent.
    LocalTextsEmbedded {
        epoch: u64,
        vectors: Vec<Vec<f32>>,
    },
    /// The local encoder's vector of a question.
    LocalQuestionEmbedded {
        question: String,
        vector: Vec<f32>,
    },
    /// The local encoder's worker stopped (why, in the browser's words).
    LocalWorkerDied(String),
    /// The local encoder's worker failed before it listened (its module could not be fetched):
    /// the next gesture that needs it starts a new one.
    LocalWorkerNotStarted(String),
    LocalModelPreparing(u8),
    LocalModelReady,
    LocalModelFailed(String),
    /// The worker refused the model read from this browser's cache, which was deleted: it is
    /// fetched again (why, in the worker's words).
    LocalModelEvicted(String),
    /// The model prepared could not be kept in this browser (storage full, a private window).
    LocalModelNotKept,
    /// « Charger le modèle local »: the learner agrees to download it for a question that came
    /// from a link.
    LocalModelRequested,
    /// « Annuler » on the model's download.
    LocalModelCancelled,
    /// The text being embedded needs rows of the model's table: `done` of `total` blocks
    /// arrived (`bytes` from the network).
    LocalRows {
        done: u32,
        total: u32,
        bytes: u64,
    },
    /// Rows of the model's table could not be fetched (why, in French).
    LocalRowsFailed(String),
    ExportRequested(String),
    AnswerMethodChosen(Method),
    AnswerModelChosen(String),
    AnswerRequested,
    EvalSourceChosen(Source),
    EvalModelChosen(String),
    EvalJudgeChosen(String),
    EvalAsked,
    EvalConfirmed,
    /// « Plonger la question » clicked: the learner agrees to pay for a question from a link.
    EmbedRequested,
    EvalCancelled,
    /// « Reclasser les 20 premières », its confirmation, « Annuler ».
    /// « Demander au juge » under the answer shown.
    AnswerJudgeRequested,
    RerankAsked,
    RerankConfirmed,
    RerankCancelled,
    FilesChosen(Vec<FileRef>),
    BackToExercise,
    /// « Réessayer maintenant » during a wait.
    RetryNow,
    /// « Annuler » during a wait: that call stops.
    WaitCancelled,
    // What tasks report.
    /// A keyed job's report (see [`super::jobs`]): dropped unless its run is still tracked.
    Report(RunId, Report),
    Paid(Costs),
    /// Mistral fiche vectors kept by the page's worker as `set` for catalogue `epoch`, with the
    /// question vectors their file carried.
    VectorsLoaded {
        epoch: u64,
        set: u64,
        info: crate::data::vectors::VectorsInfo,
        questions: Vec<(String, Vec<f32>)>,
        origin: String,
        bytes: Option<Vec<u8>>,
    },
    /// Dense tops computed by the page's worker in vectors `set`: one per vector.
    DenseFound {
        set: u64,
        vectors: Vec<Vec<f32>>,
        tops: Vec<Vec<(u32, f64)>>,
    },
    /// The worker dropped a dense top asked for (a newer question went first): it may be asked
    /// again if the learner comes back to that question.
    DenseSuperseded {
        set: u64,
        vector: Vec<f32>,
    },
    /// The page's worker could not search vectors `set`: they are dropped, and why is said.
    VectorsLost {
        set: u64,
        reason: String,
    },
    VectorsRefused {
        epoch: u64,
        origin: String,
    },
    /// The answers computed once and shipped with the exercise (`data/reponses.json`), read and
    /// checked against its fiches and questions (`None`: this deploy publishes none), or why they
    /// were refused (in French).
    AnswersShipped {
        epoch: u64,
        outcome: Result<Option<Box<ShippedAnswers>>, String>,
    },
    AnswerObtained {
        key: String,
        chat: Chat,
    },
    /// A stepped measurement's progress: questions done.
    MeasureProgress {
        seq: u64,
        done: usize,
    },
    /// A stepped measurement's end: one measurement per method asked, or why it failed.
    Measured {
        seq: u64,
        epoch: u64,
        result: Result<Vec<Measurement>, String>,
    },
}
