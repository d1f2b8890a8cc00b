//! NumPy's `.npy` format, to read the seed's `vecteurs.npy` (what `np.save` writes after the
//! seed's Python run: a 2-D array of float64, one row per fiche). It carries no model name and no
//! fingerprint: only its shape can be checked against the fiches.
//!
//! Format: magic `\x93NUMPY`, major and minor version, header length (2 bytes in version 1, 4 in
//! versions 2 and 3), then a Python dict literal such as
//! `{'descr': '<f8', 'fortran_order': False, 'shape': (200, 1024), }`, then the data.

use std::fmt;

use crate::data::vectors::{Encoding, Layout};

/// Why a `.npy` file was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum NpyError {
    NotNpy,
    Truncated {
        expected: usize,
        found: usize,
    },
    Header {
        reason: String,
    },
    /// Only little-endian float32 and float64 are read.
    Dtype {
        found: String,
    },
    FortranOrder,
    /// Only 2-D arrays (fiches × dimensions) are read.
    Shape {
        found: String,
    },
    TooLarge {
        bytes: usize,
        max: usize,
    },
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NpyError::NotNpy => write!(f, "not a .npy file (it must start with \\x93NUMPY)"),
            NpyError::Truncated { expected, found } => {
                write!(
                    f,
                    "the .npy file holds {found} bytes of data, its header announces {expected}"
                )
            }
            NpyError::Header { reason } => write!(f, "the .npy header is unreadable ({reason})"),
            NpyError::Dtype { found } => {
                write!(f, "values of type {found}: only little-endian float32 (<f4) and float64 (<f8) are read")
            }
            NpyError::FortranOrder => write!(
                f,
                "the array is in Fortran order: save it with np.save(…, np.ascontiguousarray(v))"
            ),
            NpyError::Shape { found } => {
                write!(f, "shape {found}: expected 2 dimensions (fiches, values)")
            }
            NpyError::TooLarge { bytes, max } => {
                write!(f, "file of {bytes} bytes refused: the limit is {max} bytes")
            }
        }
    }
}

impl std::error::Error for NpyError {}

/// Reads a 2-D float array: its rows, as f32.
pub fn read_matrix(bytes: &[u8]) -> Result<Vec<Vec<f32>>, NpyError> {
    let layout = layout(bytes, bytes.len(), "")?;
    let mut row = Vec::with_capacity(layout.dim);
    Ok(bytes[layout.rows.clone()]
        .chunks_exact(layout.dim * layout.encoding.width())
        .map(|raw| {
            layout.encoding.widen(raw, &mut row);
            row.clone()
        })
        .collect())
}

/// Bytes at the start of a `.npy` that give its header's length (version 2 or 3; version 1 needs
/// two fewer).
pub const HEADER_PREFIX: usize = 12;

/// How many bytes from the start of a `.npy` [`layout`] needs: the magic string, the version,
/// and the header it announces.
pub fn header_end(prefix: &[u8]) -> Result<usize, NpyError> {
    if prefix.len() < 10 || &prefix[..6] != b"\x93NUMPY" {
        return Err(NpyError::NotNpy);
    }
    let (header_len, start): (usize, usize) = match prefix[6] {
        1 => (u16::from_le_bytes([prefix[8], prefix[9]]) as usize, 10),
        2 | 3 if prefix.len() >= 12 => (
            u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]) as usize,
            12,
        ),
        v => {
            return Err(NpyError::Header {
                reason: format!("version {v}"),
            })
        }
    };
    Ok(start.saturating_add(header_len))
}

