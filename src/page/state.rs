//! The page's one state. It changes only in [`super::update`]; panels render from it alone.

use std::collections::HashMap;

use crate::answer::{Source, FICHES_SENT};
use crate::data::intake::Selection;
use crate::data::{Fiche, IdNormalizer, Question, QuestionKind};
use crate::journal::Journal;
use crate::lab::{Lab, Method, QuestionVectors};
use crate::link::{QuestionSet, View, ViewState};
use crate::measure::Measurement;
use crate::mistral::chat::Chat;
use crate::mistral::ApiKey;

use super::dataset::{Dataset, Measuring};
use super::effect::{FileRef, Wait};
use super::jobs::{JobKey, RunId, Subject, Tracker};
use super::local::LocalModel;
use super::parts::{Choices, Costs};

/// The files shipped with the exercise's catalogue (in `data/`), by name.
#[derive(Clone, Debug, Default)]
pub struct ShippedFiles {
    /// Mistral's vectors of the fiches (and perhaps of the exercise's questions).
    pub vectors: Option<String>,
    /// The local encoder's vectors of the fiches and the questions.
    pub local_vectors: Option<String>,
    /// The answers computed once for the exercise's questions (`reponses`).
    pub answers: Option<String>,
}

/// Chats obtained, by [`mistral::cache::answer`], shared with the jobs started.
pub type Chats = std::rc::Rc<HashMap<String, Chat>>;

pub struct State {
    pub data: Dataset,
    /// The exercise's catalogue, parsed, to come back to in one click.
    pub bundled: (Vec<Fiche>, Vec<Question>),
    /// Numbers the learner's file selections (a catalogue's, runs'): each read is a job of its own.
    pub selection: u64,
    /// The catalogue files being read (their selection's number): a newer selection, or
    /// « Revenir au catalogue de l'exercice », replaces them and stops their read.
    pub reading: Option<(u64, Vec<FileRef>, Selection)>,
    /// What the link asked for that this browser cannot show, said under the header.
    pub link_note: Option<String>,
    /// How ids are brought to NFC (the browser's `normalize` in the page, [`crate::data::nfc`]
    /// natively): a run's fiche ids are compared with it.
    pub normalize_id: IdNormalizer,
    pub view: View,
    pub question: String,
    pub shown: Vec<Method>,
    pub key: Option<ApiKey>,
    /// What the key field and its controls show: gone with the key.
    pub key_ui: KeyUi,
    /// This origin is shared with other people's pages (`*.github.io`): remembering the key
    /// waits for an explicit confirmation.
    pub shared_origin: bool,
    /// The largest `fiches.jsonl` this device's memory lets the page read
    /// ([`crate::data::intake::fiches_limit`]).
    pub fiches_max: u64,
    /// Question vectors by text (mistral-embed: valid whatever the catalogue).
    pub qvectors: QuestionVectors,
    /// The question in the box after which typing paused, and the key's edit it paused after
    /// ([`State::key_edits`]): it may be embedded now.
    pub paused: Option<(String, u64)>,
    /// Counts the edits of the key field: a key typed a character at a time is not sent before
    /// the learner pauses.
    pub key_edits: u64,
    /// The question came from a link, not from the learner's hand: embedding it (a paid call)
    /// waits for a click.
    pub question_from_link: bool,
    /// The question last validated with Enter: the learner meant it, so its embedding starts
    /// without waiting for a pause in typing, and what is typed next does not cancel it.
    pub committed: Option<String>,
    /// The last failure to embed a question: the question, and the message.
    pub search_error: Option<(String, String)>,
    pub costs: Costs,
    pub vectors_message: Option<String>,
    /// The learner's choices for the answers and their evaluation, kept from one catalogue to
    /// the next.
    pub choices: Choices,
    /// Answers obtained, by [`mistral::cache::answer`] (also in IndexedDB): handed to each job
    /// that asks for chats, which takes its answers from there first.
    pub answers: Chats,
    /// The keyed jobs running ([`super::jobs`]).
    pub jobs: Tracker,
    pub data_status: String,
    pub data_errors: Vec<String>,
    /// The link shown by « Copier le lien », and whether it reached the clipboard.
    pub share: Option<(String, Option<bool>)>,
    /// « Par où commencer » dismissed (remembered on this device).
    pub guide_hidden: bool,
    /// Start-up's reads done (the journal, a remembered key).
    pub settled: bool,
    /// Start-up's reads done and the exercise's vectors looked for: until then, which methods
    /// cannot run is not known. Said once to the shell ([`super::Effect::Ready`]).
    pub ready: bool,
    /// The files shipped with the exercise, as the deploy's manifest names them (`None`: no
    /// manifest read).
    pub shipped_files: Option<ShippedFiles>,
    /// A call waiting before its next attempt (429, 5xx, no answer): shown with a countdown.
    pub waiting: Option<(Wait, RunId)>,
    /// « Questions sans réponse », kept in IndexedDB.
    pub journal: Journal,
    /// Reads of the stored journal asked for, and the one shown: a read is wanted while the
    /// first is ahead, as a job keyed by its number, so that a newer read replaces an older one.
    pub journal_reads: (u64, u64),
    /// This tab's name in the keys of the records it writes (random in the page, so that two tabs
    /// never write one key), and how many it wrote.
    pub journal_writer: (String, u64),
    /// The local encoder (USE multilingual v3), and the question vectors it made, by text.
    pub local: LocalModel,
    /// The model in use could not be kept in this browser: the next visit downloads it again.
    pub local_not_kept: bool,
    /// Blocks of the model's rows arriving for the text being embedded: (done, total, bytes).
    pub local_rows: Option<(u32, u32, u64)>,
    /// The learner asked for the local model (a gesture): a link's question may then download it.
    pub local_download_ok: bool,
    /// The model's download failed: a gesture that needs the model tries it again.
    pub local_retry: bool,
    pub local_qvectors: QuestionVectors,
    /// The question last sent to the worker alone: not sent again while it is in the box.
    pub local_asked: Option<String>,
    /// A step of the work done in steps (« Mesurer », « Améliorer ») was asked of the shell
    /// ([`super::Effect::Step`]) and has not come back.
    pub stepping: bool,
}

