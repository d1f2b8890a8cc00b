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
use super::{AnswerEvaluation, AnswerOutcome};
use crate::data::Question;
use crate::mistral::chat::Chat;

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

/// A set of answers measured: seed 001's figures, faithfulness, and the answers judged NON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswersMeasured {
    pub evaluation: AnswerEvaluation,
    pub faithfulness: judge::Faithfulness,
    /// Indexes of the questions whose answer the judge said NON: to be re-read by hand.
    pub non: Vec<usize>,
    /// Indexes of the questions whose verdict could not be read.
    pub unparsed: Vec<usize>,
    /// Tokens of the answers (the judge's apart).
    pub tokens: Tokens,
    pub judge_tokens: Tokens,
}

/// Measures `answers` (one per question, in order) against `questions`. A refusal is judged like
/// any answer; faithfulness counts every answer judged.
pub fn measure(answers: &[Answered], questions: &[Question]) -> AnswersMeasured {
    let outcomes: Vec<AnswerOutcome> = answers
        .iter()
        .zip(questions)
        .map(|(a, q)| a.outcome(q))
        .collect();
    let verdicts: Vec<Verdict> = answers.iter().map(Answered::verdict).collect();
    AnswersMeasured::of(
        &outcomes,
        &verdicts,
        answers.iter().fold(Tokens::default(), |t, a| t + a.tokens),
        answers
            .iter()
            .fold(Tokens::default(), |t, a| t + a.judge_tokens),
    )
}

impl AnswersMeasured {
    /// The figures of checked answers and their verdicts (one per answer, in the same order).
    pub fn of(
        outcomes: &[AnswerOutcome],
        verdicts: &[Verdict],
        tokens: Tokens,
        judge_tokens: Tokens,
    ) -> AnswersMeasured {
        let pick = |want: fn(&Verdict) -> bool| {
            verdicts
                .iter()
                .enumerate()
                .filter(|(_, v)| want(v))
                .map(|(i, _)| i)
                .collect()
        };
        AnswersMeasured {
            evaluation: super::evaluate(outcomes),
            faithfulness: judge::faithfulness(verdicts),
            non: pick(|v| *v == Verdict::Non),
            unparsed: pick(|v| matches!(v, Verdict::Unparsed(_))),
            tokens,
            judge_tokens,
        }
    }
}

/// A first stage and its reranking, measured on the answerable questions: where the expected
/// fiche stands before and after, and what no reranker of that stage can beat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RerankMeasured {
    pub answerable: usize,
    /// Expected fiche first, before and after.
    pub first_before: usize,
    pub first_after: usize,
    /// Expected fiche among the [`rerank::KEPT`] kept, before and after.
    pub kept_before: usize,
    pub kept_after: usize,
    /// Expected fiche among the [`rerank::READ`] read: the ceiling's count.
    pub within_read: usize,
    /// [`rerank::ceiling`] over the answerable questions.
    pub ceiling: Option<f64>,
    /// Replies with a fiche omitted, invented, marked twice, or a line unread.
    pub replies_with_omitted: usize,
    pub replies_with_invented: usize,
    pub replies_with_unparsed: usize,
    pub tokens: Tokens,
}

pub fn measure_reranked(r: &Reranked, questions: &[Question]) -> RerankMeasured {
    let mut m = RerankMeasured {
        answerable: 0,
        first_before: 0,
        first_after: 0,
        kept_before: 0,
        kept_after: 0,
        within_read: 0,
        ceiling: None,
        replies_with_omitted: 0,
        replies_with_invented: 0,
        replies_with_unparsed: 0,
        tokens: Tokens::default(),
    };
    let mut ranks = Vec::new();
    for (l, q) in r.lists.iter().zip(questions) {
        m.tokens = m.tokens + l.tokens;
        let marks = l.marks();
        m.replies_with_omitted +=
            usize::from(!marks.omitted.is_empty() || !marks.repeated.is_empty());
        m.replies_with_invented += usize::from(!marks.invented.is_empty());
        m.replies_with_unparsed += usize::from(!marks.unparsed.is_empty());
        let Some(expected) = q.expected.as_deref() else {
            continue;
        };
        m.answerable += 1;
        let before = l.read.iter().position(|id| id == expected);
        let after = l.order().iter().position(|(id, _)| id == expected);
        m.first_before += usize::from(before == Some(0));
        m.first_after += usize::from(after == Some(0));
        m.kept_before += usize::from(before.is_some_and(|p| p < rerank::KEPT));
        m.kept_after += usize::from(after.is_some_and(|p| p < rerank::KEPT));
        m.within_read += usize::from(before.is_some());
        ranks.push(before.map(|p| p + 1));
    }
    m.ceiling = rerank::ceiling(&ranks);
    m
}

