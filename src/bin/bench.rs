//! `bench`: native benchmarks that print figures (medians with the 10th–90th percentile spread).
//! Nothing here asserts a time. `cargo run --release --bin bench [-- --sizes 1000,10000,50000]`.
//!
//! Measures, on synthetic catalogues (`synth`): index build (mots, mots+), BM25 query, dense top-10
//! over N × 1024 vectors stored in f32, f16 and int8 (with the int8 rank agreement), RRF, the memory
//! bandwidth bound of the dense scan; and on the bundled catalogue the full 40-question evaluation
//! of every method (fake vectors).

// A benchmark on the bundled data stops at once if that data is broken: nothing to recover.
#![allow(clippy::expect_used)]

use std::time::Instant;

use half::f16;
use rag_fiches::data::synth;
use rag_fiches::data::vectors::VectorSet;
use rag_fiches::data::{parse_fiches, parse_questions};
use rag_fiches::lab::{Lab, Method, QuestionVectors};
use rag_fiches::search::dense::dot;
use rag_fiches::search::embed::{Embedder, FakeEmbedder};
use rag_fiches::search::fusion::rrf;

const DIM: usize = 1024;

/// Median and 10th/90th percentiles, in milliseconds, of `runs` calls of `f`.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64, f64) {
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.1), at(0.9))
}

fn show((p50, p10, p90): (f64, f64, f64)) -> String {
    if p50 < 0.1 {
        format!(
            "{:.1} µs ({:.1}–{:.1})",
            p50 * 1000.0,
            p10 * 1000.0,
            p90 * 1000.0
        )
    } else {
        format!("{p50:.2} ms ({p10:.2}–{p90:.2})")
    }
}

/// Deterministic unit vectors with dense values, like embeddings (not sparse like the fake ones).
fn random_unit_vectors(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut data = Vec::with_capacity(n * DIM);
    for _ in 0..n {
        let v: Vec<f32> = (0..DIM).map(|_| next() + next() + next()).collect();
        let norm = dot(&v, &v).sqrt();
        data.extend(v.iter().map(|x| x / norm));
    }
    data
}

fn top10(scores: impl Iterator<Item = f32>) -> Vec<usize> {
    let mut s: Vec<(usize, f32)> = scores.enumerate().collect();
    s.select_nth_unstable_by(9, |a, b| b.1.total_cmp(&a.1));
    s.truncate(10);
    s.sort_by(|a, b| b.1.total_cmp(&a.1));
    s.into_iter().map(|x| x.0).collect()
}

