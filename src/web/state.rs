//! The page's one state, and the only function that changes it: [`update`]. Panels render from
//! [`State`] alone; events and finished tasks become a [`Msg`]; what a change must start (a call,
//! a download, a file read) comes back from `update` as an [`Effect`] for the controller to run.
//!
//! Every catalogue has an **epoch**. A task records the epoch it started under and its result
//! carries it back: `update` drops a result whose epoch has moved, and a new catalogue cancels
//! every call in flight. Nothing is indexed in the catalogue after an `.await` without that check.

use std::collections::HashMap;

use crate::answer::{AnswerOutcome, FICHES_SENT};
use crate::data::intake::Selection;
use crate::data::vectors::VectorSet;
use crate::data::{Fiche, Question, QuestionKind};
use crate::journal::Journal;
use crate::lab::{Keyword, Lab, Method, QuestionVectors};
use crate::link::{QuestionSet, View, ViewState};
use crate::measure::Measurement;
use crate::mistral::chat::{self, Chat, Message};
use crate::mistral::{self, ApiKey};

use super::api::{Call, Wait};

/// A catalogue and everything computed from it. Replaced whole when the learner loads files.
pub struct Dataset {
    /// Changes with every catalogue: results of tasks started under another epoch are dropped.
    pub epoch: u64,
    pub lab: Lab,
    pub questions: Vec<Question>,
    /// `None` for the exercise's catalogue; « vos données (files) » otherwise.
    pub label: Option<String>,
    /// Measurements by method, in the order they were made.
    pub measurements: Vec<Measurement>,
    /// Where the fiche vectors came from, or why the shipped ones were refused.
    pub vectors_origin: String,
    /// The safetensors bytes of vectors computed in this browser, for « Télécharger ».
    pub computed: Option<Vec<u8>>,
    /// Question vectors shipped with the fiche vectors (0: none).
    pub questions_shipped: usize,
    /// Runs of other engines imported in « Mesurer » (TREC files), measured like methods.
    pub runs: Vec<Measurement>,
    /// Question vectors that came in the learner's vectors file, moved into the page's question
    /// vectors when the catalogue is installed.
    pub shipped_questions: Vec<(String, Vec<f32>)>,
    /// Counts every change of `measurements`: a method measured again keeps its name.
    pub measure_version: u64,
}

impl Dataset {
    /// Indexes `fiches` and measures the keyword methods on `questions` (they need no vectors).
    pub fn new(
        epoch: u64,
        fiches: Vec<Fiche>,
        questions: Vec<Question>,
        label: Option<String>,
    ) -> Dataset {
        crate::steps::run_ready(Dataset::new_pausing(
            epoch,
            fiches,
            questions,
            label,
            |_| std::future::ready(()),
        ))
    }

    /// [`Dataset::new`], awaiting `pause` between steps of the index builds and between the two
    /// keyword measurements.
    pub async fn new_pausing<F, Fut>(
        epoch: u64,
        fiches: Vec<Fiche>,
        questions: Vec<Question>,
        label: Option<String>,
        mut pause: F,
    ) -> Dataset
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let lab = Lab::new_pausing(fiches, &mut pause).await;
        // Known from the start: the cache key of the vectors, and the check of every vectors file.
        lab.fingerprint_pausing(&mut pause).await;
        // The lookup of fiches by id, built now rather than inside the first render that needs
        // it (« Mesurer »'s answer estimate, at 50,000 fiches).
        pause(lab.fiches().len()).await;
        lab.doc_of("");
        let mut measurements = Vec::new();
        for k in [Keyword::Mots, Keyword::MotsPlus] {
            let m = lab.measure_keyword_pausing(k, &questions, &mut pause).await;
            measurements.push(m);
        }
        Dataset {
            epoch,
            lab,
            questions,
            label,
            measurements,
            vectors_origin: String::new(),
            computed: None,
            questions_shipped: 0,
            runs: Vec::new(),
            shipped_questions: Vec::new(),
            measure_version: 0,
        }
    }

    /// The measurements in the page's method order, then the imported runs.
    pub fn measured(&self) -> Vec<&Measurement> {
        Method::ALL
            .iter()
            .filter_map(|m| self.measurements.iter().find(|x| x.method == m.name()))
            .chain(&self.runs)
            .collect()
    }

    pub fn has_dense_measurements(&self) -> bool {
        self.measurements
            .iter()
            .any(|m| Method::parse(&m.method).is_some_and(Method::is_dense))
    }
}

