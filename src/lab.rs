//! The lab: one catalogue, its indexes, and the retrieval methods the page and the terminal offer.
//! Both fronts call these functions; that is why they print the same numbers.

use serde::Serialize;

use crate::analysis::Analyzer;
use crate::bm25::{Bm25Index, Bm25Params, Explanation};
use crate::data::{Fiche, Question};
use crate::measure::{Measurement, DEPTH};

/// A retrieval method, by the name the learner sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Method {
    /// The seed's BM25 (`bm25.py`), unchanged.
    Mots,
    /// BM25 over French-analysed terms (elisions, stop words, Snowball stems, no accents).
    MotsPlus,
}

impl Method {
    pub const KEYWORD: [Method; 2] = [Method::Mots, Method::MotsPlus];

    pub fn name(self) -> &'static str {
        match self {
            Method::Mots => "mots",
            Method::MotsPlus => "mots+",
        }
    }

    pub fn parse(name: &str) -> Option<Method> {
        match name {
            "mots" => Some(Method::Mots),
            "mots+" => Some(Method::MotsPlus),
            _ => None,
        }
    }

    /// Decimals shown for this method's scores (the seed rounds BM25 scores to 2).
    pub fn score_decimals(self) -> Option<usize> {
        Some(2)
    }

    pub fn analyzer(self) -> Analyzer {
        match self {
            Method::Mots => Analyzer::Seed,
            Method::MotsPlus => Analyzer::French,
        }
    }
}

/// One result of a search: the fiche's position in the catalogue, and its raw score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ranked {
    pub doc: usize,
    pub score: f64,
}

/// A catalogue ready to search: the fiches and one BM25 index per keyword method.
#[derive(Debug, Clone)]
pub struct Lab {
    fiches: Vec<Fiche>,
    mots: Bm25Index,
    mots_plus: Bm25Index,
}

impl Lab {
    /// Indexes `fiches` for every keyword method, with the seed's BM25 parameters.
    pub fn new(fiches: Vec<Fiche>) -> Lab {
        let params = Bm25Params::default();
        let mots = Bm25Index::build(&fiches, Analyzer::Seed, params);
        let mots_plus = Bm25Index::build(&fiches, Analyzer::French, params);
        Lab {
            fiches,
            mots,
            mots_plus,
        }
    }

    pub fn fiches(&self) -> &[Fiche] {
        &self.fiches
    }

    pub fn bm25(&self, method: Method) -> &Bm25Index {
        match method {
            Method::Mots => &self.mots,
            Method::MotsPlus => &self.mots_plus,
        }
    }

    /// The `k` best fiches for `question` under `method`, best first.
    pub fn search(&self, method: Method, question: &str, k: usize) -> Vec<Ranked> {
        self.bm25(method)
            .search(question, k)
            .into_iter()
            .map(|h| Ranked {
                doc: h.doc,
                score: h.score,
            })
            .collect()
    }

    /// Why fiche `doc` scored what it did for `question` under a keyword method.
    pub fn explain(&self, method: Method, question: &str, doc: usize) -> Explanation {
        self.bm25(method).explain(question, doc)
    }

    /// `method` measured on `questions`.
    pub fn measure(&self, method: Method, questions: &[Question]) -> Measurement {
        Measurement::run(method.name(), method.score_decimals(), questions, |q| {
            self.search(method, q, DEPTH)
                .into_iter()
                .map(|r| (self.fiches[r.doc].id.clone(), r.score))
                .collect()
        })
    }
}
