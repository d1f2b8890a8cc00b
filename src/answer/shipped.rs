//! The answers computed once and shipped beside the fiches (`data/reponses.json`), so that a
//! learner without a key sees the answer's lessons measured: each method's answers to the
//! exercise's questions and their judgements, the first stages' top 20 reranked, and the answers
//! written from the whole catalogue. Written by the `reponses` command, read by the page.
//!
//! The file names what it was computed from — the fiches' fingerprint, the questions'
//! fingerprint, the models, the prompts' instructions, the date and the API's origin — and is
//! refused wherever the fiches or the questions differ: answers to other texts would be shown as
//! these texts' answers.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::judge::{self, Verdict};
use super::rerank::{self, Marks};
use super::AnswerOutcome;

mod measured;
use crate::data::Question;
use crate::mistral::chat::Chat;
pub use measured::*;

/// The `format` field of every file this module writes.
pub const FORMAT: &str = "rag-fiches/reponses";
/// The layout's version: a file of another version is refused, never half-read.
pub const VERSION: u32 = 1;
/// The largest file the page reads (the exercise's, with seven methods, is about 400 kB).
pub const MAX_FILE_BYTES: usize = 16 << 20;
/// Where the API answered when the answers came from Mistral itself.
pub const MISTRAL_ORIGIN: &str = crate::mistral::API_ORIGIN;

/// The questions' fingerprint: a SHA-256 of each question's kind, text and expected fiche, each
/// length-prefixed, in order. Another question, another expected fiche or another order is
/// another fingerprint.
pub fn questions_fingerprint(questions: &[Question]) -> String {
    let mut h = Sha256::new();
    let mut part = |s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    for q in questions {
        part(q.kind.as_str());
        part(&q.text);
        part(q.expected.as_deref().unwrap_or(""));
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Tokens a call was billed for, as the API counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub prompt: u64,
    pub completion: u64,
}

impl Tokens {
    pub fn of(chat: &Chat) -> Tokens {
        Tokens {
            prompt: chat.prompt_tokens,
            completion: chat.completion_tokens,
        }
    }
}

impl std::ops::Add for Tokens {
    type Output = Tokens;
    fn add(self, other: Tokens) -> Tokens {
        Tokens {
            prompt: self.prompt.saturating_add(other.prompt),
            completion: self.completion.saturating_add(other.completion),
        }
    }
}

/// The models that wrote, judged and reranked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Models {
    pub answer: String,
    pub judge: String,
    pub rerank: String,
}

/// The instructions each call was sent with, as the learner reads them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompts {
    pub answer: String,
    pub judge: String,
    pub rerank: String,
}

impl Prompts {
    /// This build's instructions.
    pub fn current() -> Prompts {
        Prompts {
            answer: super::INSTRUCTIONS.into(),
            judge: judge::JUDGE_INSTRUCTIONS.into(),
            rerank: rerank::RERANK_INSTRUCTIONS.into(),
        }
    }
}

/// One question's answer and its judgement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answered {
    /// The ids of the fiches sent, in rank order (every fiche for the whole catalogue).
    pub sent: Vec<String>,
    pub answer: String,
    pub finish_reason: Option<String>,
    pub tokens: Tokens,
    /// The judge's reply as it came (read by [`judge::parse_verdict`]).
    pub judge: String,
    pub judge_tokens: Tokens,
}

impl Answered {
    pub fn verdict(&self) -> Verdict {
        judge::parse_verdict(&self.judge)
    }

    fn is_cut(&self) -> bool {
        matches!(
            self.finish_reason.as_deref(),
            Some("length" | "model_length")
        )
    }

    /// The answer checked against the question and the fiches sent.
    pub fn outcome(&self, q: &Question) -> AnswerOutcome {
        let sent: Vec<&str> = self.sent.iter().map(String::as_str).collect();
        AnswerOutcome {
            kind: q.kind,
            question: q.text.clone(),
            expected: q.expected.clone(),
            answer: self.answer.clone(),
            check: super::check(&self.answer, &sent),
            cut: self.is_cut(),
        }
    }
}

/// A method's answers, one per question in the questions' order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodAnswers {
    pub method: String,
    pub answers: Vec<Answered>,
}

/// One question's first-stage top 20 as the reranker read it, and what it replied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RerankedList {
    /// The first stage's ids, best first.
    pub read: Vec<String>,
    /// The reranker's reply as it came (read by [`rerank::parse_marks`]).
    pub reply: String,
    pub tokens: Tokens,
}

impl RerankedList {
    pub fn marks(&self) -> Marks {
        let sent: Vec<&str> = self.read.iter().map(String::as_str).collect();
        rerank::parse_marks(&self.reply, &sent)
    }

    /// The ids in the reranker's order, with each one's mark (`None`: not usable, kept after
    /// the marked ones in first-stage order).
    pub fn order(&self) -> Vec<(String, Option<u8>)> {
        let sent: Vec<&str> = self.read.iter().map(String::as_str).collect();
        let marks = self.marks();
        rerank::reorder(&sent, &marks)
            .into_iter()
            .map(|id| (id.to_owned(), marks.marks.get(id).copied()))
            .collect()
    }
}

