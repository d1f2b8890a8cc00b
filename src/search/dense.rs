//! Dense search (method `sens`): the dot product of the question's vector with every fiche's.
//! Both are normalised, so the dot product is the cosine, between −1 and 1.
//!
//! Ranking: higher score first; equal scores keep catalogue order (a stable sort, where the seed's
//! `np.argsort(-s)` leaves ties unspecified).

use crate::data::vectors::VectorSet;

/// Why a question's vector cannot be compared with the fiches'.
#[derive(Debug, Clone, PartialEq)]
pub enum DenseError {
    Dim { expected: usize, found: usize },
    NotFinite,
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

/// The `k` fiches closest to `query`: `(row, cosine)`, best first.
pub fn search(set: &VectorSet, query: &[f32], k: usize) -> Result<Vec<(usize, f64)>, DenseError> {
    if query.len() != set.dim {
        return Err(DenseError::Dim {
            expected: set.dim,
            found: query.len(),
        });
    }
    if query.iter().any(|x| !x.is_finite()) {
        return Err(DenseError::NotFinite);
    }
    let norm = dot(query, query).sqrt();
    let scale = if norm > 0.0 { 1.0 / norm } else { 0.0 };
    let mut scored: Vec<(usize, f64)> = (0..set.len())
        .map(|i| (i, (dot(set.row(i), query) * scale) as f64))
        .collect();
    let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let k = k.min(scored.len());
    if k == 0 {
        return Ok(Vec::new());
    }
    if k < scored.len() {
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_by(order);
    Ok(scored)
}