fn main() {
    let mut sizes = vec![1_000usize, 10_000, 50_000];
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--sizes") {
        if let Some(list) = args.get(i + 1) {
            sizes = list.split(',').filter_map(|s| s.parse().ok()).collect();
        }
    }
    let bundled = parse_fiches(include_str!("../../data/fiches.jsonl")).expect("bundled fiches");

    // The physical bound: how fast one core reads memory. Eight independent u64 sums, so the
    // loop waits on loads, not on arithmetic. (The first probe here was one f32 sum: each
    // addition waited for the previous one, and it measured the adder's latency, 3.5 GB/s,
    // where a vectorised read of the same memory gives 10.)
    let big = vec![1u64; 64 << 20]; // 512 MiB
    let (bw_ms, _, _) = time(5, || {
        let mut acc = [0u64; 8];
        for c in big.chunks_exact(8) {
            for (a, x) in acc.iter_mut().zip(c) {
                *a = a.wrapping_add(*x);
            }
        }
        acc.iter().fold(0u64, |a, b| a.wrapping_add(*b))
    });
    let bandwidth = (big.len() * 8) as f64 / (bw_ms / 1000.0) / 1e9;
    drop(big);
    println!("memory read bandwidth (one core, eight independent u64 sums over 512 MiB): {bandwidth:.1} GB/s\n");

    println!("| fiches | build mots | build mots+ | query mots p50 | query mots+ p50 | dense f32 top-10 | dense f16 | dense int8 | int8 top-10 agreement | bound f32 scan |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &n in &sizes {
        let (fiches, questions) = synth::catalogue(&bundled, n, 40, 1);
        let build_mots = time(3, || {
            rag_fiches::search::bm25::Bm25Index::build(
                &fiches,
                rag_fiches::search::analysis::Analyzer::Seed,
                Default::default(),
            )
        });
        let build_plus = time(3, || {
            rag_fiches::search::bm25::Bm25Index::build(
                &fiches,
                rag_fiches::search::analysis::Analyzer::French,
                Default::default(),
            )
        });
        let lab = Lab::new(fiches);
        let texts: Vec<&str> = questions.iter().map(|q| q.text.as_str()).collect();
        let mut i = 0;
        let q_mots = time(200, || {
            i += 1;
            lab.search(Method::MOTS, texts[i % texts.len()], None, 10)
        });
        let q_plus = time(200, || {
            i += 1;
            lab.search(Method::MOTS_PLUS, texts[i % texts.len()], None, 10)
        });
        // Dense: f32 rows; the same rows in f16 (converted at each dot); int8 with a scale per row.
        let data = random_unit_vectors(n, 42 + n as u64);
        let halves: Vec<f16> = data.iter().map(|&x| f16::from_f32(x)).collect();
        let (codes, scales): (Vec<i8>, Vec<f32>) = {
            let mut codes = Vec::with_capacity(data.len());
            let mut scales = Vec::with_capacity(n);
            for row in data.chunks_exact(DIM) {
                let m = row.iter().fold(0f32, |a, x| a.max(x.abs())).max(1e-12);
                scales.push(m / 127.0);
                codes.extend(row.iter().map(|x| (x / m * 127.0).round() as i8));
            }
            (codes, scales)
        };
        let queries = random_unit_vectors(20, 7);
        let mut k = 0;
        let dense32 = time(20, || {
            k += 1;
            let q = &queries[(k % 20) * DIM..(k % 20 + 1) * DIM];
            top10(data.chunks_exact(DIM).map(|r| dot(r, q)))
        });
        let dense16 = time(10, || {
            k += 1;
            let q = &queries[(k % 20) * DIM..(k % 20 + 1) * DIM];
            top10(
                halves
                    .chunks_exact(DIM)
                    .map(|r| r.iter().zip(q).map(|(a, b)| a.to_f32() * b).sum::<f32>()),
            )
        });
        let dense8 = time(20, || {
            k += 1;
            let q = &queries[(k % 20) * DIM..(k % 20 + 1) * DIM];
            let m = q.iter().fold(0f32, |a, x| a.max(x.abs())).max(1e-12);
            let qc: Vec<i32> = q.iter().map(|x| (x / m * 127.0).round() as i32).collect();
            top10(codes.chunks_exact(DIM).zip(&scales).map(|(r, s)| {
                r.iter().zip(&qc).map(|(&a, &b)| a as i32 * b).sum::<i32>() as f32 * s
            }))
        });
        // Rank agreement of int8 with f32: shared fiches in the top 10, over the 20 queries.
        let mut shared = 0;
        for j in 0..20 {
            let q = &queries[j * DIM..(j + 1) * DIM];
            let a = top10(data.chunks_exact(DIM).map(|r| dot(r, q)));
            let m = q.iter().fold(0f32, |x, y| x.max(y.abs())).max(1e-12);
            let qc: Vec<i32> = q.iter().map(|x| (x / m * 127.0).round() as i32).collect();
            let b = top10(codes.chunks_exact(DIM).zip(&scales).map(|(r, s)| {
                r.iter().zip(&qc).map(|(&x, &y)| x as i32 * y).sum::<i32>() as f32 * s
            }));
            shared += a.iter().filter(|d| b.contains(d)).count();
        }
        let bound_ms = (n * DIM * 4) as f64 / (bandwidth * 1e9) * 1000.0;
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {:.1} % | {bound_ms:.2} ms |",
            show(build_mots),
            show(build_plus),
            show(q_mots),
            show(q_plus),
            show(dense32),
            show(dense16),
            show(dense8),
            shared as f64 / 2.0
        );
    }

    // RRF of two top-50 lists, and the full evaluation of every method on the bundled catalogue.
    let a: Vec<usize> = (0..50).collect();
    let b: Vec<usize> = (25..75).rev().collect();
    let fusion = time(2000, || rrf(&[&a, &b], 60.0, 50));
    let questions =
        parse_questions(include_str!("../../data/questions.csv")).expect("bundled questions");
    let e = FakeEmbedder::new(DIM);
    let texts: Vec<&str> = bundled.iter().map(|f| f.texte.as_str()).collect();
    let set = VectorSet::new(e.model(), &bundled, e.embed(&texts)).expect("vectors");
    let mut lab = Lab::new(bundled.clone());
    lab.set_vectors(set).expect("same fiches");
    let qv: QuestionVectors = questions
        .iter()
        .map(|q| (q.text.clone(), e.embed(&[&q.text]).remove(0)))
        .collect();
    let eval = time(20, || {
        // The five methods of mistral-embed's family (fake vectors here); the local encoder's
        // are measured from its own vectors, which this table does not build.
        Method::ALL
            .iter()
            .filter(|m| m.encoder() != Some(rag_fiches::lab::Encoder::Local))
            .map(|&m| lab.measure(m, &questions, &qv).expect("measured"))
            .collect::<Vec<_>>()
    });
    println!("\nRRF of two top-50 lists: {}", show(fusion));
    println!(
        "full evaluation, 40 questions × 5 methods (200 fiches, vectors given): {}",
        show(eval)
    );
}
