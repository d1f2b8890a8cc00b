//! The answer: a model reads the fiches found and answers, citing them as `[AR-0040]`, or says
//! exactly « pas dans le catalogue ». Here as pure functions: the prompt, the chat request and
//! response, the checks of citations and refusals, and the evaluation over a question set (seed
//! 001's correct refusals and false refusals).

use std::collections::HashSet;

/// The answer judged by a second model: faithfulness (seed 001).
pub mod judge;
/// The first stage's top 20 re-read by a chat model, the 5 best kept (seed 000's extension).
pub mod rerank;
/// The answers computed once and shipped for learners without a key (`data/reponses.json`).
pub mod shipped;

use serde::Serialize;

use crate::data::{Fiche, QuestionKind};
use crate::mistral::chat::Message;
use crate::search::analysis::{window, Analyzer};

/// The exact refusal the model is asked for.
pub const REFUSAL: &str = "pas dans le catalogue";
/// Fiches sent with a question: the first five of the chosen method.
pub const FICHES_SENT: usize = 5;

/// The instructions, in French, as the learner reads them before the first call.
pub const INSTRUCTIONS: &str = "Tu es l'assistant du Comptoir Arcelle, un négoce de matériaux. \
Réponds à la question du client uniquement à partir des fiches ci-dessous, en français, en deux ou trois phrases. \
Cite chaque fiche que tu utilises par son numéro entre crochets, par exemple [AR-0040]. \
N'invente ni produit ni numéro. Si aucune fiche ne répond à la question, réponds exactement : pas dans le catalogue";

/// Characters of a fiche's text sent with a question: a longer fiche is sent cut, and the prompt
/// says so. (The exercise's fiches have at most 222; five learner's fiches of 3 MB would make a
/// 16 MB request no model reads.)
pub const PROMPT_FICHE_CHARS: usize = 4_000;
/// Bytes of a long fiche searched for the question's first word (under `mots+`'s analysis), so
/// that the part sent is the part that matched; and characters sent before that word.
const PROMPT_MATCH_BYTES: usize = 16 << 10;
const PROMPT_BEFORE_MATCH: usize = 800;

/// The messages sent for `question` with `fiches` (in rank order): the instructions, then the
/// fiches and the question. Only each fiche's id, name and text are sent: a text longer than
/// [`PROMPT_FICHE_CHARS`] characters is cut to that many, from its beginning, or from a little
/// before the first word of the question it holds when that lies further (as the page's
/// excerpt); each cut is marked.
pub fn prompt(question: &str, fiches: &[&Fiche]) -> Vec<Message> {
    messages(question, fiches, true)
}

/// [`prompt`]'s size without looking for the question's words in the fiches: each long fiche is
/// cut from its beginning to the same number of characters (the request that leaves a fiche's
/// beginning out is 4 characters longer, for its « […] »). What cost estimates use: they cover
/// every question of a set, and analysing each long fiche up to its first match would cost
/// milliseconds per question.
pub fn prompt_sized(question: &str, fiches: &[&Fiche]) -> Vec<Message> {
    messages(question, fiches, false)
}

/// The largest catalogue « tout le catalogue » is offered for, in bytes of fiche text: about
/// 75,000 to 100,000 tokens of French, within the offered models' context windows with room for
/// the instructions and the answer. The exercise's 200 fiches are 35,673 bytes; a learner's
/// 50,000 fiches would be a prompt no model reads.
pub const CATALOGUE_MAX_BYTES: usize = 300_000;

/// Whether « tout le catalogue » can be sent for `fiches` (see [`CATALOGUE_MAX_BYTES`]).
pub fn catalogue_fits(fiches: &[Fiche]) -> bool {
    // Stops at the first fiche past the limit: the page asks at every render.
    fiches
        .iter()
        .map(|f| f.id.len() + f.nom.len() + f.texte.len().min(PROMPT_FICHE_CHARS * 4))
        .try_fold(0usize, |sum, n| {
            Some(sum + n).filter(|&s| s <= CATALOGUE_MAX_BYTES)
        })
        .is_some()
}

/// The messages for « tout le catalogue dans la question »: no retrieval, every fiche sent (in
/// catalogue order, each cut as [`prompt`] cuts), with the same instructions. The control for
/// every retrieval method: with 200 short fiches, the whole catalogue fits in one prompt.
pub fn catalogue_prompt(question: &str, fiches: &[Fiche]) -> Vec<Message> {
    let all: Vec<&Fiche> = fiches.iter().collect();
    messages(question, &all, true)
}

