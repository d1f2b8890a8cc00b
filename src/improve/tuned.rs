//! Settings made ready to measure: the keyword index they need, built once.

use std::collections::HashMap;

use crate::data::{Fiche, Question};
use crate::lab::{Encoder, Lab, Method, QuestionVectors, Ranked, SearchError};
use crate::measure::{Measurement, DEPTH};
use crate::search::bm25::{Bm25Index, Bm25Params};
use crate::search::fusion::fuse;

use super::settings::{Enrichment, Settings, SettingsError};

/// How many dense results are kept per question: the deepest fusion the settings allow.
pub const DENSE_TOP: usize = super::settings::MAX_DEPTH;

/// Each question's dense top ([`DENSE_TOP`] results), by question text: a change of keyword
/// settings or of fusion never needs the vectors again.
pub type DenseTops = HashMap<String, Vec<Ranked>>;

/// The dense tops of `questions` under `encoder`, from their `vectors`.
pub fn dense_tops(
    lab: &Lab,
    encoder: Encoder,
    questions: &[Question],
    vectors: &QuestionVectors,
) -> Result<DenseTops, SearchError> {
    let method = match encoder {
        Encoder::Mistral => Method::Sens,
        Encoder::Local => Method::SensLocal,
    };
    let mut out = DenseTops::new();
    for q in questions {
        let v = vectors.get(&q.text).map(Vec::as_slice);
        out.insert(q.text.clone(), lab.search(method, &q.text, v, DENSE_TOP)?);
    }
    Ok(out)
}

/// Settings with the keyword index they need.
#[derive(Debug, Clone)]
pub struct Tuned {
    pub settings: Settings,
    method: Method,
    /// The index of the analysis and enrichments, at the seed's k1 and b (kept while only k1, b
    /// or the fusion change).
    built: Option<(Settings, Bm25Index)>,
    /// That index at the settings' k1 and b.
    index: Option<Bm25Index>,
}

/// The fiches with the words of `enrich` added to their text.
fn enriched(lab: &Lab, enrich: &[Enrichment]) -> Result<Vec<Fiche>, SettingsError> {
    let docs = enrich
        .iter()
        .map(|e| {
            lab.doc_of(&e.id)
                .ok_or_else(|| SettingsError::UnknownFiche(e.id.clone()))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let mut fiches = lab.fiches().to_vec();
    for (e, doc) in enrich.iter().zip(docs) {
        for (i, f) in fiches.iter_mut().enumerate() {
            let target = if e.product {
                lab.products()
                    .same(&lab.fiches()[doc].id, &lab.fiches()[i].id)
            } else {
                i == doc
            };
            if target {
                f.texte.push(' ');
                f.texte.push_str(&e.words);
            }
        }
    }
    Ok(fiches)
}

impl Tuned {
    /// `settings` made ready on `lab`, reusing `previous`'s index when the analysis and the
    /// enrichments are the same (moving k1, b or the fusion does not re-analyse the catalogue).
    pub fn new(
        lab: &Lab,
        settings: Settings,
        previous: Option<Tuned>,
    ) -> Result<Tuned, SettingsError> {
        settings.check()?;
        let method = settings.base()?;
        let params = Bm25Params {
            k1: settings.k1,
            b: settings.b,
        };
        let same_text = |a: &Settings, b: &Settings| {
            a.analysis == b.analysis && a.enrich == b.enrich && a.keyword() == b.keyword()
        };
        let built = match (settings.keyword(), previous.and_then(|p| p.built)) {
            (None, _) => None,
            (Some(_), Some((s, index))) if same_text(&s, &settings) => Some((s, index)),
            (Some(k), _) => {
                let index = if settings.rebuilds() {
                    let fiches = enriched(lab, &settings.enrich)?;
                    Bm25Index::build(&fiches, settings.analysis.analyzer(), Bm25Params::default())
                } else {
                    lab.bm25(k).clone()
                };
                Some((settings.clone(), index))
            }
        };
        let index = built.as_ref().map(|(_, i)| {
            if params == Bm25Params::default() {
                i.clone()
            } else {
                i.with_params(params)
            }
        });
        Ok(Tuned {
            settings,
            method,
            built,
            index,
        })
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// The keyword index in use (`None` for a dense method alone).
    pub fn index(&self) -> Option<&Bm25Index> {
        self.index.as_ref()
    }

    /// The first `k` results for `question` (`dense`: its dense top, for dense methods).
    pub fn search(
        &self,
        question: &str,
        dense: Option<&[Ranked]>,
        k: usize,
    ) -> Result<Vec<Ranked>, SearchError> {
        let s = &self.settings;
        let words = |k: usize| {
            self.index.as_ref().map(|i| {
                i.search(question, k)
                    .into_iter()
                    .map(|h| Ranked {
                        doc: h.doc,
                        score: h.score,
                    })
                    .collect::<Vec<_>>()
            })
        };
        let dense = || {
            dense.ok_or_else(|| SearchError::NoQuestionVector {
                question: question.to_owned(),
            })
        };
        Ok(match self.method {
            Method::Keyword(_) => words(k).unwrap_or_default(),
            Method::Sens | Method::SensLocal => dense()?.iter().take(k).copied().collect(),
            Method::Hybride(_) | Method::HybrideLocal => {
                let kw: Vec<(usize, f64)> = words(s.depth)
                    .unwrap_or_default()
                    .iter()
                    .map(|r| (r.doc, r.score))
                    .collect();
                let dn: Vec<(usize, f64)> = dense()?.iter().map(|r| (r.doc, r.score)).collect();
                let mut fused = fuse(
                    &[(&kw, s.weights[0]), (&dn, s.weights[1])],
                    s.fusion,
                    s.depth,
                );
                fused.truncate(k);
                fused
                    .into_iter()
                    .map(|(doc, score)| Ranked { doc, score })
                    .collect()
            }
        })
    }

    /// Every question measured under the settings, named by [`Settings::name`].
    pub fn measure(
        &self,
        lab: &Lab,
        questions: &[Question],
        dense: &DenseTops,
    ) -> Result<Measurement, SearchError> {
        let outcomes = questions
            .iter()
            .map(|q| {
                let top = self
                    .search(&q.text, dense.get(&q.text).map(Vec::as_slice), DEPTH + 1)?
                    .into_iter()
                    .map(|r| (lab.fiches()[r.doc].id.clone(), r.score))
                    .collect();
                Ok(Measurement::outcome(q, top))
            })
            .collect::<Result<Vec<_>, SearchError>>()?;
        let decimals = match self.method {
            Method::Hybride(_) | Method::HybrideLocal => None,
            m => m.score_decimals(),
        };
        Ok(lab.measurement(&self.settings.name(), decimals, outcomes))
    }
}
