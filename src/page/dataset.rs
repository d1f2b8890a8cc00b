//! One catalogue and everything computed from it, replaced whole when the learner loads files or
//! comes back to the exercise's.

use crate::answer::shipped::ShippedAnswers;
use crate::data::{Fiche, Question};
use crate::lab::{Keyword, Lab, Method, QuestionVectors};
use crate::measure::{Measurement, QuestionOutcome};

use super::parts::Phase;

/// Rows of the question grid shown at first, and added by « Afficher … questions de plus ».
pub const GRID_PAGE: usize = 200;

/// A measurement of some methods on the catalogue's questions, run by the model in steps of a few
/// questions with turns of the event loop between them (at scale a question's dense scan takes
/// milliseconds, and the questions in one go held the page's thread: BENCHMARKS.md). It belongs
/// to its catalogue's [`CatalogueUi`], replaced with it.
pub struct Measuring {
    pub methods: Vec<Method>,
    /// The question vectors its dense methods read.
    pub vectors: QuestionVectors,
    /// Each method's outcomes so far, one per question done.
    pub outcomes: Vec<Vec<QuestionOutcome>>,
    pub done: usize,
    pub total: usize,
}

/// The files looked for over a catalogue, each `true` once its job has said what it found.
#[derive(Clone, Copy, Debug, Default)]
pub struct Looked {
    /// Its Mistral fiche vectors (shipped, else cached).
    pub vectors: bool,
    /// The local encoder's shipped vectors.
    pub local: bool,
    /// The shipped answers.
    pub answers: bool,
}

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
    /// The answers shipped with the exercise (`data/reponses.json`), or why they were refused;
    /// `None` when there are none (or not yet read).
    pub shipped: Option<Result<std::rc::Rc<ShippedAnswers>, String>>,
    /// What was looked for over this catalogue: its vectors, the local encoder's, its answers.
    pub looked: Looked,
    /// Graded judgments derived from the questions' expected fiches: each 3, the other variants
    /// of its product 2 ([`crate::measure::graded::Qrels::derived`]).
    pub qrels: crate::measure::graded::Qrels,
    /// Each first stage's top 20 reranked by a model, from `shipped`, measured like methods
    /// (« mots+ reclassé »).
    pub reranked: Vec<Measurement>,
    /// Question vectors that came in the learner's vectors file, moved into the page's question
    /// vectors when the catalogue is installed.
    pub shipped_questions: Vec<(String, Vec<f32>)>,
    /// The same for a file of the local encoder's vectors (`vecteurs --embedder local`): moved
    /// into the page's local question vectors.
    pub shipped_local_questions: Vec<(String, Vec<f32>)>,
    /// A file of the selection that was refused while the others were read (a vectors file that
    /// does not fit): said with the catalogue, which is loaded without it.
    pub intake_note: Option<String>,
    /// Counts every change of `measurements`: a method measured again keeps its name.
    pub measure_version: u64,
    /// What the learner did with this catalogue and what runs over it: gone with it.
    pub ui: CatalogueUi,
    /// « Améliorer »'s session over this catalogue (its settings carried to the next one).
    pub improve: super::improve::Improve,
    /// The answer shown and its judge, the answers measured and the rerankings: of this
    /// catalogue.
    pub answering: super::parts::Answering,
    /// The controls' one-call chats (« Demander au juge »…) and their replies.
    pub chats: super::parts::ChatDesk,
    pub evaluation: super::parts::Evaluation,
    /// « Questions »: the pool, the hand judgments and the qrels in force.
    pub judging: super::judging::Judging,
}

