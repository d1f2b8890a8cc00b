//! The two inner loops every vector computation spends its time in: `dot` (dense search, norms)
//! and `axpy` (the local encoder's layers, `y += a·x`).
//!
//! The page is built for size (`opt-level = "z"`), and at that level LLVM does not vectorise
//! loops: the same code ran scalar in the page. So on wasm32 built with the `simd128` target
//! feature (`.cargo/config.toml` turns it on for the page) these loops are written with wasm's
//! 128-bit vector instructions, four `f32` lanes at a time. Natively they stay plain Rust, which
//! the compiler vectorises or not as the profile decides; the encoder's `matmul_acc` is blocked
//! natively too (`kernels/blocked.rs`, with AVX where the processor has it).
//!
//! Both paths give **bit-identical** results: `axpy` is element-wise (each lane does exactly the
//! scalar multiply then add, never a fused multiply-add), and `dot` keeps sixteen partial sums
//! (four vectors of four lanes) that are added in the same order as the scalar path's sixteen.
//! The native tests therefore vouch for the page's numbers.

/// Partial sums kept by [`dot`]: independent chains, so the loop runs at the adder's throughput
/// instead of its latency.
pub const LANES: usize = 16;

/// `Σ a[i]·b[i]` over the shorter of the two.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar_dot(a, b)
    }
}

/// `y[i] += a · x[i]` over the shorter of the two.
#[inline]
pub fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::axpy(y, a, x)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar_axpy(y, a, x)
    }
}

/// `ys[t][j] += Σ_i xs[t][i] · w[i·outputs + j]` for every row `t`: a dense layer applied to a
/// batch (the local encoder's tokens), `w` row-major `inputs × outputs`. Each output sums its
/// terms in ascending `i`, exactly as `axpy` row after row would: the blocked vector path (four
/// rows × eight outputs held in registers while `i` runs) gives the same bits as the scalar one.
pub fn matmul_acc(xs: &[Vec<f32>], w: &[f32], outputs: usize, ys: &mut [Vec<f32>]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::matmul_acc(xs, w, outputs, ys)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        blocked::matmul_acc(xs, w, outputs, ys)
    }
}

/// `Σ nibble·q` over a row's plane of packed 4-bit values (see
/// [`crate::data::vectors::Int8Rows`]: byte `k` of each 16 holds value `k` of its block of 32 in
/// its low nibble and value `16 + k` in its high one) and a question's codes widened to i16 and
/// padded to whole blocks. The dense scan's inner loop: each 16 bytes (32 values) cost one load, a
/// mask and a shift to separate the nibbles, four zero extensions to i16 and four multiply-adds of
/// i16 pairs into i32 lanes (`i32x4.dot_i16x8_s`). Integer sums are exact in any order (15 × 128 ×
/// 16,384 is far below 2³¹), so the vector path equals the scalar one by construction. Reads the
/// whole blocks of `packed` that `q` covers.
#[inline]
pub fn dot_u4_i16(packed: &[u8], q: &[i16]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot_u4_i16(packed, q)
    }
    #[cfg(target_arch = "x86_64")]
    {
        sse2::dot_u4_i16(packed, q)
    }
    #[cfg(not(any(
        all(target_arch = "wasm32", target_feature = "simd128"),
        target_arch = "x86_64"
    )))]
    {
        scalar_dot_u4_i16(packed, q)
    }
}

/// [`dot_u4_i16`] of every row of `plane` (rows of `width` bytes, back to back) with `q`, into
/// `out` (its contents replaced, one value per whole row). The dense scan's first pass as one call:
/// in a module built at `opt-level = "z"`, a call per row, each with its slice and bounds checks,
/// cost a sixth of the scan's own time over 50,000 rows (Node's V8).
///
/// `q8` holds the same codes as `q` (int8 values, padded alike): with the `relaxed` feature (the
/// worker's second module, `encodeur-rapide`, which `www/encodeur-demarrage.js` starts only where
/// the engine compiles relaxed SIMD) the scan multiplies bytes by bytes with relaxed SIMD's
/// `i32x4.relaxed_dot_i8x16_i7x16_add_s`: two instructions per 32 values where the baseline needs
/// four widenings to i16, four multiply-adds and four additions. Its result is exact and the same
/// on every engine: the nibbles (0..=15) have no top bit, which is all the instruction leaves to
/// the platform, and no pair of products (at most 2 × 128 × 15) can saturate its 16-bit sums.
pub fn dot_u4_rows(plane: &[u8], width: usize, q: &[i16], q8: &[i8], out: &mut Vec<i32>) {
    out.clear();
    if width == 0 {
        return;
    }
    let rows = plane.len() / width;
    out.resize(rows, 0);
    let plane = &plane[..rows * width];
    #[cfg(all(
        target_arch = "wasm32",
        target_feature = "simd128",
        feature = "relaxed"
    ))]
    {
        let _ = q;
        relaxed_dot_u4_i8_rows(plane, width, q8, out);
    }
    #[cfg(all(
        target_arch = "wasm32",
        target_feature = "simd128",
        not(feature = "relaxed")
    ))]
    {
        let _ = q8;
        simd_dot_u4_i16_rows(plane, width, q, out);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let _ = q8;
        for (o, row) in out.iter_mut().zip(plane.chunks_exact(width)) {
            *o = dot_u4_i16(row, q);
        }
    }
}

