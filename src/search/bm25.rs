//! BM25 over an inverted index, computed exactly as the seed's `bm25.chercher` computes it.
//!
//! For a question with terms q₁…qₙ (repetitions kept) and a fiche d of length |d|:
//!
//! ```text
//! score(d) = Σᵢ idf(qᵢ) · tf(qᵢ,d) · (k1 + 1) / (tf(qᵢ,d) + k1 · (1 − b + b · |d| / avgdl))
//! idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//! ```
//!
//! N is the number of fiches, avgdl the mean length over *all* fiches, df the number of fiches that
//! contain the term. The sum runs in question order and every operation is the seed's, in its order,
//! so the scores are the same `f64` bits as Python's and ties fall the same way.
//!
//! Ranking order is the seed's `scores.sort(reverse=True)` on `(score, id)`: higher score first,
//! and on equal scores the *larger* id first. Like the seed, the ranking covers every fiche, those
//! scoring 0 included (they fill the end of the list in descending id order): this matters for RRF,
//! which fuses the top 50 of each list.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::data::Fiche;
use crate::search::analysis::Analyzer;

/// The two BM25 tunables.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation. Default 1.5 (the seed's): a term's weight grows with its count in
    /// a fiche but levels off; 0 would count presence only, large values count every repetition.
    pub k1: f64,
    /// Length normalisation. Default 0.75 (the seed's): 0 ignores fiche length, 1 divides fully by
    /// length relative to the average, favouring short fiches.
    pub b: f64,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params { k1: 1.5, b: 0.75 }
    }
}

/// The formula as the page and `--explain` print it.
pub const FORMULA: &str =
    "score = Σ idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · longueur / longueur moyenne)) ; \
idf = ln(1 + (N − df + 0.5) / (df + 0.5))";

/// One ranked fiche: its position in the catalogue and its raw score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: usize,
    pub score: f64,
}

/// Fiches indexed between two pauses of [`Bm25Index::build_pausing`]: a pause that is not due
/// costs a clock read, and steps of 256 fiches were the longest tasks in the page.
pub const DOCS_PER_STEP: usize = 64;

/// Text analysed between two pauses of [`Bm25Index::build_pausing`] within one fiche.
pub const PIECE_BYTES: usize = 16 << 10;

/// `k1 · (1 − b + b · |d| / avgdl)` for each fiche length, with the seed's operations.
fn norms(doc_len: &[u32], avg_len: f64, Bm25Params { k1, b }: Bm25Params) -> Vec<f64> {
    doc_len
        .iter()
        .map(|&len| {
            if avg_len == 0.0 {
                // Every fiche is empty: no term will ever reach this value.
                k1
            } else {
                k1 * (1.0 - b + b * len as f64 / avg_len)
            }
        })
        .collect()
}

/// An inverted index of one catalogue under one analyser.
#[derive(Debug, Clone)]
pub struct Bm25Index {
    analyzer: Analyzer,
    params: Bm25Params,
    /// Terms → term number. The analysed catalogue is shared between an index and its copies
    /// with other k1 and b ([`Bm25Index::with_params`]): moving a slider copies no posting.
    vocabulary: Arc<FxHashMap<String, u32>>,
    /// For each term number, its inverse document frequency.
    idf: Arc<Vec<f64>>,
    /// For each term number, the fiches that contain it with their term counts, fiche order.
    postings: Arc<Vec<Vec<(u32, u32)>>>,
    doc_len: Arc<Vec<u32>>,
    /// `k1 · (1 − b + b · |d| / avgdl)` for each fiche, computed once with the seed's operations.
    norm: Vec<f64>,
    avg_len: f64,
    /// Each fiche's position in ascending id order: ties are broken by comparing these.
    id_rank: Arc<Vec<u32>>,
    /// Fiche numbers in descending id order: the order of zero-score fiches.
    by_id_desc: Arc<Vec<u32>>,
}