/// [`catalogue_prompt`]'s size for estimates (see [`prompt_sized`]).
pub fn catalogue_prompt_sized(question: &str, fiches: &[Fiche]) -> Vec<Message> {
    let all: Vec<&Fiche> = fiches.iter().collect();
    messages(question, &all, false)
}

fn messages(question: &str, fiches: &[&Fiche], locate: bool) -> Vec<Message> {
    let terms: HashSet<String> = if locate {
        Analyzer::French.terms(question).into_iter().collect()
    } else {
        HashSet::new()
    };
    let mut user = String::from("Fiches :\n");
    for f in fiches {
        let long = locate && f.texte.len() > PROMPT_FICHE_CHARS;
        let first = long
            .then(|| Analyzer::French.first_match(&f.texte, &terms, PROMPT_MATCH_BYTES))
            .flatten();
        let (start, end) = window(&f.texte, first, PROMPT_FICHE_CHARS, PROMPT_BEFORE_MATCH);
        let text = format!(
            "{}{}{}",
            if start > 0 { "[…] " } else { "" },
            &f.texte[start..end],
            if end < f.texte.len() {
                " […fiche coupée]"
            } else {
                ""
            }
        );
        user += &format!("[{}] {}\n{}\n\n", f.id, f.nom, text);
    }
    user += &format!("Question : {question}");
    vec![
        Message {
            role: "system".into(),
            content: INSTRUCTIONS.into(),
        },
        Message {
            role: "user".into(),
            content: user,
        },
    ]
}

/// What the checks found in an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerCheck {
    /// Ids cited, in order of first citation.
    pub citations: Vec<String>,
    /// Cited ids that were not among the fiches sent: invented.
    pub invented: Vec<String>,
    /// The answer is the refusal.
    pub refused: bool,
    /// An answer (not a refusal) that cites no fiche.
    pub uncited: bool,
}

/// The ids in square brackets: `[AR-0040]`, `[AR-0040, AR-0041]`, `[AR-0040; AR-0041]`.
pub fn citations(answer: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        for part in after[..close].split([',', ';']) {
            let id = part.trim();
            let plausible = !id.is_empty()
                && id.len() <= 64
                && !id.contains(char::is_whitespace)
                && id.chars().any(|c| c.is_ascii_digit());
            if plausible && !out.iter().any(|x| x == id) {
                out.push(id.to_owned());
            }
        }
        rest = &after[close + 1..];
    }
    out
}

/// Whether `answer` is the refusal: once lowercased, stripped of quotes, spaces and final
/// punctuation, it is « pas dans le catalogue » (possibly after a short lead such as « Désolé, »).
pub fn is_refusal(answer: &str) -> bool {
    let t: String = answer
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, '«' | '»' | '"' | '*' | '“' | '”'))
        .collect();
    let t = t.trim().trim_end_matches(['.', '!', ' ', '\u{a0}']).trim();
    t == REFUSAL
        || (t.ends_with(REFUSAL) && t.len() <= REFUSAL.len() + 24 && citations(answer).is_empty())
}

/// Where the fiches sent with a question come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Source {
    /// The first [`FICHES_SENT`] of a retrieval method.
    Method(crate::lab::Method),
    /// Every fiche of the catalogue: no retrieval, the control.
    Catalogue,
}

impl Source {
    pub const CATALOGUE: &'static str = "tout le catalogue";

    pub fn name(self) -> &'static str {
        match self {
            Source::Method(m) => m.name(),
            Source::Catalogue => Source::CATALOGUE,
        }
    }

    /// A source by the name [`Source::name`] gives it (or a method's slug).
    pub fn parse(name: &str) -> Option<Source> {
        if name == Source::CATALOGUE {
            Some(Source::Catalogue)
        } else {
            crate::lab::Method::parse(name).map(Source::Method)
        }
    }

    pub fn method(self) -> Option<crate::lab::Method> {
        match self {
            Source::Method(m) => Some(m),
            Source::Catalogue => None,
        }
    }
}

/// Checks an answer against the ids of the fiches sent.
pub fn check(answer: &str, sent: &[&str]) -> AnswerCheck {
    let cited = citations(answer);
    let sent: HashSet<&str> = sent.iter().copied().collect();
    let invented = cited
        .iter()
        .filter(|c| !sent.contains(c.as_str()))
        .cloned()
        .collect();
    let refused = is_refusal(answer);
    AnswerCheck {
        uncited: !refused && cited.is_empty(),
        citations: cited,
        invented,
        refused,
    }
}

