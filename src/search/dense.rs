//! Dense search (method `sens`): the dot product of the question's vector with every fiche's.
//! Both are normalised, so the dot product is the cosine, between −1 and 1.
//!
//! Ranking: higher score first; equal scores keep catalogue order (a stable sort, where the seed's
//! `np.argsort(-s)` leaves ties unspecified).

use crate::data::vectors::{quantise, VectorSet};

/// What a dense search reads: every row's int8 codes, to pick candidates, then the candidates'
/// exact values. A [`VectorSet`] holds both in memory; the page's worker keeps the exact values in
/// the browser's storage ([`crate::data::stored::StoredSet`]).
pub trait DenseRows {
    fn dim(&self) -> usize;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Row `i`'s int8 codes and their scale (`value ≈ code × scale`).
    fn int8_row(&self, i: usize) -> (&[i8], f32);
    /// Row `i`'s exact values, widened to f32, into `out` (replacing its contents).
    fn exact_row(&self, i: usize, out: &mut Vec<f32>) -> Result<(), String>;
}

impl DenseRows for VectorSet {
    fn dim(&self) -> usize {
        self.dim
    }
    fn len(&self) -> usize {
        VectorSet::len(self)
    }
    fn int8_row(&self, i: usize) -> (&[i8], f32) {
        VectorSet::int8_row(self, i)
    }
    fn exact_row(&self, i: usize, out: &mut Vec<f32>) -> Result<(), String> {
        self.row_into(i, out);
        Ok(())
    }
}

/// Why a question's vector cannot be compared with the fiches'.
#[derive(Debug, Clone, PartialEq)]
pub enum DenseError {
    Dim {
        expected: usize,
        found: usize,
    },
    NotFinite,
    /// A candidate's exact values could not be read back from where they are kept.
    Rows {
        row: usize,
        reason: String,
    },
}

impl std::fmt::Display for DenseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DenseError::Dim { expected, found } => {
                write!(
                    f,
                    "the question's vector has {found} dims, the fiches' {expected}"
                )
            }
            DenseError::NotFinite => {
                write!(f, "the question's vector holds a NaN or infinite value")
            }
            DenseError::Rows { row, reason } => {
                write!(
                    f,
                    "the exact values of row {row} could not be read: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for DenseError {}

/// Dot product over 16 independent partial sums ([`crate::kernels::dot`]: in the page, wasm
/// `simd128` instructions, bit-identical to the scalar path). Without them every addition waits
/// for the previous one (floating-point addition is not reassociated by the compiler), and the
/// loop runs at the adder's latency instead of its throughput.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    crate::kernels::dot(a, b)
}

/// Rows scored exactly per question, at least: the int8 scan picks them, then each is scored from
/// its exact values. A catalogue of at most this many fiches is scored exactly throughout.
pub const CANDIDATES: usize = 200;

/// The `k` fiches closest to `query`: `(row, cosine)`, best first.
///
/// Two passes. The int8 copy of every row is scanned against the question's int8 codes
/// ([`crate::kernels::dot_i8_i16`]: a quarter of the bytes f32 would read), and the best
/// `max(CANDIDATES, 4·k)` rows by that estimate are then scored exactly, on their stored values
/// widened to f32, with the same kernel a full scan uses: the scores returned are bit for bit
/// those of an exact scan, and so is the ranking whenever the exact top `k` is among the
/// candidates (measured by `bench`: every one of 1,000 random questions at 50,000 fiches).
pub fn search<R: DenseRows + ?Sized>(
    set: &R,
    query: &[f32],
    k: usize,
) -> Result<Vec<(usize, f64)>, DenseError> {
    search_with(set, query, k, CANDIDATES.max(4 * k))
}

/// Every row scored exactly: what [`search`] must agree with.
pub fn search_exact<R: DenseRows + ?Sized>(
    set: &R,
    query: &[f32],
    k: usize,
) -> Result<Vec<(usize, f64)>, DenseError> {
    search_with(set, query, k, usize::MAX)
}

/// [`search`] with `candidates` rows re-scored exactly (all of them when it is at least the
/// catalogue's size).
pub fn search_with<R: DenseRows + ?Sized>(
    set: &R,
    query: &[f32],
    k: usize,
    candidates: usize,
) -> Result<Vec<(usize, f64)>, DenseError> {
    let dim = set.dim();
    if query.len() != dim {
        return Err(DenseError::Dim {
            expected: dim,
            found: query.len(),
        });
    }
    if query.iter().any(|x| !x.is_finite()) {
        return Err(DenseError::NotFinite);
    }
    let n = set.len();
    let k = k.min(n);
    if k == 0 {
        return Ok(Vec::new());
    }
    let candidates = candidates.max(k);
    let pool: Vec<usize> = if candidates >= n {
        (0..n).collect()
    } else {
        let mut codes = Vec::with_capacity(dim);
        quantise(query, &mut codes);
        let codes = crate::kernels::widen_codes(&codes);
        // The best `candidates` estimates, kept in a buffer of twice that: when it fills, it is
        // cut back to the best `candidates`, and the worst of those becomes a floor that later
        // rows must reach. A row below the floor is below the final cut too (the floor only
        // rises), so the pool is exactly the top `candidates` of a full sort, without writing and
        // selecting 50,000 estimates.
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut best: Vec<(usize, f32)> = Vec::with_capacity(2 * candidates);
        let mut floor = f32::NEG_INFINITY;
        for i in 0..n {
            let (row, scale) = set.int8_row(i);
            let estimate = crate::kernels::dot_i8_i16(row, &codes) as f32 * scale;
            if estimate < floor {
                continue;
            }
            if best.len() == 2 * candidates {
                best.select_nth_unstable_by(candidates - 1, order);
                best.truncate(candidates);
                floor = best[candidates - 1].1;
                if estimate < floor {
                    continue;
                }
            }
            best.push((i, estimate));
        }
        if best.len() > candidates {
            best.select_nth_unstable_by(candidates - 1, order);
            best.truncate(candidates);
        }
        best.into_iter().map(|(i, _)| i).collect()
    };
    let norm = dot(query, query).sqrt();
    let scale = if norm > 0.0 { 1.0 / norm } else { 0.0 };
    let mut row = Vec::with_capacity(dim);
    let mut scored: Vec<(usize, f64)> = Vec::with_capacity(pool.len());
    // In row order: a store that reads from a file reads it forwards.
    let mut pool = pool;
    pool.sort_unstable();
    for i in pool {
        set.exact_row(i, &mut row)
            .map_err(|reason| DenseError::Rows { row: i, reason })?;
        scored.push((i, (dot(&row, query) * scale) as f64));
    }
    let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k < scored.len() {
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_by(order);
    Ok(scored)
}