/// Why one term contributed what it did to one fiche's score.
#[derive(Debug, Clone, PartialEq)]
pub struct TermExplanation {
    /// The question's word as typed.
    pub word: String,
    /// What the analyser made of it: the term looked up in the index.
    pub term: String,
    /// Fiches containing the term.
    pub df: u32,
    pub idf: f64,
    /// Times the term occurs in this fiche (0: it contributes nothing).
    pub tf: u32,
    /// `k1 · (1 − b + b · |d| / avgdl)` for this fiche.
    pub norm: f64,
    pub contribution: f64,
}

/// A score taken apart: the contributions, summed in order, give `score` exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub score: f64,
    pub terms: Vec<TermExplanation>,
    /// Question words the analyser dropped (stop words, elisions).
    pub dropped: Vec<String>,
    pub doc_len: u32,
    pub avg_len: f64,
    pub n: usize,
    pub params: Bm25Params,
}

/// An index built a fiche at a time, in steps its caller paces (« Améliorer » rebuilds its index
/// this way, a bounded number of bytes per step), then finished: the index
/// [`Bm25Index::build`] gives for the same texts.
#[derive(Debug, Clone)]
pub struct Bm25Builder {
    analyzer: Analyzer,
    vocabulary: FxHashMap<String, u32>,
    postings: Vec<Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    total: u64,
    /// The fiche being added: its term counts and its length so far.
    counts: FxHashMap<u32, u32>,
    len: u32,
}

impl Bm25Builder {
    pub fn new(analyzer: Analyzer) -> Bm25Builder {
        Bm25Builder {
            analyzer,
            vocabulary: FxHashMap::default(),
            postings: Vec::new(),
            doc_len: Vec::new(),
            total: 0,
            counts: FxHashMap::default(),
            len: 0,
        }
    }

    /// Analyses one piece of the fiche being added (see [`Bm25Builder::end_fiche`]).
    pub fn piece(&mut self, text: &str) {
        let Bm25Builder {
            analyzer,
            vocabulary,
            postings,
            counts,
            len,
            ..
        } = self;
        analyzer.each_term(text, |term, _, _| {
            *len += 1;
            // Looked up first: only a new term is copied into the vocabulary.
            let id = match vocabulary.get(term) {
                Some(&id) => id,
                None => {
                    let id = vocabulary.len() as u32;
                    vocabulary.insert(term.to_owned(), id);
                    postings.push(Vec::new());
                    id
                }
            };
            *counts.entry(id).or_insert(0) += 1;
        });
    }

    /// Ends the fiche whose pieces were given: it takes the next fiche number.
    pub fn end_fiche(&mut self) {
        let doc = self.doc_len.len() as u32;
        self.doc_len.push(self.len);
        self.total += u64::from(self.len);
        self.len = 0;
        let mut pairs: Vec<(u32, u32)> = self.counts.drain().collect();
        pairs.sort_unstable();
        for (term, tf) in pairs {
            self.postings[term as usize].push((doc, tf));
        }
    }

    /// Adds a fiche's whole text (in the pieces [`Bm25Index::build_pausing`] analyses).
    pub fn add(&mut self, text: &str) {
        for piece in crate::search::analysis::pieces(text, PIECE_BYTES) {
            self.piece(piece);
        }
        self.end_fiche();
    }

    /// How many fiches were added.
    pub fn fiches(&self) -> usize {
        self.doc_len.len()
    }