/// The local encoder in the page: fetched only when a typed question needs it, then kept.
#[derive(Default)]
pub enum LocalModel {
    #[default]
    Idle,
    /// Bytes received, of how many (when the server says).
    Fetching { done: u64, total: Option<u64> },
    /// Read from the browser's cache or the network, being prepared.
    /// Being prepared: the percentage done.
    Preparing(u8),
    /// Ready in its Web Worker ([`super::encoder`]).
    Ready,
    /// Why it cannot be used here (not built for this site, network, damaged file, its worker
    /// stopped).
    Unavailable(String),
}

impl LocalModel {
    /// What the learner reads while a local method waits for the model.
    pub fn status(&self) -> Option<String> {
        match self {
            LocalModel::Idle | LocalModel::Ready => None,
            LocalModel::Fetching { done, total } => Some(match total {
                Some(t) => format!(
                    "Chargement du modèle local (une seule fois, gardé ensuite dans ce navigateur) : {} Mo sur {} Mo…",
                    crate::fr::decimal(*done as f64 / 1e6, 1),
                    crate::fr::decimal(*t as f64 / 1e6, 1)
                ),
                None => format!(
                    "Chargement du modèle local (une seule fois) : {} Mo…",
                    crate::fr::decimal(*done as f64 / 1e6, 1)
                ),
            }),
            LocalModel::Preparing(p) => Some(format!("Préparation du modèle local : {p} %…")),
            LocalModel::Unavailable(why) => Some(why.clone()),
        }
    }

    /// A hashable summary, for the panels' memos.
    pub fn key(&self) -> (u8, u64) {
        match self {
            LocalModel::Idle => (0, 0),
            LocalModel::Fetching { done, .. } => (1, *done),
            LocalModel::Preparing(p) => (2, u64::from(*p)),
            LocalModel::Ready => (3, 0),
            LocalModel::Unavailable(_) => (4, 0),
        }
    }
}

/// Session costs, counted from the API's own token counts.
#[derive(Default, Clone, PartialEq, Eq, Hash)]
pub struct Costs {
    /// Tokens paid for fiche vectors in this browser (0 when shipped or cached).
    pub fiches: u64,
    pub questions: u64,
    pub calls: u64,
    /// Chat tokens sent and received (answers), by model: each is priced with its own.
    pub chat: std::collections::BTreeMap<String, (u64, u64)>,
}

impl Costs {
    /// One chat call's tokens with `model`.
    pub fn chat(model: &str, sent: u64, received: u64) -> Costs {
        Costs {
            calls: 1,
            chat: [(model.to_owned(), (sent, received))].into(),
            ..Costs::default()
        }
    }

    /// Chat tokens sent and received, all models together.
    pub fn chat_tokens(&self) -> (u64, u64) {
        self.chat
            .values()
            .fold((0, 0), |(a, b), (i, o)| (a + i, b + o))
    }

    /// The chat calls' cost in dollars, and the models whose price is unknown.
    pub fn chat_usd(&self) -> (f64, Vec<&str>) {
        let mut unknown = Vec::new();
        let mut usd = 0.0;
        for (model, (i, o)) in &self.chat {
            match mistral::prices::cost_usd(model, *i, *o) {
                Some(x) => usd += x,
                None => unknown.push(model.as_str()),
            }
        }
        (usd, unknown)
    }
}

/// Where a long task stands.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub enum Phase {
    #[default]
    Idle,
    Running {
        done: usize,
        total: usize,
    },
}

impl Phase {
    pub fn is_running(&self) -> bool {
        matches!(self, Phase::Running { .. })
    }
}

/// « Mesurer les réponses ».
#[derive(Default)]
pub struct Evaluation {
    /// The method and model chosen in the panel (`None`: the default).
    pub method: Option<Method>,
    pub model: Option<String>,
    pub confirming: bool,
    pub phase: Phase,
    /// The outcomes of the last complete run: its method, model and one outcome per question.
    pub outcomes: Option<(Method, String, Vec<AnswerOutcome>)>,
    /// What stopped the last run, if it stopped.
    pub message: Option<String>,
}

