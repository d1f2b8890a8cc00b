//! The dense scan's int8 codes: each row quantised with its own scale, kept as two planes of
//! 4-bit halves, and a question's codes as the scan reads them.

use super::set::Rows;
use super::*;

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
/// [`VectorSet::from_safetensors_pausing`]: 256 × 1024 values, a step short enough for the page.
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

    pub(super) fn of(rows: &Rows, dim: usize) -> Int8Rows {
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
