//! « Les ratées »: for each question a method misses (its fiche not in the first five), what the
//! seed's consigne 3 asks — « quel mot de la question manque à la fiche ? » — and which words
//! lifted the fiche that came first instead.

use serde::Serialize;

use crate::data::QuestionKind;
use crate::lab::Lab;
use crate::measure::Measurement;
use crate::search::bm25::Bm25Index;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Missed {
    pub question: String,
    pub expected: String,
    pub rank: Option<usize>,
    /// The fiche ranked first instead.
    pub first: Option<String>,
    /// Question words whose term (after the method's analysis) the expected fiche lacks.
    pub absent: Vec<String>,
    /// Question words that scored the first fiche, the largest share first, with their share.
    pub lifted: Vec<(String, f64)>,
    /// Question words the analysis dropped (stop words, elisions).
    pub dropped: Vec<String>,
}

/// The misses of `m`, read with the keyword `index` (the method's own, or the keyword side of a
/// fusion, or `mots+`'s for a dense method: the words are what a learner can act on).
pub fn missed(lab: &Lab, index: &Bm25Index, m: &Measurement) -> Vec<Missed> {
    m.questions
        .iter()
        .filter(|o| o.kind != QuestionKind::Absente && o.rank.is_none_or(|r| r > 5))
        .filter_map(|o| {
            let expected = o.expected.clone()?;
            let doc = lab.doc_of(&expected)?;
            let e = index.explain(&o.question, doc);
            let mut absent: Vec<String> = Vec::new();
            for t in e.terms.iter().filter(|t| t.tf == 0) {
                if !absent.contains(&t.word) {
                    absent.push(t.word.clone());
                }
            }
            let first = o.top.first().map(|t| t.0.clone());
            let mut lifted: Vec<(String, f64)> = Vec::new();
            if let Some(top) = first.as_deref().and_then(|id| lab.doc_of(id)) {
                for t in index.explain(&o.question, top).terms {
                    if t.contribution <= 0.0 {
                        continue;
                    }
                    match lifted.iter_mut().find(|(w, _)| *w == t.word) {
                        Some(l) => l.1 += t.contribution,
                        None => lifted.push((t.word, t.contribution)),
                    }
                }
            }
            lifted.sort_by(|a, b| b.1.total_cmp(&a.1));
            Some(Missed {
                question: o.question.clone(),
                expected,
                rank: o.rank,
                first,
                absent,
                lifted,
                dropped: e.dropped,
            })
        })
        .collect()
}
