//! The terminal's [`super::matmul_acc`]: the page's register blocking in plain Rust, which LLVM
//! vectorises at the terminal's `opt-level = 3`: eight outputs in SSE2's 4-lane registers on any
//! x86-64 (NEON on arm64), sixteen in AVX's 8-lane ones where the processor has AVX (checked at
//! run time, as the binaries are built for the baseline x86-64).
//!
//! Row-by-row `axpy` loads and stores every output of every token once per input; here four
//! tokens × eight outputs stay in registers while the inputs run, so the inner loop only loads
//! the weights. Each output still adds `x[i] · w[i][j]` in ascending `i`, one multiply then one
//! add (Rust never fuses them), so the result is the scalar one bit for bit. The tokens' blocks
//! ([`blocks`]) are the page's SIMD path's too.

/// Tokens a blocked [`super::matmul_acc`] holds at once (the page's SIMD path and the terminal's).
pub(super) const BLOCK_ROWS: usize = 4;

/// What a blocked [`super::matmul_acc`] reads: the tokens `xs` in blocks of [`BLOCK_ROWS`], each
/// transposed once (input i's values side by side, zeros past the last token), so that the inner
/// loop reads them without bounds checks. `None` (the plain path, then) for no outputs, tokens too
/// short for the layer, or outputs not a multiple of `cols`: never the case for the encoder's
/// layers.
pub(super) fn blocks(
    xs: &[Vec<f32>],
    w: &[f32],
    outputs: usize,
    ys: &[Vec<f32>],
    cols: usize,
) -> Option<Vec<Vec<[f32; BLOCK_ROWS]>>> {
    if outputs == 0 || !outputs.is_multiple_of(cols) {
        return None;
    }
    let inputs = w.len() / outputs;
    let rows = xs.len().min(ys.len());
    let fits = xs[..rows].iter().all(|x| x.len() >= inputs)
        && ys[..rows].iter().all(|y| y.len() >= outputs);
    fits.then(|| {
        (0..rows)
            .step_by(BLOCK_ROWS)
            .map(|t| {
                let mut b = vec![[0f32; BLOCK_ROWS]; inputs];
                for (k, x) in xs[t..rows.min(t + BLOCK_ROWS)].iter().enumerate() {
                    for (bi, &v) in b.iter_mut().zip(&x[..inputs]) {
                        bi[k] = v;
                    }
                }
                b
            })
            .collect()
    })
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn matmul_acc(xs: &[Vec<f32>], w: &[f32], outputs: usize, ys: &mut [Vec<f32>]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx") {
        // SAFETY: the processor has AVX, checked just above.
        #[allow(unsafe_code)]
        unsafe {
            avx(xs, w, outputs, ys)
        };
        return;
    }
    blocked::<8>(xs, w, outputs, ys);
}

/// [`blocked`] compiled with AVX: the same operations in the same order, eight lanes at a time
/// (AVX alone, not FMA: a multiply then an add, as everywhere).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx")]
pub(super) unsafe fn avx(xs: &[Vec<f32>], w: &[f32], outputs: usize, ys: &mut [Vec<f32>]) {
    blocked::<16>(xs, w, outputs, ys);
}

/// Four tokens × `COLS` outputs in registers while the inputs run.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub(super) fn blocked<const COLS: usize>(
    xs: &[Vec<f32>],
    w: &[f32],
    outputs: usize,
    ys: &mut [Vec<f32>],
) {
    let Some(blocks) = blocks(xs, w, outputs, ys, COLS) else {
        super::scalar_matmul_acc(xs, w, outputs, ys);
        return;
    };
    let rows = xs.len().min(ys.len());
    for (bn, block) in blocks.iter().enumerate() {
        let t = bn * BLOCK_ROWS;
        let n = BLOCK_ROWS.min(rows - t);
        for j in (0..outputs).step_by(COLS) {
            let mut acc = [[0f32; COLS]; BLOCK_ROWS];
            for (a, y) in acc.iter_mut().zip(&ys[t..t + n]) {
                a.copy_from_slice(&y[j..j + COLS]);
            }
            for (x, row) in block.iter().zip(w.chunks_exact(outputs)) {
                let mut wj = [0f32; COLS];
                wj.copy_from_slice(&row[j..j + COLS]);
                for (a, &xk) in acc.iter_mut().zip(x) {
                    for (ac, wc) in a.iter_mut().zip(&wj) {
                        *ac += xk * wc;
                    }
                }
            }
            for (a, y) in acc.iter().zip(&mut ys[t..t + n]) {
                y[j..j + COLS].copy_from_slice(a);
            }
        }
    }
}