/// « La réponse, qui cite ses fiches ».
#[derive(Default)]
pub struct Answering {
    pub method: Option<Method>,
    pub model: Option<String>,
    pub pending: bool,
    /// The last answer shown: the question and fiches it was for, and the answer or a message.
    pub result: Option<AnswerResult>,
}

pub struct AnswerResult {
    pub question: String,
    pub model: String,
    pub sent: Vec<Fiche>,
    pub outcome: Result<(Chat, bool), String>,
}

/// The calls in flight, each cancellable; a new catalogue or a forgotten key cancels them all.
#[derive(Default)]
pub struct Calls {
    /// The question being embedded, and its call.
    pub search: Option<(String, Call)>,
    pub compute: Option<Call>,
    pub dense: Option<Call>,
    pub answer: Option<Call>,
    pub eval: Option<Call>,
    /// « Vérifier ma clé ».
    pub check: Option<Call>,
}

impl Calls {
    pub fn cancel_all(&mut self) {
        let calls = [
            self.search.take().map(|(_, c)| c),
            self.compute.take(),
            self.dense.take(),
            self.answer.take(),
            self.eval.take(),
            self.check.take(),
        ];
        for c in calls.into_iter().flatten() {
            c.cancel();
        }
    }
}

pub struct State {
    pub data: Dataset,
    /// The bundled catalogue's texts, to come back to in one click.
    pub bundled: (String, String),
    pub view: View,
    pub question: String,
    /// The exercise question picked, by index in `data.questions`.
    pub example: Option<usize>,
    pub shown: Vec<Method>,
    pub key: Option<ApiKey>,
    /// Why the text in the key field is not a usable key (it is then not used at all).
    pub key_problem: Option<String>,
    pub remembered: bool,
    /// This origin is shared with other people's pages (`*.github.io`): remembering the key
    /// waits for an explicit confirmation.
    pub shared_origin: bool,
    /// « retenir » was ticked on a shared origin: the warning is shown, nothing is stored yet.
    pub remember_warning: bool,
    /// Question vectors by text (mistral-embed: valid whatever the catalogue).
    pub qvectors: QuestionVectors,
    /// Changes with every question typed: a debounced embedding checks it before calling.
    pub question_generation: u64,
    /// The question came from a link, not from the learner's hand: embedding it (a paid call)
    /// waits for a click.
    pub question_from_link: bool,
    /// The question last validated with Enter: the learner meant it, so its embedding starts
    /// without waiting for a pause in typing, and what is typed next does not cancel it.
    pub committed: Option<String>,
    /// The last failure to embed a question: the question, and the message.
    pub search_error: Option<(String, String)>,
    pub costs: Costs,
    pub grid_sort: Option<String>,
    /// Rows of the question grid shown (see `charts::GRID_PAGE`).
    pub grid_limit: usize,
    /// The pair compared, by name: a method or an imported run.
    pub compare: Option<(String, String)>,
    /// What the last « Importer un run » did, file by file: the run measured, or why it was
    /// refused.
    pub run_messages: Vec<Result<String, String>>,
    pub compute: Phase,
    pub vectors_message: Option<String>,
    pub dense: Phase,
    pub dense_message: Option<String>,
    pub answering: Answering,
    pub evaluation: Evaluation,
    /// Answers obtained, by [`mistral::cache::answer`] (also in IndexedDB).
    pub answers: HashMap<String, Chat>,
    pub calls: Calls,
    pub data_status: String,
    pub data_errors: Vec<String>,
    /// The link shown by « Copier le lien », and whether it reached the clipboard.
    pub share: Option<(String, Option<bool>)>,
    /// « Par où commencer » dismissed (remembered on this device).
    pub guide_hidden: bool,
    /// Start-up's reads done (shipped or cached vectors, the journal, a remembered key): until
    /// then, which methods cannot run is not known.
    pub settled: bool,
    /// « Vérifier ma clé »: in flight (`None` inside), or its verdict.
    pub key_check: Option<Option<Result<String, String>>>,
    /// A call waiting before its next attempt (429, 5xx, no answer): shown with a countdown.
    pub waiting: Option<(Wait, Call)>,
    /// « Questions sans réponse », kept in IndexedDB.
    pub journal: Journal,
    /// Committed questions and the dense methods that could not rank them yet (see
    /// `update::note_unanswered`), oldest first.
    pub journal_waiting: Vec<(String, Method)>,
    /// The local encoder (USE multilingual v3), and the question vectors it made, by text.
    pub local: LocalModel,
    pub local_qvectors: QuestionVectors,
    /// The local encoder's vectors being computed for the learner's catalogue: (epoch, texts
    /// done, texts in all). `None` when no computation runs.
    pub local_fiches: Option<(u64, usize, usize)>,
    /// Why computing them failed, for the catalogue of that epoch: not retried for it.
    pub local_fiches_error: Option<(u64, String)>,
    /// The questions sent to the worker after the fiches of `local_fiches`, in order.
    pub local_sent_questions: Vec<String>,
    /// The question last sent to the worker alone: not sent again while it is in the box.
    pub local_asked: Option<String>,
    /// Measurements under way, in steps (see [`Measuring`]).
    pub measuring: Vec<Measuring>,
    /// Numbers the measurement requests; by method, the last one asked: an older result that
    /// arrives later is dropped.
    pub measure_seq: u64,
    pub measure_latest: HashMap<&'static str, u64>,
}

