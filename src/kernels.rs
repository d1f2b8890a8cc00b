//! The two inner loops every vector computation spends its time in: `dot` (dense search, norms)
//! and `axpy` (the local encoder's layers, `y += a·x`).
//!
//! The page is built for size (`opt-level = "z"`), and at that level LLVM does not vectorise
//! loops: the same code ran scalar in the page. So on wasm32 built with the `simd128` target
//! feature (`.cargo/config.toml` turns it on for the page) these loops are written with wasm's
//! 128-bit vector instructions, four `f32` lanes at a time. Natively they stay plain Rust, which
//! the compiler vectorises or not as the profile decides.
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
        scalar_matmul_acc(xs, w, outputs, ys)
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

    pub fn matmul_acc(xs: &[Vec<f32>], w: &[f32], outputs: usize, ys: &mut [Vec<f32>]) {
        const ROWS: usize = 4;
        const COLS: usize = 8;
        if outputs == 0 {
            return;
        }
        let inputs = w.len() / outputs;
        let rows = xs.len().min(ys.len());
        // Rows too short for the layer, or outputs not a multiple of the block: the plain path
        // (never the case for the encoder's layers).
        let regular = outputs.is_multiple_of(COLS)
            && xs[..rows].iter().all(|x| x.len() >= inputs)
            && ys[..rows].iter().all(|y| y.len() >= outputs);
        if !regular {
            super::scalar_matmul_acc(xs, w, outputs, ys);
            return;
        }
        // Each block of four rows transposed once: input i's four values side by side (zeros
        // past the last row), so the inner loop reads them without bounds checks.
        let blocks: Vec<Vec<[f32; ROWS]>> = (0..rows)
            .step_by(ROWS)
            .map(|t| {
                let mut b = vec![[0f32; ROWS]; inputs];
                for (k, x) in xs[t..rows.min(t + ROWS)].iter().enumerate() {
                    for (bi, &v) in b.iter_mut().zip(&x[..inputs]) {
                        bi[k] = v;
                    }
                }
                b
            })
            .collect();
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// Values whose sums depend on the order of addition: a path that reassociated would differ.
    fn awkward(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let m = (x >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
                m * if i % 7 == 0 { 1e4 } else { 1e-3 }
            })
            .collect()
    }

    /// On wasm with simd128 this compares the vector path with the scalar one bit for bit;
    /// natively both names are the same code, and it still checks the tails and lengths.
    #[test]
    fn vector_paths_equal_the_scalar_ones_bit_for_bit() {
        for n in [0, 1, 3, 4, 15, 16, 17, 31, 64, 255, 512, 1024, 1027] {
            let (a, b) = (awkward(n, 1), awkward(n, 2));
            assert_eq!(
                dot(&a, &b).to_bits(),
                scalar_dot(&a, &b).to_bits(),
                "dot n={n}"
            );
            let mut y1 = awkward(n, 3);
            let mut y2 = y1.clone();
            axpy(&mut y1, 0.37, &a);
            scalar_axpy(&mut y2, 0.37, &a);
            assert_eq!(
                y1.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                y2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "axpy n={n}"
            );
        }
    }

    #[test]
    fn matmul_equals_row_by_row_axpy_bit_for_bit() {
        for (rows, inputs, outputs) in [(1, 3, 8), (5, 17, 16), (9, 64, 24), (3, 5, 7), (0, 4, 8)] {
            let w = awkward(inputs * outputs, 4);
            let xs: Vec<Vec<f32>> = (0..rows).map(|r| awkward(inputs, 10 + r as u32)).collect();
            let start: Vec<Vec<f32>> = (0..rows).map(|r| awkward(outputs, 50 + r as u32)).collect();
            let mut fast = start.clone();
            matmul_acc(&xs, &w, outputs, &mut fast);
            let mut slow = start.clone();
            for i in 0..inputs {
                for (x, y) in xs.iter().zip(slow.iter_mut()) {
                    scalar_axpy(y, x[i], &w[i * outputs..(i + 1) * outputs]);
                }
            }
            let bits = |v: &[Vec<f32>]| v.iter().flatten().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast), bits(&slow), "{rows}×{inputs}×{outputs}");
        }
    }

    #[test]
    fn dot_and_axpy_compute_what_they_say() {
        assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
        let mut y = vec![1.0; 5];
        axpy(&mut y, 2.0, &[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(y, vec![3.0, 5.0, 7.0, 9.0, 11.0]);
    }
}