/// One question's answer, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerOutcome {
    pub kind: QuestionKind,
    pub question: String,
    pub expected: Option<String>,
    pub answer: String,
    pub check: AnswerCheck,
    /// The model stopped at a length limit (`finish_reason` `length` or `model_length`): the
    /// answer is incomplete, so a missing citation says nothing about the fiches.
    pub cut: bool,
}

impl AnswerOutcome {
    /// Right: a question without an answer refused, or one with an answer that cites its
    /// expected fiche (and invents no citation).
    pub fn is_right(&self) -> bool {
        match self.kind {
            QuestionKind::Absente => self.check.refused,
            QuestionKind::Exacte | QuestionKind::Courante => {
                self.cites_expected() && self.check.invented.is_empty()
            }
        }
    }

    pub fn cites_expected(&self) -> bool {
        self.expected
            .as_ref()
            .is_some_and(|e| self.check.citations.contains(e))
    }
}

/// Seed 001's figures over a set of answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerEvaluation {
    pub answered: usize,
    pub answerable: usize,
    pub absent: usize,
    /// Absente questions answered « pas dans le catalogue ».
    pub correct_refusals: usize,
    /// Answerable questions answered « pas dans le catalogue ».
    pub false_refusals: usize,
    /// Answerable questions whose answer cites the expected fiche.
    pub cite_expected: usize,
    /// Answers citing at least one fiche that was not sent.
    pub with_invented: usize,
    /// Answers (not refusals, not cut) without any citation.
    pub uncited: usize,
    /// Answers cut by a length limit.
    pub cut: usize,
}