/// A measurement of some methods on the catalogue's questions, run in steps of a few questions
/// with turns of the event loop between them (at 50,000 fiches, each question's dense scan takes
/// about 10 ms: 40 of them in one go held the page for 400 ms).
pub struct Measuring {
    pub seq: u64,
    pub epoch: u64,
    pub methods: Vec<Method>,
    pub done: usize,
    pub total: usize,
}

impl State {
    pub fn new(data: Dataset, bundled: (String, String)) -> State {
        State {
            data,
            bundled,
            view: View::Chercher,
            question: String::new(),
            example: None,
            shown: crate::link::DEFAULT_METHODS.to_vec(),
            key: None,
            key_problem: None,
            remembered: false,
            shared_origin: false,
            remember_warning: false,
            qvectors: QuestionVectors::new(),
            question_generation: 0,
            question_from_link: false,
            committed: None,
            search_error: None,
            costs: Costs::default(),
            grid_sort: None,
            grid_limit: super::panels::charts::GRID_PAGE,
            compare: None,
            run_messages: Vec::new(),
            compute: Phase::Idle,
            vectors_message: None,
            dense: Phase::Idle,
            dense_message: None,
            answering: Answering::default(),
            evaluation: Evaluation::default(),
            answers: HashMap::new(),
            calls: Calls::default(),
            data_status: String::new(),
            data_errors: Vec::new(),
            share: None,
            guide_hidden: false,
            settled: false,
            waiting: None,
            key_check: None,
            journal: Journal::default(),
            journal_waiting: Vec::new(),
            local: LocalModel::Idle,
            local_qvectors: QuestionVectors::new(),
            local_fiches: None,
            local_fiches_error: None,
            local_sent_questions: Vec::new(),
            local_asked: None,
            measuring: Vec::new(),
            measure_seq: 0,
            measure_latest: HashMap::new(),
        }
    }

    /// The measurement under way of `method`, if any.
    pub fn measuring_of(&self, method: Method) -> Option<&Measuring> {
        self.measuring.iter().find(|m| m.methods.contains(&method))
    }

    /// The expected question of the exercise picked, if any.
    pub fn example_question(&self) -> Option<&Question> {
        self.example.and_then(|i| self.data.questions.get(i))
    }

    /// The question's vector, when known.
    pub fn question_vector(&self) -> Option<&[f32]> {
        self.qvectors.get(&self.question).map(Vec::as_slice)
    }

    /// The Mistral vectors' set in the page's worker, and whether the question in the box's dense
    /// top has come back from it: what a panel showing dense results depends on beyond the
    /// question (the lab keeps the tops in a memo, which a panel's inputs do not otherwise see).
    pub fn dense_inputs(&self) -> (Option<u64>, bool) {
        let known = self.question_vector().is_some_and(|v| {
            self.data
                .lab
                .knows_dense(crate::lab::Encoder::Mistral, v, Lab::dense_depth())
        });
        (self.data.lab.vectors_away(), known)
    }

    /// The question vectors a method reads: mistral-embed's or the local encoder's.
    pub fn vectors_for(&self, method: Method) -> &QuestionVectors {
        match method.encoder() {
            Some(crate::lab::Encoder::Local) => &self.local_qvectors,
            _ => &self.qvectors,
        }
    }