/// The key's part of the page: replaced whole when the key is forgotten.
#[derive(Default)]
pub struct KeyUi {
    /// Why the text in the key field is not a usable key (it is then not used at all).
    pub problem: Option<String>,
    /// Kept in this browser (« retenir »).
    pub remembered: bool,
    /// « retenir » was ticked on a shared origin: the warning is shown, nothing is stored yet.
    pub remember_warning: bool,
    /// « Vérifier ma clé »: in flight (`None` inside), or its verdict.
    pub check: Option<Option<Result<String, String>>>,
}

impl State {
    pub fn new(
        data: Dataset,
        bundled: (Vec<Fiche>, Vec<Question>),
        normalize_id: IdNormalizer,
    ) -> State {
        State {
            data,
            bundled,
            selection: 0,
            reading: None,
            link_note: None,
            normalize_id,
            view: View::Chercher,
            question: String::new(),
            shown: crate::link::DEFAULT_METHODS.to_vec(),
            key: None,
            key_ui: KeyUi::default(),
            shared_origin: false,
            fiches_max: crate::data::intake::fiches_limit(None),
            qvectors: QuestionVectors::new(),
            paused: None,
            key_edits: 0,
            question_from_link: false,
            committed: None,
            search_error: None,
            costs: Costs::default(),
            vectors_message: None,
            choices: Choices::default(),
            answers: Chats::default(),
            jobs: Tracker::default(),
            data_status: String::new(),
            data_errors: Vec::new(),
            share: None,
            guide_hidden: false,
            settled: false,
            ready: false,
            shipped_files: None,
            waiting: None,
            journal: Journal::default(),
            journal_reads: (0, 0),
            journal_writer: ("page".to_owned(), 0),
            local: LocalModel::Idle,
            local_not_kept: false,
            local_rows: None,
            local_download_ok: false,
            local_retry: false,
            local_qvectors: QuestionVectors::new(),
            local_asked: None,
            stepping: false,
        }
    }

