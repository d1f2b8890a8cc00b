//! Reranking, seed 000's extension: « relire les 20 premières fiches avec un modèle qui note leur
//! pertinence, puis garder les 5 meilleures ». One request per question: the model reads the
//! first stage's 20 fiches and gives each a mark from 0 to 10, one line per fiche (pointwise
//! marks, read in one listwise request). The marks are read strictly; a fiche the model omits
//! keeps its first-stage order, after every fiche it marked; a mark for a fiche that was not
//! sent is reported, never used.

use std::collections::HashMap;

use serde::Serialize;

use crate::data::Fiche;
use crate::mistral::chat::Message;

/// Fiches of the first stage read by the reranker.
pub const READ: usize = 20;
/// Fiches kept after it.
pub const KEPT: usize = 5;
/// The highest mark.
pub const MAX_MARK: u8 = 10;

/// The reranker's instructions, in French, as the learner reads them before anything is sent.
pub const RERANK_INSTRUCTIONS: &str = "Tu aides un vendeur de matériaux à trouver les fiches \
qui répondent à la question d'un client. Note chaque fiche de 0 (sans rapport) à 10 (répond \
exactement à la question). Réponds une ligne par fiche, dans l'ordre des fiches, au format \
« AR-0040 : 7 », sans rien d'autre.";

/// The messages sent for `question` and the first stage's `fiches`, in their order. Each fiche
/// is sent as [`super::prompt`] sends it (id, name, text cut past 4,000 characters).
pub fn rerank_prompt(question: &str, fiches: &[&Fiche]) -> Vec<Message> {
    let sent = super::prompt(question, fiches);
    let user = sent.get(1).map(|m| m.content.clone()).unwrap_or_default();
    vec![
        Message {
            role: "system".into(),
            content: RERANK_INSTRUCTIONS.into(),
        },
        Message {
            role: "user".into(),
            content: user,
        },
    ]
}

/// The reranker's answer read, against the ids sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Marks {
    /// The mark of each id sent that the model marked once.
    pub marks: HashMap<String, u8>,
    /// Ids sent that the model did not mark.
    pub omitted: Vec<String>,
    /// Ids marked that were not sent: invented, never used.
    pub invented: Vec<String>,
    /// Ids sent marked more than once: their marks are not used.
    pub repeated: Vec<String>,
    /// Lines that are not « ID : mark » with a mark from 0 to 10, as they came.
    pub unparsed: Vec<String>,
}

/// One line « ID : mark »: the id (brackets allowed), a colon, a whole number from 0 to 10.
fn line(l: &str) -> Option<(&str, u8)> {
    let (id, mark) = l.split_once(':')?;
    let id = id.trim();
    let id = id
        .strip_prefix('[')
        .and_then(|i| i.strip_suffix(']'))
        .unwrap_or(id)
        .trim();
    let mark = mark.trim();
    if id.is_empty()
        || id.contains(char::is_whitespace)
        || mark.is_empty()
        || !mark.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mark: u8 = mark.parse().ok()?;
    (mark <= MAX_MARK).then_some((id, mark))
}

/// The model's text read strictly against `sent` (the ids, in first-stage order).
pub fn parse_marks(text: &str, sent: &[&str]) -> Marks {
    let mut seen: HashMap<String, Vec<u8>> = HashMap::new();
    let mut invented = Vec::new();
    let mut unparsed = Vec::new();
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line(l) {
            Some((id, mark)) if sent.contains(&id) => {
                seen.entry(id.to_owned()).or_default().push(mark)
            }
            Some((id, _)) => {
                if !invented.iter().any(|i| i == id) {
                    invented.push(id.to_owned());
                }
            }
            None => unparsed.push(l.to_owned()),
        }
    }
    let mut marks = HashMap::new();
    let mut omitted = Vec::new();
    let mut repeated = Vec::new();
    for &id in sent {
        match seen.get(id).map(Vec::as_slice) {
            None => omitted.push(id.to_owned()),
            Some([one]) => {
                marks.insert(id.to_owned(), *one);
            }
            Some(_) => repeated.push(id.to_owned()),
        }
    }
    Marks {
        marks,
        omitted,
        invented,
        repeated,
        unparsed,
    }
}

