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

use std::fmt;

use half::f16;
use safetensors::tensor::Dtype;
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

/// Bytes of fiche text hashed between two pauses of [`fingerprint_pausing`].
pub const FINGERPRINT_STEP_BYTES: usize = 1 << 20;

/// [`fingerprint`], awaiting `pause(fiches hashed)` after each [`FINGERPRINT_STEP_BYTES`] of text
/// or more (one fiche is never split). In the page, 50,000 fiches (20 MB) took one 200 ms task.
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

/// How a tensor's values are stored in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    F16,
    F32,
    /// npy's `<f8`, read as f32 (as [`crate::data::npy::read_matrix`] does).
    F64,
}

impl Encoding {
    /// Bytes per value.
    pub fn width(self) -> usize {
        match self {
            Encoding::F16 => 2,
            Encoding::F32 => 4,
            Encoding::F64 => 8,
        }
    }

    /// Little-endian values in `raw` (a whole number of them) into `out` as f32, replacing it.
    pub fn widen(self, raw: &[u8], out: &mut Vec<f32>) {
        out.clear();
        match self {
            Encoding::F16 => {
                let bits: Vec<u16> = raw
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect();
                out.resize(bits.len(), 0.0);
                crate::kernels::widen_f16(&bits, out);
            }
            Encoding::F32 => out.extend(
                raw.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            ),
            Encoding::F64 => out.extend(raw.chunks_exact(8).map(|b| {
                f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
            })),
        }
    }
}

/// Where a vectors file's parts are, and what its header says, read from its first bytes alone:
/// a file can then be read a slice at a time (the page's worker never holds it whole).
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub model: String,
    pub dim: usize,
    pub count: usize,
    /// The fiche ids in row order (`None` in a `.npy`, which has none: the page's own).
    pub ids: Option<Vec<String>>,
    pub fingerprint: Option<String>,
    pub encoding: Encoding,
    /// Rows are normalised as read (a `.npy`'s, as [`VectorSet::from_rows`] does) rather than
    /// checked for a norm of 1.
    pub normalise: bool,
    /// Byte range of the fiche rows in the file.
    pub rows: std::ops::Range<usize>,
    /// The question texts, and the byte range of their rows (same encoding and dimension).
    pub questions: Option<(Vec<String>, std::ops::Range<usize>, Encoding)>,
}

impl Layout {
    /// Bytes of the exact values a set read from this file keeps: as stored in the file, or in
    /// f32 for rows normalised as read.
    pub fn exact_bytes(&self) -> usize {
        let width = if self.normalise {
            4
        } else {
            self.encoding.width()
        };
        self.count * self.dim * width
    }

