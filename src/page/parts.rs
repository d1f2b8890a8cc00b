//! The smaller parts of the page's state: costs, long tasks' progress, the answer and its
//! evaluation, the calls in flight.

use crate::answer::judge::Verdict;
use crate::answer::shipped::{AnswersMeasured, Reranked, Tokens};
use crate::answer::{AnswerOutcome, Source};
use crate::data::Fiche;
use crate::lab::Method;
use crate::mistral;
use crate::mistral::chat::{self, Chat};

use crate::mistral::chat::Message;

use super::effect::{EvalItem, RerankItem};
use super::jobs::Control;

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

/// « Mesurer les réponses » over one catalogue, and the reranking of a method's top 20 beside it.
#[derive(Default)]
pub struct Evaluation {
    pub confirming: bool,
    pub phase: Phase,
    /// The run asked for and not ended: what its job sends.
    pub asked: Option<EvalAsk>,
    /// Complete runs, the latest per source, model and judge.
    pub runs: Vec<EvalRun>,
    /// What stopped the last run, if it stopped.
    pub message: Option<String>,
    /// « Reclasser les 20 premières »: the same states, for the reranking of the source's method.
    pub rerank_confirming: bool,
    pub rerank_phase: Phase,
    pub rerank_asked: Option<RerankAsk>,
    /// Complete rerankings, the latest per method and model.
    pub reranks: Vec<RerankRun>,
    pub rerank_message: Option<String>,
}

/// One complete run of « Mesurer les réponses »: an outcome and a verdict per question.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalRun {
    pub source: Source,
    pub model: String,
    pub judge: String,
    pub outcomes: Vec<AnswerOutcome>,
    pub verdicts: Vec<Verdict>,
    /// The fiches sent with each question (their ids), for the answers judged NON.
    pub sent: Vec<Vec<String>>,
    pub tokens: Tokens,
    pub judge_tokens: Tokens,
}

impl EvalRun {
    pub fn measured(&self) -> AnswersMeasured {
        AnswersMeasured::of(
            &self.outcomes,
            &self.verdicts,
            self.tokens,
            self.judge_tokens,
        )
    }

    pub fn is_for(&self, source: Source, model: &str, judge: &str) -> bool {
        self.source == source && self.model == model && self.judge == judge
    }
}

/// One complete reranking: a method's top 20 per question, as read, and the model's replies.
#[derive(Clone, Debug, PartialEq)]
pub struct RerankRun {
    pub model: String,
    pub reranked: Reranked,
}

/// The learner's choices in « La réponse » and « Mesurer les réponses » (`None`: the default).
#[derive(Default)]
pub struct Choices {
    /// The method an answer's fiches come from, and the model that writes it.
    pub answer_method: Option<Method>,
    pub answer_model: Option<String>,
    /// What « Mesurer les réponses » sends with each question, the model that answers and the
    /// judge.
    pub eval_source: Option<Source>,
    pub eval_model: Option<String>,
    pub judge: Option<String>,
}

/// « La réponse, qui cite ses fiches » over one catalogue.
#[derive(Default)]
pub struct Answering {
    /// The answer asked for and not yet come.
    pub pending: Option<AnswerAsk>,
    /// The last answer shown: the question and fiches it was for, and the answer or a message.
    pub result: Option<AnswerResult>,
}

pub struct AnswerResult {
    pub question: String,
    pub model: String,
    pub sent: Vec<Fiche>,
    pub outcome: Result<(Chat, bool), String>,
}

/// « Mesurer les réponses » asked for: each item answered by `model`, then judged by `judge`.
pub struct EvalAsk {
    pub model: String,
    pub judge: String,
    pub source: Source,
    pub items: Vec<EvalItem>,
}

/// « Reclasser les 20 premières » of `method` asked for: each item's fiches marked by `model`.
pub struct RerankAsk {
    pub model: String,
    pub method: Method,
    pub items: Vec<RerankItem>,
}

/// An answer asked for: `question`, from the fiches `sent`, by `model`.
pub struct AnswerAsk {
    pub model: String,
    pub question: String,
    pub sent: Vec<Fiche>,
}

impl AnswerAsk {
    pub fn digest(&self) -> u64 {
        super::jobs::digest(
            [self.model.as_str(), self.question.as_str()]
                .into_iter()
                .chain(self.sent.iter().map(|f| f.id.as_str())),
        )
    }
}

/// A control's one call to Mistral's chat: its model and messages, and what the reply is about
/// (a digest the feature chooses: the reply is its until that changes).
pub struct ChatAsk {
    pub model: String,
    pub messages: Vec<Message>,
    pub about: u64,
}

impl ChatAsk {
    /// Its job's digest: the model and the messages.
    pub fn digest(&self) -> u64 {
        let texts: Vec<&str> = std::iter::once(self.model.as_str())
            .chain(self.messages.iter().map(|m| m.content.as_str()))
            .collect();
        super::jobs::digest(texts)
    }
}

/// The controls' chats over one catalogue: those asked and not yet replied, and each control's
/// last reply with what it is about.
#[derive(Default)]
pub struct ChatDesk {
    pub asked: std::collections::BTreeMap<Control, ChatAsk>,
    pub replies: std::collections::BTreeMap<Control, (u64, Result<String, String>)>,
}

impl ChatDesk {
    /// `control` asks `model` `messages` about `about`, unless it is already asking.
    pub fn ask(&mut self, control: Control, model: String, messages: Vec<Message>, about: u64) {
        self.asked.entry(control).or_insert(ChatAsk {
            model,
            messages,
            about,
        });
    }

    /// Whether `control`'s chat is under way.
    pub fn asking(&self, control: Control) -> bool {
        self.asked.contains_key(&control)
    }

    /// `control`'s last reply, if it is about `about`.
    pub fn reply(&self, control: Control, about: u64) -> Option<&Result<String, String>> {
        self.replies
            .get(&control)
            .filter(|(a, _)| *a == about)
            .map(|(_, r)| r)
    }
}

/// The judge chosen in a select if the page offers it, else the cheapest model.
pub fn judge_or_default(chosen: &Option<String>) -> String {
    chosen
        .clone()
        .filter(|m| chat::is_offered(m))
        .unwrap_or_else(|| chat::cheapest().to_owned())
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