/// The first stage's ids (`sent`, best first) in the reranker's order: marked fiches by falling
/// mark, equal marks in first-stage order; then the others (omitted, or marked more than once)
/// in first-stage order. The first [`KEPT`] are what the method « reclassé » returns.
pub fn reorder<'a>(sent: &[&'a str], marks: &Marks) -> Vec<&'a str> {
    let mut marked: Vec<(usize, &'a str, u8)> = sent
        .iter()
        .enumerate()
        .filter_map(|(i, id)| marks.marks.get(*id).map(|&m| (i, *id, m)))
        .collect();
    // A stable sort: equal marks keep the first stage's order.
    marked.sort_by_key(|m| std::cmp::Reverse(m.2));
    let mut out: Vec<&'a str> = marked.into_iter().map(|(_, id, _)| id).collect();
    out.extend(
        sent.iter()
            .filter(|id| !marks.marks.contains_key(**id))
            .copied(),
    );
    out
}

/// What no reranker of the first stage can beat: the share of answerable questions whose
/// expected fiche is among the first [`READ`] (`ranks`: each answerable question's expected rank
/// in the first stage, from 1, `None` when not found). `None` with no answerable question.
pub fn ceiling(ranks: &[Option<usize>]) -> Option<f64> {
    let within = ranks
        .iter()
        .filter(|r| r.is_some_and(|r| r <= READ))
        .count();
    (!ranks.is_empty()).then(|| within as f64 / ranks.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_read_strictly_against_the_ids_sent() {
        let sent = ["AR-0001", "AR-0002", "AR-0003", "AR-0004", "AR-0005"];
        let text = "AR-0001 : 3\n[AR-0002]: 10\n\nAR-0009 : 8\nAR-0003 : 11\nAR-0004 : 7\nAR-0004 : 2\nVoici mes notes\nAR-0005 : 4,5";
        let m = parse_marks(text, &sent);
        assert_eq!(m.marks.len(), 2);
        assert_eq!(m.marks["AR-0001"], 3);
        assert_eq!(m.marks["AR-0002"], 10);
        assert_eq!(m.invented, ["AR-0009"]);
        assert_eq!(m.repeated, ["AR-0004"]);
        assert_eq!(m.omitted, ["AR-0003", "AR-0005"]);
        assert_eq!(
            m.unparsed,
            ["AR-0003 : 11", "Voici mes notes", "AR-0005 : 4,5"]
        );
    }

    #[test]
    fn marked_fiches_come_first_by_mark_then_the_others_in_their_order() {
        let sent = ["A", "B", "C", "D", "E", "F"];
        // C and E tie at 9: C, first in the first stage, first. B and F omitted, G invented.
        let m = parse_marks("A : 2\nC : 9\nD : 5\nE : 9\nG : 10", &sent);
        assert_eq!(reorder(&sent, &m), ["C", "E", "D", "A", "B", "F"]);
        // Nothing read: the first stage's order.
        let none = parse_marks("désolé", &sent);
        assert_eq!(reorder(&sent, &none), sent);
    }

    #[test]
    fn the_ceiling_is_the_share_found_within_the_first_twenty() {
        assert_eq!(ceiling(&[Some(1), Some(20), Some(21), None]), Some(0.5));
        assert_eq!(ceiling(&[]), None);
    }

    #[test]
    fn the_reranker_reads_every_fiche_sent_and_the_question() {
        use crate::answer::tests::fiche;
        let (a, b) = (fiche("AR-0001"), fiche("AR-0002"));
        let m = rerank_prompt("Quel ciment ?", &[&a, &b]);
        assert_eq!(m[0].content, RERANK_INSTRUCTIONS);
        assert!(m[1]
            .content
            .starts_with("Fiches :\n[AR-0001] nom AR-0001\ntexte AR-0001\n\n[AR-0002]"));
        assert!(m[1].content.ends_with("Question : Quel ciment ?"));
    }
}