    /// Refuses a file made with another model or dimension than `model` and `dim`, or for other
    /// fiches than `ids` of fingerprint `fingerprint` (a `.npy` carries neither: only its row count
    /// is checked), before its rows are read. The same checks as [`VectorSet::check_model`] then
    /// [`VectorSet::check_ids`].
    pub fn check(
        &self,
        model: &str,
        dim: usize,
        ids: &[String],
        fingerprint: &str,
    ) -> Result<(), VectorsError> {
        if self.model != model {
            return Err(VectorsError::Model {
                expected: model.to_owned(),
                found: self.model.clone(),
            });
        }
        if self.dim != dim {
            return Err(VectorsError::Dim {
                expected: dim,
                found: self.dim,
            });
        }
        if self.count != ids.len() {
            return Err(VectorsError::Count {
                expected: ids.len(),
                found: self.count,
            });
        }
        if let Some(own) = &self.ids {
            for (row, (id, f)) in own.iter().zip(ids).enumerate() {
                if id != f {
                    return Err(VectorsError::Ids {
                        row,
                        expected: f.clone(),
                        found: id.clone(),
                    });
                }
            }
        }
        match &self.fingerprint {
            Some(found) if found != fingerprint => Err(VectorsError::OtherFiches {
                expected: fingerprint.to_owned(),
                found: found.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// Bytes at the start of a safetensors file that give its header's length.
pub const HEADER_PREFIX: usize = 8;

/// How many bytes from the start of a safetensors file [`layout`] needs: the length prefix and
/// the JSON header it announces. Checked as the safetensors crate checks it.
pub fn header_end(prefix: &[u8]) -> Result<usize, VectorsError> {
    let unreadable = |e: safetensors::SafeTensorError| VectorsError::Unreadable {
        reason: e.to_string(),
    };
    let Some(first) = prefix.get(..HEADER_PREFIX) else {
        return Err(unreadable(safetensors::SafeTensorError::HeaderTooSmall));
    };
    let mut n = [0u8; 8];
    n.copy_from_slice(first);
    let n = usize::try_from(u64::from_le_bytes(n))
        .ok()
        .filter(|&n| n <= MAX_HEADER_BYTES)
        .ok_or(unreadable(safetensors::SafeTensorError::HeaderTooLarge))?;
    Ok(HEADER_PREFIX + n)
}

/// The safetensors crate's limit on a header (its `MAX_HEADER_SIZE`).
const MAX_HEADER_BYTES: usize = 100_000_000;

/// Reads and checks a vectors file's header: `head` is at least its first [`header_end`] bytes,
/// `file_len` the whole file's length. The header is validated by the safetensors crate itself
/// (its `Metadata` checks every tensor's offsets against its shape and dtype), and the file's
/// length against it, exactly as `SafeTensors::deserialize` does with the whole file; then our
/// metadata and tensors, in the order [`VectorSet::from_safetensors`] reports them.
pub fn layout(head: &[u8], file_len: usize) -> Result<Layout, VectorsError> {
    use safetensors::SafeTensorError;
    let unreadable = |e: SafeTensorError| VectorsError::Unreadable {
        reason: e.to_string(),
    };
    if file_len > MAX_FILE_BYTES {
        return Err(VectorsError::TooLarge {
            bytes: file_len,
            max: MAX_FILE_BYTES,
        });
    }
    let end = header_end(head)?;
    let Some(header) = head.get(HEADER_PREFIX..end).filter(|_| end <= file_len) else {
        return Err(unreadable(SafeTensorError::InvalidHeaderLength));
    };
    let header =
        std::str::from_utf8(header).map_err(|e| unreadable(SafeTensorError::InvalidHeader(e)))?;
    let header: safetensors::tensor::Metadata = serde_json::from_str(header)
        .map_err(|e| unreadable(SafeTensorError::InvalidHeaderDeserialization(e)))?;
    if end + header.data_len() != file_len {
        return Err(unreadable(SafeTensorError::MetadataIncompleteBuffer));
    }
    let meta = header.metadata().clone().unwrap_or_default();
    let get = |key: &'static str| meta.get(key).ok_or(VectorsError::MissingMetadata { key });
    let format = meta.get("format").cloned().unwrap_or_default();
    if format != FORMAT || meta.get("version").map(String::as_str) != Some(VERSION) {
        return Err(VectorsError::NotOurs { found: format });
    }
    let number = |key: &'static str| -> Result<usize, VectorsError> {
        let s = get(key)?;
        s.parse().map_err(|_| VectorsError::BadMetadata {
            key,
            found: s.clone(),
        })
    };
    let (dim, count) = (number("dim")?, number("count")?);
    if dim == 0 || dim > MAX_DIM {
        return Err(VectorsError::BadMetadata {
            key: "dim",
            found: dim.to_string(),
        });
    }
    let ids_text = get("ids")?;
    let ids: Vec<String> =
        serde_json::from_str(ids_text).map_err(|_| VectorsError::BadMetadata {
            key: "ids",
            found: ids_text.chars().take(80).collect(),
        })?;
    if ids.len() != count {
        return Err(VectorsError::BadMetadata {
            key: "ids",
            found: format!("{} ids for count {count}", ids.len()),
        });
    }
    let view = header
        .info(TENSOR)
        .ok_or_else(|| VectorsError::WrongTensor {
            reason: format!("no tensor named \"{TENSOR}\""),
        })?;
    let encoding = match view.dtype {
        Dtype::F16 => Encoding::F16,
        Dtype::F32 => Encoding::F32,
        other => {
            return Err(VectorsError::WrongTensor {
                reason: format!("dtype {other:?}, expected F16 or F32"),
            })
        }
    };
    if view.shape != [count, dim] {
        return Err(VectorsError::WrongTensor {
            reason: format!("shape {:?}, metadata says [{count}, {dim}]", view.shape),
        });
    }
    let rows = end + view.data_offsets.0..end + view.data_offsets.1;
    let questions = match meta.get("questions") {
        None => None,
        Some(texts) => {
            let bad = |key: &'static str, found: String| VectorsError::BadMetadata { key, found };
            let texts: Vec<String> = serde_json::from_str(texts)
                .map_err(|_| bad("questions", texts.chars().take(80).collect()))?;
            let count = meta
                .get("questions_count")
                .ok_or(VectorsError::MissingMetadata {
                    key: "questions_count",
                })?;
            if count.parse::<usize>().ok() != Some(texts.len()) {
                return Err(bad(
                    "questions_count",
                    format!("{count} for {} questions", texts.len()),
                ));
            }
            let view = header
                .info(QUESTIONS_TENSOR)
                .ok_or_else(|| VectorsError::WrongTensor {
                    reason: format!("no tensor named \"{QUESTIONS_TENSOR}\""),
                })?;
            let encoding = match view.dtype {
                Dtype::F16 if view.shape == [texts.len(), dim] => Encoding::F16,
                Dtype::F32 if view.shape == [texts.len(), dim] => Encoding::F32,
                _ => {
                    return Err(VectorsError::WrongTensor {
                        reason: format!(
                            "questions: {:?} {:?}, expected F16 or F32 [{}, {dim}]",
                            view.dtype,
                            view.shape,
                            texts.len()
                        ),
                    })
                }
            };
            let range = end + view.data_offsets.0..end + view.data_offsets.1;
            Some((texts, range, encoding))
        }
    };
    Ok(Layout {
        model: get("model")?.clone(),
        dim,
        count,
        ids: Some(ids),
        fingerprint: Some(get("fingerprint")?.clone()),
        encoding,
        normalise: false,
        rows,
        questions,
    })
}

/// The question rows of `layout` from their bytes, checked (numbered after the fiche rows).
pub fn read_questions(
    layout: &Layout,
    bytes: &[u8],
) -> Result<Vec<(String, Vec<f32>)>, VectorsError> {
    let Some((texts, _, encoding)) = &layout.questions else {
        return Ok(Vec::new());
    };
    let row_bytes = layout.dim * encoding.width();
    let mut out = Vec::with_capacity(texts.len());
    for (i, (text, raw)) in texts.iter().zip(bytes.chunks_exact(row_bytes)).enumerate() {
        let mut v = Vec::with_capacity(layout.dim);
        encoding.widen(raw, &mut v);
        check_row(layout.count + i, &v)?;
        out.push((text.clone(), v));
    }
    Ok(out)
}

/// A catalogue's rows as they came: f16 as read from a file (widening them to f32 doubled their
/// memory, 205 MB at 50,000 × 1024), f32 when computed in this session. Either way a score is
/// computed on exactly these values, widened to f32 one row at a time.
#[derive(Debug, Clone, PartialEq)]
enum Rows {
    /// IEEE half-precision bit patterns, widened by [`crate::kernels::widen_f16`].
    F16(Vec<u16>),
    F32(Vec<f32>),
}

/// The rows again in int8, one symmetric scale per row (`value ≈ code × scale`, codes in
/// −127..=127): a quarter of f32's bytes, read by the dense scan to pick candidates that are then
/// scored exactly (see [`crate::search::dense`]).
///
/// Each code is kept as two 4-bit halves in two planes of the same size, `code = 16·(high − 8) +
/// low` with `high` and `low` in 0..=15: as many bytes as plain int8 codes, but the scan can read
/// the high plane alone (an eighth of f32's bytes) to pick a wide pool of rows, then complete the
/// exact int8 products of that pool only from the low plane.
///
/// Packing, per row and per block of [`BLOCK`] values (a row is padded with zero codes to a whole
/// number of blocks): byte `k` of the block's 16 holds value `k` in its low nibble and value
/// `16 + k` in its high nibble, so one 16-byte load gives the block's first 16 values (masked) and
/// its last 16 (shifted), in order ([`crate::kernels::dot_u4_i16`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Int8Rows {
    dim: usize,
    high: Vec<u8>,
    low: Vec<u8>,
    scales: Vec<f32>,
}

/// Values per packed block of [`Int8Rows`]: 16 bytes of each plane.
pub const BLOCK: usize = 32;

/// A question's int8 codes as the dense scan reads them: widened to i16 and padded with zeros to
/// the rows' whole blocks, and their sum (the offset the planes' `− 8` leaves in each product).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryCodes {
    pub codes: Vec<i16>,
    /// The same codes as bytes (for [`crate::kernels::dot_u4_rows`]'s relaxed SIMD path).
    pub bytes: Vec<i8>,
    pub sum: i32,
}

impl QueryCodes {
    /// The int8 codes of `query` (the same [`quantise`] as the rows'), for rows of its dimension.
    pub fn of(query: &[f32]) -> QueryCodes {
        let mut codes = Vec::with_capacity(query.len());
        quantise(query, &mut codes);
        let sum = codes.iter().map(|&c| i32::from(c)).sum();
        codes.resize(query.len().div_ceil(BLOCK) * BLOCK, 0);
        QueryCodes {
            codes: crate::kernels::widen_codes(&codes),
            bytes: codes,
            sum,
        }
    }
}

/// Rows read, checked and quantised between two pauses of
/// [`VectorSet::from_safetensors_pausing`]: 256 × 1024 values, about 6 ms in the page.
pub const ROWS_PER_STEP: usize = 256;

/// A stored vector must be finite with a norm of 1 (± [`NORM_TOLERANCE`]); rows are numbered from
/// the first fiche, the questions' after the fiches'.
pub(crate) fn check_row(row: usize, v: &[f32]) -> Result<(), VectorsError> {
    if v.iter().any(|x| !x.is_finite()) {
        return Err(VectorsError::NotFinite { row });
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if (norm - 1.0).abs() > NORM_TOLERANCE {
        return Err(VectorsError::Norm { row, norm });
    }
    Ok(())
}

/// Symmetric int8 codes of `v` (largest magnitude ↦ ±127) and their scale.
pub fn quantise(v: &[f32], codes: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if !(max > 0.0 && max.is_finite()) {
        codes.extend(std::iter::repeat_n(0, v.len()));
        return 0.0;
    }
    let scale = max / 127.0;
    let inv = 127.0 / max;
    // Ties to even: one wasm instruction (`f32.nearest`), where `round` is a libm call.
    codes.extend(
        v.iter()
            .map(|x| (x * inv).round_ties_even().clamp(-127.0, 127.0) as i8),
    );
    scale
}

impl Int8Rows {
    /// Bytes of one row in each plane.
    pub fn plane_width(dim: usize) -> usize {
        dim.div_ceil(BLOCK) * BLOCK / 2
    }

    pub(crate) fn with_capacity(count: usize, dim: usize) -> Int8Rows {
        let bytes = count * Int8Rows::plane_width(dim);
        Int8Rows {
            dim,
            high: Vec::with_capacity(bytes),
            low: Vec::with_capacity(bytes),
            scales: Vec::with_capacity(count),
        }
    }

    /// Appends the codes and scale of one row (of the set's dimension).
    pub(crate) fn push(&mut self, row: &[f32]) {
        debug_assert_eq!(row.len(), self.dim);
        let mut codes = Vec::with_capacity(self.dim.div_ceil(BLOCK) * BLOCK);
        let scale = quantise(row, &mut codes);
        codes.resize(codes.capacity(), 0);
        // `c >> 4` is the floor of c / 16 (−8..=7) and `c & 15` what it leaves (0..=15).
        let split = |c: i8| (((c >> 4) + 8) as u8, (c & 15) as u8);
        for block in codes.chunks_exact(BLOCK) {
            for k in 0..BLOCK / 2 {
                let (h0, l0) = split(block[k]);
                let (h1, l1) = split(block[BLOCK / 2 + k]);
                self.high.push(h0 | h1 << 4);
                self.low.push(l0 | l1 << 4);
            }
        }
        self.scales.push(scale);
    }

    pub fn len(&self) -> usize {
        self.scales.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Row `i`'s scale (`value ≈ code × scale`).
    #[inline]
    pub fn scale(&self, i: usize) -> f32 {
        self.scales[i]
    }

    /// Every row's high plane, row after row: what the dense scan's first pass reads.
    pub fn high_plane(&self) -> &[u8] {
        &self.high
    }

    /// Both planes: every byte of the int8 codes.
    pub fn planes(&self) -> [&[u8]; 2] {
        [&self.high, &self.low]
    }

    /// Row `i`'s high plane.
    #[inline]
    pub fn high_row(&self, i: usize) -> &[u8] {
        let w = Int8Rows::plane_width(self.dim);
        &self.high[i * w..(i + 1) * w]
    }

    /// `Σ high·q` over row `i`'s high halves (`high` in 0..=15; `16·Σ (high − 8)·q` is the part
    /// of the int8 product they carry): the first pass's estimate, before scaling.
    #[inline]
    pub fn high_dot(&self, i: usize, q: &QueryCodes) -> i32 {
        crate::kernels::dot_u4_i16(self.high_row(i), &q.codes)
    }

    /// [`Int8Rows::high_dot`] of every row, into `out` (its contents replaced): the first pass,
    /// one kernel call over the whole high plane.
    pub fn high_dots(&self, q: &QueryCodes, out: &mut Vec<i32>) {
        let w = Int8Rows::plane_width(self.dim);
        crate::kernels::dot_u4_rows(&self.high, w, &q.codes, &q.bytes, out);
    }

    /// `Σ code·q` over row `i`'s int8 codes, exactly (`16·(high − 8) + low` is the code).
    #[inline]
    pub fn dot(&self, i: usize, q: &QueryCodes) -> i32 {
        self.dot_from_high(i, self.high_dot(i, q), q)
    }

    /// [`Int8Rows::dot`] given row `i`'s [`Int8Rows::high_dot`]: only its low plane is read.
    #[inline]
    pub fn dot_from_high(&self, i: usize, high_dot: i32, q: &QueryCodes) -> i32 {
        let w = Int8Rows::plane_width(self.dim);
        16 * high_dot + crate::kernels::dot_u4_i16(&self.low[i * w..(i + 1) * w], &q.codes)
            - 128 * q.sum
    }

    /// Row `i`'s int8 codes, unpacked.
    pub fn codes(&self, i: usize) -> Vec<i8> {
        let w = Int8Rows::plane_width(self.dim);
        let (high, low) = (
            &self.high[i * w..(i + 1) * w],
            &self.low[i * w..(i + 1) * w],
        );
        let mut out = vec![0i8; w * 2];
        for (b, (h, l)) in high
            .chunks_exact(BLOCK / 2)
            .zip(low.chunks_exact(BLOCK / 2))
            .enumerate()
        {
            for k in 0..BLOCK / 2 {
                let code = |h: u8, l: u8| (16 * (i16::from(h) - 8) + i16::from(l)) as i8;
                out[b * BLOCK + k] = code(h[k] & 15, l[k] & 15);
                out[b * BLOCK + BLOCK / 2 + k] = code(h[k] >> 4, l[k] >> 4);
            }
        }
        out.truncate(self.dim);
        out
    }

    /// Bytes held: both planes and the scales.
    pub fn memory_bytes(&self) -> usize {
        self.high.capacity() + self.low.capacity() + self.scales.capacity() * 4
    }

    fn of(rows: &Rows, dim: usize) -> Int8Rows {
        let count = rows.len() / dim.max(1);
        let mut int8 = Int8Rows::with_capacity(count, dim);
        let mut buf = Vec::with_capacity(dim);
        for i in 0..count {
            rows.widen(i, dim, &mut buf);
            int8.push(&buf);
        }
        int8
    }
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::F16(v) => v.len(),
            Rows::F32(v) => v.len(),
        }
    }

    /// Row `i` as f32 into `out` (replacing its contents).
    fn widen(&self, i: usize, dim: usize, out: &mut Vec<f32>) {
        out.clear();
        match self {
            Rows::F16(v) => {
                out.resize(dim, 0.0);
                crate::kernels::widen_f16(&v[i * dim..(i + 1) * dim], out);
            }
            Rows::F32(v) => out.extend_from_slice(&v[i * dim..(i + 1) * dim]),
        }
    }
}

/// What a page needs to know of fiche vectors that another thread holds (the page's worker):
/// their model, shape and the memory they take there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VectorsInfo {
    pub model: String,
    pub dim: usize,
    pub count: usize,
    /// Bytes held in the memory of the thread that holds the set.
    pub memory_bytes: usize,
    /// Bytes of exact values kept in the browser's storage instead (0 when all are in memory).
    pub stored_bytes: usize,
}

/// Vectors of a catalogue, one row per fiche: the exact values, and an int8 copy to scan.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorSet {
    pub model: String,
    pub dim: usize,
    pub ids: Vec<String>,
    pub fingerprint: String,
    /// `count × dim` values, row-major.
    rows: Rows,
    int8: Int8Rows,
    /// Question vectors shipped with the fiches' (same model and dimension): text, vector.
    pub questions: Vec<(String, Vec<f32>)>,
}

