//! « Améliorer »'s part of the state: the settings tried, their measurement against the starting
//! method, the history of this session, a sweep.

use crate::improve::batch::Batch;
use crate::improve::diff::Diff;
use crate::improve::sweep::{Grid, Sweep};
use crate::improve::{DenseTops, Enrichment, Settings, Tuned};
use crate::lab::{Encoder, Method};
use crate::measure::Measurement;
use crate::search::analysis::custom::WordChars;
use crate::search::fusion::Fusion;

/// A starting list of stop words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopPreset {
    /// The seed's 52 words (`mots`).
    Seed,
    /// `mots+`'s list.
    MotsPlus,
    /// The Snowball project's French list.
    Snowball,
    /// None at all.
    Empty,
}

/// One change the learner makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Start again from this method, nothing changed.
    Start(Method),
    K1(f64),
    B(f64),
    Words(WordChars),
    Lowercase(bool),
    Elisions(bool),
    Stem(bool),
    Fold(bool),
    /// The stop-word list, as typed.
    StopWords(String),
    StopPreset(StopPreset),
    Enrich(Enrichment),
    /// Takes back the enrichment at this position.
    Unenrich(usize),
    Fusion(Fusion),
    RrfK(f64),
    Depth(usize),
    /// The weight of the keyword list (0) or of the dense list (1).
    Weight(usize, f64),
    /// Back to the settings before the last change.
    Undo,
    /// The settings of this entry of the history.
    Replay(usize),
    Sweep(Grid),
    /// The settings of the sweep's point chosen on the calibration half.
    KeepSwept,
    /// « Passer l'épreuve »: the settings measured on the questions kept apart ([`Epreuve`]).
    PassEpreuve,
}

/// A control whose moves follow one another as one gesture: a slider's values while it is
/// dragged or its key held, the words typed in a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    K1,
    B,
    RrfK,
    Depth,
    Weight(usize),
    StopWords,
}

impl Change {
    /// The control this change moves, if its moves make one gesture.
    pub fn control(&self) -> Option<Control> {
        match self {
            Change::K1(_) => Some(Control::K1),
            Change::B(_) => Some(Control::B),
            Change::RrfK(_) => Some(Control::RrfK),
            Change::Depth(_) => Some(Control::Depth),
            Change::Weight(i, _) => Some(Control::Weight(*i)),
            Change::StopWords(_) => Some(Control::StopWords),
            _ => None,
        }
    }
}

/// One setting tried in this session, and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Tried {
    pub settings: Settings,
    pub name: String,
    /// Exactes first, courantes first, courantes in the top 5, courantes' product first.
    pub exact_hit1: (usize, usize),
    pub common_hit1: (usize, usize),
    pub common_hit5: usize,
    pub common_product_hit1: Option<usize>,
    pub mrr: f64,
}

impl Tried {
    pub fn of(settings: &Settings, m: &Measurement) -> Tried {
        use crate::data::QuestionKind;
        let kind = |k| m.kinds.iter().find(|s| s.kind == k);
        let e = kind(QuestionKind::Exacte);
        let c = kind(QuestionKind::Courante);
        let mrr = crate::improve::sweep::mrr(m, |_| true);
        Tried {
            settings: settings.clone(),
            name: m.method.clone(),
            exact_hit1: e.map_or((0, 0), |e| (e.hit1, e.questions)),
            common_hit1: c.map_or((0, 0), |c| (c.hit1, c.questions)),
            common_hit5: c.map_or(0, |c| c.hit5),
            common_product_hit1: c.and_then(|c| c.product.as_ref().map(|p| p.hit1)),
            mrr,
        }
    }
}

/// The most settings kept in the history, and the most changes « Annuler » can take back.
pub const HISTORY_MAX: usize = 50;

/// « Annuler »'s stack: the settings before each change, at most [`HISTORY_MAX`], each kept as
/// its difference from the settings after it. A change that left the stop words or the
/// enrichments as they were keeps no copy of them (a k1 move over 100,000 stop words stores a
/// few numbers); taking a change back restores them from the settings in use.
#[derive(Debug, Clone, Default)]
pub struct UndoStack {
    steps: std::collections::VecDeque<UndoStep>,
}

#[derive(Debug, Clone)]
struct UndoStep {
    /// The settings before the change, their stop words and enrichments emptied when kept.
    before: Settings,
    stops_kept: bool,
    enrich_kept: bool,
}