/// The reranked lists as a run: each question's ids in the reranker's order with its mark as the
/// score (-1 for a fiche left unmarked), for [`crate::measure::Measurement::outcome`].
pub fn reranked_top(l: &RerankedList) -> Vec<(String, f64)> {
    l.order()
        .into_iter()
        .map(|(id, mark)| (id, mark.map_or(-1.0, f64::from)))
        .collect()
}

/// The name of the reranked method, as tables and exports show it (`mots+ reclassé`).
pub fn reranked_name(stage: &str) -> String {
    format!("{stage} reclassé")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::tests::fiche;
    use crate::data::{Fiche, QuestionKind};

    fn q(kind: QuestionKind, text: &str, expected: Option<&str>) -> Question {
        Question {
            kind,
            text: text.into(),
            expected: expected.map(str::to_owned),
        }
    }

    fn questions() -> Vec<Question> {
        vec![
            q(QuestionKind::Exacte, "Le A-1 ?", Some("A-1")),
            q(QuestionKind::Courante, "Un truc pour B ?", Some("B-1")),
            q(QuestionKind::Absente, "Un piano ?", None),
        ]
    }

    fn answered(sent: &[&str], answer: &str, judge: &str) -> Answered {
        Answered {
            sent: sent.iter().map(|s| s.to_string()).collect(),
            answer: answer.into(),
            finish_reason: Some("stop".into()),
            tokens: Tokens {
                prompt: 100,
                completion: 10,
            },
            judge: judge.into(),
            judge_tokens: Tokens {
                prompt: 120,
                completion: 1,
            },
        }
    }

    fn file(fiches: &[Fiche], questions: &[Question]) -> ShippedAnswers {
        ShippedAnswers {
            format: FORMAT.into(),
            version: VERSION,
            computed: "2026-12-04T23:00:00Z".into(),
            api: MISTRAL_ORIGIN.into(),
            fiches: crate::data::vectors::fingerprint(fiches),
            questions: questions_fingerprint(questions),
            models: Models {
                answer: "mistral-small-latest".into(),
                judge: "mistral-small-latest".into(),
                rerank: "mistral-small-latest".into(),
            },
            prompts: Prompts::current(),
            methods: vec![MethodAnswers {
                method: "mots+".into(),
                answers: vec![
                    answered(&["A-1", "B-1"], "Le A-1 [A-1].", "OUI"),
                    answered(&["A-1", "B-1"], "Prenez [A-1].", "NON"),
                    answered(&["C-1"], "pas dans le catalogue", "Peut-être"),
                ],
            }],
            reranked: vec![Reranked {
                stage: "mots+".into(),
                lists: vec![
                    RerankedList {
                        read: vec!["B-1".into(), "A-1".into()],
                        reply: "B-1 : 2\nA-1 : 9".into(),
                        tokens: Tokens::default(),
                    },
                    RerankedList {
                        read: vec!["A-1".into(), "C-1".into()],
                        reply: "A-1 : 5\nZ-9 : 10".into(),
                        tokens: Tokens::default(),
                    },
                    RerankedList {
                        read: vec!["C-1".into()],
                        reply: "rien".into(),
                        tokens: Tokens::default(),
                    },
                ],
            }],
            catalogue: Vec::new(),
        }
    }

    fn catalogue() -> Vec<Fiche> {
        vec![fiche("A-1"), fiche("B-1"), fiche("C-1")]
    }

    fn parse(
        f: &ShippedAnswers,
        fiches: &[Fiche],
        qs: &[Question],
    ) -> Result<ShippedAnswers, ShippedError> {
        let ids: HashSet<&str> = fiches.iter().map(|f| f.id.as_str()).collect();
        let bytes = serde_json::to_vec(f).unwrap();
        ShippedAnswers::parse(&bytes, &crate::data::vectors::fingerprint(fiches), &ids, qs)
    }

    #[test]
    fn a_file_reads_back_for_its_fiches_and_questions() {
        let (fiches, qs) = (catalogue(), questions());
        let f = file(&fiches, &qs);
        assert_eq!(parse(&f, &fiches, &qs).unwrap(), f);
        assert!(f.from_mistral());
    }

    #[test]
    fn rejects_answers_computed_for_other_fiches_or_questions() {
        let (fiches, qs) = (catalogue(), questions());
        let f = file(&fiches, &qs);
        let mut other = catalogue();
        other[1].texte = "un autre texte".into();
        assert_eq!(parse(&f, &other, &qs), Err(ShippedError::OtherFiches));
        let mut moved = questions();
        moved[1].expected = Some("C-1".into());
        assert_eq!(
            parse(&f, &fiches, &moved),
            Err(ShippedError::OtherQuestions)
        );
        let mut reordered = questions();
        reordered.swap(0, 1);
        assert_eq!(
            parse(&f, &fiches, &reordered),
            Err(ShippedError::OtherQuestions)
        );
    }

    #[test]
    fn rejects_another_format_a_short_list_an_unknown_method_or_fiche() {
        let (fiches, qs) = (catalogue(), questions());
        let ids: HashSet<&str> = fiches.iter().map(|f| f.id.as_str()).collect();
        let fp = crate::data::vectors::fingerprint(&fiches);
        assert!(matches!(
            ShippedAnswers::parse(
                br#"{"format":"rag-fiches/vectors","version":1}"#,
                &fp,
                &ids,
                &qs
            ),
            Err(ShippedError::NotOurs { .. })
        ));
        assert!(matches!(
            ShippedAnswers::parse(b"<html>", &fp, &ids, &qs),
            Err(ShippedError::Unreadable { .. })
        ));
        let mut short = file(&fiches, &qs);
        short.methods[0].answers.pop();
        assert_eq!(
            parse(&short, &fiches, &qs),
            Err(ShippedError::Count {
                part: "mots+".into(),
                expected: 3,
                found: 2
            })
        );
        let mut unknown = file(&fiches, &qs);
        unknown.reranked[0].stage = "bm42".into();
        assert_eq!(
            parse(&unknown, &fiches, &qs),
            Err(ShippedError::UnknownMethod {
                name: "bm42".into()
            })
        );
        let mut invented = file(&fiches, &qs);
        invented.methods[0].answers[0].sent[1] = "Z-9".into();
        assert_eq!(
            parse(&invented, &fiches, &qs),
            Err(ShippedError::UnknownFiche {
                part: "mots+".into(),
                id: "Z-9".into()
            })
        );
        let mut newer = file(&fiches, &qs);
        newer.version = VERSION + 1;
        assert!(matches!(
            parse(&newer, &fiches, &qs),
            Err(ShippedError::NotOurs { .. })
        ));
    }

    #[test]
    fn measures_faithfulness_and_lists_the_non_answers() {
        let (fiches, qs) = (catalogue(), questions());
        let f = file(&fiches, &qs);
        let m = measure(&f.methods[0].answers, &qs);
        // Right fiche cited once (A-1 for the first question; the second cites A-1, not B-1).
        assert_eq!(m.evaluation.cite_expected, 1);
        assert_eq!(m.evaluation.correct_refusals, 1);
        // OUI, NON, unparsed: faithfulness 1 of 2 verdicts read.
        assert_eq!(
            (
                m.faithfulness.oui,
                m.faithfulness.non,
                m.faithfulness.unparsed
            ),
            (1, 1, 1)
        );
        assert_eq!(m.faithfulness.share, Some(0.5));
        assert_eq!(
            (m.non.as_slice(), m.unparsed.as_slice()),
            (&[1][..], &[2][..])
        );
        assert_eq!(
            m.tokens,
            Tokens {
                prompt: 300,
                completion: 30
            }
        );
        assert_eq!(
            m.judge_tokens,
            Tokens {
                prompt: 360,
                completion: 3
            }
        );
    }

    #[test]
    fn measures_a_reranking_against_its_first_stage_and_its_ceiling() {
        let (fiches, qs) = (catalogue(), questions());
        let f = file(&fiches, &qs);
        let m = measure_reranked(&f.reranked[0], &qs);
        // Q1: A-1 second before, first after (9 over 2). Q2: B-1 not read, so not found by
        // either; the ceiling is 1 of 2. Q3 has no expected fiche.
        assert_eq!(m.answerable, 2);
        assert_eq!((m.first_before, m.first_after), (0, 1));
        assert_eq!((m.kept_before, m.kept_after), (1, 1));
        assert_eq!(m.within_read, 1);
        assert_eq!(m.ceiling, Some(0.5));
        // Q2 omits C-1 and invents Z-9; Q3's reply is unread and omits C-1.
        assert_eq!(
            (
                m.replies_with_omitted,
                m.replies_with_invented,
                m.replies_with_unparsed
            ),
            (2, 1, 1)
        );
        assert_eq!(
            reranked_top(&f.reranked[0].lists[1]),
            [("A-1".to_owned(), 5.0), ("C-1".to_owned(), -1.0)]
        );
    }

    #[test]
    fn the_questions_fingerprint_covers_kind_text_and_expected() {
        let qs = questions();
        let base = questions_fingerprint(&qs);
        let mut k = questions();
        k[0].kind = QuestionKind::Courante;
        let mut t = questions();
        t[2].text = "Un piano ? ".into();
        assert_ne!(questions_fingerprint(&k), base);
        assert_ne!(questions_fingerprint(&t), base);
        assert_eq!(questions_fingerprint(&questions()), base);
        assert_eq!(base.len(), 64);
    }
}
