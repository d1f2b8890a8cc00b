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
//! - [`kernels`]: the inner loops of vector work (dot products, `axpy`, the int8 and 4-bit scans of
//!   the dense search), with wasm `simd128` and relaxed-SIMD paths bit-identical to the scalar ones.
//! - [`lab`]: one catalogue with its indexes, and the named methods (`mots`, `mots+`, `sens`,
//!   `hybride`, `hybride+`) both fronts offer.
//! - [`measure`]: hit@1, hit@5, MRR@10 and the seed's report byte for byte; [`measure::compare`]
//!   (sign test, threshold calibration), [`measure::export`] (CSV, JSON, TREC),
//!   [`measure::import`] (another engine's TREC run, measured as a method), [`measure::pyfmt`].
//! - [`improve`]: « Améliorer »: the settings a learner changes one at a time, the index they
//!   need, their measurement in bounded steps, the moves and their tests, the sweep tuned on one
//!   half and checked on the other, the success criteria and the questions missed.
//! - [`mistral`]: Mistral's API as pure functions: the key that never prints, embeddings, errors,
//!   the retry policy, batches, costs; [`mistral::chat`] for chat completions.
//! - [`answer`]: the answer that cites its fiches: prompt, citation and refusal checks, evaluation.
//! - [`encoder`]: the local encoder (USE multilingual v3): its tokenizer, forward pass and
//!   model file, the page's head and checked blocks, the worker's messages.
//! - [`link`]: the page's shareable state, to and from the URL fragment (never the key, never data).
//! - [`journal`]: the unanswered questions a learner typed, kept in the browser and exported.
//! - [`steps`]: long computations written once, run in one go natively and in paced steps in the
//!   page.
//! - [`page`]: the page's program as plain data — its state, messages, the pure `update` and the
//!   effects it returns — built and tested natively; the browser shell runs it.
//! - [`fr`]: every sentence a learner reads that the core can write: French numbers, labels of
//!   methods and question types, and the French message of every error variant.
//! - [`cli`]: the terminal's embedders and its blocking HTTP client for Mistral (native only).
//! - `web` (wasm32 only): the browser shell: the runtime that feeds [`page`]'s `update` and runs
//!   its effects, one module per panel, the tasks (fetches, calls to Mistral, file reads), the
//!   worker's client, storage.
//! - `worker` (wasm32 only): the local encoder's Web Worker, which owns the model and embeds off
//!   the page's thread ([`encoder::protocol`]: its messages and queue; [`encoder::wire`]: the
//!   numbers beside them).
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
pub mod improve;
pub mod journal;
pub mod kernels;
pub mod lab;
pub mod link;
pub mod measure;
pub mod mistral;
#[cfg(any(not(target_arch = "wasm32"), feature = "page"))]
pub mod page;
pub mod search;
pub mod steps;
#[cfg(all(target_arch = "wasm32", any(feature = "page", feature = "premier")))]
pub mod web;
#[cfg(target_arch = "wasm32")]
pub mod worker;