    /// The vector of `question` for `method`, when known.
    pub fn vector_for(&self, method: Method, question: &str) -> Option<&[f32]> {
        self.vectors_for(method).get(question).map(Vec::as_slice)
    }

    /// Whether the local encoder should embed the question in the box: a local method is shown,
    /// the fiches have local vectors (or they are being computed), and the question's is not
    /// known yet.
    pub fn wants_local_vector(&self) -> bool {
        self.shown
            .iter()
            .any(|m| m.encoder() == Some(crate::lab::Encoder::Local))
            && (self.data.lab.local_vectors().is_some()
                || self
                    .local_fiches
                    .is_some_and(|(e, _, _)| e == self.data.epoch))
            && !self.question.trim().is_empty()
            && !self.local_qvectors.contains_key(&self.question)
    }

    /// The learner's catalogue needs the local encoder's fiche vectors: a local method is shown
    /// and they are neither shipped nor computed. (The exercise's ship with the page.)
    pub fn wants_local_fiche_vectors(&self) -> bool {
        self.data.label.is_some()
            && self
                .shown
                .iter()
                .any(|m| m.encoder() == Some(crate::lab::Encoder::Local))
            && self.data.lab.local_vectors().is_none()
            && !self.data.lab.fiches().is_empty()
            && self
                .local_fiches_error
                .as_ref()
                .is_none_or(|(e, _)| *e != self.data.epoch)
    }

    /// The state a link carries: never the key, never data.
    pub fn link_state(&self) -> ViewState {
        ViewState {
            view: self.view,
            question: (!self.question.trim().is_empty()).then(|| self.question.clone()),
            methods: self.shown.clone(),
            set: match self.data.label {
                Some(_) => QuestionSet::VosDonnees,
                None => QuestionSet::Exercice,
            },
            // A run does not travel with a link: only a pair of methods does.
            compare: self
                .compare
                .as_ref()
                .and_then(|(a, b)| Some((Method::parse(a)?, Method::parse(b)?))),
        }
    }

    /// The methods measured, in the page's order.
    pub fn measured_methods(&self) -> Vec<Method> {
        self.data
            .measured()
            .iter()
            .filter_map(|m| Method::parse(&m.method))
            .collect()
    }

    /// The method whose fiches an answer is written from: the one chosen if still shown, else the
    /// fusion when vectors are there, else the last keyword method shown.
    pub fn answer_method(&self) -> Option<Method> {
        let dense_ok = self.data.lab.has_vectors(crate::lab::Encoder::Mistral);
        self.answering
            .method
            .filter(|m| self.shown.contains(m))
            .or_else(|| {
                let fusion = self.shown.iter().rev();
                fusion
                    .clone()
                    .find(|m| dense_ok && matches!(m, Method::Hybride(_)))
                    .copied()
            })
            .or_else(|| self.shown.iter().rev().find(|m| !m.is_dense()).copied())
            .or_else(|| self.shown.first().copied())
    }

    /// The method « Mesurer les réponses » reads fiches from: the one chosen if measured, else
    /// the last measured.
    pub fn evaluation_method(&self) -> Option<Method> {
        let measured = self.measured_methods();
        self.evaluation
            .method
            .filter(|m| measured.contains(m))
            .or_else(|| measured.last().copied())
    }

    /// The pair compared question by question, by name: the one chosen if both are measured,
    /// else the best fusion against the best single method (courantes MRR@10), else the first two
    /// measured (methods or runs).
    pub fn compared_pair(&self) -> Option<(String, String)> {
        let ms = self.data.measured();
        let has = |name: &str| ms.iter().any(|m| m.method == name);
        if let Some((a, b)) = &self.compare {
            if has(a) && has(b) {
                return Some((a.clone(), b.clone()));
            }
        }
        let mrr = |m: &&&Measurement| {
            m.kinds
                .iter()
                .find(|k| k.kind == QuestionKind::Courante)
                .map_or(0.0, |k| k.mrr10)
        };
        let best = |fusion: bool| {
            ms.iter()
                .filter(|m| {
                    Method::parse(&m.method).is_some_and(|x| x.fused_keyword().is_some() == fusion)
                })
                .max_by(|a, b| mrr(a).total_cmp(&mrr(b)))
                .map(|m| m.method.clone())
        };
        match (best(true), best(false)) {
            (Some(f), Some(s)) => Some((f, s)),
            _ => match ms.as_slice() {
                [first, second, ..] => Some((second.method.clone(), first.method.clone())),
                _ => None,
            },
        }
    }

