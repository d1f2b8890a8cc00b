//! `bench`: native benchmarks that print figures (medians with the 10th–90th percentile spread).
//! Nothing here asserts a time. `cargo run --release --bin bench [-- --sizes 1000,10000,50000]`.
//!
//! Measures, on synthetic catalogues (`synth`): index build (mots, mots+), BM25 query, dense top-10
//! over N × 1024 vectors (an exact f32 scan, and the lab's int8 scan with exact re-scoring, with how
//! often the two agree exactly over 1,000 random questions, and the memory each holds), RRF, the
//! memory read bound of each scan; and on the bundled catalogue the full 40-question evaluation of
//! every method (fake vectors).
//!
//! `cargo run --release --bin bench -- --ameliorer [N]` (N = 50,000 by default) measures
//! « Améliorer »'s changes in the page's model, step by step (see `improve::batch`).
//!
//! `cargo run --release --bin bench -- --candidates [N]` (N = 50,000 by default) measures instead
//! how many int8 candidates the exact re-score needs: for 1,000 random questions, the dense top 50
//! (what the page's worker computes once per question, for `sens` and the fusions) with 50 to 200
//! candidates, against an exact scan of every row; and how wide the first pass (the high 4 bits of
//! the int8 codes) must cut for the int8 pool to be the one a full int8 scan picks.

// A benchmark on the bundled data stops at once if that data is broken: nothing to recover.
#![allow(clippy::expect_used)]

use std::time::Instant;

use rag_fiches::data::synth;
use rag_fiches::data::vectors::{QueryCodes, VectorSet};
use rag_fiches::data::{parse_fiches, parse_questions};
use rag_fiches::lab::{Lab, Method, QuestionVectors};
use rag_fiches::search::dense::{self, dot};
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

