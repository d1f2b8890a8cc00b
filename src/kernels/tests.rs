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
fn the_read_probe_folds_every_byte_in_its_place() {
    let bytes: Vec<u8> = (0..1000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for n in [0, 1, 63, 64, 65, 128, 999, 1000] {
        assert_eq!(
            read_probe(&bytes[..n]),
            scalar_read_probe(&bytes[..n]),
            "n={n}"
        );
    }
    // One byte changed anywhere changes the result: every byte is read.
    let mut other = bytes.clone();
    other[517] ^= 0x10;
    assert_ne!(read_probe(&other), read_probe(&bytes));
    assert_eq!(scalar_read_probe(&[0, 0, 0, 0, 0, 0, 0, 0, 1]), 1);
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

/// The terminal's two blocked paths (SSE2's eight outputs, AVX's sixteen where the processor has
/// it) against row-by-row `axpy`, on the encoder's layer shapes and on awkward ones.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[test]
fn the_terminals_blocked_paths_equal_row_by_row_axpy_bit_for_bit() {
    let cases = [
        (1, 3, 16),
        (5, 17, 16),
        (7, 33, 48),
        (9, 64, 24),
        (13, 256, 320),
        (4, 768, 256),
    ];
    for (rows, inputs, outputs) in cases {
        let w = awkward(inputs * outputs, 4);
        let mut xs: Vec<Vec<f32>> = (0..rows).map(|r| awkward(inputs, 10 + r as u32)).collect();
        // Zeros as relu leaves them, and a window's padding.
        xs[0].iter_mut().step_by(3).for_each(|v| *v = 0.0);
        let start: Vec<Vec<f32>> = (0..rows).map(|r| awkward(outputs, 50 + r as u32)).collect();
        let mut slow = start.clone();
        for i in 0..inputs {
            for (x, y) in xs.iter().zip(slow.iter_mut()) {
                scalar_axpy(y, x[i], &w[i * outputs..(i + 1) * outputs]);
            }
        }
        let bits = |v: &[Vec<f32>]| v.iter().flatten().map(|f| f.to_bits()).collect::<Vec<_>>();
        let mut eight = start.clone();
        blocked::blocked::<8>(&xs, &w, outputs, &mut eight);
        assert_eq!(bits(&eight), bits(&slow), "8: {rows}×{inputs}×{outputs}");
        let mut sixteen = start.clone();
        blocked::blocked::<16>(&xs, &w, outputs, &mut sixteen);
        assert_eq!(bits(&sixteen), bits(&slow), "16: {rows}×{inputs}×{outputs}");
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx") {
            let mut avx = start.clone();
            // SAFETY: the processor has AVX, checked just above.
            #[allow(unsafe_code)]
            unsafe {
                blocked::avx(&xs, &w, outputs, &mut avx)
            };
            assert_eq!(bits(&avx), bits(&slow), "avx: {rows}×{inputs}×{outputs}");
        }
    }
}

#[test]
fn packed_dot_equals_the_scalar_one_at_the_extremes() {
    for blocks in [0, 1, 2, 32, 33] {
        let p: Vec<u8> = (0..16 * blocks)
            .map(|i| [0xff, 0x0f, 0xf0, 0x00, 0x5a][i % 5])
            .collect();
        let q: Vec<i16> = (0..32 * blocks)
            .map(|i| [127, -127, -128, 3][(i / 3) % 4])
            .collect();
        let slow: i32 = (0..32 * blocks)
            .map(|i| {
                let b = p[i / 32 * 16 + i % 16];
                let nibble = if i % 32 < 16 { b & 15 } else { b >> 4 };
                i32::from(nibble) * i32::from(q[i])
            })
            .sum();
        assert_eq!(dot_u4_i16(&p, &q), slow, "blocks={blocks}");
        assert_eq!(scalar_dot_u4_i16(&p, &q), slow, "blocks={blocks}");
    }
    // The first pass's one call over every row: each row's own product; a partial last row
    // is left out, and a zero width gives nothing.
    for width in [16, 32, 48] {
        let plane: Vec<u8> = (0..width * 5 + 7).map(|i| (i * 91 % 256) as u8).collect();
        let q: Vec<i16> = (0..2 * width as i16).map(|i| (i * 9 % 256) - 128).collect();
        let q8: Vec<i8> = q.iter().map(|&c| c as i8).collect();
        let mut out = vec![1, 2, 3, 4, 5, 6, 7, 8, 9];
        dot_u4_rows(&plane, width, &q, &q8, &mut out);
        let each: Vec<i32> = plane
            .chunks_exact(width)
            .map(|row| scalar_dot_u4_i16(row, &q))
            .collect();
        assert_eq!((out.len(), &out), (5, &each), "width={width}");
        dot_u4_rows(&plane, 0, &q, &q8, &mut out);
        assert!(out.is_empty());
    }
    // Value 0 is byte 0's low nibble, value 16 its high one.
    let mut q = vec![0i16; 32];
    (q[0], q[16]) = (1, 100);
    assert_eq!(dot_u4_i16(&[0x73; 16], &q), 3 + 700);
}

/// Every half-precision value, widened, is `half`'s conversion: bit for bit when finite, the
/// same infinity or a NaN otherwise.
#[test]
fn f16_widening_is_exact_for_every_value() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let mut fast = vec![0f32; all.len()];
    widen_f16(&all, &mut fast);
    let mut slow = vec![0f32; all.len()];
    scalar_widen_f16(&all, &mut slow);
    for ((&h, a), b) in all.iter().zip(&fast).zip(&slow) {
        let want = half::f16::from_bits(h).to_f32();
        for got in [a, b] {
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#06x}");
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{h:#06x}");
            }
        }
    }
}

#[test]
fn dot_and_axpy_compute_what_they_say() {
    assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
    let mut y = vec![1.0; 5];
    axpy(&mut y, 2.0, &[1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(y, vec![3.0, 5.0, 7.0, 9.0, 11.0]);
}