pub(crate) fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

impl VectorSet {
    /// Builds a set from one vector per fiche (normalised here, as the seed does).
    pub fn new(
        model: &str,
        fiches: &[Fiche],
        rows: Vec<Vec<f32>>,
    ) -> Result<VectorSet, VectorsError> {
        let ids = fiches.iter().map(|f| f.id.clone()).collect();
        VectorSet::from_rows(model, ids, fingerprint(fiches), rows)
    }

    /// [`VectorSet::new`] for the fiches `ids` of fingerprint `fingerprint` (the page's worker
    /// has the ids and the fingerprint, not the fiches).
    pub fn from_rows(
        model: &str,
        ids: Vec<String>,
        fingerprint: String,
        rows: Vec<Vec<f32>>,
    ) -> Result<VectorSet, VectorsError> {
        if rows.len() != ids.len() {
            return Err(VectorsError::Count {
                expected: ids.len(),
                found: rows.len(),
            });
        }
        let dim = rows.first().map_or(0, Vec::len);
        let mut data = Vec::with_capacity(rows.len() * dim);
        for (row, mut v) in rows.into_iter().enumerate() {
            if v.len() != dim {
                return Err(VectorsError::Dim {
                    expected: dim,
                    found: v.len(),
                });
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(VectorsError::NotFinite { row });
            }
            normalise(&mut v);
            data.extend_from_slice(&v);
        }
        let rows = Rows::F32(data);
        let set = VectorSet {
            model: model.to_owned(),
            dim,
            ids,
            fingerprint,
            int8: Int8Rows::of(&rows, dim),
            rows,
            questions: Vec::new(),
        };
        set.check_values()?;
        Ok(set)
    }