/// [`dot_u4_rows`]'s baseline wasm path (`simd128`): `plane` holds exactly `out.len()` rows.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn simd_dot_u4_i16_rows(plane: &[u8], width: usize, q: &[i16], out: &mut [i32]) {
    simd::dot_u4_i16_rows(plane, width, q, out);
}

/// [`dot_u4_rows`]'s relaxed SIMD path: `plane` holds exactly `out.len()` rows.
#[cfg(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    feature = "relaxed"
))]
pub fn relaxed_dot_u4_i8_rows(plane: &[u8], width: usize, q: &[i8], out: &mut [i32]) {
    assert_eq!(plane.len(), out.len() * width, "whole rows");
    // SAFETY: this module is only built with the `relaxed` feature for engines that compile
    // relaxed SIMD (a module using it is refused as a whole elsewhere, never run), and the rows
    // are whole, as asserted.
    unsafe { relaxed::dot_u4_i8_rows(plane, width, q, out) }
}

/// The XOR of every byte of `bytes` taken 64 at a time (four independent 16-byte accumulators in
/// the page), folded into a u64: the least work that still reads every byte, so its time is the
/// memory read bound of a scan over those bytes. For the benchmarks: the page's worker times it
/// over its int8 codes, the bound of the dense scan in the page itself (natively, `bench` has its
/// own probe; this one is the reference there).
pub fn read_probe(bytes: &[u8]) -> u64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::read_probe(bytes)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar_read_probe(bytes)
    }
}

/// The reference [`read_probe`]: byte `i` of the whole 64-byte chunks lands in byte `i mod 8` of
/// the result, the remaining bytes in its lowest byte.
pub fn scalar_read_probe(bytes: &[u8]) -> u64 {
    let whole = bytes.len() / 64 * 64;
    let (head, rest) = bytes.split_at(whole);
    head.iter()
        .enumerate()
        .fold(0, |a, (i, &b)| a ^ (u64::from(b) << (8 * (i % 8))))
        ^ rest.iter().fold(0, |a, &b| a ^ u64::from(b))
}

/// A question's int8 codes as the i16 values [`dot_u4_i16`] reads.
pub fn widen_codes(codes: &[i8]) -> Vec<i16> {
    codes.iter().map(|&c| i16::from(c)).collect()
}

/// The reference [`dot_u4_i16`].
pub fn scalar_dot_u4_i16(packed: &[u8], q: &[i16]) -> i32 {
    packed
        .chunks_exact(16)
        .zip(q.chunks_exact(32))
        .map(|(p, q)| {
            p.iter()
                .enumerate()
                .map(|(k, &b)| {
                    i32::from(b & 15) * i32::from(q[k]) + i32::from(b >> 4) * i32::from(q[16 + k])
                })
                .sum::<i32>()
        })
        .sum()
}

/// Widens IEEE half-precision values (as bit patterns) into `dst`, over the shorter of the two.
/// Exact for every finite value (normal and subnormal); infinities stay infinite and NaN stay NaN
/// (so that a vectors file holding one is refused). The exponent and mantissa bits are moved into
/// an f32 and scaled by 2¹¹² (the difference of the biases), which is exact; an all-ones exponent
/// is made all ones again; the sign is put back. In the page the same few operations run on four
/// lanes at a time (`half`'s own conversion is a branchy software routine there).
#[inline]
pub fn widen_f16(src: &[u16], dst: &mut [f32]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::widen_f16(src, dst)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar_widen_f16(src, dst)
    }
}