/// Reads and checks a `.npy`'s header: `head` is at least its first [`header_end`] bytes (or the
/// whole file), `file_len` the whole file's length. The rows are said to be of `model`, to be
/// normalised as read.
pub fn layout(head: &[u8], file_len: usize, model: &str) -> Result<Layout, NpyError> {
    let max = crate::data::vectors::MAX_FILE_BYTES;
    if file_len > max {
        return Err(NpyError::TooLarge {
            bytes: file_len,
            max,
        });
    }
    let end = header_end(head)?;
    let start = if head[6] == 1 { 10 } else { 12 };
    if end > file_len || end > head.len() {
        return Err(NpyError::Truncated {
            expected: end,
            found: file_len,
        });
    }
    let header = std::str::from_utf8(&head[start..end]).map_err(|_| NpyError::Header {
        reason: "not text".into(),
    })?;
    let field = |key: &str| -> Result<&str, NpyError> {
        let at = header
            .find(&format!("'{key}'"))
            .ok_or_else(|| NpyError::Header {
                reason: format!("no '{key}'"),
            })?;
        let rest = header[at + key.len() + 2..].trim_start();
        rest.strip_prefix(':')
            .map(str::trim_start)
            .ok_or_else(|| NpyError::Header {
                reason: format!("no value for '{key}'"),
            })
    };
    let descr = field("descr")?;
    let descr = descr.trim_start_matches(['\'', '"']);
    let descr: String = descr
        .chars()
        .take_while(|c| *c != '\'' && *c != '"')
        .collect();
    let encoding = match descr.as_str() {
        "<f4" => Encoding::F32,
        "<f8" => Encoding::F64,
        other => {
            return Err(NpyError::Dtype {
                found: other.to_owned(),
            })
        }
    };
    if field("fortran_order")?.starts_with("True") {
        return Err(NpyError::FortranOrder);
    }
    let shape = field("shape")?;
    let shape = shape.strip_prefix('(').ok_or_else(|| NpyError::Header {
        reason: "shape is not a tuple".into(),
    })?;
    let shape = &shape[..shape.find(')').ok_or_else(|| NpyError::Header {
        reason: "shape is not closed".into(),
    })?];
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse().map_err(|_| NpyError::Shape {
                found: format!("({shape})"),
            })
        })
        .collect::<Result<_, _>>()?;
    let [rows, cols] = dims[..] else {
        return Err(NpyError::Shape {
            found: format!("({shape})"),
        });
    };
    // A vector of no values is no vector; and `rows` empty vectors would be allocated from a
    // 128-byte file (shape (4000000000, 0) asked for 96 GB).
    if cols == 0 {
        return Err(NpyError::Shape {
            found: format!("({shape})"),
        });
    }
    let expected = rows
        .checked_mul(cols)
        .and_then(|n| n.checked_mul(encoding.width()))
        .ok_or(NpyError::Shape {
            found: format!("({shape})"),
        })?;
    if file_len - end != expected {
        return Err(NpyError::Truncated {
            expected,
            found: file_len - end,
        });
    }
    Ok(Layout {
        model: model.to_owned(),
        dim: cols,
        count: rows,
        ids: None,
        fingerprint: None,
        encoding,
        normalise: true,
        rows: end..file_len,
        questions: None,
    })
}

/// Writes a 2-D float64 array as `np.save` does (version 1), for tests and round trips.
pub fn write_matrix(rows: &[Vec<f32>]) -> Vec<u8> {
    let cols = rows.first().map_or(0, Vec::len);
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {cols}), }}",
        rows.len()
    );
    // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for r in rows {
        for &x in r {
            out.extend_from_slice(&(x as f64).to_le_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_numpy_writes() {
        // np.save(f, np.array([[1.0, 2.0], [3.0, 4.5]])) byte for byte (numpy 1.26).
        let mut bytes =
            b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"
                .to_vec();
        while bytes.len() < 127 {
            bytes.push(b' ');
        }
        bytes.push(b'\n');
        for x in [1.0f64, 2.0, 3.0, 4.5] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        assert_eq!(
            read_matrix(&bytes).unwrap(),
            vec![vec![1.0, 2.0], vec![3.0, 4.5]]
        );
        assert_eq!(write_matrix(&[vec![1.0, 2.0], vec![3.0, 4.5]]), bytes);
    }

    #[test]
    fn refuses_what_it_cannot_read_without_panicking() {
        let good = write_matrix(&vec![vec![0.5; 4]; 3]);
        assert_eq!(read_matrix(b"PK\x03\x04zip").unwrap_err(), NpyError::NotNpy);
        assert!(matches!(
            read_matrix(&good[..good.len() - 1]),
            Err(NpyError::Truncated { .. })
        ));
        let mut longer = good.clone();
        longer.push(0);
        assert!(matches!(
            read_matrix(&longer),
            Err(NpyError::Truncated { .. })
        ));
        // Edits the header, keeping its length (the padding absorbs the difference).
        let edit = |from: &str, to: &str| -> Vec<u8> {
            let header = String::from_utf8(good[10..128].to_vec()).unwrap();
            let mut h = header.replacen(from, to, 1).trim_end().to_owned();
            while h.len() < 117 {
                h.push(' ');
            }
            h.push('\n');
            let mut out = good[..10].to_vec();
            out.extend_from_slice(h.as_bytes());
            out.extend_from_slice(&good[128..]);
            out
        };
        assert!(matches!(
            read_matrix(&edit("<f8", ">f8")),
            Err(NpyError::Dtype { .. })
        ));
        assert_eq!(
            read_matrix(&edit("False", "True")).unwrap_err(),
            NpyError::FortranOrder
        );
        assert!(read_matrix(&edit("(3, 4)", "(99999999999, 99999999999)")).is_err());
        assert!(matches!(
            read_matrix(&edit("(3, 4)", "(3, 2, 2)")),
            Err(NpyError::Shape { .. })
        ));
        assert_eq!(read_matrix(&edit("<f8", "<f8")).unwrap().len(), 3);
        // A 128-byte file of shape (4000000000, 0): no data to check, yet it asked for 4e9
        // empty vectors (capacity overflow, or 96 GB). Refused.
        let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 0), }";
        let mut tiny = b"\x93NUMPY\x01\x00".to_vec();
        let mut h = header.to_owned();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        tiny.extend_from_slice(&(h.len() as u16).to_le_bytes());
        tiny.extend_from_slice(h.as_bytes());
        assert_eq!(tiny.len(), 128);
        assert!(matches!(read_matrix(&tiny), Err(NpyError::Shape { .. })));
        for cut in 0..good.len().min(140) {
            let _ = read_matrix(&good[..cut]);
        }
    }
}