/// The part of the page's state that belongs to one catalogue — the question picked, the grid's
/// order, the pair compared, the runs imported, the long tasks over it — so that loading another
/// catalogue replaces it whole with the [`Dataset`] instead of resetting it field by field.
pub struct CatalogueUi {
    /// The exercise question picked, by index in `data.questions`.
    pub example: Option<usize>,
    pub grid_sort: Option<String>,
    /// Rows of the question grid shown (see `charts::GRID_PAGE`).
    pub grid_limit: usize,
    /// The pair compared, by name: a method or an imported run.
    pub compare: Option<(String, String)>,
    /// What the last « Importer un run » did, file by file: the run measured, or why it was
    /// refused.
    pub run_messages: Vec<Result<String, String>>,
    /// Run files being read, by their import's number.
    pub run_reads: Vec<(u64, Vec<super::effect::FileRef>)>,
    pub compute: Phase,
    pub dense: Phase,
    pub dense_message: Option<String>,
    /// Committed questions and the dense methods that could not rank them yet (see
    /// `update::note_unanswered`), oldest first.
    pub journal_waiting: Vec<(String, Method)>,
    /// Measurements under way, in steps (see [`Measuring`]).
    pub measuring: Vec<Measuring>,
    /// The local encoder's vectors of the learner's fiches and questions, being computed by the
    /// page's worker: (texts done, texts in all). `None` when no computation is wanted.
    pub local_texts: Option<(usize, usize)>,
    /// Why computing them failed: not tried again for this catalogue.
    pub local_error: Option<String>,
}

impl Default for CatalogueUi {
    fn default() -> CatalogueUi {
        CatalogueUi {
            example: None,
            grid_sort: None,
            grid_limit: GRID_PAGE,
            compare: None,
            run_messages: Vec::new(),
            run_reads: Vec::new(),
            compute: Phase::Idle,
            dense: Phase::Idle,
            dense_message: None,
            journal_waiting: Vec::new(),
            measuring: Vec::new(),
            local_texts: None,
            local_error: None,
        }
    }
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
        // The lookup of fiches by id and the products, built now and in steps rather than inside
        // the first render or measurement that needs them (« Mesurer »'s answer estimate, the
        // product-level figures).
        pause(lab.fiches().len()).await;
        lab.lookups_pausing(&mut pause).await;
        let mut measurements = Vec::new();
        for k in [Keyword::Mots, Keyword::MotsPlus] {
            let m = lab.measure_keyword_pausing(k, &questions, &mut pause).await;
            measurements.push(m);
        }
        // The graded qrels, from the products the measurements derived: one pass over the
        // catalogue, in a step of its own.
        pause(lab.fiches().len()).await;
        let qrels =
            crate::measure::graded::Qrels::derived(&questions, lab.fiches(), lab.products());
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
            shipped: None,
            looked: Looked::default(),
            judging: super::judging::Judging {
                qrels: qrels.clone(),
                ..Default::default()
            },
            qrels,
            reranked: Vec::new(),
            shipped_questions: Vec::new(),
            shipped_local_questions: Vec::new(),
            intake_note: None,
            measure_version: 0,
            ui: CatalogueUi::default(),
            improve: Default::default(),
            answering: Default::default(),
            chats: Default::default(),
            evaluation: Default::default(),
        }
    }

    /// The measurements in the page's method order, then the reranked lists shipped, then the
    /// imported runs.
    pub fn measured(&self) -> Vec<&Measurement> {
        Method::ALL
            .iter()
            .filter_map(|m| self.measurements.iter().find(|x| x.method == m.name()))
            .chain(&self.reranked)
            .chain(&self.runs)
            .collect()
    }

    /// Whether the catalogue can be measured: at least one of its questions names its fiche. A
    /// catalogue loaded alone has none; it is searched, not measured.
    pub fn measurable(&self) -> bool {
        self.questions.iter().any(|q| q.expected.is_some())
    }

    /// Whether a method over mistral-embed's vectors is measured (the local model's methods,
    /// measured without a key, do not count).
    pub fn has_mistral_measurements(&self) -> bool {
        self.measurements
            .iter()
            .any(|m| Method::parse(&m.method).is_some_and(Method::uses_mistral))
    }
}