/// 2¹¹², as f32 bits: f32's exponent bias (127) minus f16's (15).
const F16_SCALE_BITS: u32 = (127 - 15 + 127) << 23;

/// The reference [`widen_f16`].
pub fn scalar_widen_f16(src: &[u16], dst: &mut [f32]) {
    let scale = f32::from_bits(F16_SCALE_BITS);
    for (d, &h) in dst.iter_mut().zip(src) {
        let h = u32::from(h);
        let magnitude = (f32::from_bits((h & 0x7fff) << 13) * scale).to_bits();
        let special = if h & 0x7c00 == 0x7c00 { 0x7f80_0000 } else { 0 };
        *d = f32::from_bits(magnitude | special | ((h & 0x8000) << 16));
    }
}

/// The reference [`matmul_acc`]: one `axpy` per input and row.
pub fn scalar_matmul_acc(xs: &[Vec<f32>], w: &[f32], outputs: usize, ys: &mut [Vec<f32>]) {
    if outputs == 0 {
        return;
    }
    for (i, row) in w.chunks_exact(outputs).enumerate() {
        for (x, y) in xs.iter().zip(ys.iter_mut()) {
            if let Some(&xi) = x.get(i) {
                scalar_axpy(y, xi, row);
            }
        }
    }
}

/// The reference [`dot`]: sixteen partial sums, then the tail.
pub fn scalar_dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

/// The reference [`axpy`].
pub fn scalar_axpy(y: &mut [f32], a: f32, x: &[f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// The terminal's [`dot_u4_i16`] on x86-64, where SSE2 is always present: at the release profile's
/// `opt-level = "z"` LLVM leaves the scalar loop scalar (`cargo run --release --bin bench`).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_and_si128, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_madd_epi16,
        _mm_set1_epi8, _mm_setzero_si128, _mm_shuffle_epi32, _mm_srli_epi16, _mm_unpackhi_epi8,
        _mm_unpacklo_epi8,
    };

    #[inline]
    pub fn dot_u4_i16(packed: &[u8], q: &[i16]) -> i32 {
        // SAFETY: SSE2 is part of x86-64; each chunk holds 16 readable bytes of `packed` and 64
        // of `q`, and loadu has no alignment requirement.
        unsafe {
            let (mask, zero) = (_mm_set1_epi8(15), _mm_setzero_si128());
            let (mut a, mut b) = (_mm_setzero_si128(), _mm_setzero_si128());
            for (p, q) in packed.chunks_exact(16).zip(q.chunks_exact(32)) {
                let x = _mm_loadu_si128(p.as_ptr().cast::<__m128i>());
                let lo = _mm_and_si128(x, mask);
                let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), mask);
                // (No closure for the four loads: at `opt-level = "z"` it stays a call.)
                let y = q.as_ptr().cast::<__m128i>();
                let (y0, y1) = (_mm_loadu_si128(y), _mm_loadu_si128(y.add(1)));
                let (y2, y3) = (_mm_loadu_si128(y.add(2)), _mm_loadu_si128(y.add(3)));
                a = _mm_add_epi32(a, _mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), y0));
                b = _mm_add_epi32(b, _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), y1));
                a = _mm_add_epi32(a, _mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), y2));
                b = _mm_add_epi32(b, _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), y3));
            }
            let acc = _mm_add_epi32(a, b);
            let acc = _mm_add_epi32(acc, _mm_shuffle_epi32::<0b01_00_11_10>(acc));
            let acc = _mm_add_epi32(acc, _mm_shuffle_epi32::<0b10_11_00_01>(acc));
            _mm_cvtsi128_si32(acc)
        }
    }
}

/// The first pass with relaxed SIMD: each 16 packed bytes (32 values) cost one load, a mask and
/// a shift, and two byte dot products accumulated into i32 lanes.
#[cfg(all(
    target_arch = "wasm32",
    target_feature = "simd128",
    feature = "relaxed"
))]
#[allow(unsafe_code)]
mod relaxed {
    use core::arch::wasm32::{
        i32x4_add, i32x4_extract_lane, i32x4_relaxed_dot_i8x16_i7x16_add, i32x4_splat, u16x8_shr,
        u8x16_splat, v128_and, v128_load,
    };

