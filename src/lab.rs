//! The lab: one catalogue, its indexes and vectors, and the retrieval methods the page and the
//! terminal offer. Both fronts call these functions; that is why they print the same numbers.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::data::vectors::{VectorSet, VectorsError, VectorsInfo};
use crate::data::{Fiche, Question};
use crate::measure::products::Products;
use crate::measure::{Measurement, QuestionOutcome, DEPTH};
use crate::search::analysis::Analyzer;
use crate::search::bm25::{Bm25Index, Bm25Params, Explanation};
use crate::search::dense::{self, DenseError};
use crate::search::fusion::{self, rrf, RRF_DEPTH, RRF_K};

mod away;
mod method;
pub mod rehearsal;

pub use away::vector_key;
use away::DENSE_MEMO_CAP;

pub use method::{Encoder, Keyword, Method};

/// One result of a search: the fiche's position in the catalogue, and its raw score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ranked {
    pub doc: usize,
    pub score: f64,
}

/// Why a dense method cannot run.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchError {
    /// No fiche vectors are loaded (for this encoder).
    NoVectors,
    /// The question's vector is not known (not embedded yet).
    NoQuestionVector {
        question: String,
    },
    Dense(DenseError),
    /// The fiche vectors are held elsewhere (the page's worker) and this question's dense top
    /// has not come back yet: ask it with [`Lab::remember_dense`]'s counterpart, then search again.
    Pending,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::NoVectors => {
                write!(f, "no fiche vectors are loaded: compute or load them first")
            }
            SearchError::NoQuestionVector { question } => {
                write!(f, "the question {question:?} has not been embedded")
            }
            SearchError::Dense(e) => e.fmt(f),
            SearchError::Pending => write!(f, "the dense top is being computed elsewhere"),
        }
    }
}

impl std::error::Error for SearchError {}

/// The positions (from 0, inclusive) of the results tied with result `i`: equal scores, which the
/// ranking orders by a tie rule (the seed's: the larger id first), not by merit. A learner should
/// read « rangs 2–5, ex æquo », not « rang 2 ».
pub fn tie_span(hits: &[Ranked], i: usize) -> (usize, usize) {
    let Some(score) = hits.get(i).map(|h| h.score) else {
        return (i, i);
    };
    let first = hits[..i]
        .iter()
        .rposition(|h| h.score != score)
        .map_or(0, |p| p + 1);
    let last = hits[i..]
        .iter()
        .position(|h| h.score != score)
        .map_or(hits.len() - 1, |p| i + p - 1);
    (first, last)
}

/// What one word of a question becomes under `mots` and under `mots+`: its term, and whether
/// any fiche holds that term; `None` when the analyser drops the word (stop word, elision).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordChange {
    pub word: String,
    pub mots: Option<(String, bool)>,
    pub mots_plus: Option<(String, bool)>,
}

impl WordChange {
    /// Whether the two methods treat the word differently (one finds it, the other does not).
    pub fn differs(&self) -> bool {
        let found = |t: &Option<(String, bool)>| t.as_ref().is_some_and(|(_, f)| *f);
        found(&self.mots) != found(&self.mots_plus)
            || self.mots.is_some() != self.mots_plus.is_some()
    }
}

/// Questions' vectors, by question text.
pub type QuestionVectors = HashMap<String, Vec<f32>>;

/// How a fused score was made: each list's rank of the fiche (from 1), if in its top 50.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusionExplanation {
    pub keyword_rank: Option<usize>,
    pub dense_rank: Option<usize>,
    pub points: f64,
}

/// A catalogue ready to search: the fiches, one BM25 index per keyword method, and optionally
/// the fiches' vectors.
#[derive(Debug, Clone)]
pub struct Lab {
    fiches: Vec<Fiche>,
    mots: Bm25Index,
    mots_plus: Bm25Index,
    vectors: Option<VectorSet>,
    /// The local encoder's fiche vectors.
    local: Option<VectorSet>,
    /// Mistral fiche vectors held by another thread (the page's worker), by the id it knows them
    /// by: dense tops come from there into `dense_memo` ([`Lab::remember_dense`]); a search the
    /// memo cannot answer is [`SearchError::Pending`].
    away: Option<(u64, VectorsInfo)>,
    /// Dense top lists already computed, by encoder and question vector: `sens`, `hybride` and
    /// `hybride+` need the same scan of every fiche vector for a question (at 50,000 fiches, 24
    /// ms each), as do the columns, the summary and the answer of one render. Each list is the
    /// top [`RRF_DEPTH`] (or more when asked), and a shorter top is its prefix (the order is
    /// total: score, then position), so a cached answer is exactly the computed one. Emptied
    /// when vectors change.
    dense_memo: std::cell::RefCell<HashMap<(Encoder, u64), Vec<Ranked>>>,
    /// The fiches' [`fingerprint`](crate::data::vectors::fingerprint), computed once: every
    /// vectors file attached and every cache key is checked against it.
    fingerprint: std::cell::OnceCell<String>,
    /// Each fiche's position by id, built at the first [`Lab::doc_of`].
    by_id: std::cell::OnceCell<HashMap<String, usize>>,
    /// The fiches' products, derived at the first [`Lab::products`].
    products: std::cell::OnceCell<Products>,
}

