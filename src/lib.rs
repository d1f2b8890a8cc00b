//! rag-fiches: a measured retrieval lab over the product fiches of the seed exercise.
//!
//! Module map (the core has no browser dependency; `web` is the only module that touches one):
//! - [`data`]: the `fiches.jsonl` and `questions.csv` formats, their parsers and `DataError`.
//! - [`analysis`]: tokenizers and analysers: the seed's exactly (`mots`), French-aware (`mots+`).
//! - [`bm25`]: the BM25 formula (k1 = 1.5, b = 0.75), the inverted index, the seed's tie order,
//!   score explanations.
//! - [`embed`]: the `Embedder` trait and seed 001's deterministic fake embedder.
//! - [`vectors`]: the fiche vectors file (safetensors, f16, fingerprinted metadata) and its checks.
//! - [`npy`]: reading the seed's `vecteurs.npy` (NumPy's format), shape-checked only.
//! - [`dense`]: cosine search over normalised vectors (method `sens`).
//! - [`fusion`]: Reciprocal Rank Fusion, k = 60 over the top 50 of each list (method `hybride`).
//! - [`mistral`]: Mistral's embeddings API as pure functions: request, response, errors, retry
//!   policy, batches, cost, and the `ApiKey` that never prints.
//! - [`measure`]: hit@1, hit@5, MRR@10, misses, best scores; the seed's report byte for byte.
//! - [`pyfmt`]: Python's `round` and `repr(float)`, for that report.
//! - [`compare`]: paired wins/losses with an exact sign test; refusal-threshold calibration.
//! - [`export`]: CSV, JSON, TREC runs and qrels (for trec_eval and ranx).
//! - [`state`]: the page's shareable state, to and from the URL fragment.
//! - [`synth`]: a deterministic synthetic catalogue (1k to 50k fiches) for measuring scale.
//! - [`answer`]: the answer that cites its fiches: prompt, chat request and response, citation and
//!   refusal checks, and their evaluation (correct and false refusals).
//! - [`lab`]: a catalogue with its indexes and the named methods the page and terminal offer.
//! - [`native`]: the terminal's embedders, and its blocking HTTP client for Mistral (not on wasm32).
//! - `web` (wasm32 only): the page: exports, fetches, DOM rendering.

pub mod analysis;
pub mod answer;
pub mod bm25;
pub mod compare;
pub mod data;
pub mod dense;
pub mod embed;
pub mod export;
pub mod fusion;
pub mod lab;
pub mod measure;
pub mod mistral;
pub mod pyfmt;
pub mod state;
pub mod synth;
pub mod vectors;

pub mod native;
pub mod npy;
#[cfg(target_arch = "wasm32")]
pub mod web;