pub fn evaluate(outcomes: &[AnswerOutcome]) -> AnswerEvaluation {
    let absent = |o: &&AnswerOutcome| o.kind == QuestionKind::Absente;
    AnswerEvaluation {
        answered: outcomes.len(),
        answerable: outcomes.iter().filter(|o| !absent(o)).count(),
        absent: outcomes.iter().filter(absent).count(),
        correct_refusals: outcomes
            .iter()
            .filter(absent)
            .filter(|o| o.check.refused)
            .count(),
        false_refusals: outcomes
            .iter()
            .filter(|o| !absent(o) && o.check.refused)
            .count(),
        cite_expected: outcomes.iter().filter(|o| o.cites_expected()).count(),
        with_invented: outcomes
            .iter()
            .filter(|o| !o.check.invented.is_empty())
            .count(),
        uncited: outcomes
            .iter()
            .filter(|o| o.check.uncited && !o.cut)
            .count(),
        cut: outcomes.iter().filter(|o| o.cut).count(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::mistral::chat::chat_request;

    /// A fiche named and written after its id (the answer modules' tests share it).
    pub(crate) fn fiche(id: &str) -> Fiche {
        Fiche {
            id: id.into(),
            famille: "f".into(),
            nom: format!("nom {id}"),
            texte: format!("texte {id}"),
        }
    }

    #[test]
    fn a_giant_fiche_is_sent_cut_and_the_prompt_says_so() {
        let mut giant = fiche("G-1");
        giant.texte = "é".repeat(3_000_000);
        let small = fiche("S-1");
        let m = prompt("q", &[&giant, &small]);
        let user = &m[1].content;
        assert!(user.contains(&format!(
            "{} […fiche coupée]",
            "é".repeat(PROMPT_FICHE_CHARS)
        )));
        assert!(!user.contains(&"é".repeat(PROMPT_FICHE_CHARS + 1)));
        // A fiche within the limit is sent whole, unmarked.
        assert!(user.contains("[S-1] nom S-1\ntexte S-1\n"));
        assert_eq!(user.matches("fiche coupée").count(), 1);
    }

    #[test]
    fn a_long_fiche_is_sent_from_a_little_before_the_question_s_first_word() {
        let mut long = fiche("L-1");
        let filler = "Boîte de vis pour la quincaillerie. ".repeat(300);
        long.texte = format!("{filler}Les pouzzolanes en vrac drainent le jardin. {filler}");
        let user = &prompt("De la pouzzolane ?", &[&long])[1].content;
        let sent = user
            .split_once("[L-1] nom L-1\n")
            .map(|(_, rest)| rest.split_once("\n\n").map_or(rest, |(s, _)| s))
            .unwrap_or_default();
        assert!(sent.starts_with("[…] Boîte de vis"), "{}", &sent[..40]);
        assert!(sent.ends_with(" […fiche coupée]"));
        assert!(sent.contains("quincaillerie. Les pouzzolanes en vrac drainent le jardin."));
        let body = &sent["[…] ".len()..sent.len() - " […fiche coupée]".len()];
        assert_eq!(body.chars().count(), PROMPT_FICHE_CHARS);
        // Without its word in the fiche, the beginning is sent, as before.
        let user = &prompt("Un marteau ?", &[&long])[1].content;
        assert!(user.contains("[L-1] nom L-1\nBoîte de vis"));
        // The estimate's version: the beginning, the same number of characters but the « […] ».
        let sized = &prompt_sized("De la pouzzolane ?", &[&long])[1].content;
        let located = &prompt("De la pouzzolane ?", &[&long])[1].content;
        assert!(sized.contains("[L-1] nom L-1\nBoîte de vis"));
        assert_eq!(
            sized.chars().count() + "[…] ".chars().count(),
            located.chars().count()
        );
        let short = fiche("S-1");
        assert_eq!(prompt_sized("q", &[&short]), prompt("q", &[&short]));
    }

    #[test]
    fn the_prompt_holds_instructions_fiches_and_question_only() {
        let (a, b) = (fiche("AR-0001"), fiche("AR-0002"));
        let m = prompt("Un joint ?", &[&a, &b]);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].role, "system");
        assert!(
            m[0].content.contains("[AR-0040]") && m[0].content.ends_with("pas dans le catalogue")
        );
        assert_eq!(m[1].content, "Fiches :\n[AR-0001] nom AR-0001\ntexte AR-0001\n\n[AR-0002] nom AR-0002\ntexte AR-0002\n\nQuestion : Un joint ?");
        let body = chat_request("mistral-small-latest", &m);
        assert!(body.starts_with(r#"{"model":"mistral-small-latest","messages":[{"role":"system""#));
        assert!(body.ends_with(r#""temperature":0.0}"#));
    }

    #[test]
    fn finds_citations_in_every_bracket_form() {
        assert_eq!(
            citations("Le joint [AR-0032] ou [AR-0031, AR-0030; AR-0032]."),
            ["AR-0032", "AR-0031", "AR-0030"]
        );
        assert_eq!(citations("[voir] [] [AR-1"), Vec::<String>::new());
    }

    #[test]
    fn flags_invented_citations_and_uncited_answers() {
        let c = check("Prenez [AR-0001] ou [AR-9999].", &["AR-0001", "AR-0002"]);
        assert_eq!(c.invented, ["AR-9999"]);
        assert!(!c.refused && !c.uncited);
        let c = check("Prenez un joint époxy.", &["AR-0001"]);
        assert!(c.uncited && c.citations.is_empty());
    }

    #[test]
    fn recognises_the_refusal_and_only_it() {
        for r in [
            "pas dans le catalogue",
            "Pas dans le catalogue.",
            "« pas dans le catalogue »",
            "Désolé, pas dans le catalogue.",
        ] {
            assert!(is_refusal(r), "{r}");
            assert!(!check(r, &[]).uncited, "a refusal is not an uncited answer");
        }
        for a in [
            "Ce produit n'est pas dans le catalogue, mais le [AR-0001] convient.",
            "Le ciment [AR-0001].",
        ] {
            assert!(!is_refusal(a), "{a}");
        }
    }

    #[test]
    fn evaluation_counts_refusals_and_citations() {
        let o = |kind, expected: Option<&str>, answer: &str| AnswerOutcome {
            kind,
            question: "q".into(),
            expected: expected.map(str::to_owned),
            answer: answer.into(),
            check: check(answer, &["AR-1", "AR-2"]),
            cut: false,
        };
        let e = evaluate(&[
            o(QuestionKind::Absente, None, "pas dans le catalogue"),
            o(QuestionKind::Absente, None, "Voyez [AR-1]."),
            o(QuestionKind::Courante, Some("AR-2"), "Prenez [AR-2]."),
            o(
                QuestionKind::Courante,
                Some("AR-1"),
                "pas dans le catalogue",
            ),
            o(QuestionKind::Exacte, Some("AR-1"), "C'est [AR-7]."),
        ]);
        assert_eq!((e.answerable, e.absent), (3, 2));
        assert_eq!((e.correct_refusals, e.false_refusals), (1, 1));
        assert_eq!((e.cite_expected, e.with_invented, e.uncited), (1, 1, 0));
        // A cut answer without a citation is counted as cut, not as uncited.
        let cut = AnswerOutcome {
            cut: true,
            ..o(QuestionKind::Courante, Some("AR-2"), "Prenez la")
        };
        let e = evaluate(&[cut, o(QuestionKind::Courante, Some("AR-2"), "Prenez la")]);
        assert_eq!((e.uncited, e.cut), (1, 1));
    }
}