/// The sweep of `--candidates`: per number of candidates, the time of one dense top 50 and how
/// often its top 10 and its top 50 are exactly an exact scan's (rows, order and score bits).
fn candidates_sweep(n: usize) {
    let bundled = parse_fiches(include_str!("../../data/fiches.jsonl")).expect("bundled fiches");
    let (fiches, _) = synth::catalogue(&bundled, n, 40, 1);
    let data = random_unit_vectors(n, 42 + n as u64);
    let rows: Vec<Vec<f32>> = data.chunks_exact(DIM).map(<[f32]>::to_vec).collect();
    drop(data);
    let set = VectorSet::new("bench", &fiches, rows).expect("vectors");
    let set = VectorSet::from_safetensors(&set.to_safetensors()).expect("read back");
    let queries = random_unit_vectors(1000, 7);
    let query = |j: usize| &queries[(j % 1000) * DIM..(j % 1000 + 1) * DIM];
    let exact: Vec<Vec<(usize, f64)>> = (0..1000)
        .map(|j| dense::search_exact(&set, query(j), 50).expect("searched"))
        .collect();
    rag_fiches::outln!(
        "{n} fiches × {DIM}, 1,000 random unit questions, dense top 50 per question\n"
    );
    rag_fiches::outln!("| candidates re-scored | one top 50 | top 10 exact | top 50 exact | best exact rank ever missed |");
    rag_fiches::outln!("|---|---|---|---|---|");
    for c in [50usize, 64, 100, 128, 200] {
        let mut k = 0;
        let t = time(50, || {
            k += 1;
            dense::search_with(&set, query(k), 50, c)
        });
        let (mut ten, mut fifty, mut worst) = (0, 0, None::<usize>);
        for (j, want) in exact.iter().enumerate() {
            let got = dense::search_with(&set, query(j), 50, c).expect("searched");
            ten += usize::from(got[..10] == want[..10]);
            fifty += usize::from(got == *want);
            if let Some(rank) = want.iter().position(|w| !got.contains(w)) {
                worst = Some(worst.map_or(rank + 1, |r: usize| r.min(rank + 1)));
            }
        }
        rag_fiches::outln!(
            "| {c} | {} | {:.1} % | {:.1} % | {} |",
            show(t),
            ten as f64 / 10.0,
            fifty as f64 / 10.0,
            worst.map_or("none missed".to_string(), |r| r.to_string())
        );
    }
    // The first pass: its pool of WIDEN × 200 rows, against every row's int8 product.
    rag_fiches::outln!(
        "\n| first pass keeps | one top 50 | int8 pool of 200 as a full int8 scan's | top 10 exact | top 50 exact |"
    );
    rag_fiches::outln!("|---|---|---|---|---|");
    let int8 = set.int8();
    let pools: Vec<Vec<usize>> = (0..1000)
        .map(|j| {
            let mut p = dense::int8_pool(int8, &QueryCodes::of(query(j)), 200, usize::MAX);
            p.sort_unstable();
            p
        })
        .collect();
    for widen in [1usize, 2, 4, 8, 16] {
        let wide = widen * 200;
        let mut k = 0;
        let t = time(50, || {
            k += 1;
            let q = QueryCodes::of(query(k));
            dense::int8_pool(int8, &q, 200, wide)
        });
        let same = (0..1000)
            .filter(|&j| {
                let mut p = dense::int8_pool(int8, &QueryCodes::of(query(j)), 200, wide);
                p.sort_unstable();
                p == pools[j]
            })
            .count();
        let (mut ten, mut fifty) = (0, 0);
        if widen == dense::WIDEN {
            for (j, want) in exact.iter().enumerate() {
                let got = dense::search(&set, query(j), 50).expect("searched");
                ten += usize::from(got[..10] == want[..10]);
                fifty += usize::from(got == *want);
            }
        }
        let shown = |c: usize| {
            if widen == dense::WIDEN {
                format!("{:.1} %", c as f64 / 10.0)
            } else {
                "–".to_string()
            }
        };
        rag_fiches::outln!(
            "| {wide} (×{widen}) | {} (pool only) | {:.1} % | {} | {} |",
            show(t),
            same as f64 / 10.0,
            shown(ten),
            shown(fifty)
        );
    }
    // Random directions are spread evenly; a real model's are clustered, with closer neighbours.
    // The bundled fiches' vectors from the local encoder (USE, 512 dimensions), each fiche's own
    // vector as the question: its top 50 from 50 or 64 int8 candidates, against every row exact.
    let local =
        VectorSet::from_safetensors(include_bytes!("../../data/vecteurs-local.safetensors"))
            .expect("bundled local vectors");
    let m = local.len();
    for c in [50usize, 64] {
        let (mut ten, mut fifty) = (0, 0);
        for j in 0..m {
            let q = local.row(j);
            let want = dense::search_exact(&local, &q, 50).expect("searched");
            let got = dense::search_with(&local, &q, 50, c).expect("searched");
            ten += usize::from(got[..10] == want[..10]);
            fifty += usize::from(got == want);
        }
        rag_fiches::outln!(
            "\nlocal encoder's vectors of the {m} bundled fiches, each as the question, {c} candidates: top 10 exact {ten} / {m}, top 50 exact {fifty} / {m}"
        );
    }
}

/// One message to the page's model and every [`rag_fiches::page::Msg::Step`] it asks for, as the
/// page runs them (a turn of the event loop between two): (steps, longest, all), in ms.
fn stepped(s: &mut rag_fiches::page::State, msg: rag_fiches::page::Msg) -> (usize, f64, f64) {
    use rag_fiches::page::{update, Effect, Msg};
    let all = Instant::now();
    let mut steps = 0;
    let mut longest = 0.0f64;
    let mut next = Some(msg);
    while let Some(msg) = next.take() {
        let t = Instant::now();
        let fx = update(s, msg, "2026-01-01T00:00:00Z");
        longest = longest.max(t.elapsed().as_secs_f64() * 1000.0);
        steps += 1;
        if fx.iter().any(|e| matches!(e, Effect::Step)) {
            next = Some(Msg::Step);
        }
    }
    (steps, longest, all.elapsed().as_secs_f64() * 1000.0)
}