    /// This deploy publishes no answers computed in advance for the exercise (its manifest
    /// names none).
    pub fn shipped_none(&self) -> bool {
        self.data.label.is_none()
            && self
                .shipped_files
                .as_ref()
                .is_some_and(|f| f.answers.is_none())
    }

    /// The measurement under way of `method`, if any.
    pub fn measuring_of(&self, method: Method) -> Option<&Measuring> {
        self.data
            .ui
            .measuring
            .iter()
            .find(|m| m.methods.contains(&method))
    }

    /// The expected question of the exercise picked, if any.
    pub fn example_question(&self) -> Option<&Question> {
        self.data
            .ui
            .example
            .and_then(|i| self.data.questions.get(i))
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
    /// known yet. A question from a link waits for a gesture while the model would have to be
    /// downloaded for it ([`State::local_waits_for_gesture`]).
    pub fn wants_local_vector(&self) -> bool {
        !self.local_waits_for_gesture()
            && self
                .shown
                .iter()
                .any(|m| m.encoder() == Some(crate::lab::Encoder::Local))
            && (self.data.lab.local_vectors().is_some() || self.data.ui.local_texts.is_some())
            && !self.question.trim().is_empty()
            && !self.local_qvectors.contains_key(&self.question)
    }

    /// The question in the box came from a link, and embedding it locally would download the
    /// model: nothing is downloaded until the learner asks (a link or a reload spends no
    /// bandwidth by itself).
    pub fn local_waits_for_gesture(&self) -> bool {
        self.question_from_link && !self.local_download_ok && matches!(self.local, LocalModel::Idle)
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
            && self.data.ui.local_error.is_none()
    }

    /// The key of the job on `subject` now: over the catalogue shown, or over none when the
    /// job spans catalogues. The one place a job's key is made, and the only reading of the
    /// catalogue's epoch that decides what is stale.
    pub fn job_key(&self, subject: Subject) -> JobKey {
        let catalogue = if subject.spans_catalogues() {
            0
        } else {
            self.data.epoch
        };
        JobKey { catalogue, subject }
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
                .data
                .ui
                .compare
                .as_ref()
                .and_then(|(a, b)| Some((Method::parse(a)?, Method::parse(b)?))),
            settings: (self.view == View::Ameliorer)
                .then(|| self.data.improve.settings.clone())
                .flatten(),
            refused: Vec::new(),
        }
    }

    /// What « Copier le lien » says of the link: what it keeps (the settings of « Améliorer »
    /// when it carries them), never the key; `copied`: whether it reached the clipboard.
    pub fn share_note(&self, copied: bool) -> String {
        let kept = if self.link_state().settings.is_some() {
            "la vue, la question, les méthodes et les réglages d'«\u{202f}Améliorer\u{202f}»"
        } else {
            "la vue, la question et les méthodes"
        };
        let lead = if copied {
            "Lien copié"
        } else {
            "Copiez ce lien"
        };
        format!("{lead}\u{a0}: il garde {kept}, jamais la clé.")
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
        let offered = self.answer_methods();
        self.choices
            .answer_method
            .filter(|m| offered.contains(m))
            .or_else(|| {
                offered
                    .iter()
                    .rev()
                    .find(|m| matches!(m, Method::Hybride(_)))
                    .copied()
            })
            .or_else(|| offered.iter().rev().find(|m| !m.is_dense()).copied())
            .or_else(|| offered.first().copied())
    }

    /// The methods « La réponse » offers: those shown whose fiche vectors are there (a method
    /// without them finds nothing to send).
    pub fn answer_methods(&self) -> Vec<Method> {
        self.shown
            .iter()
            .copied()
            .filter(|m| m.encoder().is_none_or(|e| self.data.lab.has_vectors(e)))
            .collect()
    }