impl UndoStack {
    /// Remembers `before`, which the change to `after` replaced.
    pub fn push(&mut self, mut before: Settings, after: &Settings) {
        let stops_kept = before.analysis.stop_words == after.analysis.stop_words;
        let enrich_kept = before.enrich == after.enrich;
        if stops_kept {
            before.analysis.stop_words = Vec::new();
        }
        if enrich_kept {
            before.enrich = Vec::new();
        }
        self.steps.push_back(UndoStep {
            before,
            stops_kept,
            enrich_kept,
        });
        if self.steps.len() > HISTORY_MAX {
            self.steps.pop_front();
        }
    }

    /// The settings before the last change, `now` being the settings that change made.
    pub fn pop(&mut self, now: &Settings) -> Option<Settings> {
        let step = self.steps.pop_back()?;
        let mut before = step.before;
        if step.stops_kept {
            before.analysis.stop_words = now.analysis.stop_words.clone();
        }
        if step.enrich_kept {
            before.enrich = now.enrich.clone();
        }
        Some(before)
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The stop words and enriched words the stack holds, in bytes: what it costs beyond its
    /// small fields.
    pub fn held_bytes(&self) -> usize {
        self.steps
            .iter()
            .map(|st| {
                st.before
                    .analysis
                    .stop_words
                    .iter()
                    .map(String::len)
                    .chain(st.before.enrich.iter().map(|e| e.words.len() + e.id.len()))
                    .sum::<usize>()
            })
            .sum()
    }
}

#[derive(Debug, Clone, Default)]
pub struct Improve {
    /// The settings in use; `None` until the view is first opened.
    pub settings: Option<Settings>,
    pub tuned: Option<Tuned>,
    /// The starting method measured, and the settings measured.
    pub before: Option<Measurement>,
    pub after: Option<Measurement>,
    pub diff: Option<Diff>,
    /// For a fusion, its keyword side under the same settings: the fusion must lose none of
    /// the exactes it puts first.
    pub keyword_side: Option<Measurement>,
    /// The settings before each change, for « Annuler ».
    pub undo: UndoStack,
    /// The settings tried in this session, each once: a row per change, none for « Annuler » or
    /// « Reprendre » (they go back to a row).
    pub history: Vec<Tried>,
    /// The control the last changes moved, while they are one gesture ([`Control`]): a slider
    /// dragged or a key held makes one change, one row and one step of « Annuler ».
    pub streak: Option<Control>,
    /// The history row the current streak wrote, replaced as the streak goes on.
    pub streak_row: Option<usize>,
    pub sweep: Option<Sweep>,
    /// The dense tops of the questions, by encoder, for this catalogue.
    pub dense: Option<(Encoder, DenseTops)>,
    /// Why the settings could not be measured.
    pub error: Option<String>,
    /// The values of the last link opened that were refused, each said (the rest was kept).
    pub refused: Vec<String>,
    /// The failure was the questions' dense vectors not being there yet: tried again as
    /// messages come (they arrive with them). Any other failure waits for the next change.
    pub waiting_for_vectors: bool,
    /// The settings `after` measures.
    pub measured: Option<Settings>,
    /// The measurement or the sweep under way, a bounded step at a time.
    pub job: Option<Job>,
    /// « L'épreuve »: the questions kept apart, and their last pass.
    pub epreuve: Epreuve,
}

/// The file of « l'épreuve », beside the exercise's questions (`data/`).
pub const EPREUVE_FILE: &str = "epreuve.csv";
/// The local encoder's vectors of its questions (and of the exercise's fiches), beside it: a
/// start method over the local encoder passes the épreuve without the model.
pub const EPREUVE_LOCAL_FILE: &str = "epreuve-local.safetensors";

/// « L'épreuve »: the exercise's second set of questions (`data/epreuve.csv`), kept out of every
/// table until the learner asks to pass it; the settings in use are then measured on it, beside
/// the starting method, to see whether what was tuned on the 40 questions holds on others.
#[derive(Debug, Clone, Default)]
pub struct Epreuve {
    /// « Passer l'épreuve » was asked and is not answered yet (its questions are being read).
    pub asked: bool,
    /// Its questions once read, or why they could not be.
    pub questions: Option<Result<Vec<crate::data::Question>, String>>,
    /// The last pass, or why the settings could not be measured on it.
    pub pass: Option<Result<Pass, String>>,
    /// Passes in this session: passing it after every change would tune the settings on it.
    pub passes: u32,
}

/// One pass of « l'épreuve »: the settings measured, the starting method's and their
/// measurements on its questions, what changed between the two, and the same two measured on the
/// exercise's questions when it was passed.
#[derive(Debug, Clone)]
pub struct Pass {
    pub settings: Settings,
    pub before: Measurement,
    pub after: Measurement,
    pub diff: Diff,
    pub exercise: (Measurement, Measurement),
}

/// Work of « Améliorer » under way: measured in steps of [`crate::improve::batch::WORK_PER_STEP`],
/// a turn of the event loop between two, the last results shown meanwhile.
#[derive(Debug, Clone)]
pub enum Job {
    /// `settings`, then (`side`) their fusion's keyword side, then (`before`) the starting method.
    Measure {
        settings: Settings,
        side: bool,
        before: bool,
        batch: Batch,
    },
    /// The sweep of `grid` from `from`.
    Sweep {
        from: Settings,
        grid: Grid,
        batch: Batch,
    },
}

impl Job {
    pub fn batch(&self) -> &Batch {
        match self {
            Job::Measure { batch, .. } | Job::Sweep { batch, .. } => batch,
        }
    }
}

/// What the work under way has done, in the page's words (`None`: nothing under way).
pub fn progress(im: &Improve, lab: &crate::lab::Lab, questions: usize) -> Option<String> {
    use crate::fr::int;
    let job = im.job.as_ref()?;
    let batch = job.batch();
    if let Some((done, all)) = batch.building(lab) {
        return Some(format!(
            "Nouvelle analyse des fiches\u{a0}: {} sur {}…",
            int(done as u64),
            int(all as u64)
        ));
    }
    let (done, all) = batch.progress(questions);
    Some(match job {
        Job::Measure { .. } => format!(
            "Mesure en cours\u{a0}: {} recherches sur {}…",
            int(done as u64),
            int(all as u64)
        ),
        Job::Sweep { .. } => format!(
            "Balayage en cours\u{a0}: {} recherches sur {}…",
            int(done as u64),
            int(all as u64)
        ),
    })
}

/// The effect of the settings in use against the starting method, in three short lines: kept in
/// sight beside the controls (on a phone, at the foot of the screen) after every change.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Summary {
    /// The courantes' and exactes' key figures, before → after.
    pub figures: String,
    /// How many questions moved up and down, and the first one with its ranks.
    pub moved: String,
    /// The success criteria met, of those that apply here, and the first one not met.
    pub criteria: String,
}