/// « Améliorer » on `n` synthetic fiches and 40 questions, in the page's model: each change's
/// steps, the longest, and the whole; then what one unit of each kind of step work costs (a
/// question searched per fiche, a byte of text indexed), which `improve::batch` weighs.
fn ameliorer(n: usize) {
    use rag_fiches::improve::batch::{INDEX_BYTE_WORK, WORK_PER_STEP};
    use rag_fiches::improve::sweep::Grid;
    use rag_fiches::link::View;
    use rag_fiches::page::improve::Change;
    use rag_fiches::page::{Dataset, Msg, NavMsg, State};
    let bundled = parse_fiches(include_str!("../../data/fiches.jsonl")).expect("bundled fiches");
    let (fiches, questions) = synth::catalogue(&bundled, n, 40, 1);
    let mut s = State::new(
        Dataset::new(0, fiches.clone(), questions.clone(), Some("bench".into())),
        (fiches.clone(), questions.clone()),
        rag_fiches::data::nfc,
    );
    rag_fiches::outln!("« Améliorer » on {n} fiches, 40 questions (steps of {WORK_PER_STEP} units; a byte indexed weighs {INDEX_BYTE_WORK})\n");
    rag_fiches::outln!("| change | steps | longest step | all steps |");
    rag_fiches::outln!("|---|---|---|---|");
    let row = |what: &str, s: &mut State, msg: Msg| {
        let (steps, longest, all) = stepped(s, msg);
        rag_fiches::outln!("| {what} | {steps} | {longest:.1} ms | {all:.0} ms |");
    };
    row(
        "open (mots)",
        &mut s,
        Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)),
    );
    for k1 in [1.2, 0.9, 2.0] {
        row(&format!("k1 = {k1}"), &mut s, Msg::Improve(Change::K1(k1)));
    }
    let mut words = s
        .data
        .improve
        .settings
        .as_ref()
        .map(|st| st.analysis.stop_words.clone())
        .unwrap_or_default();
    words.push("beton".into());
    row(
        "a stop word added",
        &mut s,
        Msg::Improve(Change::StopWords(words.join(" "))),
    );
    row(
        "sweep k1 × b (36 settings)",
        &mut s,
        Msg::Improve(Change::Sweep(Grid::K1B)),
    );
    // What the weights stand for: one question searched, per fiche; one byte indexed.
    let lab = Lab::new(fiches.clone());
    let index = lab.bm25(rag_fiches::lab::Keyword::Mots);
    let (search, _, _) = time(5, || {
        for q in &questions {
            std::hint::black_box(index.search(&q.text, 11));
        }
    });
    let bytes: usize = fiches.iter().map(|f| f.texte.len()).sum();
    let (build, _, _) = time(3, || {
        rag_fiches::search::bm25::Bm25Index::build(&fiches, index.analyzer(), Default::default())
    });
    let per_fiche = search * 1e6 / (questions.len() * n) as f64;
    let per_byte = build * 1e6 / bytes as f64;
    rag_fiches::outln!(
        "\nsearch: {per_fiche:.1} ns per question and fiche; indexing (mots): {per_byte:.1} ns per byte, {:.1} fiches' worth",
        per_byte / per_fiche
    );
}

