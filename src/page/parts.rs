//! The smaller parts of the page's state: costs, long tasks' progress, the answer and its
//! evaluation, the calls in flight.

use crate::answer::AnswerOutcome;
use crate::data::Fiche;
use crate::lab::Method;
use crate::mistral;
use crate::mistral::chat::{self, Chat};

use super::effect::CallId;

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
    pub search: Option<(String, CallId)>,
    pub compute: Option<CallId>,
    pub dense: Option<CallId>,
    pub answer: Option<CallId>,
    pub eval: Option<CallId>,
    /// « Vérifier ma clé ».
    pub check: Option<CallId>,
}

impl Calls {
    /// Forgets every call in flight and returns them, for the shell to cancel.
    #[must_use]
    pub fn take_all(&mut self) -> Vec<CallId> {
        let calls = [
            self.search.take().map(|(_, c)| c),
            self.compute.take(),
            self.dense.take(),
            self.answer.take(),
            self.eval.take(),
            self.check.take(),
        ];
        calls.into_iter().flatten().collect()
    }
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
