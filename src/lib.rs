//! rag-fiches: a measured retrieval lab over the product fiches of the seed exercise.
//!
//! # Layers
//!
//! The core has no browser dependency and is tested natively; `web` is the only module that
//! touches a browser, and the terminal programs (`src/bin/`) are thin fronts on the same core, so
//! the page and the terminal print the same numbers.
//!
//! - [`data`]: what comes in. The seed's `fiches.jsonl` and `questions.csv` and their parsers;
//!   [`data::vectors`] (the fiche vectors file: safetensors, f16, fingerprint), [`data::npy`] (the
//!   seed's `vecteurs.npy`), [`data::synth`] (a synthetic catalogue for scale), [`data::intake`]
//!   (the learner's files: kinds, size limits, checked before reading).
//! - [`search`]: how fiches are ranked. [`search::analysis`] (the seed's analyser and the
//!   French-aware one, highlight spans), [`search::bm25`] (formula, index, explanations),
//!   [`search::dense`] (cosine), [`search::fusion`] (RRF), [`search::embed`] (the fake embedder).
//! - [`kernels`]: `dot` and `axpy`, with wasm `simd128` paths bit-identical to the scalar ones.
//! - [`lab`]: one catalogue with its indexes, and the named methods (`mots`, `mots+`, `sens`,
//!   `hybride`, `hybride+`) both fronts offer.
//! - [`measure`]: hit@1, hit@5, MRR@10 and the seed's report byte for byte; [`measure::compare`]
//!   (sign test, threshold calibration), [`measure::export`] (CSV, JSON, TREC), [`measure::pyfmt`].
//! - [`mistral`]: Mistral's API as pure functions: the key that never prints, embeddings, errors,
//!   the retry policy, batches, costs; [`mistral::chat`] for chat completions.
//! - [`answer`]: the answer that cites its fiches: prompt, citation and refusal checks, evaluation.
//! - [`link`]: the page's shareable state, to and from the URL fragment (never the key, never data).
//! - [`fr`]: every sentence a learner reads that the core can write: French numbers, labels of
//!   methods and question types, and the French message of every error variant.
//! - [`cli`]: the terminal's embedders and its blocking HTTP client for Mistral (native only).
//! - `web` (wasm32 only): the page, as state → view: one `State` changed by `update(Msg)`, one
//!   module per panel, async tasks tagged with the catalogue's epoch.
//! - `worker` (wasm32 only): the local encoder's Web Worker, which owns the model and embeds off
//!   the page's thread ([`encoder::protocol`]: its messages and queue).
//!
//! # Glossary
//!
//! French for what learners read, English for the rest. A few French domain words stay in code
//! because they are the exercise's own names:
//! - `fiche`: a product sheet of the catalogue (`id`, `famille`, `nom`, `texte`).
//! - `mots`, `mots+`: keyword search (the seed's BM25; BM25 with French analysis).
//! - `sens`: meaning-based search (cosine between mistral-embed vectors).
//! - `hybride`, `hybride+`: RRF fusion of `mots` (or `mots+`) with `sens`.
//! - `exacte`, `courante`, `absente`: the question types — an exact reference, an everyday
//!   question, a question the catalogue cannot answer.

pub mod answer;
pub mod cli;
pub mod data;
pub mod encoder;
pub mod fr;
pub mod journal;
pub mod kernels;
pub mod lab;
pub mod link;
pub mod measure;
pub mod mistral;
pub mod search;
pub mod steps;
#[cfg(all(target_arch = "wasm32", any(feature = "page", feature = "premier")))]
pub mod web;
#[cfg(target_arch = "wasm32")]
pub mod worker;