/// Since which change a criterion holds on the settings in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetBy {
    /// The starting method met it, nothing changed.
    Start,
    /// This change of the history, in words.
    Change(String),
}

/// Since which change of this session the exactes' or the courantes' criterion (`label`, of
/// [`crate::improve::checklist`]) holds on the settings in use: the history walked back from
/// their row while it holds, and the change the first row of that run made to the row before it.
/// `None` when it does not hold, or for another criterion.
pub fn met_by(im: &Improve, label: &str) -> Option<MetBy> {
    use crate::improve::checklist::{courantes_needed, COURANTES, EXACTES};
    let holds = |t: &Tried| match label {
        EXACTES => t.exact_hit1.1 > 0 && t.exact_hit1.0 == t.exact_hit1.1,
        COURANTES => t.common_hit1.1 > 0 && t.common_hit5 >= courantes_needed(t.common_hit1.1),
        _ => false,
    };
    let settings = im.settings.as_ref()?;
    let now = im.history.iter().rposition(|t| &t.settings == settings)?;
    if !holds(&im.history[now]) {
        return None;
    }
    // Walked back within the same starting method: another method's rows are another start.
    let mut first = now;
    while first > 0
        && holds(&im.history[first - 1])
        && im.history[first - 1].settings.method == im.history[now].settings.method
    {
        first -= 1;
    }
    let row = &im.history[first];
    let changes = row.settings.changes();
    // The first row of the history can be settings a link opened: the starting method, measured
    // beside them, says whether it held before them.
    let start_holds = im
        .before
        .as_ref()
        .is_some_and(|m| holds(&Tried::of(&row.settings, m)));
    let Some(prev) = first.checked_sub(1).map(|i| &im.history[i]) else {
        return Some(if changes.is_empty() || start_holds {
            MetBy::Start
        } else {
            MetBy::Change(changes.join("\u{202f}; "))
        });
    };
    if prev.settings.method != row.settings.method {
        return Some(if changes.is_empty() {
            MetBy::Start
        } else {
            MetBy::Change(row.settings.name())
        });
    }
    let before = prev.settings.changes();
    let added: Vec<String> = changes
        .into_iter()
        .filter(|c| !before.contains(c))
        .collect();
    Some(MetBy::Change(if added.is_empty() {
        row.settings.name()
    } else {
        added.join("\u{202f}; ")
    }))
}