    /// What « Mesurer les réponses » offers to send with each question: each measured method's
    /// first fiches, and the whole catalogue when it fits in a prompt.
    pub fn evaluation_sources(&self) -> Vec<Source> {
        let mut out: Vec<Source> = self
            .measured_methods()
            .into_iter()
            .map(Source::Method)
            .collect();
        if crate::answer::catalogue_fits(self.data.lab.fiches()) {
            out.push(Source::Catalogue);
        }
        out
    }

    /// The source « Mesurer les réponses » sends: the one chosen if still offered, else the last
    /// measured method.
    pub fn evaluation_source(&self) -> Option<Source> {
        let sources = self.evaluation_sources();
        self.choices
            .eval_source
            .filter(|s| sources.contains(s))
            .or_else(|| {
                sources
                    .iter()
                    .rev()
                    .find(|s| matches!(s, Source::Method(_)))
                    .copied()
            })
    }

    /// The method « Reclasser les 20 premières » reranks: the evaluation's source when it is a
    /// method.
    pub fn rerank_method(&self) -> Option<Method> {
        self.evaluation_source().and_then(Source::method)
    }

    /// The pair compared question by question, by name: the one chosen if both are measured,
    /// else the best fusion against the best single method (courantes MRR@10), else the first two
    /// measured (methods or runs).
    pub fn compared_pair(&self) -> Option<(String, String)> {
        let ms = self.data.measured();
        let has = |name: &str| ms.iter().any(|m| m.method == name);
        if let Some((a, b)) = &self.data.ui.compare {
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
    /// vectors (when known) whose tops in the worker's vectors set are not known yet. The page asks
    /// the worker for the question in the box only; these are asked too, or a question committed
    /// and then typed over would wait for ever.
    pub fn dense_waiting(&self) -> Vec<Vec<f32>> {
        let lab = &self.data.lab;
        if lab.vectors_away().is_none() {
            return Vec::new();
        }
        let mut out: Vec<Vec<f32>> = Vec::new();
        for (q, m) in &self.data.ui.journal_waiting {
            if m.encoder() != Some(crate::lab::Encoder::Mistral) {
                continue;
            }
            let Some(v) = self.vector_for(Method::Sens, q) else {
                continue;
            };
            if !lab.knows_dense(crate::lab::Encoder::Mistral, v, Lab::dense_depth())
                && !out.iter().any(|w| w.as_slice() == v)
            {
                out.push(v.to_vec());
            }
        }
        out
    }

    /// The fiches an answer to `question` would be given: the first five of `method`.
    pub fn fiches_for(&self, method: Method, question: &str) -> Result<Vec<Fiche>, String> {
        self.top_fiches(method, question, FICHES_SENT)
    }

    /// The fiches a reranker of `method` reads for `question`: its first
    /// [`crate::answer::rerank::READ`].
    pub fn first_stage(&self, method: Method, question: &str) -> Result<Vec<Fiche>, String> {
        self.top_fiches(method, question, crate::answer::rerank::READ)
    }

    fn top_fiches(&self, method: Method, question: &str, k: usize) -> Result<Vec<Fiche>, String> {
        let vector = self.vector_for(method, question);
        let lab = &self.data.lab;
        lab.search(method, question, vector, k)
            .map(|hits| {
                hits.into_iter()
                    .filter_map(|r| lab.fiches().get(r.doc).cloned())
                    .collect()
            })
            .map_err(|e| crate::fr::messages::search(&e))
    }

    /// Whether the question in the box should be embedded: a dense method is shown, the fiche
    /// vectors are there, the key too, and the question is neither known nor failed.
    pub fn wants_question_vector(&self) -> bool {
        let q = &self.question;
        self.shown.iter().any(|m| m.uses_mistral())
            && self.data.lab.has_vectors(crate::lab::Encoder::Mistral)
            && self.key.is_some()
            && !self.question_from_link
            && !q.trim().is_empty()
            && !self.qvectors.contains_key(q)
            && self.search_error.as_ref().is_none_or(|(e, _)| e != q)
    }
}
