//! Everything that can happen to the page: the learner's gestures and what the shell's tasks
//! report. Plain data: files and calls are named by ids ([`super::effect`]).
//!
//! [`Msg`] has one variant per feature, each carrying that feature's own message, which only
//! that feature's `update` (in [`super::update`]) reads: a new control adds a variant to its
//! feature's enum, not to [`Msg`].

use crate::answer::Source;
use crate::lab::Method;
use crate::link::{View, ViewState};
use crate::mistral::chat::Chat;

use super::effect::FileRef;
use super::jobs::{Report, RunId};
use super::parts::Costs;

/// Everything that can happen to the page.
pub enum Msg {
    /// The question box, its examples and the methods ticked.
    Search(SearchMsg),
    /// The view shown, the guide, the link.
    Nav(NavMsg),
    /// The key, its check, its costs and the waits of its calls.
    Key(KeyMsg),
    /// Mistral's fiche vectors and the dense tops searched in them.
    Vectors(VectorsMsg),
    /// The measurements, the grid, the imported runs and the exports.
    Measure(MeasureMsg),
    /// The journal of questions asked.
    Journal(JournalMsg),
    /// « Questions »: the pool judged by hand.
    Judge(JudgeMsg),
    /// The local encoder: its model, its worker, its vectors.
    Local(LocalMsg),
    /// The answer, its judge, « Mesurer les réponses » and the reranking.
    Answer(AnswerMsg),
    /// The learner's own catalogue.
    Catalogue(CatalogueMsg),
    /// Start-up's reads are done ([`super::State::settled`]): the page is ready once the
    /// exercise's vectors have been looked for too.
    Settled,
    /// A change in « Améliorer ».
    Improve(super::improve::Change),
    /// The turn of the event loop asked by [`super::Effect::Step`] is over: the work under way
    /// goes on.
    Step,
    /// A keyed job's report (see [`super::jobs`]): dropped unless its run is still tracked.
    Report(RunId, Report),
}

/// The question box, its examples and the methods ticked.
pub enum SearchMsg {
    Typed(String),
    ExamplePicked(Option<usize>),
    MethodToggled(Method, bool),
    /// The question box's value committed (Enter, or leaving the box after a change).
    Committed,
    /// Enter in the question box (before its `change`): the question is validated, its embedding
    /// starts at once and a newer question does not cancel it. Leaving the box does not validate:
    /// a learner who types a question and then opens « Réglages » to paste a key did not mean it.
    Entered,
    /// « Plonger la question » clicked: the learner agrees to pay for a question from a link.
    EmbedRequested,
    Opened(usize),
    /// The columns of the local encoder's methods, asked for from the line that says what the
    /// Mistral methods need.
    LocalMethodsChosen,
}

/// The view shown, the guide, the link.
pub enum NavMsg {
    ViewChosen(View),
    /// An arrow key on a tab: that view, and its tab focused.
    TabKey(View),
    GuideClosed,
    SettingsRequested,
    FragmentChanged(ViewState),
    CopyLink(String),
    LinkCopied(bool),
}

/// The key, its check, its costs and the waits of its calls.
pub enum KeyMsg {
    Typed(String),
    RememberToggled(bool),
    /// « Retenir quand même » after the shared-origin warning, or a key found remembered.
    RememberConfirmed,
    Forgotten,
    CheckRequested,
    /// « Réessayer maintenant » during a wait.
    RetryNow,
    /// « Annuler » during a wait: that call stops.
    WaitCancelled,
    Paid(Costs),
}

/// Mistral's fiche vectors and the dense tops searched in them.
pub enum VectorsMsg {
    ComputeRequested,
    ComputeCancelled,
    DownloadRequested,
    DenseMeasureRequested,
}

/// The measurements, the grid, the imported runs and the exports.
pub enum MeasureMsg {
    GridSorted(Option<String>),
    /// « Afficher … questions de plus » under the grid.
    GridMore,
    /// One side of the pair compared: `first` is A (against B); a method's or a run's name.
    PairSide {
        first: bool,
        name: String,
    },
    /// « Importer un run »: TREC files chosen.
    RunFilesChosen(Vec<FileRef>),
    /// « Retirer les runs importés ».
    RunsCleared,
    ExportRequested(String),
}

/// « Questions »: the pool judged by hand, and another judge's file.
pub enum JudgeMsg {
    /// A grade given to one pair of the pool, named as the view showed it (a pair no longer in
    /// the pool is not graded).
    Graded {
        question: usize,
        fiche: String,
        grade: u8,
    },
    /// « Annuler la dernière note ».
    Undone,
    /// « Exporter les notes »: the qrels in force, graded.
    Exported,
    /// Whether the judgments could be kept on this device (a full or forbidden storage).
    Kept(bool),
    /// « Importer les notes d'un autre juge »: a qrels file chosen.
    FilesChosen(Vec<FileRef>),
    /// « Reprendre leurs notes »: the other judge's grades taken where the learner gave none.
    Adopted,
}

/// The journal of questions asked.
pub enum JournalMsg {
    /// The stored journal changed (this tab or another wrote to it, or start-up): it is read
    /// again, and what is stored replaces the one shown (what another tab erased is gone here
    /// too).
    Changed,
    /// « Exporter » the journal: `jsonl` or `csv`.
    Exported(String),
    /// « Effacer le journal ».
    Erased,
}

/// The local encoder: its model, its worker, its vectors.
pub enum LocalMsg {
    /// The local encoder's vector of a question.
    QuestionEmbedded {
        question: String,
        vector: Vec<f32>,
    },
    /// The local encoder's worker stopped (why, in the browser's words).
    WorkerDied(String),
    /// The local encoder's worker failed before it listened (its module could not be fetched):
    /// the next gesture that needs it starts a new one.
    WorkerNotStarted(String),
    Preparing(u8),
    Ready,
    Failed(String),
    /// The worker refused the model read from this browser's cache, which was deleted: it is
    /// fetched again (why, in the worker's words).
    Evicted(String),
    /// The model prepared could not be kept in this browser (storage full, a private window).
    NotKept,
    /// « Charger le modèle local »: the learner agrees to download it for a question that came
    /// from a link.
    Requested,
    /// « Annuler » on the model's download.
    Cancelled,
    /// The text being embedded needs rows of the model's table: `done` of `total` blocks
    /// arrived (`bytes` from the network).
    Rows {
        done: u32,
        total: u32,
        bytes: u64,
    },
    /// Rows of the model's table could not be fetched (why, in French).
    RowsFailed(String),
}

/// The answer, its judge, « Mesurer les réponses » and the reranking.
pub enum AnswerMsg {
    MethodChosen(Method),
    ModelChosen(String),
    Requested,
    /// « Demander au juge » under the answer shown.
    JudgeRequested,
    EvalSourceChosen(Source),
    EvalModelChosen(String),
    EvalJudgeChosen(String),
    EvalAsked,
    EvalConfirmed,
    EvalCancelled,
    /// « Reclasser les 20 premières », its confirmation, « Annuler ».
    RerankAsked,
    RerankConfirmed,
    RerankCancelled,
    Obtained {
        key: String,
        chat: Chat,
    },
}

/// The learner's own catalogue.
pub enum CatalogueMsg {
    FilesChosen(Vec<FileRef>),
    BackToExercise,
}
