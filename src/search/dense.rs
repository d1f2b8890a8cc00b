//! Dense search (method `sens`): the dot product of the question's vector with every fiche's.
//! Both are normalised, so the dot product is the cosine, between −1 and 1.
//!
//! Ranking: higher score first; equal scores keep catalogue order (a stable sort, where the seed's
//! `np.argsort(-s)` leaves ties unspecified).

use crate::data::vectors::{Int8Rows, QueryCodes, VectorSet};

/// What a dense search reads: every row's int8 codes (in two 4-bit planes, see [`Int8Rows`]), to
/// pick candidates, then the candidates' exact values. A [`VectorSet`] holds both in memory; the
/// page's worker keeps the exact values in the browser's storage
/// ([`crate::data::stored::StoredSet`]).
pub trait DenseRows {
    fn dim(&self) -> usize;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every row's int8 codes and scales.
    fn int8(&self) -> &Int8Rows;
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
    fn int8(&self) -> &Int8Rows {
        VectorSet::int8(self)
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
    /// The question's vector is not of norm 1 (mistral-embed's always are): a damaged cache
    /// entry, say, or a zero vector.
    NotUnit {
        norm: f64,
    },
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
            DenseError::NotUnit { norm } => {
                write!(f, "the question's vector has norm {norm}, not 1")
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

/// Rows whose int8 product is completed per candidate scored exactly: the first pass, on the high
/// halves of the codes alone, keeps this many times [`CANDIDATES`].
pub const WIDEN: usize = 8;

/// The `k` fiches closest to `query`: `(row, cosine)`, best first.
///
/// Three passes. The high 4 bits of every row's int8 codes are scanned against the question's
/// int8 codes ([`crate::kernels::dot_u4_i16`]: an eighth of the bytes f32 would read), and the
/// best `WIDEN × candidates` rows by that estimate get their int8 product completed from the low
/// 4 bits; the best `candidates = max(CANDIDATES, 4·k)` by the int8 product are then scored
/// exactly, on their stored values widened to f32, with the same kernel a full scan uses. The
/// scores returned are bit for bit those of an exact scan, and so is the ranking whenever the
/// exact top `k` survives both cuts (measured by `bench` on 1,000 random questions at 50,000
/// fiches, with how often the int8 pool is the one a full int8 scan picks).
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

/// How far from 1 a question vector's norm may be: mistral-embed's are unit vectors, and an f32
/// round trip moves their norm by far less than this.
pub const UNIT_TOLERANCE: f64 = 1e-3;

/// Whether `query` can be compared with vectors of `dim` dimensions: the right length, finite
/// values.
fn check_query(query: &[f32], dim: usize) -> Result<(), DenseError> {
    if query.len() != dim {
        return Err(DenseError::Dim {
            expected: dim,
            found: query.len(),
        });
    }
    if query.iter().any(|x| !x.is_finite()) {
        return Err(DenseError::NotFinite);
    }
    Ok(())
}

/// Whether `query` can be a question vector of a set of `dim` dimensions whose vectors are of
/// norm 1 (mistral-embed's): the right length, finite values, norm 1 within [`UNIT_TOLERANCE`].
/// A vector read back from a cache is checked with it before use.
pub fn check_unit_query(query: &[f32], dim: usize) -> Result<(), DenseError> {
    check_query(query, dim)?;
    let norm = query
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    if (norm - 1.0).abs() > UNIT_TOLERANCE {
        return Err(DenseError::NotUnit { norm });
    }
    Ok(())
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
    check_query(query, dim)?;
    let n = set.len();
    let k = k.min(n);
    if k == 0 {
        return Ok(Vec::new());
    }
    let candidates = candidates.max(k);
    let pool: Vec<usize> = if candidates >= n {
        (0..n).collect()
    } else {
        int8_pool(
            set.int8(),
            &QueryCodes::of(query),
            candidates,
            WIDEN * candidates,
        )
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

/// The `candidates` rows of the best int8 products with `q` (ties to the lower row), their order
/// unspecified. When the catalogue holds more than `wide` rows, only the `wide` best by the high
/// planes' estimate have their product completed: the rest are not read past their high plane.
pub fn int8_pool(int8: &Int8Rows, q: &QueryCodes, candidates: usize, wide: usize) -> Vec<usize> {
    let n = int8.len();
    let exact = |i: usize| int8.dot(i, q) as f32 * int8.scale(i);
    let pool = if wide >= n {
        best(0..n, candidates, exact)
    } else {
        // Every row's high-plane product in one call (no call per row), then kept for the
        // completion: the kept rows' high planes are not read twice.
        let mut high = Vec::new();
        int8.high_dots(q, &mut high);
        // `code = 16·high + low − 128` with `low` in 0..=15: its mean 7.5 stands in for `low`.
        let offset = 120.5 * q.sum as f32;
        let coarse = best(0..n, wide, |i| {
            (16.0 * high[i] as f32 - offset) * int8.scale(i)
        });
        best(coarse.into_iter().map(|(i, _)| i), candidates, |i| {
            int8.dot_from_high(i, high[i], q) as f32 * int8.scale(i)
        })
    };
    pool.into_iter().map(|(i, _)| i).collect()
}

/// The `keep` best of `rows` by `score` (ties to the lower row), in no order. Kept in a buffer of
/// twice that: when it fills, it is cut back to the best `keep`, and the worst of those becomes a
/// floor that later rows must reach. A row below the floor is below the final cut too (the floor
/// only rises), so the result is exactly the top `keep` of a full sort, without writing and
/// selecting 50,000 estimates.
fn best(
    rows: impl Iterator<Item = usize>,
    keep: usize,
    mut score: impl FnMut(usize) -> f32,
) -> Vec<(usize, f32)> {
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let mut best: Vec<(usize, f32)> = Vec::with_capacity(2 * keep);
    let mut floor = f32::NEG_INFINITY;
    if keep == 0 {
        return best;
    }
    for i in rows {
        let estimate = score(i);
        if estimate < floor {
            continue;
        }
        if best.len() == 2 * keep {
            best.select_nth_unstable_by(keep - 1, order);
            best.truncate(keep);
            floor = best[keep - 1].1;
            if estimate < floor {
                continue;
            }
        }
        best.push((i, estimate));
    }
    if best.len() > keep {
        best.select_nth_unstable_by(keep - 1, order);
        best.truncate(keep);
    }
    best
}
