//! The fiche vectors file: a safetensors file holding one tensor `vectors` of shape
//! `[count, dim]` in `F16`, and in its header metadata what was embedded, so that vectors made for
//! other fiches, another model or another dimension are refused instead of giving wrong results.
//!
//! Header metadata (all strings, as safetensors requires):
//! - `format` = `rag-fiches/vectors`, `version` = `1`;
//! - `model` (e.g. `mistral-embed`), `dim`, `count`;
//! - `ids`: the fiche ids in row order, as a JSON array;
//! - `fingerprint`: `sha256:` + hex of [`fingerprint`] over the fiches' `texte` fields in order.
//!
//! Optionally, a second tensor `questions` of shape `[questions_count, dim]`, same dtype, holds
//! the vectors of a question set (the exercise's 40), so that a learner can measure `sens` and
//! the fusions without a key. Its metadata: `questions` (the question texts in row order, as a
//! JSON array) and `questions_count`. The texts are the identifiers: a question's vector depends
//! only on its text and the model, so it is used for exactly that text, whatever the catalogue,
//! and needs no fingerprint. A file without this tensor reads as before.
//!
//! In Python: `safetensors.numpy.load_file("vecteurs.safetensors")["vectors"]` gives the array and
//! `safetensors.safe_open(path, "np").metadata()` the metadata (see the README).
//!
//! Why f16: mistral-embed returns 1024 values of norm 1 (each about ±0.03); f16 keeps ~3 decimal
//! digits of each, which moves a cosine by well under 1e-3, and halves the file (400 kB for 200
//! fiches instead of 800 kB).

mod codes;
mod format;
mod set;

pub use codes::*;
pub use format::*;
pub use set::*;

use std::fmt;

use sha2::{Digest, Sha256};

use crate::data::Fiche;

pub const FORMAT: &str = "rag-fiches/vectors";
pub const VERSION: &str = "1";
pub const TENSOR: &str = "vectors";
pub const QUESTIONS_TENSOR: &str = "questions";
/// Larger files are refused before they are read: 256 MiB is 130,000 fiches of 1024 f16 values.
pub const MAX_FILE_BYTES: usize = 256 << 20;
/// A stored vector's norm may differ from 1 by this much (f16 rounding moves it by ~1e-4).
pub const NORM_TOLERANCE: f32 = 0.01;
const MAX_DIM: usize = 16_384;

/// What a vectors file must match: the catalogue it is loaded next to.
pub fn fingerprint(fiches: &[Fiche]) -> String {
    crate::steps::run_ready(fingerprint_pausing(fiches, |_| std::future::ready(())))
}

/// Refuses `found` vectors where `expected` are needed (one per fiche, or per question).
pub(crate) fn same_count(expected: usize, found: usize) -> Result<(), VectorsError> {
    if expected != found {
        return Err(VectorsError::Count { expected, found });
    }
    Ok(())
}

/// Refuses vectors of `found_model` and `found_dim` where `model`'s of `dim` are needed.
pub(crate) fn check_model_dim(
    found_model: &str,
    found_dim: usize,
    model: &str,
    dim: usize,
) -> Result<(), VectorsError> {
    if found_model != model {
        return Err(VectorsError::Model {
            expected: model.to_owned(),
            found: found_model.to_owned(),
        });
    }
    if found_dim != dim {
        return Err(VectorsError::Dim {
            expected: dim,
            found: found_dim,
        });
    }
    Ok(())
}

/// Bytes of fiche text hashed between two pauses of [`fingerprint_pausing`].
pub const FINGERPRINT_STEP_BYTES: usize = 1 << 20;

/// [`fingerprint`], awaiting `pause(fiches hashed)` after each [`FINGERPRINT_STEP_BYTES`] of text
/// or more (one fiche is never split): hashed in one go, 50,000 fiches (20 MB) were one long task.
pub async fn fingerprint_pausing<F, Fut>(fiches: &[Fiche], mut pause: F) -> String
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut h = Sha256::new();
    let mut since_pause = 0;
    for (i, f) in fiches.iter().enumerate() {
        // Each text length-prefixed (8 bytes, little-endian) so that no two lists of texts collide.
        h.update((f.texte.len() as u64).to_le_bytes());
        // A giant fiche is hashed a step at a time too.
        for piece in f.texte.as_bytes().chunks(FINGERPRINT_STEP_BYTES) {
            h.update(piece);
            since_pause += piece.len();
            if since_pause >= FINGERPRINT_STEP_BYTES {
                since_pause = 0;
                pause(i + 1).await;
            }
        }
    }
    let digest = h.finalize();
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Why a vectors file was refused. Each message says what was expected and what was found.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorsError {
    TooLarge {
        bytes: usize,
        max: usize,
    },
    /// Not a safetensors file, truncated, trailing bytes, or a header that does not parse.
    Unreadable {
        reason: String,
    },
    NotOurs {
        found: String,
    },
    MissingMetadata {
        key: &'static str,
    },
    BadMetadata {
        key: &'static str,
        found: String,
    },
    WrongTensor {
        reason: String,
    },
    Model {
        expected: String,
        found: String,
    },
    Dim {
        expected: usize,
        found: usize,
    },
    Count {
        expected: usize,
        found: usize,
    },
    Ids {
        row: usize,
        expected: String,
        found: String,
    },
    OtherFiches {
        expected: String,
        found: String,
    },
    NotFinite {
        row: usize,
    },
    Norm {
        row: usize,
        norm: f32,
    },
    /// The exact values could not be written where they are kept (the browser's storage).
    Store {
        reason: String,
    },
}

impl fmt::Display for VectorsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorsError::TooLarge { bytes, max } => {
                write!(f, "vectors file of {bytes} bytes refused: the limit is {max} bytes")
            }
            VectorsError::Unreadable { reason } => {
                write!(f, "not a readable safetensors file ({reason})")
            }
            VectorsError::NotOurs { found } => write!(
                f,
                "not a rag-fiches vectors file: format is \"{found}\", expected \"{FORMAT}\" version {VERSION}"
            ),
            VectorsError::MissingMetadata { key } => {
                write!(f, "the vectors file lacks the metadata \"{key}\"")
            }
            VectorsError::BadMetadata { key, found } => {
                write!(f, "the vectors file's metadata \"{key}\" is invalid: \"{found}\"")
            }
            VectorsError::WrongTensor { reason } => write!(f, "the vectors tensor is wrong: {reason}"),
            VectorsError::Model { expected, found } => write!(
                f,
                "vectors made with model \"{found}\", expected \"{expected}\": vectors of different models do not compare"
            ),
            VectorsError::Dim { expected, found } => {
                write!(f, "expected {expected} dims, got {found}")
            }
            VectorsError::Count { expected, found } => write!(
                f,
                "the file holds {found} vectors for {expected} fiches: it was made for another catalogue"
            ),
            VectorsError::Ids { row, expected, found } => write!(
                f,
                "row {row} is fiche \"{found}\", expected \"{expected}\": the file was made for other fiches"
            ),
            VectorsError::OtherFiches { expected, found } => write!(
                f,
                "the file was made for other fiche texts (fingerprint {found}, expected {expected}): compute the vectors again"
            ),
            VectorsError::NotFinite { row } => write!(f, "row {row} holds a NaN or infinite value"),
            VectorsError::Norm { row, norm } => write!(
                f,
                "row {row} has norm {norm:.4}, expected 1 (± {NORM_TOLERANCE}): a zero or unnormalised vector"
            ),
            VectorsError::Store { reason } => {
                write!(f, "the exact values could not be stored: {reason}")
            }
        }
    }
}

impl std::error::Error for VectorsError {}
