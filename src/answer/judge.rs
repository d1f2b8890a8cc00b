//! Faithfulness, as seed 001 measures it: a second model, cheaper, reads the question, the fiches
//! sent and the answer, and says OUI when every claim of the answer is supported by those fiches,
//! NON otherwise. « Le rappel@4 vaut 1,0 mais la fidélité vaut 0,6 : où chercher le problème ? »
//! — retrieval right, answer wrong. Its verdict is read strictly: anything but OUI or NON is
//! reported as unparsed and never counted.

use serde::Serialize;

use crate::data::Fiche;
use crate::mistral::chat::Message;

/// The judge's instructions, in French, as the learner reads them before anything is sent.
pub const JUDGE_INSTRUCTIONS: &str = "Tu vérifies la réponse d'un assistant. \
Réponds OUI si chaque affirmation de la réponse est appuyée par les fiches ci-dessous, NON sinon. \
Une réponse « pas dans le catalogue » est appuyée si aucune fiche ne répond à la question. \
Réponds par un seul mot : OUI ou NON.";

/// The messages sent to the judge for one answer: the instructions, then the fiches that were
/// sent with the question (their id, name and text, as [`super::prompt`] sent them), the
/// question and the answer.
pub fn judge_prompt(question: &str, fiches: &[&Fiche], answer: &str) -> Vec<Message> {
    judge_from(&super::prompt(question, fiches), question, answer)
}

/// [`judge_prompt`] from the messages the answer was written from (`sent`, as [`super::prompt`]
/// or [`super::catalogue_prompt`] made them): the judge reads exactly the fiches the model read.
pub fn judge_from(sent: &[Message], question: &str, answer: &str) -> Vec<Message> {
    let fiches_part = sent
        .get(1)
        .map(|m| {
            m.content
                .rsplit_once("Question : ")
                .map_or(m.content.as_str(), |(f, _)| f)
        })
        .unwrap_or_default();
    vec![
        Message {
            role: "system".into(),
            content: JUDGE_INSTRUCTIONS.into(),
        },
        Message {
            role: "user".into(),
            content: format!("{fiches_part}Question : {question}\n\nRéponse : {answer}"),
        },
    ]
}

/// What the judge said.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Verdict {
    /// Every claim supported.
    Oui,
    /// At least one claim the fiches do not support: to be re-read by hand.
    Non,
    /// Neither: the judge's text as it came, never counted.
    Unparsed(String),
}

/// The judge's text read strictly: OUI or NON, in any case, alone but for white space and one
/// final full stop. « Oui, car… », « NON !», an empty answer are [`Verdict::Unparsed`].
pub fn parse_verdict(text: &str) -> Verdict {
    let t = text.trim();
    let t = t.strip_suffix('.').unwrap_or(t).trim_end();
    if t.eq_ignore_ascii_case("oui") {
        Verdict::Oui
    } else if t.eq_ignore_ascii_case("non") {
        Verdict::Non
    } else {
        Verdict::Unparsed(text.to_owned())
    }
}

/// Faithfulness over a set of judged answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Faithfulness {
    pub judged: usize,
    pub oui: usize,
    pub non: usize,
    pub unparsed: usize,
    /// OUI over OUI and NON; `None` when no verdict was read.
    pub share: Option<f64>,
}

pub fn faithfulness(verdicts: &[Verdict]) -> Faithfulness {
    let count = |f: fn(&Verdict) -> bool| verdicts.iter().filter(|v| f(v)).count();
    let oui = count(|v| *v == Verdict::Oui);
    let non = count(|v| *v == Verdict::Non);
    Faithfulness {
        judged: verdicts.len(),
        oui,
        non,
        unparsed: verdicts.len() - oui - non,
        share: (oui + non > 0).then(|| oui as f64 / (oui + non) as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::tests::fiche;

    #[test]
    fn only_oui_or_non_alone_is_a_verdict() {
        for (text, want) in [
            ("OUI", Verdict::Oui),
            (" non\n", Verdict::Non),
            ("Oui.", Verdict::Oui),
            ("NON .", Verdict::Non),
        ] {
            assert_eq!(parse_verdict(text), want, "{text:?}");
        }
        for text in [
            "Oui, car la fiche le dit",
            "NON !",
            "",
            "OUI OUI",
            "Peut-être",
            "oui..",
            "**OUI**",
        ] {
            assert_eq!(
                parse_verdict(text),
                Verdict::Unparsed(text.into()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn faithfulness_counts_oui_over_the_verdicts_read() {
        let v = [
            Verdict::Oui,
            Verdict::Oui,
            Verdict::Oui,
            Verdict::Non,
            Verdict::Unparsed("?".into()),
        ];
        let f = faithfulness(&v);
        assert_eq!((f.judged, f.oui, f.non, f.unparsed), (5, 3, 1, 1));
        assert_eq!(f.share, Some(0.75));
        assert_eq!(
            faithfulness(&[Verdict::Unparsed(String::new())]).share,
            None
        );
        assert_eq!(faithfulness(&[]).share, None);
    }

    #[test]
    fn the_judge_reads_the_fiches_sent_the_question_and_the_answer() {
        let (a, b) = (fiche("AR-0001"), fiche("AR-0002"));
        let m = judge_prompt("Quel ciment ?", &[&a, &b], "Le ciment gris [AR-0001].");
        assert_eq!(m[0].content, JUDGE_INSTRUCTIONS);
        assert_eq!(
            m[1].content,
            "Fiches :\n[AR-0001] nom AR-0001\ntexte AR-0001\n\n[AR-0002] nom AR-0002\ntexte AR-0002\n\n\
             Question : Quel ciment ?\n\nRéponse : Le ciment gris [AR-0001]."
        );
    }
}
