//! Settings made ready to measure: the keyword index they need, built once.

use std::collections::HashMap;

use crate::data::Question;
use crate::lab::{Encoder, Lab, Method, QuestionVectors, Ranked, SearchError};
use crate::measure::{Measurement, QuestionOutcome, DEPTH};
use crate::search::bm25::{Bm25Builder, Bm25Index, Bm25Params};
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

/// The words `enrich` adds to each fiche it targets, by fiche number (each enrichment after a
/// space, in order).
fn extras(lab: &Lab, enrich: &[Enrichment]) -> Result<HashMap<usize, String>, SettingsError> {
    let docs = enrich
        .iter()
        .map(|e| {
            lab.doc_of(&e.id)
                .ok_or_else(|| SettingsError::UnknownFiche(e.id.clone()))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let fiches = lab.fiches();
    let mut out: HashMap<usize, String> = HashMap::new();
    for (e, doc) in enrich.iter().zip(docs) {
        let mut add = |i: usize| {
            let text = out.entry(i).or_default();
            text.push(' ');
            text.push_str(&e.words);
        };
        if e.product {
            for i in 0..fiches.len() {
                if lab.products().same(&fiches[doc].id, &fiches[i].id) {
                    add(i);
                }
            }
        } else {
            add(doc);
        }
    }
    Ok(out)
}

/// The catalogue with `enrich`'s words in its fiches' texts, as JSON lines written as the seed's
/// `fiches.jsonl` is (Python's `json.dumps(…, ensure_ascii=False)`: `id`, `famille`, `nom`,
/// `texte`, `", "` and `": "` between them), so that `diff` against the exercise's file shows the
/// enriched fiches only. The page's « Exporter le catalogue enrichi » and
/// `mesurer --exporter-fiches` write it.
pub fn enriched_jsonl(lab: &Lab, enrich: &[Enrichment]) -> Result<String, SettingsError> {
    // A string's JSON: serialising a `str` cannot fail.
    let json = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let extras = extras(lab, enrich)?;
    let mut out = String::new();
    for (i, f) in lab.fiches().iter().enumerate() {
        let texte = match extras.get(&i) {
            Some(extra) => format!("{}{extra}", f.texte),
            None => f.texte.clone(),
        };
        out += &format!(
            "{{\"id\": {}, \"famille\": {}, \"nom\": {}, \"texte\": {}}}\n",
            json(&f.id),
            json(&f.famille),
            json(&f.nom),
            json(&texte)
        );
    }
    Ok(out)
}

/// The keyword index of some settings being built, a bounded number of bytes at a time
/// ([`Building::step`]): at 50,000 fiches one rebuild is hundreds of milliseconds.
#[derive(Debug, Clone)]
pub struct Building {
    settings: Settings,
    method: Method,
    builder: Bm25Builder,
    extras: HashMap<usize, String>,
}

impl Building {
    /// Indexes the next fiches until about `bytes` of text are analysed (at least one fiche);
    /// returns the bytes analysed. [`Building::done`] once every fiche is in.
    pub fn step(&mut self, lab: &Lab, bytes: usize) -> usize {
        let fiches = lab.fiches();
        let mut spent = 0;
        while self.builder.fiches() < fiches.len() && (spent == 0 || spent < bytes) {
            let doc = self.builder.fiches();
            let texte = &fiches[doc].texte;
            match self.extras.get(&doc) {
                Some(extra) => {
                    self.builder.add(&format!("{texte}{extra}"));
                    spent += texte.len() + extra.len();
                }
                None => {
                    self.builder.add(texte);
                    spent += texte.len();
                }
            }
            spent = spent.max(1);
        }
        spent
    }

    /// How many fiches are indexed.
    pub fn indexed(&self) -> usize {
        self.builder.fiches()
    }

    pub fn done(&self, lab: &Lab) -> bool {
        self.builder.fiches() == lab.fiches().len()
    }

    /// The settings ready to measure (every fiche indexed: see [`Building::done`]).
    pub fn finish(self, lab: &Lab) -> Tuned {
        let index = self.builder.finish(lab.fiches(), Bm25Params::default());
        Tuned::with_built(self.settings, self.method, Some(index))
    }
}

/// Settings made ready at once, or whose index is still to build.
#[derive(Debug, Clone)]
pub enum Start {
    Ready(Tuned),
    Building(Building),
}

impl Tuned {
    /// `settings` made ready on `lab`, reusing `previous`'s index when the analysis and the
    /// enrichments are the same (moving k1, b or the fusion does not re-analyse the catalogue).
    pub fn new(
        lab: &Lab,
        settings: Settings,
        previous: Option<Tuned>,
    ) -> Result<Tuned, SettingsError> {
        Ok(match Tuned::start(lab, settings, previous)? {
            Start::Ready(t) => t,
            Start::Building(mut b) => {
                b.step(lab, usize::MAX);
                b.finish(lab)
            }
        })
    }

    /// [`Tuned::new`], the index to rebuild (if any) left to [`Building::step`].
    pub fn start(
        lab: &Lab,
        settings: Settings,
        previous: Option<Tuned>,
    ) -> Result<Start, SettingsError> {
        settings.check()?;
        let method = settings.base()?;
        let same_text = |a: &Settings, b: &Settings| {
            a.analysis == b.analysis && a.enrich == b.enrich && a.keyword() == b.keyword()
        };
        let built = match (settings.keyword(), previous.and_then(|p| p.built)) {
            (None, _) => None,
            (Some(_), Some((s, index))) if same_text(&s, &settings) => Some(index),
            (Some(_), _) if settings.rebuilds() => {
                return Ok(Start::Building(Building {
                    extras: extras(lab, &settings.enrich)?,
                    builder: Bm25Builder::new(settings.analysis.analyzer()),
                    settings,
                    method,
                }))
            }
            (Some(k), _) => Some(lab.bm25(k).clone()),
        };
        Ok(Start::Ready(Tuned::with_built(settings, method, built)))
    }

    /// `settings` with `built`, their analysis's index at the seed's k1 and b.
    fn with_built(settings: Settings, method: Method, built: Option<Bm25Index>) -> Tuned {
        let params = Bm25Params {
            k1: settings.k1,
            b: settings.b,
        };
        let index = built.as_ref().map(|i| {
            if params == Bm25Params::default() {
                i.clone()
            } else {
                i.with_params(params)
            }
        });
        Tuned {
            built: built.map(|i| (settings.clone(), i)),
            settings,
            method,
            index,
        }
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

    /// One question measured under the settings (`dense`: the dense tops, for dense methods).
    pub fn outcome(
        &self,
        lab: &Lab,
        question: &Question,
        dense: &DenseTops,
    ) -> Result<QuestionOutcome, SearchError> {
        let top = self
            .search(
                &question.text,
                dense.get(&question.text).map(Vec::as_slice),
                DEPTH + 1,
            )?
            .into_iter()
            .map(|r| (lab.fiches()[r.doc].id.clone(), r.score))
            .collect();
        Ok(Measurement::outcome(question, top))
    }

    /// The measurement of these settings from every question's outcome, named by
    /// [`Settings::name`].
    pub fn measurement(&self, lab: &Lab, outcomes: Vec<QuestionOutcome>) -> Measurement {
        let decimals = match self.method {
            Method::Hybride(_) | Method::HybrideLocal => None,
            m => m.score_decimals(),
        };
        lab.measurement(&self.settings.name(), decimals, outcomes)
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
            .map(|q| self.outcome(lab, q, dense))
            .collect::<Result<Vec<_>, SearchError>>()?;
        Ok(self.measurement(lab, outcomes))
    }
}