    /// # Safety
    /// The engine must support relaxed SIMD; `plane` must hold exactly `out.len()` rows of
    /// `width` bytes.
    #[target_feature(enable = "relaxed-simd")]
    pub unsafe fn dot_u4_i8_rows(plane: &[u8], width: usize, q: &[i8], out: &mut [i32]) {
        let blocks = (width / 16).min(q.len() / 32);
        let (p, y, o) = (plane.as_ptr(), q.as_ptr(), out.as_mut_ptr());
        let mask = u8x16_splat(15);
        let mut r = 0;
        while r < out.len() {
            let row = p.add(r * width);
            let (mut a, mut b) = (i32x4_splat(0), i32x4_splat(0));
            let mut i = 0;
            while i < blocks {
                // SAFETY: `i < blocks`: bytes `16i..16i + 16` of row `r < out.len()` and codes
                // `32i..32i + 32` of `q` are in bounds; no alignment is required.
                let (x, y0, y1) = unsafe {
                    (
                        v128_load(row.add(16 * i).cast()),
                        v128_load(y.add(32 * i).cast()),
                        v128_load(y.add(32 * i + 16).cast()),
                    )
                };
                // Byte k holds value k in its low nibble and value 16 + k in its high one.
                let lo = v128_and(x, mask);
                let hi = v128_and(u16x8_shr(x, 4), mask);
                a = i32x4_relaxed_dot_i8x16_i7x16_add(y0, lo, a);
                b = i32x4_relaxed_dot_i8x16_i7x16_add(y1, hi, b);
                i += 1;
            }
            let s = i32x4_add(a, b);
            // SAFETY: `r < out.len()`.
            unsafe {
                *o.add(r) = i32x4_extract_lane::<0>(s)
                    + i32x4_extract_lane::<1>(s)
                    + i32x4_extract_lane::<2>(s)
                    + i32x4_extract_lane::<3>(s);
            }
            r += 1;
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)]
mod simd {
    use core::arch::wasm32::{
        f32x4_add, f32x4_extract_lane, f32x4_mul, f32x4_splat, v128, v128_load, v128_store,
    };

    use super::LANES;

    /// Four lanes from a chunk of exactly four values.
    #[inline(always)]
    fn load(c: &[f32]) -> v128 {
        debug_assert_eq!(c.len(), 4);
        // SAFETY: `c` holds four f32 (16 readable bytes); v128_load has no alignment requirement.
        unsafe { v128_load(c.as_ptr().cast::<v128>()) }
    }

    #[inline(always)]
    fn store(c: &mut [f32], v: v128) {
        debug_assert_eq!(c.len(), 4);
        // SAFETY: `c` holds four f32 (16 writable bytes); v128_store has no alignment requirement.
        unsafe { v128_store(c.as_mut_ptr().cast::<v128>(), v) }
    }

    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (a, b) = (&a[..n], &b[..n]);
        let zero = f32x4_splat(0.0);
        // acc[k] lane j is the scalar path's partial sum 4k + j.
        let mut acc = [zero; 4];
        let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
        let (ra, rb) = (ca.remainder(), cb.remainder());
        for (x, y) in ca.zip(cb) {
            for k in 0..4 {
                let p = f32x4_mul(load(&x[4 * k..4 * k + 4]), load(&y[4 * k..4 * k + 4]));
                acc[k] = f32x4_add(acc[k], p);
            }
        }
        let mut sum = 0f32;
        for v in acc {
            sum += f32x4_extract_lane::<0>(v);
            sum += f32x4_extract_lane::<1>(v);
            sum += f32x4_extract_lane::<2>(v);
            sum += f32x4_extract_lane::<3>(v);
        }
        let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
        sum + tail
    }