    /// The index of the fiches added, `fiches` giving their ids (the order of ties).
    pub fn finish(self, fiches: &[Fiche], params: Bm25Params) -> Bm25Index {
        let n = self.doc_len.len();
        debug_assert_eq!(n, fiches.len());
        // Python: MOYENNE = sum(len(d) for d in DOCS) / N (an int divided by an int, in f64).
        let avg_len = if n == 0 {
            0.0
        } else {
            self.total as f64 / n as f64
        };
        let norm = norms(&self.doc_len, avg_len, params);
        let idf = self
            .postings
            .iter()
            .map(|p| {
                let df = p.len() as f64;
                (1.0 + (n as f64 - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let mut by_id: Vec<u32> = (0..n as u32).collect();
        by_id.sort_by(|&a, &b| fiches[a as usize].id.cmp(&fiches[b as usize].id));
        let mut id_rank = vec![0u32; n];
        for (rank, &doc) in by_id.iter().enumerate() {
            id_rank[doc as usize] = rank as u32;
        }
        by_id.reverse();
        Bm25Index {
            analyzer: self.analyzer,
            params,
            vocabulary: Arc::new(self.vocabulary),
            idf: Arc::new(idf),
            postings: Arc::new(self.postings),
            doc_len: Arc::new(self.doc_len),
            norm,
            avg_len,
            id_rank: Arc::new(id_rank),
            by_id_desc: Arc::new(by_id),
        }
    }
}

impl Bm25Index {
    /// Indexes the `texte` of every fiche. An empty catalogue gives an index that finds nothing.
    pub fn build(fiches: &[Fiche], analyzer: Analyzer, params: Bm25Params) -> Bm25Index {
        crate::steps::run_ready(Self::build_pausing(fiches, analyzer, params, |_| {
            std::future::ready(())
        }))
    }

    /// [`Bm25Index::build`], awaiting `pause(fiches indexed)` after every [`DOCS_PER_STEP`]
    /// fiches: the page yields to its event loop there.
    pub async fn build_pausing<F, Fut>(
        fiches: &[Fiche],
        analyzer: Analyzer,
        params: Bm25Params,
        mut pause: F,
    ) -> Bm25Index
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let mut builder = Bm25Builder::new(analyzer);
        for (doc, fiche) in fiches.iter().enumerate() {
            if doc > 0 && doc % DOCS_PER_STEP == 0 {
                pause(doc).await;
            }
            // A giant fiche is analysed and counted piece by piece, with a pause after each: one
            // fiche of 3.3 MB analysed at once held the page's thread for seconds.
            let pieces = crate::search::analysis::pieces(&fiche.texte, PIECE_BYTES);
            let several = pieces.len() > 1;
            for piece in pieces {
                builder.piece(piece);
                if several {
                    pause(doc).await;
                }
            }
            builder.end_fiche();
        }
        // The weights and the order by id, in a step of their own.
        pause(fiches.len()).await;
        builder.finish(fiches, params)
    }

    pub fn analyzer(&self) -> Analyzer {
        self.analyzer
    }

    pub fn params(&self) -> Bm25Params {
        self.params
    }

    /// The same index with other k1 and b: only each fiche's length factor changes, so a learner
    /// moving a slider does not re-analyse the catalogue. Scores are those of an index built with
    /// `params` (the same operations in the same order).
    pub fn with_params(&self, params: Bm25Params) -> Bm25Index {
        let norm = norms(&self.doc_len, self.avg_len, params);
        Bm25Index {
            params,
            norm,
            ..self.clone()
        }
    }

    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The number of distinct terms.
    pub fn vocabulary_len(&self) -> usize {
        self.vocabulary.len()
    }

    /// Whether `term` (already analysed) is in the index.
    pub fn contains(&self, term: &str) -> bool {
        self.vocabulary.contains_key(term)
    }

    /// The score of every fiche for `question`, accumulated term by term in question order.
    fn accumulate(&self, question: &str) -> (Vec<f64>, Vec<u32>) {
        let mut scores = vec![0.0f64; self.len()];
        let mut touched: Vec<u32> = Vec::new();
        let k1_plus_1 = self.params.k1 + 1.0;
        for term in self.analyzer.terms(question) {
            let Some(&t) = self.vocabulary.get(&term) else {
                continue;
            };
            let idf = self.idf[t as usize];
            for &(doc, tf) in &self.postings[t as usize] {
                let f = tf as f64;
                let slot = &mut scores[doc as usize];
                if *slot == 0.0 {
                    touched.push(doc);
                }
                *slot += idf * f * k1_plus_1 / (f + self.norm[doc as usize]);
            }
        }
        (scores, touched)
    }

    /// The `k` best fiches, in the seed's order (see the module documentation). Returns
    /// `min(k, N)` hits: when fewer than `k` fiches share a term with the question, the rest are
    /// zero-score fiches, larger ids first, exactly as the seed's full sort gives them.
    pub fn search(&self, question: &str, k: usize) -> Vec<Hit> {
        let k = k.min(self.len());
        if k == 0 {
            return Vec::new();
        }
        let (scores, mut touched) = self.accumulate(question);
        let order = |a: &u32, b: &u32| {
            let (sa, sb) = (scores[*a as usize], scores[*b as usize]);
            sb.total_cmp(&sa)
                .then_with(|| self.id_rank[*b as usize].cmp(&self.id_rank[*a as usize]))
        };
        if touched.len() > k {
            touched.select_nth_unstable_by(k - 1, order);
            touched.truncate(k);
        }
        touched.sort_unstable_by(order);
        let mut hits: Vec<Hit> = touched
            .iter()
            .map(|&d| Hit {
                doc: d as usize,
                score: scores[d as usize],
            })
            .collect();
        if hits.len() < k {
            for &d in self.by_id_desc.iter() {
                if hits.len() == k {
                    break;
                }
                if scores[d as usize] == 0.0 {
                    hits.push(Hit {
                        doc: d as usize,
                        score: 0.0,
                    });
                }
            }
        }
        hits
    }

    /// Takes the score of fiche `doc` for `question` apart, term by term.
    pub fn explain(&self, question: &str, doc: usize) -> Explanation {
        let k1_plus_1 = self.params.k1 + 1.0;
        let mut score = 0.0;
        let mut terms = Vec::new();
        let tokens = self.analyzer.analyze(question);
        let mut kept = tokens.iter().map(|t| (t.start, t.end)).peekable();
        let mut dropped = Vec::new();
        // Every question word the analyser did not keep, for the learner to see what was ignored.
        for w in self.analyzer.raw_words(question) {
            if kept.peek().is_some_and(|&(s, _)| s == w.0) {
                kept.next();
            } else {
                dropped.push(question[w.0..w.1].to_owned());
            }
        }
        for token in tokens {
            let word = question[token.start..token.end].to_owned();
            let (df, idf, tf) = match self.vocabulary.get(&token.term) {
                Some(&t) => {
                    let p = &self.postings[t as usize];
                    let tf = p
                        .binary_search_by_key(&(doc as u32), |&(d, _)| d)
                        .map_or(0, |i| p[i].1);
                    (p.len() as u32, self.idf[t as usize], tf)
                }
                None => (0, 0.0, 0),
            };
            let norm = self.norm[doc];
            let contribution = if tf == 0 {
                0.0
            } else {
                let f = tf as f64;
                idf * f * k1_plus_1 / (f + norm)
            };
            if tf > 0 {
                score += contribution;
            }
            terms.push(TermExplanation {
                word,
                term: token.term,
                df,
                idf,
                tf,
                norm,
                contribution,
            });
        }
        Explanation {
            score,
            terms,
            dropped,
            doc_len: self.doc_len[doc],
            avg_len: self.avg_len,
            n: self.len(),
            params: self.params,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids<'a>(index: &Bm25Index, fiches: &'a [Fiche], q: &str) -> Vec<&'a str> {
        index
            .search(q, fiches.len())
            .iter()
            .map(|h| fiches[h.doc].id.as_str())
            .collect()
    }

    fn fiche(id: &str, texte: &str) -> Fiche {
        Fiche {
            id: id.into(),
            famille: String::new(),
            nom: String::new(),
            texte: texte.into(),
        }
    }

    #[test]
    fn other_params_on_a_built_index_score_as_an_index_built_with_them() {
        let fiches = crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        let base = Bm25Index::build(&fiches, Analyzer::Seed, Bm25Params::default());
        for params in [
            Bm25Params { k1: 1.2, b: 0.0 },
            Bm25Params { k1: 0.0, b: 1.0 },
            Bm25Params { k1: 3.0, b: 0.3 },
        ] {
            let moved = base.with_params(params);
            let built = Bm25Index::build(&fiches, Analyzer::Seed, params);
            for q in [
                "plaque de plâtre hydrofuge",
                "laine de roche 100 mm",
                "colle",
            ] {
                assert_eq!(moved.search(q, 20), built.search(q, 20), "{q} {params:?}");
            }
        }
        // b = 0 ignores length: a different order from the seed's for some question.
        let q = "Une plaque de plâtre pour une pièce humide";
        assert_ne!(
            base.search(q, 10),
            base.with_params(Bm25Params { k1: 1.5, b: 0.0 })
                .search(q, 10)
        );
    }

    #[test]
    fn scores_match_a_hand_computed_value() {
        // Three fiches; "joint" is in two of them. N = 3, df = 2, lengths 2, 1, 1 → avgdl = 4/3.
        let fiches = [
            fiche("A", "joint joint"),
            fiche("B", "joint"),
            fiche("C", "colle"),
        ];
        let index = Bm25Index::build(&fiches, Analyzer::Seed, Bm25Params::default());
        let hits = index.search("joint", 3);
        let idf = (1.0f64 + (3.0 - 2.0 + 0.5) / (2.0 + 0.5)).ln(); // ln 1.6 = 0.470003629…
        let a = idf * 2.0 * 2.5 / (2.0 + 1.5 * (0.25 + 0.75 * 2.0 / (4.0 / 3.0)));
        let b = idf * 2.5 / (1.0 + 1.5 * (0.25 + 0.75 / (4.0 / 3.0)));
        assert!((a - 0.5784660).abs() < 1e-6, "{a}"); // CPython: 0.5784660052255207
        assert!((b - 0.5295816).abs() < 1e-6, "{b}"); // CPython: 0.5295815540797021
        assert_eq!(hits[0], Hit { doc: 0, score: a });
        assert_eq!(hits[1], Hit { doc: 1, score: b });
        assert_eq!(hits[2], Hit { doc: 2, score: 0.0 });
    }

    #[test]
    fn equal_scores_put_the_larger_id_first_as_python_sort_reverse() {
        let fiches = [
            fiche("AR-2", "joint"),
            fiche("AR-10", "joint"),
            fiche("AR-3", "joint"),
        ];
        let index = Bm25Index::build(&fiches, Analyzer::Seed, Bm25Params::default());
        // String order, as Python compares str: "AR-3" > "AR-2" > "AR-10".
        assert_eq!(ids(&index, &fiches, "joint"), ["AR-3", "AR-2", "AR-10"]);
    }

    #[test]
    fn zero_score_fiches_fill_the_list_larger_id_first() {
        let fiches = [
            fiche("A", "colle"),
            fiche("B", "joint"),
            fiche("C", "sable"),
        ];
        let index = Bm25Index::build(&fiches, Analyzer::Seed, Bm25Params::default());
        assert_eq!(ids(&index, &fiches, "joint"), ["B", "C", "A"]);
        assert_eq!(index.search("rien", 5).len(), 3);
    }

    #[test]
    fn explanation_contributions_sum_to_the_score() {
        let fiches = [
            fiche("A", "joint gris, joint blanc"),
            fiche("B", "colle grise"),
            fiche("C", "joint"),
        ];
        for analyzer in [Analyzer::Seed, Analyzer::French] {
            let index = Bm25Index::build(&fiches, analyzer, Bm25Params::default());
            let q = "Le joint gris pour le joint";
            let hit = index.search(q, 1)[0];
            let e = index.explain(q, hit.doc);
            let sum: f64 = e.terms.iter().map(|t| t.contribution).sum();
            // Summed in the same order as the search: equal to the bit.
            assert_eq!(e.score, hit.score);
            assert!((sum - hit.score).abs() < 1e-12);
            assert_eq!(e.terms.len(), 3);
            assert_eq!(e.dropped, ["Le", "pour", "le"]);
        }
    }

    #[test]
    fn degenerate_catalogues_give_finite_scores() {
        for fiches in [
            vec![fiche("A", "joint")],
            vec![fiche("A", "le la"), fiche("B", "les")],
            vec![
                fiche("A", "joint"),
                fiche("B", "joint"),
                fiche("C", "joint"),
            ],
        ] {
            let index = Bm25Index::build(&fiches, Analyzer::French, Bm25Params::default());
            for h in index.search("joint le", 10) {
                assert!(h.score.is_finite() && h.score >= 0.0);
            }
        }
        let empty = Bm25Index::build(&[], Analyzer::Seed, Bm25Params::default());
        assert!(empty.search("joint", 5).is_empty());
    }
}
