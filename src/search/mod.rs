//! Ranking fiches for a question: analysis of text into terms, the BM25 index, cosine search over
//! vectors, and their Reciprocal Rank Fusion.

/// Tokenizers and analysers: the seed's exactly (`mots`), French-aware (`mots+`), highlight spans.
pub mod analysis;
/// The BM25 formula (k1 = 1.5, b = 0.75), the inverted index, the seed's tie order, explanations.
pub mod bm25;
/// Cosine search over normalised vectors (method `sens`).
pub mod dense;
/// The `Embedder` trait and seed 001's deterministic fake embedder.
pub mod embed;
/// Reciprocal Rank Fusion, k = 60 over the top 50 of each list (method `hybride`).
pub mod fusion;