/// A first stage's lists, one per question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reranked {
    /// The first stage's method.
    pub stage: String,
    pub lists: Vec<RerankedList>,
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShippedAnswers {
    pub format: String,
    pub version: u32,
    /// When it was computed (ISO 8601, UTC).
    pub computed: String,
    /// The API's origin: [`MISTRAL_ORIGIN`], or a local mock's for the tests.
    pub api: String,
    pub fiches: String,
    pub questions: String,
    pub models: Models,
    pub prompts: Prompts,
    pub methods: Vec<MethodAnswers>,
    pub reranked: Vec<Reranked>,
    /// Answers written from every fiche of the catalogue (no retrieval).
    pub catalogue: Vec<Answered>,
}

/// Why a shipped answers file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShippedError {
    TooLarge {
        bytes: usize,
        max: usize,
    },
    /// Not JSON, or not this layout.
    Unreadable {
        detail: String,
    },
    /// Another format or version.
    NotOurs {
        found: String,
    },
    /// Computed for other fiches (their fingerprint differs).
    OtherFiches,
    /// Computed for other questions.
    OtherQuestions,
    /// A list does not hold one entry per question.
    Count {
        part: String,
        expected: usize,
        found: usize,
    },
    /// A method name this build does not know.
    UnknownMethod {
        name: String,
    },
    /// An id sent or read that is not one of the fiches.
    UnknownFiche {
        part: String,
        id: String,
    },
    /// A method's answers or a first stage given twice.
    Duplicate {
        part: String,
    },
    /// A list of fiches sent or read longer than a call sends, or naming a fiche twice.
    ListShape {
        part: String,
        question: usize,
    },
    /// A call's tokens beyond what any call can count.
    Tokens {
        part: String,
        question: usize,
    },
    /// A reranked list that is not the first stage this page computes for that question.
    OtherFirstStage {
        part: String,
        question: usize,
    },
}

/// The most tokens one call may count, prompt and completion together: far above any model's
/// window, far below what would wrap a sum of them.
pub const MAX_CALL_TOKENS: u64 = 1 << 24;

impl std::fmt::Display for ShippedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShippedError::TooLarge { bytes, max } => {
                write!(f, "{bytes} bytes, over the limit of {max}")
            }
            ShippedError::Unreadable { detail } => write!(f, "not an answers file: {detail}"),
            ShippedError::NotOurs { found } => {
                write!(f, "format {found}, expected {FORMAT} version {VERSION}")
            }
            ShippedError::OtherFiches => write!(f, "computed for other fiches"),
            ShippedError::OtherQuestions => write!(f, "computed for other questions"),
            ShippedError::Count {
                part,
                expected,
                found,
            } => write!(f, "{part}: {found} entries for {expected} questions"),
            ShippedError::UnknownMethod { name } => write!(f, "unknown method \"{name}\""),
            ShippedError::UnknownFiche { part, id } => {
                write!(f, "{part}: fiche {id} is not in the catalogue")
            }
            ShippedError::Duplicate { part } => write!(f, "{part} is given twice"),
            ShippedError::ListShape { part, question } => write!(
                f,
                "{part}, question {question}: a list longer than a call sends, or a fiche twice"
            ),
            ShippedError::Tokens { part, question } => {
                write!(f, "{part}, question {question}: tokens beyond any call's")
            }
            ShippedError::OtherFirstStage { part, question } => write!(
                f,
                "{part}, question {question}: not this page's first stage"
            ),
        }
    }
}

impl std::error::Error for ShippedError {}