/// The success criteria of the settings in use (`None` before they are measured): the first one
/// counts the methods « Mesurer » measured on these questions, and the starting method and the
/// settings in use.
pub fn criteria(
    data: &crate::page::dataset::Dataset,
    has_key: bool,
) -> Option<Vec<crate::improve::checklist::Criterion>> {
    let im = &data.improve;
    let (before, after) = (im.before.as_ref()?, im.after.as_ref()?);
    let measured: Vec<&str> = data
        .measurements
        .iter()
        .chain([before, after])
        .map(|m| m.method.as_str())
        .collect();
    Some(crate::improve::checklist::checklist(
        after,
        im.keyword_side.as_ref(),
        has_key,
        &measured,
    ))
}

/// [`Summary`] of the last measurement of « Améliorer » (`None` before there is one).
pub fn summary(data: &crate::page::dataset::Dataset, has_key: bool) -> Option<Summary> {
    use crate::data::QuestionKind;
    use crate::improve::checklist::Status;
    let im = &data.improve;
    let (before, after) = (im.before.as_ref()?, im.after.as_ref()?);
    fn kind(m: &Measurement, k: QuestionKind) -> Option<&crate::measure::KindStats> {
        m.kinds.iter().find(|s| s.kind == k && s.questions > 0)
    }
    let mut figures = Vec::new();
    if let (Some(a), Some(b)) = (
        kind(before, QuestionKind::Courante),
        kind(after, QuestionKind::Courante),
    ) {
        figures.push(format!(
            "Courantes\u{a0}: en tête {}/{n} → {}/{n}, dans les 5 premières {}/{n} → {}/{n}",
            a.hit1,
            b.hit1,
            a.hit5,
            b.hit5,
            n = b.questions
        ));
    }
    if let (Some(a), Some(b)) = (
        kind(before, QuestionKind::Exacte),
        kind(after, QuestionKind::Exacte),
    ) {
        figures.push(format!(
            "exactes en tête {}/{n} → {}/{n}",
            a.hit1,
            b.hit1,
            n = b.questions
        ));
    }
    let rank = |r: Option<usize>| r.map_or("hors des 10".to_owned(), |r| r.to_string());
    let moved = match &im.diff {
        None => String::new(),
        Some(d) if d.up.is_empty() && d.down.is_empty() => {
            "Aucune question n'a changé de rang.".to_owned()
        }
        Some(d) => {
            let first = d.up.first().or(d.down.first());
            let first = first.map_or(String::new(), |m| {
                format!(
                    "\u{a0}: «\u{202f}{}\u{202f}» {} → {}",
                    m.question,
                    rank(m.before),
                    rank(m.after)
                )
            });
            format!(
                "{} remontée{}, {} descendue{}{first}.",
                crate::fr::count(d.up.len() as u64, "question", "questions"),
                if d.up.len() > 1 { "s" } else { "" },
                d.down.len(),
                if d.down.len() > 1 { "s" } else { "" },
            )
        }
    };
    let list = criteria(data, has_key)?;
    let judged: Vec<_> = list
        .iter()
        .filter(|c| matches!(c.status, Status::Met | Status::NotMet))
        .collect();
    let met = judged.iter().filter(|c| c.status == Status::Met).count();
    let mut by: Vec<String> = Vec::new();
    for c in &judged {
        if let Some(MetBy::Change(change)) = met_by(im, c.label) {
            let change = format!("«\u{202f}{change}\u{202f}»");
            if !by.contains(&change) {
                by.push(change);
            }
        }
    }
    let by = if by.is_empty() {
        String::new()
    } else {
        format!(" (atteints par {})", by.join(", "))
    };
    let criteria = match judged.iter().find(|c| c.status == Status::NotMet) {
        Some(c) => format!(
            "Critères de recherche\u{a0}: {met} tenu{} sur {}{by}\u{202f}; pas encore\u{a0}: {}.",
            if met > 1 { "s" } else { "" },
            judged.len(),
            c.label.to_lowercase()
        ),
        None => format!(
            "Critères de recherche\u{a0}: {met} tenu{} sur {}{by}.",
            if met > 1 { "s" } else { "" },
            judged.len()
        ),
    };
    Some(Summary {
        figures: format!("{}.", figures.join("\u{202f}; ")),
        moved,
        criteria,
    })
}