    pub fn widen_f16(src: &[u16], dst: &mut [f32]) {
        use core::arch::wasm32::{
            i32x4_eq, i32x4_shl, u32x4_extend_high_u16x8, u32x4_extend_low_u16x8, u32x4_splat,
            v128_and, v128_or,
        };
        let n = src.len().min(dst.len());
        let (src, dst) = (&src[..n], &mut dst[..n]);
        let scale = f32x4_splat(f32::from_bits(super::F16_SCALE_BITS));
        let (low15, sign) = (u32x4_splat(0x7fff), u32x4_splat(0x8000));
        let (exponent, all_ones) = (u32x4_splat(0x7c00), u32x4_splat(0x7f80_0000));
        let one = |h: v128| {
            let magnitude = f32x4_mul(i32x4_shl(v128_and(h, low15), 13), scale);
            let special = v128_and(i32x4_eq(v128_and(h, exponent), exponent), all_ones);
            v128_or(
                v128_or(magnitude, special),
                i32x4_shl(v128_and(h, sign), 16),
            )
        };
        let mut cs = src.chunks_exact(8);
        let mut cd = dst.chunks_exact_mut(8);
        for (s, d) in (&mut cs).zip(&mut cd) {
            // SAFETY: `s` holds 8 u16 (16 readable bytes), `d` 8 f32 (32 writable bytes); no
            // alignment is required.
            unsafe {
                let h = v128_load(s.as_ptr().cast::<v128>());
                v128_store(
                    d.as_mut_ptr().cast::<v128>(),
                    one(u32x4_extend_low_u16x8(h)),
                );
                v128_store(
                    d.as_mut_ptr().add(4).cast::<v128>(),
                    one(u32x4_extend_high_u16x8(h)),
                );
            }
        }
        super::scalar_widen_f16(cs.remainder(), cd.into_remainder());
    }

    /// Sixteen packed bytes (32 values) per step: the low nibbles masked, the high ones shifted
    /// down (`i16x8.shr_u` then a mask: wasm's byte shifts cost several instructions on x86),
    /// each half zero-extended into two i16x8 and multiplied by the question's i16 lanes with
    /// neighbours summed into i32 lanes (`i32x4.dot_i16x8_s`), two accumulators.
    ///
    /// A counted loop over raw pointers: at `opt-level = "z"`, `chunks_exact`, `zip` and sub-slices
    /// stay calls (the iterator's `next` and a bounds check per load, four calls per 32 values in
    /// the built module), and the loop ran at the speed of those calls, not of its reads.
    pub fn dot_u4_i16(packed: &[u8], q: &[i16]) -> i32 {
        let blocks = (packed.len() / 16).min(q.len() / 32);
        // SAFETY: `blocks` whole blocks of both are in bounds.
        unsafe { dot_u4_i16_raw(packed.as_ptr(), q.as_ptr(), blocks) }
    }

    /// [`dot_u4_i16`] of each row; `plane` holds exactly `out.len()` rows of `width` bytes.
    pub fn dot_u4_i16_rows(plane: &[u8], width: usize, q: &[i16], out: &mut [i32]) {
        // Public through `simd_dot_u4_i16_rows`, a safe function: the raw reads below rely on it.
        assert_eq!(plane.len(), out.len() * width, "whole rows");
        let blocks = (width / 16).min(q.len() / 32);
        let (p, y, o) = (plane.as_ptr(), q.as_ptr(), out.as_mut_ptr());
        let mut r = 0;
        while r < out.len() {
            // SAFETY: row `r < out.len()` starts at `r·width` and holds `width ≥ 16·blocks`
            // bytes; `q` holds `32·blocks` values; `out` has `out.len()` slots.
            unsafe { *o.add(r) = dot_u4_i16_raw(p.add(r * width), y, blocks) };
            r += 1;
        }
    }

    /// # Safety
    /// `p` must point to `16·blocks` readable bytes and `y` to `32·blocks` readable i16.
    #[inline(always)]
    unsafe fn dot_u4_i16_raw(p: *const u8, y: *const i16, blocks: usize) -> i32 {
        use core::arch::wasm32::{
            i32x4_add, i32x4_dot_i16x8, i32x4_extract_lane, i32x4_splat, u16x8_extend_high_u8x16,
            u16x8_extend_low_u8x16, u16x8_shr, u8x16_splat, v128_and,
        };
        let mask = u8x16_splat(15);
        let (mut a, mut b) = (i32x4_splat(0), i32x4_splat(0));
        let mut i = 0;
        while i < blocks {
            // SAFETY: `i < blocks`, so bytes `16i..16i + 16` at `p` and values `32i..32i + 32`
            // at `y` are in bounds (the caller's contract); no alignment is required.
            let (x, y0, y1, y2, y3) = unsafe {
                let y = y.add(32 * i);
                (
                    v128_load(p.add(16 * i).cast()),
                    v128_load(y.cast()),
                    v128_load(y.add(8).cast()),
                    v128_load(y.add(16).cast()),
                    v128_load(y.add(24).cast()),
                )
            };
            let lo = v128_and(x, mask);
            let hi = v128_and(u16x8_shr(x, 4), mask);
            a = i32x4_add(a, i32x4_dot_i16x8(u16x8_extend_low_u8x16(lo), y0));
            b = i32x4_add(b, i32x4_dot_i16x8(u16x8_extend_high_u8x16(lo), y1));
            a = i32x4_add(a, i32x4_dot_i16x8(u16x8_extend_low_u8x16(hi), y2));
            b = i32x4_add(b, i32x4_dot_i16x8(u16x8_extend_high_u8x16(hi), y3));
            i += 1;
        }
        let s = i32x4_add(a, b);
        i32x4_extract_lane::<0>(s)
            + i32x4_extract_lane::<1>(s)
            + i32x4_extract_lane::<2>(s)
            + i32x4_extract_lane::<3>(s)
    }