    /// The question in the box's Mistral vector and the worker's vectors set, when its dense top
    /// is not known yet and must be asked of the worker.
    pub fn dense_wanted(&self) -> Option<(u64, Vec<f32>)> {
        let lab = &self.data.lab;
        let set = lab.vectors_away()?;
        let v = self.vector_for(Method::Sens, &self.question)?;
        (!lab.knows_dense(crate::lab::Encoder::Mistral, v, Lab::dense_depth()))
            .then(|| (set, v.to_vec()))
    }

    /// The committed questions waiting in `journal_waiting` for their Mistral dense top: their
    /// vectors (when known) and the worker's vectors set, for the tops not known yet. The page asks
    /// the worker for the question in the box only; these are asked too, or a question committed
    /// and then typed over would wait for ever.
    pub fn dense_waiting(&self) -> Vec<(u64, Vec<f32>)> {
        let lab = &self.data.lab;
        let Some(set) = lab.vectors_away() else {
            return Vec::new();
        };
        let mut out: Vec<(u64, Vec<f32>)> = Vec::new();
        for (q, m) in &self.journal_waiting {
            if m.encoder() != Some(crate::lab::Encoder::Mistral) {
                continue;
            }
            let Some(v) = self.vector_for(Method::Sens, q) else {
                continue;
            };
            if !lab.knows_dense(crate::lab::Encoder::Mistral, v, Lab::dense_depth())
                && !out.iter().any(|(_, w)| w.as_slice() == v)
            {
                out.push((set, v.to_vec()));
            }
        }
        out
    }

    /// The fiches an answer to `question` would be given: the first five of `method`.
    pub fn fiches_for(&self, method: Method, question: &str) -> Result<Vec<Fiche>, String> {
        let vector = self.vector_for(method, question);
        let lab = &self.data.lab;
        lab.search(method, question, vector, FICHES_SENT)
            .map(|hits| {
                hits.into_iter()
                    .filter_map(|r| lab.fiches().get(r.doc).cloned())
                    .collect()
            })
            .map_err(|e| crate::fr::messages::search(&e))
    }