    /// Adds the vectors of `questions` (texts, one vector each, normalised here).
    pub fn with_questions(
        mut self,
        questions: &[&str],
        rows: Vec<Vec<f32>>,
    ) -> Result<VectorSet, VectorsError> {
        if rows.len() != questions.len() {
            return Err(VectorsError::Count {
                expected: questions.len(),
                found: rows.len(),
            });
        }
        for (row, (q, mut v)) in questions.iter().zip(rows).enumerate() {
            if v.len() != self.dim {
                return Err(VectorsError::Dim {
                    expected: self.dim,
                    found: v.len(),
                });
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(VectorsError::NotFinite { row });
            }
            normalise(&mut v);
            self.questions.push(((*q).to_owned(), v));
        }
        self.check_values()?;
        Ok(self)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// What another thread needs to know of this set.
    pub fn info(&self) -> VectorsInfo {
        VectorsInfo {
            model: self.model.clone(),
            dim: self.dim,
            count: self.len(),
            memory_bytes: self.memory_bytes(),
            stored_bytes: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Row `i`, exactly, as f32.
    pub fn row(&self, i: usize) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.dim);
        self.rows.widen(i, self.dim, &mut out);
        out
    }

    /// Row `i`, exactly, as f32 into `out` (replacing its contents): no allocation once `out`
    /// has grown to `dim`.
    pub fn row_into(&self, i: usize, out: &mut Vec<f32>) {
        self.rows.widen(i, self.dim, out);
    }

    /// Every row's int8 codes and scales.
    pub fn int8(&self) -> &Int8Rows {
        &self.int8
    }

    /// Bytes the set holds in memory for its fiche rows: the exact values and the int8 copy.
    pub fn memory_bytes(&self) -> usize {
        let exact = match &self.rows {
            Rows::F16(v) => v.len() * 2,
            Rows::F32(v) => v.len() * 4,
        };
        exact + self.int8.memory_bytes()
    }

    fn check_values(&self) -> Result<(), VectorsError> {
        let mut buf = Vec::with_capacity(self.dim);
        for row in 0..self.len() {
            self.rows.widen(row, self.dim, &mut buf);
            check_row(row, &buf)?;
        }
        // Question rows are numbered after the fiche rows.
        for (i, (_, v)) in self.questions.iter().enumerate() {
            check_row(self.len() + i, v)?;
        }
        Ok(())
    }

    /// The safetensors bytes (values rounded to f16). Written here rather than by
    /// `safetensors::serialize`, whose metadata is a `HashMap` serialised in a random order: the
    /// same vectors must give the same bytes, so that a committed file only changes when they do.
    /// Keys are sorted; the header is padded with spaces to a multiple of 8 bytes, as the crate
    /// does; the crate reads the result back (see the tests).
    pub fn to_safetensors(&self) -> Vec<u8> {
        let mut data = Vec::with_capacity(self.rows.len() * 2);
        match &self.rows {
            Rows::F16(v) => v
                .iter()
                .for_each(|x| data.extend_from_slice(&x.to_le_bytes())),
            Rows::F32(v) => v
                .iter()
                .for_each(|&x| data.extend_from_slice(&f16::from_f32(x).to_le_bytes())),
        }
        let fiche_bytes = data.len();
        for (_, v) in &self.questions {
            for &x in v {
                data.extend_from_slice(&f16::from_f32(x).to_le_bytes());
            }
        }
        let ids = serde_json::to_string(&self.ids).unwrap_or_default();
        // serde_json's Map is ordered by key: the header is deterministic.
        let mut header = serde_json::json!({
            "__metadata__": {
                "format": FORMAT,
                "version": VERSION,
                "model": self.model,
                "dim": self.dim.to_string(),
                "count": self.len().to_string(),
                "ids": ids,
                "fingerprint": self.fingerprint,
            },
            TENSOR: {
                "dtype": "F16",
                "shape": [self.len(), self.dim],
                "data_offsets": [0, fiche_bytes],
            },
        });
        if !self.questions.is_empty() {
            let texts: Vec<&str> = self.questions.iter().map(|(q, _)| q.as_str()).collect();
            let meta = &mut header["__metadata__"];
            meta["questions"] =
                serde_json::Value::String(serde_json::to_string(&texts).unwrap_or_default());
            meta["questions_count"] = serde_json::Value::String(texts.len().to_string());
            header[QUESTIONS_TENSOR] = serde_json::json!({
                "dtype": "F16",
                "shape": [texts.len(), self.dim],
                "data_offsets": [fiche_bytes, data.len()],
            });
        }
        let mut header = header.to_string().into_bytes();
        while !header.len().is_multiple_of(8) {
            header.push(b' ');
        }
        let mut out = Vec::with_capacity(8 + header.len() + data.len());
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&data);
        out
    }