    /// A counted loop over a raw pointer, four accumulators (see [`dot_u4_i16`] for why not
    /// `chunks_exact`).
    pub fn read_probe(bytes: &[u8]) -> u64 {
        use core::arch::wasm32::{i64x2_extract_lane, i64x2_splat, v128_xor};
        let whole = bytes.len() / 64;
        let p = bytes.as_ptr();
        let (mut a0, mut a1, mut a2, mut a3) = (
            i64x2_splat(0),
            i64x2_splat(0),
            i64x2_splat(0),
            i64x2_splat(0),
        );
        let mut i = 0;
        while i < whole {
            // SAFETY: `i < whole`, so bytes `64i..64i + 64` are in bounds; no alignment is
            // required.
            unsafe {
                let c = p.add(64 * i);
                a0 = v128_xor(a0, v128_load(c.cast()));
                a1 = v128_xor(a1, v128_load(c.add(16).cast()));
                a2 = v128_xor(a2, v128_load(c.add(32).cast()));
                a3 = v128_xor(a3, v128_load(c.add(48).cast()));
            }
            i += 1;
        }
        let v = v128_xor(v128_xor(a0, a1), v128_xor(a2, a3));
        (i64x2_extract_lane::<0>(v) ^ i64x2_extract_lane::<1>(v)) as u64
            ^ bytes[64 * whole..].iter().fold(0, |a, &b| a ^ u64::from(b))
    }

    pub fn matmul_acc(xs: &[Vec<f32>], w: &[f32], outputs: usize, ys: &mut [Vec<f32>]) {
        use super::blocked::BLOCK_ROWS as ROWS;
        const COLS: usize = 8;
        let Some(blocks) = super::blocked::blocks(xs, w, outputs, ys, COLS) else {
            super::scalar_matmul_acc(xs, w, outputs, ys);
            return;
        };
        let rows = xs.len().min(ys.len());
        let zero = f32x4_splat(0.0);
        for j in (0..outputs).step_by(COLS) {
            for (bn, block) in blocks.iter().enumerate() {
                let t = bn * ROWS;
                let n = ROWS.min(rows - t);
                let mut acc = [[zero; 2]; ROWS];
                for k in 0..n {
                    acc[k][0] = load(&ys[t + k][j..j + 4]);
                    acc[k][1] = load(&ys[t + k][j + 4..j + 8]);
                }
                for (x, row) in block.iter().zip(w.chunks_exact(outputs)) {
                    let wj = &row[j..j + COLS];
                    let (w0, w1) = (load(&wj[..4]), load(&wj[4..]));
                    for (a, &xk) in acc.iter_mut().zip(x) {
                        let xv = f32x4_splat(xk);
                        a[0] = f32x4_add(a[0], f32x4_mul(xv, w0));
                        a[1] = f32x4_add(a[1], f32x4_mul(xv, w1));
                    }
                }
                for k in 0..n {
                    store(&mut ys[t + k][j..j + 4], acc[k][0]);
                    store(&mut ys[t + k][j + 4..j + 8], acc[k][1]);
                }
            }
        }
    }

    pub fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
        let n = y.len().min(x.len());
        let (y, x) = (&mut y[..n], &x[..n]);
        let av = f32x4_splat(a);
        let mut cy = y.chunks_exact_mut(4);
        let mut cx = x.chunks_exact(4);
        for (yc, xc) in (&mut cy).zip(&mut cx) {
            store(yc, f32x4_add(load(yc), f32x4_mul(av, load(xc))));
        }
        for (yi, xi) in cy.into_remainder().iter_mut().zip(cx.remainder()) {
            *yi += a * xi;
        }
    }
}

mod blocked;

#[cfg(test)]
mod tests;