impl ShippedAnswers {
    /// Reads a file and checks it against the catalogue's `fingerprint`, its `ids` and the
    /// `questions`: nothing of a refused file is returned.
    pub fn parse(
        bytes: &[u8],
        fingerprint: &str,
        ids: &HashSet<&str>,
        questions: &[Question],
    ) -> Result<ShippedAnswers, ShippedError> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(ShippedError::TooLarge {
                bytes: bytes.len(),
                max: MAX_FILE_BYTES,
            });
        }
        // The format first, so that another file says what it is rather than what it lacks.
        let head: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| ShippedError::Unreadable {
                detail: e.to_string(),
            })?;
        let format = head["format"].as_str().unwrap_or_default();
        let version = head["version"].as_u64();
        if format != FORMAT || version != Some(u64::from(VERSION)) {
            return Err(ShippedError::NotOurs {
                found: format!(
                    "{} version {}",
                    if format.is_empty() { "?" } else { format },
                    version.map_or("?".to_owned(), |v| v.to_string())
                ),
            });
        }
        let file: ShippedAnswers =
            serde_json::from_value(head).map_err(|e| ShippedError::Unreadable {
                detail: e.to_string(),
            })?;
        file.check(fingerprint, ids, questions)?;
        Ok(file)
    }

    fn check(
        &self,
        fingerprint: &str,
        ids: &HashSet<&str>,
        questions: &[Question],
    ) -> Result<(), ShippedError> {
        if self.fiches != fingerprint {
            return Err(ShippedError::OtherFiches);
        }
        if self.questions != questions_fingerprint(questions) {
            return Err(ShippedError::OtherQuestions);
        }
        let count = |part: &str, found: usize| {
            if found == questions.len() {
                Ok(())
            } else {
                Err(ShippedError::Count {
                    part: part.to_owned(),
                    expected: questions.len(),
                    found,
                })
            }
        };
        let known = |part: &str, list: &[String]| {
            list.iter()
                .find(|id| !ids.contains(id.as_str()))
                .map_or(Ok(()), |id| {
                    Err(ShippedError::UnknownFiche {
                        part: part.to_owned(),
                        id: id.clone(),
                    })
                })
        };
        let method = |name: &str| {
            crate::lab::Method::parse(name).ok_or_else(|| ShippedError::UnknownMethod {
                name: name.to_owned(),
            })
        };
        let shape = |part: &str, question: usize, list: &[String], max: usize| {
            let unique: HashSet<&String> = list.iter().collect();
            if list.len() <= max && unique.len() == list.len() {
                Ok(())
            } else {
                Err(ShippedError::ListShape {
                    part: part.to_owned(),
                    question: question + 1,
                })
            }
        };
        let tokens = |part: &str, question: usize, t: &[Tokens]| {
            if t.iter()
                .all(|t| t.prompt.saturating_add(t.completion) <= MAX_CALL_TOKENS)
            {
                Ok(())
            } else {
                Err(ShippedError::Tokens {
                    part: part.to_owned(),
                    question: question + 1,
                })
            }
        };
        let once = |names: Vec<&str>| {
            let mut seen = HashSet::new();
            names
                .into_iter()
                .find(|n| !seen.insert(*n))
                .map_or(Ok(()), |n| {
                    Err(ShippedError::Duplicate { part: n.to_owned() })
                })
        };
        once(self.methods.iter().map(|m| m.method.as_str()).collect())?;
        once(self.reranked.iter().map(|r| r.stage.as_str()).collect())?;
        for m in &self.methods {
            method(&m.method)?;
            count(&m.method, m.answers.len())?;
            for (i, a) in m.answers.iter().enumerate() {
                known(&m.method, &a.sent)?;
                shape(&m.method, i, &a.sent, super::FICHES_SENT)?;
                tokens(&m.method, i, &[a.tokens, a.judge_tokens])?;
            }
        }
        for r in &self.reranked {
            method(&r.stage)?;
            count(&r.stage, r.lists.len())?;
            for (i, l) in r.lists.iter().enumerate() {
                known(&r.stage, &l.read)?;
                shape(&r.stage, i, &l.read, rerank::READ)?;
                tokens(&r.stage, i, &[l.tokens])?;
            }
        }
        for (i, a) in self.catalogue.iter().enumerate() {
            known("catalogue", &a.sent)?;
            shape("catalogue", i, &a.sent, ids.len())?;
            tokens("catalogue", i, &[a.tokens, a.judge_tokens])?;
        }
        if !self.catalogue.is_empty() {
            count("catalogue", self.catalogue.len())?;
        }
        Ok(())
    }

    /// Checks each reranked list against the first stage this page computes for its question
    /// (`first_stage(method, question)`, the ids best first; `None` where it cannot be computed
    /// here, as a dense method without its vectors): a list the page would not have read, forged
    /// or stale, refuses the file.
    pub fn check_first_stages(
        &self,
        questions: &[Question],
        first_stage: impl Fn(crate::lab::Method, &str) -> Option<Vec<String>>,
    ) -> Result<(), ShippedError> {
        for r in &self.reranked {
            let Some(method) = crate::lab::Method::parse(&r.stage) else {
                return Err(ShippedError::UnknownMethod {
                    name: r.stage.clone(),
                });
            };
            for (i, (l, q)) in r.lists.iter().zip(questions).enumerate() {
                if first_stage(method, &q.text).is_some_and(|ids| ids != l.read) {
                    return Err(ShippedError::OtherFirstStage {
                        part: r.stage.clone(),
                        question: i + 1,
                    });
                }
            }
        }
        Ok(())
    }

    /// Whether these answers came from Mistral's API (not from a mock).
    pub fn from_mistral(&self) -> bool {
        self.api == MISTRAL_ORIGIN
    }

    /// Every call's tokens, by model.
    pub fn tokens(&self) -> Vec<(String, Tokens)> {
        let mut by: Vec<(String, Tokens)> = Vec::new();
        let mut add = |model: &str, t: Tokens| match by.iter_mut().find(|(m, _)| m == model) {
            Some((_, sum)) => *sum = *sum + t,
            None => by.push((model.to_owned(), t)),
        };
        for a in self
            .methods
            .iter()
            .flat_map(|m| &m.answers)
            .chain(&self.catalogue)
        {
            add(&self.models.answer, a.tokens);
            add(&self.models.judge, a.judge_tokens);
        }
        for l in self.reranked.iter().flat_map(|r| &r.lists) {
            add(&self.models.rerank, l.tokens);
        }
        by
    }
}

#[cfg(test)]
mod tests;