impl Lab {
    /// Indexes `fiches` for every keyword method, with the seed's BM25 parameters.
    pub fn new(fiches: Vec<Fiche>) -> Lab {
        crate::steps::run_ready(Lab::new_pausing(fiches, |_| std::future::ready(())))
    }

    /// [`Lab::new`], awaiting `pause(fiches indexed, over both indexes)` between steps of
    /// [`crate::search::bm25::Bm25Index::build_pausing`].
    pub async fn new_pausing<F, Fut>(fiches: Vec<Fiche>, mut pause: F) -> Lab
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let params = Bm25Params::default();
        let n = fiches.len();
        let mots = Bm25Index::build_pausing(&fiches, Analyzer::Seed, params, &mut pause).await;
        let mots_plus =
            Bm25Index::build_pausing(&fiches, Analyzer::French, params, |d| pause(n + d)).await;
        Lab {
            fiches,
            mots,
            mots_plus,
            vectors: None,
            local: None,
            away: None,
            dense_memo: Default::default(),
            fingerprint: Default::default(),
            by_id: Default::default(),
            products: Default::default(),
        }
    }

    /// The position of the fiche `id`, if it is one of these.
    pub fn doc_of(&self, id: &str) -> Option<usize> {
        self.by_id
            .get_or_init(|| {
                self.fiches
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.id.clone(), i))
                    .collect()
            })
            .get(id)
            .copied()
    }

    /// Builds the lookup of fiches by id ([`Lab::doc_of`]) and the products ([`Lab::products`])
    /// in steps, awaiting `pause` between them, if they are not built yet: in a large catalogue
    /// either is a long task in one go.
    pub async fn lookups_pausing<F, Fut>(&self, mut pause: F)
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        /// Fiches filed by id between two pauses.
        const IDS_PER_STEP: usize = 20_000;
        if self.by_id.get().is_none() {
            let mut by_id = HashMap::with_capacity(self.fiches.len());
            for (i, f) in self.fiches.iter().enumerate() {
                if i > 0 && i % IDS_PER_STEP == 0 {
                    pause(i).await;
                }
                by_id.insert(f.id.clone(), i);
            }
            self.by_id.get_or_init(|| by_id);
        }
        if self.products.get().is_none() {
            pause(self.fiches.len()).await;
            let products = Products::derive_pausing(&self.fiches, &mut pause).await;
            self.products.get_or_init(|| products);
        }
    }

    /// The fiches' fingerprint (computed at the first call, then kept).
    pub fn fingerprint(&self) -> &str {
        self.fingerprint
            .get_or_init(|| crate::data::vectors::fingerprint(&self.fiches))
    }

    /// Computes the fingerprint in steps (see
    /// [`fingerprint_pausing`](crate::data::vectors::fingerprint_pausing)) if it is not known yet.
    pub async fn fingerprint_pausing<F, Fut>(&self, pause: F)
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        if self.fingerprint.get().is_none() {
            let f = crate::data::vectors::fingerprint_pausing(&self.fiches, pause).await;
            self.fingerprint.get_or_init(|| f);
        }
    }

    pub fn fiches(&self) -> &[Fiche] {
        &self.fiches
    }

    /// Which fiches are variants of one product ([`Products::derive`]).
    pub fn products(&self) -> &Products {
        self.products.get_or_init(|| Products::derive(&self.fiches))
    }

    /// The figures of `method` from its questions' outcomes, at the fiche and product levels.
    pub fn measurement(
        &self,
        method: &str,
        decimals: Option<usize>,
        outcomes: Vec<QuestionOutcome>,
    ) -> Measurement {
        Measurement::from_outcomes(method, decimals, outcomes).with_products(self.products())
    }

    pub fn bm25(&self, keyword: Keyword) -> &Bm25Index {
        match keyword {
            Keyword::Mots => &self.mots,
            Keyword::MotsPlus => &self.mots_plus,
        }
    }

    /// Attaches fiche vectors after checking they were made for exactly these fiches.
    pub fn set_vectors(&mut self, vectors: VectorSet) -> Result<(), VectorsError> {
        vectors.check_fiches_with(&self.fiches, self.fingerprint())?;
        self.vectors = Some(vectors);
        self.away = None;
        self.dense_memo.borrow_mut().clear();
        Ok(())
    }

    /// Whether `encoder`'s fiche vectors are here or held elsewhere.
    pub fn has_vectors(&self, encoder: Encoder) -> bool {
        self.vectors_info(encoder).is_some()
    }

    /// What is known of `encoder`'s fiche vectors, wherever they are.
    pub fn vectors_info(&self, encoder: Encoder) -> Option<VectorsInfo> {
        match (self.vectors_of(encoder), encoder, &self.away) {
            (Some(set), _, _) => Some(set.info()),
            (None, Encoder::Mistral, Some((_, info))) => Some(info.clone()),
            _ => None,
        }
    }

    /// The Mistral vectors, when they are here (see [`Lab::vectors_info`] for wherever they are).
    pub fn vectors(&self) -> Option<&VectorSet> {
        self.vectors.as_ref()
    }

    /// Attaches the local encoder's fiche vectors (checked against these fiches and the model).
    pub fn set_local_vectors(&mut self, vectors: VectorSet) -> Result<(), VectorsError> {
        vectors.check_fiches_with(&self.fiches, self.fingerprint())?;
        vectors.check_model(crate::encoder::MODEL, crate::encoder::DIM)?;
        self.local = Some(vectors);
        self.dense_memo.borrow_mut().clear();
        Ok(())
    }

    pub fn local_vectors(&self) -> Option<&VectorSet> {
        self.local.as_ref()
    }

    /// The fiche vectors of `encoder`.
    pub fn vectors_of(&self, encoder: Encoder) -> Option<&VectorSet> {
        match encoder {
            Encoder::Mistral => self.vectors.as_ref(),
            Encoder::Local => self.local.as_ref(),
        }
    }

    /// The `k` best fiches for `question` under the keyword method `keyword`, best first.
    pub fn keyword_search(&self, keyword: Keyword, question: &str, k: usize) -> Vec<Ranked> {
        self.bm25(keyword)
            .search(question, k)
            .into_iter()
            .map(|h| Ranked {
                doc: h.doc,
                score: h.score,
            })
            .collect()
    }

    fn dense_search(
        &self,
        encoder: Encoder,
        vector: Option<&[f32]>,
        question: &str,
        k: usize,
    ) -> Result<Vec<Ranked>, SearchError> {
        let Some(info) = self.vectors_info(encoder) else {
            return Err(SearchError::NoVectors);
        };
        let v = vector.ok_or_else(|| SearchError::NoQuestionVector {
            question: question.to_owned(),
        })?;
        let key = (encoder, vector_key(v));
        if let Some(top) = self.dense_memo.borrow().get(&key) {
            if top.len() >= k || top.len() == info.count {
                return Ok(top.iter().take(k).copied().collect());
            }
        }
        let Some(set) = self.vectors_of(encoder) else {
            return Err(SearchError::Pending);
        };
        let top: Vec<Ranked> = dense::search(set, v, k.max(RRF_DEPTH))
            .map_err(SearchError::Dense)?
            .into_iter()
            .map(|(doc, score)| Ranked { doc, score })
            .collect();
        let mut memo = self.dense_memo.borrow_mut();
        if memo.len() >= DENSE_MEMO_CAP {
            memo.clear();
        }
        let answer = top.iter().take(k).copied().collect();
        memo.insert(key, top);
        Ok(answer)
    }

    /// The `k` best fiches for `question` under `method`, best first. Dense methods need the
    /// question's `vector` from the method's encoder (keyword methods ignore it).
    pub fn search(
        &self,
        method: Method,
        question: &str,
        vector: Option<&[f32]>,
        k: usize,
    ) -> Result<Vec<Ranked>, SearchError> {
        match method {
            Method::Keyword(kw) => Ok(self.keyword_search(kw, question, k)),
            Method::Sens | Method::SensLocal => {
                let encoder = method.encoder().unwrap_or(Encoder::Mistral);
                self.dense_search(encoder, vector, question, k)
            }
            Method::Hybride(_) | Method::HybrideLocal => {
                let kw = method.fused_keyword().unwrap_or(Keyword::MotsPlus);
                let encoder = method.encoder().unwrap_or(Encoder::Mistral);
                let words: Vec<usize> = self
                    .keyword_search(kw, question, RRF_DEPTH)
                    .iter()
                    .map(|r| r.doc)
                    .collect();
                let sens: Vec<usize> = self
                    .dense_search(encoder, vector, question, RRF_DEPTH)?
                    .iter()
                    .map(|r| r.doc)
                    .collect();
                let mut fused = rrf(&[&words, &sens], RRF_K, RRF_DEPTH);
                fused.truncate(k);
                Ok(fused
                    .into_iter()
                    .map(|(doc, score)| Ranked { doc, score })
                    .collect())
            }
        }
    }

    /// Word by word, what `mots+` changes from `mots` for `question`.
    pub fn keyword_changes(&self, question: &str) -> Vec<WordChange> {
        let seed = Keyword::Mots.analyzer().analyze(question);
        let french = Keyword::MotsPlus.analyzer().analyze(question);
        let term_in = |tokens: &[crate::search::analysis::Token],
                       keyword: Keyword,
                       (start, end): (usize, usize)| {
            tokens
                .iter()
                .find(|t| t.start >= start && t.end <= end)
                .map(|t| (t.term.clone(), self.bm25(keyword).contains(&t.term)))
        };
        Keyword::MotsPlus
            .analyzer()
            .raw_words(question)
            .into_iter()
            .filter_map(|span| {
                let word = question.get(span.0..span.1)?.to_owned();
                Some(WordChange {
                    word,
                    mots: term_in(&seed, Keyword::Mots, span),
                    mots_plus: term_in(&french, Keyword::MotsPlus, span),
                })
            })
            .collect()
    }

    /// Why fiche `doc` scored what it did for `question` under a keyword method.
    pub fn explain(&self, keyword: Keyword, question: &str, doc: usize) -> Explanation {
        self.bm25(keyword).explain(question, doc)
    }

    /// The two ranks a fused score of `method` came from.
    pub fn explain_fusion(
        &self,
        method: Method,
        question: &str,
        vector: Option<&[f32]>,
        doc: usize,
    ) -> Result<FusionExplanation, SearchError> {
        let keyword = method.fused_keyword().unwrap_or(Keyword::MotsPlus);
        let encoder = method.encoder().unwrap_or(Encoder::Mistral);
        let rank_in = |list: Vec<Ranked>| list.iter().position(|r| r.doc == doc).map(|p| p + 1);
        let keyword_rank = rank_in(self.keyword_search(keyword, question, RRF_DEPTH));
        let dense_rank = rank_in(self.dense_search(encoder, vector, question, RRF_DEPTH)?);
        let mut points = 0.0;
        for r in [keyword_rank, dense_rank].into_iter().flatten() {
            points += fusion::points(r);
        }
        Ok(FusionExplanation {
            keyword_rank,
            dense_rank,
            points,
        })
    }

    /// `method` measured on `questions`; dense methods read each question's vector in `vectors`.
    pub fn measure(
        &self,
        method: Method,
        questions: &[Question],
        vectors: &QuestionVectors,
    ) -> Result<Measurement, SearchError> {
        let outcomes = questions
            .iter()
            .map(|q| self.outcome(method, q, vectors))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.measurement(method.name(), method.score_decimals(), outcomes))
    }

    /// One question of [`Lab::measure`]: its first results and where the expected fiche is. The
    /// page measures in steps of a few questions with this.
    pub fn outcome(
        &self,
        method: Method,
        q: &Question,
        vectors: &QuestionVectors,
    ) -> Result<QuestionOutcome, SearchError> {
        let v = vectors.get(&q.text).map(Vec::as_slice);
        let top: Vec<(String, f64)> = self
            .search(method, &q.text, v, DEPTH + 1)?
            .into_iter()
            .map(|r| (self.fiches[r.doc].id.clone(), r.score))
            .collect();
        Ok(Measurement::outcome(q, top))
    }

    /// A keyword method measured on `questions` (it cannot fail).
    pub fn measure_keyword(&self, keyword: Keyword, questions: &[Question]) -> Measurement {
        crate::steps::run_ready(
            self.measure_keyword_pausing(keyword, questions, |_| std::future::ready(())),
        )
    }

    /// [`Lab::measure_keyword`], awaiting `pause(questions done)` before each question (40 BM25
    /// searches at 50,000 fiches would be one long task).
    #[allow(clippy::expect_used)] // `outcome` fails only for want of vectors, which keywords never need
    pub async fn measure_keyword_pausing<F, Fut>(
        &self,
        keyword: Keyword,
        questions: &[Question],
        mut pause: F,
    ) -> Measurement
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let method = Method::Keyword(keyword);
        let none = QuestionVectors::new();
        let mut outcomes = Vec::with_capacity(questions.len());
        for (i, q) in questions.iter().enumerate() {
            pause(i).await;
            let o = self.outcome(method, q, &none);
            outcomes.push(o.expect("keyword methods need no vectors"));
        }
        self.measurement(method.name(), method.score_decimals(), outcomes)
    }
}

#[cfg(test)]
mod tests;
