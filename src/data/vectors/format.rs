//! The file's layout: its safetensors header read and checked, where each tensor's values are,
//! and the question vectors it may carry.

use safetensors::tensor::Dtype;

use super::*;

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
        check_model_dim(&self.model, self.dim, model, dim)?;
        same_count(ids.len(), self.count)?;
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
    let tensor = |name: &str| {
        header.info(name).ok_or_else(|| VectorsError::WrongTensor {
            reason: format!("no tensor named \"{name}\""),
        })
    };
    let view = tensor(TENSOR)?;
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
            let view = tensor(QUESTIONS_TENSOR)?;
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