    /// Reads a vectors file, checking its structure and values (not yet its catalogue: see
    /// [`VectorSet::check_fiches`]). Never panics on untrusted bytes.
    pub fn from_safetensors(bytes: &[u8]) -> Result<VectorSet, VectorsError> {
        crate::steps::run_ready(Self::from_safetensors_pausing(bytes, |_| {
            std::future::ready(())
        }))
    }

    /// [`VectorSet::from_safetensors`], awaiting `pause(percent done)` after every
    /// [`ROWS_PER_STEP`] rows read, checked and quantised: the page yields to its event loop
    /// there (50,000 rows held its thread for 1.2 s in one task).
    pub async fn from_safetensors_pausing<F, Fut>(
        bytes: &[u8],
        mut pause: F,
    ) -> Result<VectorSet, VectorsError>
    where
        F: FnMut(u8) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        // The header is JSON holding every id: 50,000 of them made one step of 45 ms in a build
        // without `wasm-opt`, so reading it is a step of its own.
        let layout = layout(bytes, bytes.len())?;
        pause(0).await;
        let (dim, count) = (layout.dim, layout.count);
        // Row by row: stored as read, widened once to be checked and quantised.
        let half = layout.encoding == Encoding::F16;
        let mut rows = if half {
            Rows::F16(Vec::with_capacity(count * dim))
        } else {
            Rows::F32(Vec::with_capacity(count * dim))
        };
        let mut int8 = Int8Rows::with_capacity(count, dim);
        let mut buf = Vec::with_capacity(dim);
        let width = layout.encoding.width();
        for (row, raw) in bytes[layout.rows.clone()]
            .chunks_exact(dim * width)
            .enumerate()
        {
            match &mut rows {
                Rows::F16(v) => v.extend(
                    raw.chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]])),
                ),
                Rows::F32(v) => v.extend(
                    raw.chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                ),
            }
            rows.widen(row, dim, &mut buf);
            check_row(row, &buf)?;
            int8.push(&buf);
            if (row + 1) % ROWS_PER_STEP == 0 {
                pause(((row + 1) * 100 / count) as u8).await;
            }
        }
        let questions = match &layout.questions {
            Some((_, range, _)) => read_questions(&layout, &bytes[range.clone()])?,
            None => Vec::new(),
        };
        let Layout {
            model,
            ids,
            fingerprint,
            ..
        } = layout;
        Ok(VectorSet {
            model,
            dim,
            ids: ids.unwrap_or_default(),
            fingerprint: fingerprint.unwrap_or_default(),
            int8,
            rows,
            questions,
        })
    }

    /// Refuses a set made for other fiches, naming the first difference.
    pub fn check_fiches(&self, fiches: &[Fiche]) -> Result<(), VectorsError> {
        self.check_fiches_with(fiches, &fingerprint(fiches))
    }

    /// [`VectorSet::check_fiches`] with the fiches' [`fingerprint`] already computed.
    pub fn check_fiches_with(&self, fiches: &[Fiche], expected: &str) -> Result<(), VectorsError> {
        self.check_ids(fiches.iter().map(|f| f.id.as_str()), fiches.len(), expected)
    }

    /// [`VectorSet::check_fiches_with`] from the fiches' ids alone (`count` of them).
    pub fn check_ids<'a>(
        &self,
        ids: impl Iterator<Item = &'a str>,
        count: usize,
        expected: &str,
    ) -> Result<(), VectorsError> {
        if self.len() != count {
            return Err(VectorsError::Count {
                expected: count,
                found: self.len(),
            });
        }
        for (row, (id, f)) in self.ids.iter().zip(ids).enumerate() {
            if id != f {
                return Err(VectorsError::Ids {
                    row,
                    expected: f.to_owned(),
                    found: id.clone(),
                });
            }
        }
        if self.fingerprint != expected {
            return Err(VectorsError::OtherFiches {
                expected: expected.to_owned(),
                found: self.fingerprint.clone(),
            });
        }
        Ok(())
    }

    /// Refuses a set made with another model than the one that will embed the questions.
    pub fn check_model(&self, model: &str, dim: usize) -> Result<(), VectorsError> {
        if self.model != model {
            return Err(VectorsError::Model {
                expected: model.to_owned(),
                found: self.model.clone(),
            });
        }
        if self.dim != dim {
            return Err(VectorsError::Dim {
                expected: dim,
                found: self.dim,
            });
        }
        Ok(())
    }
}