    /// Whether the question in the box should be embedded now: a dense method is shown, the fiche
    /// vectors are there, the key too, and the question is neither known, failed nor in flight.
    pub fn wants_question_vector(&self) -> bool {
        let q = &self.question;
        self.shown.iter().any(|m| m.is_dense())
            && self.data.lab.has_vectors(crate::lab::Encoder::Mistral)
            && self.key.is_some()
            && !self.question_from_link
            && !q.trim().is_empty()
            && !self.qvectors.contains_key(q)
            && self.search_error.as_ref().is_none_or(|(e, _)| e != q)
            && self.calls.search.as_ref().is_none_or(|(s, _)| s != q)
    }
}

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
    RunFilesChosen(Vec<web_sys::File>),
    /// A run file read (its name, and its text or why it could not be read).
    RunFileRead {
        epoch: u64,
        name: String,
        text: Result<String, String>,
    },
    /// « Retirer les runs importés ».
    RunsCleared,
    /// The question box's value committed (Enter, or leaving the box after a change).
    QuestionCommitted,
    /// Enter in the question box (before its `change`): the question is validated, its embedding
    /// starts at once and a newer question does not cancel it. Leaving the box does not validate:
    /// a learner who types a question and then opens « Réglages » to paste a key did not mean it.
    QuestionEntered,
    /// The journal read back from IndexedDB at start-up.
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
    LocalModelProgress {
        done: u64,
        total: Option<u64>,
    },
    LocalModelPreparing(u8),
    LocalModelReady,
    LocalModelFailed(String),
    ExportRequested(String),
    AnswerMethodChosen(Method),
    AnswerModelChosen(String),
    AnswerRequested,
    EvalMethodChosen(Method),
    EvalModelChosen(String),
    EvalAsked,
    EvalConfirmed,
    /// « Plonger la question » clicked: the learner agrees to pay for a question from a link.
    EmbedRequested,
    EvalCancelled,
    FilesChosen(Vec<web_sys::File>),
    FilesRefused(Vec<String>),
    BackToExercise,
    /// « Réessayer maintenant » during a wait.
    RetryNow,
    /// « Annuler » during a wait: that call stops.
    WaitCancelled,
    // What tasks report.
    /// A call waits before its next attempt (`None`: the wait is over).
    Waiting(Call, Option<Wait>),
    Paid(Costs),
    /// The verdict of « Vérifier ma clé »: what was accepted, or why not.
    KeyChecked(Result<String, String>),
    QuestionEmbedded {
        question: String,
        vector: Vec<f32>,
    },
    QuestionFailed {
        question: String,
        message: String,
    },
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
    /// The page's worker could not search vectors `set`: they are dropped, and why is said.
    VectorsLost {
        set: u64,
        reason: String,
    },
    VectorsRefused {
        epoch: u64,
        origin: String,
    },
    ComputeProgress {
        epoch: u64,
        done: usize,
        total: usize,
    },
    ComputeEnded {
        epoch: u64,
        message: String,
    },
    DenseProgress {
        epoch: u64,
        vectors: Vec<(String, Vec<f32>)>,
    },
    DenseEnded {
        epoch: u64,
        message: Option<String>,
    },
    AnswerObtained {
        key: String,
        chat: Chat,
    },
    AnswerShown {
        epoch: u64,
        result: AnswerResult,
    },
    EvalProgress {
        epoch: u64,
        done: usize,
        total: usize,
    },
    EvalEnded {
        epoch: u64,
        outcome: Result<(Method, String, Vec<AnswerOutcome>), String>,
    },
    DatasetLoaded {
        data: Box<Dataset>,
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

/// A task that spends the learner's key: the catalogue it started under, the key, and its call
/// (which a new catalogue, « oublier » or a newer request cancels).
pub struct Job {
    pub epoch: u64,
    pub key: ApiKey,
    pub call: Call,
}

/// What a change starts; the controller runs it (see `app`).
pub enum Effect {
    CheckKey {
        job: Job,
    },
    EmbedQuestion {
        job: Job,
        question: String,
        generation: u64,
    },
    ComputeVectors {
        job: Job,
        fiches: Vec<Fiche>,
    },
    MeasureDense {
        job: Job,
        questions: Vec<String>,
    },
    Answer {
        job: Job,
        model: String,
        question: String,
        sent: Vec<Fiche>,
    },
    Evaluate {
        job: Job,
        model: String,
        method: Method,
        items: Vec<EvalItem>,
    },
    LoadVectors {
        epoch: u64,
    },
    ReadFiles {
        files: Vec<web_sys::File>,
        selection: Selection,
    },
    /// Writes the journal (JSON lines; empty erases it).
    SaveJournal(String),
    /// Fetches (or reads from the cache) and prepares the local encoder.
    LoadLocalModel,
    /// Asks the local encoder's worker (a question, a catalogue's texts, a stop).
    Encoder(crate::encoder::protocol::Request),
    /// Measures `methods` on the questions of the catalogue of `epoch`, in steps.
    Measure {
        seq: u64,
        epoch: u64,
        methods: Vec<Method>,
        vectors: QuestionVectors,
    },
    /// Reads TREC run files for the catalogue of `epoch`.
    ReadRuns {
        epoch: u64,
        files: Vec<web_sys::File>,
    },
    RememberKey(Option<String>),
    Clipboard(String),
    Download(String, Vec<u8>),
    /// Scrolls to and focuses the element with this id.
    Focus(&'static str),
    /// Opens « Réglages » and focuses the key field.
    OpenSettings,
    HideGuide,
}

/// One question of « Mesurer les réponses », prepared when the run starts.
pub struct EvalItem {
    pub question: Question,
    /// Exactly what is sent: the prompt with the fiches found, and their ids.
    pub messages: Vec<Message>,
    pub ids: Vec<String>,
}

/// The model chosen in a select, if it is one the page offers.
pub fn model_or_default(chosen: &Option<String>) -> String {
    chosen
        .clone()
        .filter(|m| chat::is_offered(m))
        .unwrap_or_else(|| chat::DEFAULT_MODEL.to_owned())
}

/// The cost in tokens a keyless estimate shows for embedding `texts`.
pub fn embed_estimate<'a>(texts: impl IntoIterator<Item = &'a str>) -> u64 {
    texts
        .into_iter()
        .map(mistral::estimate_tokens)
        .sum::<usize>() as u64
}