fn main() {
    let mut sizes = vec![1_000usize, 10_000, 50_000];
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--candidates") {
        let n = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(50_000);
        candidates_sweep(n);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--ameliorer") {
        let n = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(50_000);
        ameliorer(n);
        return;
    }
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
    rag_fiches::outln!("memory read bandwidth (one core, eight independent u64 sums over 512 MiB): {bandwidth:.1} GB/s\n");

    rag_fiches::outln!("| fiches | build mots | build mots+ | query mots p50 | query mots+ p50 | dense top-10, exact f32 scan | its read bound | dense top-10, int8 + exact re-score | its read bound (high 4 bits) | exact top 10 (1,000 random questions) | vectors in memory |");
    rag_fiches::outln!("|---|---|---|---|---|---|---|---|---|---|---|");
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
        // Dense. The page's path: the vectors file read back (f16 rows and their int8 copy),
        // the int8 scan picking candidates, re-scored exactly (`dense::search`). Against it, the
        // exact scan of every row on the same values in f32, as the page did before.
        let data = random_unit_vectors(n, 42 + n as u64);
        let rows: Vec<Vec<f32>> = data.chunks_exact(DIM).map(<[f32]>::to_vec).collect();
        drop(data);
        let set = VectorSet::new("bench", lab.fiches(), rows).expect("vectors");
        let set = VectorSet::from_safetensors(&set.to_safetensors()).expect("read back");
        let exact_rows: Vec<f32> = (0..n).flat_map(|i| set.row(i)).collect();
        let exact_top10 = |q: &[f32]| -> Vec<(usize, f64)> {
            let scale = 1.0 / dot(q, q).sqrt();
            let mut s: Vec<(usize, f64)> = exact_rows
                .chunks_exact(DIM)
                .map(|r| (dot(r, q) * scale) as f64)
                .enumerate()
                .collect();
            let order =
                |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
            s.select_nth_unstable_by(9, order);
            s.truncate(10);
            s.sort_by(order);
            s
        };
        let queries = random_unit_vectors(1000, 7);
        let query = |j: usize| &queries[(j % 1000) * DIM..(j % 1000 + 1) * DIM];
        let mut k = 0;
        let dense32 = time(20, || {
            k += 1;
            exact_top10(query(k))
        });
        let dense8 = time(20, || {
            k += 1;
            dense::search(&set, query(k), 10)
        });
        // Exactness: the same ten fiches, order and score bits as the exact scan, per query.
        let exact = (0..1000)
            .filter(|&j| {
                let got = dense::search(&set, query(j), 10).expect("searched");
                let want = exact_top10(query(j));
                if j < 3 {
                    let full = dense::search_exact(&set, query(j), 10).expect("searched");
                    assert_eq!(full, want, "the reference here is dense::search_exact");
                }
                got == want
            })
            .count();
        drop(exact_rows);
        let bound_ms = |bytes: usize| bytes as f64 / (bandwidth * 1e9) * 1000.0;
        rag_fiches::outln!(
            "| {n} | {} | {} | {} | {} | {} | {:.2} ms | {} | {:.2} ms | {:.1} % | {:.1} MB (f32: {:.1}) |",
            show(build_mots),
            show(build_plus),
            show(q_mots),
            show(q_plus),
            show(dense32),
            bound_ms(n * DIM * 4),
            show(dense8),
            bound_ms(n * DIM / 2),
            exact as f64 / 10.0,
            set.memory_bytes() as f64 / 1e6,
            (n * DIM * 4) as f64 / 1e6,
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
    rag_fiches::outln!("\nRRF of two top-50 lists: {}", show(fusion));
    rag_fiches::outln!(
        "full evaluation, 40 questions × 5 methods (200 fiches, vectors given): {}",
        show(eval)
    );
    // The statistics of pairs (`measure::pairs`): the page's table of every pair (t-tests and
    // Holm only), one pair compared in full (bootstrap and randomisation test, three measures),
    // and every pair in full (`mesurer --all --json`, the page's JSON export).
    let ms: Vec<_> = Method::ALL
        .iter()
        .filter(|m| m.encoder() != Some(rag_fiches::lab::Encoder::Local))
        .map(|&m| lab.measure(m, &questions, &qv).expect("measured"))
        .collect();
    use rag_fiches::data::QuestionKind::Courante;
    use rag_fiches::measure::pairs;
    let table = time(200, || pairs::t_tests(&ms, Courante, pairs::MEASURES[0]));
    let holm = pairs::holm(&ms, Courante);
    let one = time(50, || pairs::pair(&ms, (0, 1), Courante, &holm));
    let all = time(10, || pairs::all(&ms));
    rag_fiches::outln!(
        "pairs of {} methods on 40 questions: table of every pair's t-test and Holm {}; one pair in full (20 courantes, 3 measures) {}; every pair in full ({} pairs) {}",
        ms.len(),
        show(table),
        show(one),
        pairs::all(&ms).len(),
        show(all)
    );
}
