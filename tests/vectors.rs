//! Native ring: the vectors file, dense search and fusion, with the fake embedder (no key).

// Test code: a failed expectation stops the test, which is how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use rag_fiches::data::vectors::{fingerprint, VectorSet, VectorsError};
use rag_fiches::data::{parse_fiches, parse_questions, Fiche};
use rag_fiches::lab::{Keyword, Lab, Method, QuestionVectors};
use rag_fiches::search::embed::{Embedder, FakeEmbedder};

const FICHES: &str = include_str!("../data/fiches.jsonl");
const QUESTIONS: &str = include_str!("../data/questions.csv");

fn fiches() -> Vec<Fiche> {
    parse_fiches(FICHES).unwrap()
}

fn fake_set(fiches: &[Fiche]) -> VectorSet {
    let e = FakeEmbedder::new(1024);
    let texts: Vec<&str> = fiches.iter().map(|f| f.texte.as_str()).collect();
    VectorSet::new(e.model(), fiches, e.embed(&texts)).unwrap()
}

#[test]
fn a_vectors_file_round_trips_within_f16_precision() {
    let fiches = fiches();
    let set = fake_set(&fiches);
    let bytes = set.to_safetensors();
    // 200 × 1024 values × 2 bytes, plus the header (ids, fingerprint).
    assert!(
        bytes.len() > 409_600 && bytes.len() < 409_600 + 8192,
        "{}",
        bytes.len()
    );
    assert_eq!(
        set.to_safetensors(),
        bytes,
        "the same vectors give the same bytes"
    );
    let back = VectorSet::from_safetensors(&bytes).unwrap();
    // The safetensors crate itself reads what we wrote.
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(st.tensor("vectors").unwrap().shape(), [200, 1024]);
    assert_eq!(
        (back.model.as_str(), back.dim, back.len()),
        ("fake-md5-bag-of-words", 1024, 200)
    );
    assert_eq!(back.ids, set.ids);
    assert_eq!(back.fingerprint, fingerprint(&fiches));
    let worst = (0..set.len())
        .flat_map(|i| {
            let (a, b) = (set.row(i), back.row(i));
            a.into_iter().zip(b).map(|(a, b)| (a - b).abs())
        })
        .fold(0f32, f32::max);
    assert!(worst < 1e-3, "f16 error {worst}");
    back.check_fiches(&fiches).unwrap();
}

#[test]
fn rejects_vectors_built_from_other_fiches() {
    let mut fiches = fiches();
    let bytes = fake_set(&fiches).to_safetensors();
    let set = VectorSet::from_safetensors(&bytes).unwrap();
    fiches[17].texte.push_str(" Nouveau.");
    let err = set.check_fiches(&fiches).unwrap_err();
    assert!(matches!(err, VectorsError::OtherFiches { .. }), "{err:?}");
    assert!(
        err.to_string().contains("made for other fiche texts"),
        "{err}"
    );
    let err = set.check_fiches(&fiches[..199]).unwrap_err();
    assert_eq!(
        err,
        VectorsError::Count {
            expected: 199,
            found: 200
        }
    );
    fiches.swap(0, 1);
    let err = set.check_fiches(&fiches).unwrap_err();
    assert_eq!(
        err.to_string(),
        "row 0 is fiche \"AR-0001\", expected \"AR-0002\": the file was made for other fiches"
    );
}

#[test]
fn rejects_another_model_or_dimension() {
    let set = fake_set(&fiches());
    assert_eq!(
        set.check_model("mistral-embed", 1024).unwrap_err().to_string(),
        "vectors made with model \"fake-md5-bag-of-words\", expected \"mistral-embed\": vectors of different models do not compare"
    );
    assert_eq!(
        set.check_model("fake-md5-bag-of-words", 768)
            .unwrap_err()
            .to_string(),
        "expected 768 dims, got 1024"
    );
}

fn small() -> Vec<Fiche> {
    (0..3)
        .map(|i| Fiche {
            id: format!("F{i}"),
            famille: "f".into(),
            nom: "n".into(),
            texte: format!("joint {i}"),
        })
        .collect()
}

#[test]
fn rejects_truncated_files_trailing_bytes_and_huge_headers() {
    let bytes = fake_set(&small()).to_safetensors();
    for cut in [0, 4, 8, 20, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(
                VectorSet::from_safetensors(&bytes[..cut]),
                Err(VectorsError::Unreadable { .. })
            ),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"xx");
    assert!(matches!(
        VectorSet::from_safetensors(&longer),
        Err(VectorsError::Unreadable { .. })
    ));
    let mut huge = bytes.clone();
    huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        VectorSet::from_safetensors(&huge),
        Err(VectorsError::Unreadable { .. })
    ));
    assert!(matches!(
        VectorSet::from_safetensors(b"not a file at all"),
        Err(VectorsError::Unreadable { .. })
    ));
}

/// Rewrites one f16 value (row, col) of a serialised set.
fn poke(bytes: &mut [u8], dim: usize, row: usize, col: usize, value: f32) {
    let header = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let at = 8 + header + (row * dim + col) * 2;
    bytes[at..at + 2].copy_from_slice(&half::f16::from_f32(value).to_le_bytes());
}

#[test]
fn rejects_nan_infinite_zero_and_unnormalised_vectors() {
    let set = fake_set(&small());
    let bytes = set.to_safetensors();
    let nonzero = set.row(1).iter().position(|x| *x != 0.0).unwrap();
    for (value, expect) in [
        (f32::NAN, "NaN"),
        (f32::INFINITY, "infinite"),
        (5.0, "norm"),
    ] {
        let mut b = bytes.clone();
        poke(&mut b, 1024, 1, nonzero, value);
        let err = VectorSet::from_safetensors(&b).unwrap_err();
        assert!(err.to_string().contains(expect), "{err}");
        assert!(err.to_string().contains("row 1"), "{err}");
    }
    let mut zero = bytes.clone();
    for col in 0..1024 {
        poke(&mut zero, 1024, 2, col, 0.0);
    }
    let err = VectorSet::from_safetensors(&zero).unwrap_err();
    assert!(matches!(err, VectorsError::Norm { row: 2, .. }), "{err:?}");
}

#[test]
fn rejects_a_safetensors_file_that_is_not_ours() {
    use safetensors::tensor::{Dtype, TensorView};
    let data = [0u8; 8];
    let view = TensorView::new(Dtype::F32, vec![2], &data).unwrap();
    let bytes = safetensors::serialize([("weights", view)], None).unwrap();
    let err = VectorSet::from_safetensors(&bytes).unwrap_err();
    assert_eq!(
        err,
        VectorsError::NotOurs {
            found: String::new()
        }
    );
}

fn lab_with_fake_vectors() -> (Lab, QuestionVectors) {
    let fiches = fiches();
    let set = VectorSet::from_safetensors(&fake_set(&fiches).to_safetensors()).unwrap();
    let mut lab = Lab::new(fiches);
    lab.set_vectors(set).unwrap();
    let questions = parse_questions(QUESTIONS).unwrap();
    let e = FakeEmbedder::new(1024);
    let qv = questions
        .iter()
        .map(|q| (q.text.clone(), e.embed(&[&q.text]).remove(0)))
        .collect();
    (lab, qv)
}

#[test]
fn hybride_is_rrf_of_the_two_top_50_lists_recomputed_by_hand() {
    let (lab, qv) = lab_with_fake_vectors();
    for q in parse_questions(QUESTIONS).unwrap() {
        let v = qv.get(&q.text).map(Vec::as_slice);
        let words = lab.search(Method::MOTS, &q.text, None, 50).unwrap();
        let sens = lab.search(Method::Sens, &q.text, v, 50).unwrap();
        let mut points = vec![0.0f64; lab.fiches().len()];
        for list in [&words, &sens] {
            for (i, r) in list.iter().enumerate() {
                points[r.doc] += 1.0 / (60.0 + (i + 1) as f64);
            }
        }
        let fused = lab
            .search(Method::Hybride(Keyword::Mots), &q.text, v, 10)
            .unwrap();
        for pair in fused.windows(2) {
            assert!(pair[0].score >= pair[1].score);
        }
        for r in &fused {
            assert_eq!(r.score, points[r.doc], "{}", q.text);
        }
        let best = points.iter().cloned().fold(0.0, f64::max);
        assert_eq!(fused[0].score, best);
    }
}

#[test]
fn dense_search_ranks_by_cosine_and_refuses_a_wrong_dimension() {
    let (lab, qv) = lab_with_fake_vectors();
    let q = "Joint époxy";
    let hits = lab
        .search(Method::Sens, q, qv.get(q).map(Vec::as_slice), 5)
        .unwrap();
    assert_eq!(lab.fiches()[hits[0].doc].id, "AR-0032");
    assert!(hits[0].score <= 1.0 + 1e-6 && hits[0].score > hits[4].score);
    let err = lab.search(Method::Sens, q, Some(&[1.0; 8]), 5).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the question's vector has 8 dims, the fiches' 1024"
    );
    let err = lab.search(Method::Sens, "autre", None, 5).unwrap_err();
    assert!(err.to_string().contains("has not been embedded"));
}

/// Runs one of the crate's terminal programs from the crate root.
fn run(program: &str, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn mesurer_hybride_with_the_fake_embedder_gives_the_golden_report() {
    let (vecteurs, mesurer) = (
        env!("CARGO_BIN_EXE_vecteurs"),
        env!("CARGO_BIN_EXE_mesurer"),
    );
    let dir = std::env::temp_dir().join(format!("vecteurs-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fake.safetensors");
    let file = file.to_str().unwrap();
    let out = run(vecteurs, &["--embedder", "fake", "--out", file], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (method, golden) in [
        ("sens", include_str!("golden/sens-fake.out")),
        ("hybride", include_str!("golden/hybride-fake.out")),
        ("hybride+", include_str!("golden/hybride-plus-fake.out")),
    ] {
        let out = run(
            mesurer,
            &[method, "--embedder", "fake", "--vectors", file],
            &[],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8(out.stdout).unwrap(), golden, "{method}");
    }
    // Vectors made for other fiches: refused, non-zero exit, the mismatch named.
    let other = dir.join("other.jsonl");
    std::fs::write(
        &other,
        FICHES.replacen("Dosage indicatif", "Dosage conseillé", 1),
    )
    .unwrap();
    let args = [
        "sens",
        "--embedder",
        "fake",
        "--vectors",
        file,
        "--fiches",
        other.to_str().unwrap(),
    ];
    let out = run(mesurer, &args, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("made for other fiche texts"), "{err}");
    // Vectors of the fake model with the mistral embedder: refused before any call.
    let out = run(
        mesurer,
        &["sens", "--embedder", "mistral", "--vectors", file],
        &[("MISTRAL_API_KEY", "test-key")],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("expected \"mistral-embed\""), "{err}");
    assert!(
        !err.contains("test-key"),
        "the key never appears in an error"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn question_vectors_ship_in_the_same_file_and_a_file_without_them_still_reads() {
    let fiches = fiches();
    let questions = parse_questions(QUESTIONS).unwrap();
    let texts: Vec<&str> = questions.iter().map(|q| q.text.as_str()).collect();
    let e = FakeEmbedder::new(1024);
    let plain = fake_set(&fiches);
    let with = plain
        .clone()
        .with_questions(&texts, e.embed(&texts))
        .unwrap();
    let bytes = with.to_safetensors();
    // 40 more rows of 1024 f16 values, and the texts in the header.
    assert!(bytes.len() > plain.to_safetensors().len() + 40 * 2048);
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    assert_eq!(st.tensor("questions").unwrap().shape(), [40, 1024]);
    let back = VectorSet::from_safetensors(&bytes).unwrap();
    back.check_fiches(&fiches).unwrap();
    assert_eq!(back.questions.len(), 40);
    for ((q, v), (q2, v2)) in with.questions.iter().zip(&back.questions) {
        assert_eq!(q, q2);
        let worst = v
            .iter()
            .zip(v2)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(worst < 1e-3, "{q}: f16 error {worst}");
    }
    // A file made before the question tensor existed reads as before, with no questions.
    let old = VectorSet::from_safetensors(&plain.to_safetensors()).unwrap();
    assert!(old.questions.is_empty());
    // A count that does not match the texts is refused, naming the key.
    let needle = b"\"questions_count\":\"40\"";
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap();
    let mut lying = bytes.clone();
    // Same length: the header's size prefix still holds.
    lying[at + needle.len() - 2] = b'1';
    match VectorSet::from_safetensors(&lying) {
        Err(VectorsError::BadMetadata { key, .. }) => assert_eq!(key, "questions_count"),
        other => panic!("{other:?}"),
    }
    // Question vectors of the wrong dimension are refused when built.
    assert!(matches!(
        plain.with_questions(&["q"], vec![vec![1.0; 3]]),
        Err(VectorsError::Dim {
            expected: 1024,
            found: 3
        })
    ));
}

#[test]
fn vecteurs_writes_the_questions_and_verifier_without_a_key_exits_2() {
    let vecteurs = env!("CARGO_BIN_EXE_vecteurs");
    let dir = std::env::temp_dir().join(format!("vecteurs-q-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("v.safetensors");
    let out = run(
        vecteurs,
        &["--embedder", "fake", "--out", file.to_str().unwrap()],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.contains("200 fiche vectors and 40 question vectors"),
        "{said}"
    );
    // The fake embedder is free: no dollar figure at all.
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!said.contains('$') && !err.contains('$'), "{said}{err}");
    let set = VectorSet::from_safetensors(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(set.questions.len(), 40);
    let out = run(
        vecteurs,
        &[
            "--embedder",
            "fake",
            "--questions",
            "none",
            "--out",
            file.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success());
    let set = VectorSet::from_safetensors(&std::fs::read(&file).unwrap()).unwrap();
    assert!(set.questions.is_empty());
    let out = Command::new(vecteurs)
        .arg("--verifier")
        .env_remove("MISTRAL_API_KEY")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("MISTRAL_API_KEY is not set"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

/// The lab remembers dense top lists (one scan per question for sens, hybride and hybride+): what
/// it answers from memory must be what a fresh lab computes, for every method, depth and order of
/// asking, and new vectors must not be answered from the old ones' memory.
#[test]
fn the_dense_memo_answers_exactly_what_a_fresh_scan_does() {
    use rag_fiches::lab::{Keyword, Lab, Method};
    let fiches = fiches();
    let e = FakeEmbedder::new(1024);
    let questions = [
        "colle pour faïence",
        "isoler les combles",
        "gravier pour allée",
    ];
    let qv = e.embed(&questions);
    let fresh = || {
        let mut lab = Lab::new(fiches.clone());
        lab.set_vectors(fake_set(&fiches)).unwrap();
        lab
    };
    let methods = [
        Method::Sens,
        Method::Hybride(Keyword::Mots),
        Method::Hybride(Keyword::MotsPlus),
    ];
    let warm = fresh();
    for k in [3, 11, 50, 120, 200, 5] {
        for m in methods {
            for (q, v) in questions.iter().zip(&qv) {
                let remembered = warm.search(m, q, Some(v), k).unwrap();
                let computed = fresh().search(m, q, Some(v), k).unwrap();
                assert_eq!(remembered, computed, "{} k={k} {q}", m.name());
            }
        }
    }
    // Other vectors for the same fiches: the memory is emptied, the answers are the new ones'.
    let mut warm = warm;
    let other = FakeEmbedder::new(1024);
    let texts: Vec<String> = fiches
        .iter()
        .map(|f| format!("{} autre", f.texte))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let shifted = VectorSet::new(other.model(), &fiches, other.embed(&refs)).unwrap();
    let mut expected = Lab::new(fiches.clone());
    expected.set_vectors(shifted.clone()).unwrap();
    warm.set_vectors(shifted).unwrap();
    assert_eq!(
        warm.search(Method::Sens, questions[0], Some(&qv[0]), 10)
            .unwrap(),
        expected
            .search(Method::Sens, questions[0], Some(&qv[0]), 10)
            .unwrap()
    );
}

/// Dense search scans int8 copies and re-scores its candidates exactly: on a catalogue larger
/// than the candidate pool, its top lists (fiches, order and score bits) must be those of the
/// exact scan of every row, at the depths the page asks (10 shown, 50 fused), for vectors read
/// from a file (f16) and computed in the session (f32); and the int8 copy must be a quarter of f32.
#[test]
fn the_int8_scan_with_exact_rescoring_gives_the_exact_top_lists() {
    use rag_fiches::search::dense;
    let bundled = fiches();
    let (fiches, _) = rag_fiches::data::synth::catalogue(&bundled, 3000, 0, 5);
    let dim = 256;
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut vector = || {
        (0..dim)
            .map(|_| next() + next() + next())
            .collect::<Vec<f32>>()
    };
    let rows: Vec<Vec<f32>> = (0..fiches.len()).map(|_| vector()).collect();
    let computed = VectorSet::new("test", &fiches, rows).unwrap();
    let read = VectorSet::from_safetensors(&computed.to_safetensors()).unwrap();
    for set in [&computed, &read] {
        assert_eq!(set.len(), 3000);
        for q in 0..200 {
            let mut query = vector();
            if q % 2 == 1 {
                // Half the questions close to a fiche, as real questions are.
                let near = set.row(q * 7 % 3000);
                query = query.iter().zip(&near).map(|(a, b)| 0.02 * a + b).collect();
            }
            for k in [10, 50] {
                let fast = dense::search(set, &query, k).unwrap();
                let exact = dense::search_exact(set, &query, k).unwrap();
                assert_eq!(fast.len(), k);
                assert_eq!(fast, exact, "question {q}, k={k}");
            }
        }
    }
    // f16 rows (2 bytes) + int8 codes (1) + one f32 scale per row.
    assert_eq!(read.memory_bytes(), 3000 * dim * 3 + 3000 * 4);
    assert_eq!(computed.memory_bytes(), 3000 * dim * 5 + 3000 * 4);
    // Fewer candidates than k still returns the exact top k's length, never a panic.
    let q = vector();
    assert_eq!(dense::search_with(&read, &q, 20, 1).unwrap().len(), 20);
}

/// The int8 codes are kept as two planes of 4-bit halves: each row's codes come back exactly as
/// `quantise` made them, at dimensions that are not whole blocks too; the packed product is the
/// plain int8 product; and the scan's pool, from a first pass over the high halves cut at 8 × the
/// candidates, is the pool a full int8 scan picks.
#[test]
fn the_int8_planes_hold_the_codes_and_their_first_pass_keeps_the_int8_pool() {
    use rag_fiches::data::vectors::{quantise, QueryCodes};
    use rag_fiches::search::dense;
    let bundled = fiches();
    let mut s = 7u64;
    let mut next = move || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1442695040888963407);
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    for dim in [1usize, 3, 31, 32, 33, 100, 1024] {
        let (fiches, _) = rag_fiches::data::synth::catalogue(&bundled, 40, 0, 1);
        let mut rows: Vec<Vec<f32>> = (0..fiches.len())
            .map(|_| (0..dim).map(|_| next()).collect())
            .collect();
        // The extremes: a row of one value, and a row at ±max everywhere (codes ±127).
        rows[0] = (0..dim).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
        rows[1] = (0..dim)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let set = VectorSet::new("test", &fiches, rows).unwrap();
        let int8 = set.int8();
        let query: Vec<f32> = (0..dim).map(|_| next()).collect();
        let q = QueryCodes::of(&query);
        let mut q8 = Vec::new();
        quantise(&query, &mut q8);
        for i in 0..set.len() {
            let mut want = Vec::new();
            let scale = quantise(&set.row(i), &mut want);
            assert_eq!(int8.codes(i), want, "dim {dim}, row {i}");
            assert_eq!(int8.scale(i), scale);
            let plain: i32 = want
                .iter()
                .zip(&q8)
                .map(|(&a, &b)| i32::from(a) * i32::from(b))
                .sum();
            assert_eq!(int8.dot(i, &q), plain, "dim {dim}, row {i}");
        }
    }
    let (fiches, _) = rag_fiches::data::synth::catalogue(&bundled, 5000, 0, 9);
    let dim = 128;
    let rows: Vec<Vec<f32>> = (0..fiches.len())
        .map(|_| (0..dim).map(|_| next() + next()).collect())
        .collect();
    let set = VectorSet::new("test", &fiches, rows).unwrap();
    for _ in 0..50 {
        let query: Vec<f32> = (0..dim).map(|_| next()).collect();
        let q = QueryCodes::of(&query);
        let mut full = dense::int8_pool(set.int8(), &q, 50, usize::MAX);
        let mut wide = dense::int8_pool(set.int8(), &q, 50, dense::WIDEN * 50);
        assert_eq!(full.len(), 50);
        full.sort_unstable();
        wide.sort_unstable();
        assert_eq!(wide, full);
    }
}

/// A vectors file read in steps (the page yields between them) pauses after each of its header's
/// three readings and after every `ROWS_PER_STEP` rows, says how far it is, and reads exactly what
/// the one-go reader reads.
#[test]
fn reading_in_steps_pauses_every_step_of_rows_and_reads_the_same_set() {
    use rag_fiches::data::vectors::ROWS_PER_STEP;
    let bundled = fiches();
    let (fiches, _) = rag_fiches::data::synth::catalogue(&bundled, 1300, 0, 3);
    let mut s = 42u64;
    let rows: Vec<Vec<f32>> = (0..fiches.len())
        .map(|_| {
            (0..64)
                .map(|_| {
                    s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                })
                .collect()
        })
        .collect();
    let bytes = VectorSet::new("test", &fiches, rows)
        .unwrap()
        .to_safetensors();
    let mut seen = Vec::new();
    let read = {
        let reading = VectorSet::from_safetensors_pausing(&bytes, |p| {
            seen.push(p);
            std::future::ready(())
        });
        let mut reading = std::pin::pin!(reading);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let std::task::Poll::Ready(read) = std::future::Future::poll(reading.as_mut(), &mut cx)
        else {
            panic!("its pauses were ready: it must not wait");
        };
        read
    };
    assert_eq!(read.unwrap(), VectorSet::from_safetensors(&bytes).unwrap());
    let rows: Vec<u8> = (1..=1300 / ROWS_PER_STEP)
        .map(|i| (i * ROWS_PER_STEP * 100 / 1300) as u8)
        .collect();
    // One pause after the header (metadata, ids and tensors are read as one `layout`).
    assert_eq!(seen, [vec![0], rows].concat());
    assert_eq!(seen.len(), 1 + 5);
}

/// The page's Mistral vectors live in its worker: its lab knows only their shape, and answers
/// dense searches from the tops the worker computed (`dense::search` at `Lab::dense_depth()`).
/// Every search the page makes — sens, both fusions, at every depth it asks, the fusion's
/// explanation and a whole measurement — must be exactly that of a lab holding the vectors, and a
/// top not come back yet is `Pending`, never a wrong answer.
#[test]
fn a_lab_whose_vectors_are_away_answers_exactly_from_the_tops_it_is_given() {
    use rag_fiches::lab::{Encoder, Keyword, Method, Ranked, SearchError};
    use rag_fiches::search::dense;
    let (here, qv) = lab_with_fake_vectors();
    let set = here.vectors().unwrap().clone();
    let mut away = Lab::new(fiches());
    away.set_vectors_away(7, set.info());
    assert_eq!(away.vectors_away(), Some(7));
    assert!(away.vectors().is_none() && away.has_vectors(Encoder::Mistral));
    assert_eq!(away.vectors_info(Encoder::Mistral), Some(set.info()));
    assert!(!away.has_vectors(Encoder::Local));
    let questions = parse_questions(QUESTIONS).unwrap();
    let methods = [
        Method::Sens,
        Method::Hybride(Keyword::Mots),
        Method::Hybride(Keyword::MotsPlus),
    ];
    let q0 = &questions[0].text;
    let v0 = qv[q0].as_slice();
    assert_eq!(
        away.search(Method::Sens, q0, Some(v0), 10),
        Err(SearchError::Pending)
    );
    assert!(!away.knows_dense(Encoder::Mistral, v0, 10));
    // What the worker does for each question vector.
    for v in qv.values() {
        let top = dense::search(&set, v, Lab::dense_depth())
            .unwrap()
            .into_iter()
            .map(|(doc, score)| Ranked { doc, score })
            .collect();
        away.remember_dense(Encoder::Mistral, v, top);
    }
    assert!(away.knows_dense(Encoder::Mistral, v0, Lab::dense_depth()));
    for q in &questions {
        let v = Some(qv[&q.text].as_slice());
        for m in methods {
            for k in [1, 5, 10, 11, 50] {
                assert_eq!(
                    away.search(m, &q.text, v, k),
                    here.search(m, &q.text, v, k),
                    "{} k={k} {}",
                    m.name(),
                    q.text
                );
            }
            for doc in [0, 17, 199] {
                assert_eq!(
                    away.explain_fusion(Method::Hybride(Keyword::MotsPlus), &q.text, v, doc),
                    here.explain_fusion(Method::Hybride(Keyword::MotsPlus), &q.text, v, doc)
                );
            }
        }
    }
    for m in methods {
        assert_eq!(
            away.measure(m, &questions, &qv).unwrap(),
            here.measure(m, &questions, &qv).unwrap()
        );
    }
    // Deeper than what was given: pending again, not a short list.
    assert_eq!(
        away.search(Method::Sens, q0, Some(v0), Lab::dense_depth() + 1),
        Err(SearchError::Pending)
    );
    // Vectors attached here again: the away set is gone.
    away.set_vectors(set).unwrap();
    assert_eq!(away.vectors_away(), None);
    assert_eq!(
        away.search(Method::Sens, q0, Some(v0), 51),
        here.search(Method::Sens, q0, Some(v0), 51)
    );
}

/// The page's worker reads a vectors file a slice at a time and keeps only the int8 codes in its
/// memory, the exact values in a store (`data::stored`). Whatever the slicing, its searches must
/// be those of the `VectorSet` read from the same file in one go: every score, every rank, at the
/// depths the page asks; the same question vectors; and, for a `.npy`, those of `from_rows`.
#[test]
fn a_set_read_in_slices_with_its_rows_stored_searches_exactly_as_one_read_whole() {
    use rag_fiches::data::stored::{load_bytes, MemoryStore, RowStore};
    use rag_fiches::data::{npy, vectors};
    use rag_fiches::search::dense;
    let bundled = fiches();
    let (fiches, _) = rag_fiches::data::synth::catalogue(&bundled, 2100, 0, 9);
    let dim = 128;
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut vector = || (0..dim).map(|_| next() + next()).collect::<Vec<f32>>();
    let rows: Vec<Vec<f32>> = (0..fiches.len()).map(|_| vector()).collect();
    let qrows: Vec<Vec<f32>> = (0..3).map(|_| vector()).collect();
    let whole = VectorSet::new("test", &fiches, rows.clone())
        .unwrap()
        .with_questions(&["a", "b", "c"], qrows)
        .unwrap();
    let bytes = whole.to_safetensors();
    let read = VectorSet::from_safetensors(&bytes).unwrap();
    let npy_bytes = npy::write_matrix(&rows);
    let from_npy = VectorSet::from_rows(
        "test",
        read.ids.clone(),
        read.fingerprint.clone(),
        npy::read_matrix(&npy_bytes).unwrap(),
    )
    .unwrap();
    let queries: Vec<Vec<f32>> = (0..60)
        .map(|q| {
            let v = vector();
            if q % 2 == 0 {
                return v;
            }
            let near = read.row(q * 31 % 2100);
            v.iter().zip(&near).map(|(a, b)| 0.03 * a + b).collect()
        })
        .collect();
    for slice in [1, 7, 256, 5000] {
        // The header alone, as the worker reads it: its first bytes, then as many as it says.
        let end = vectors::header_end(&bytes[..vectors::HEADER_PREFIX]).unwrap();
        let layout = vectors::layout(&bytes[..end], bytes.len()).unwrap();
        assert_eq!(layout.ids.as_ref(), Some(&read.ids));
        let store = MemoryStore::with_capacity(2100 * dim * 2);
        let (stored, questions) = load_bytes(layout, store, &bytes, slice).unwrap();
        assert_eq!(questions, read.questions, "slices of {slice} rows");
        let info = stored.info();
        assert_eq!(info.memory_bytes, 2100 * dim * 3 + 2100 * 4);
        assert_eq!(info.stored_bytes, 0);
        let end = npy::header_end(&npy_bytes[..npy::HEADER_PREFIX]).unwrap();
        let layout = npy::layout(&npy_bytes[..end], npy_bytes.len(), "test").unwrap();
        let store = MemoryStore::with_capacity(layout.exact_bytes());
        let (stored_npy, none) = load_bytes(layout, store, &npy_bytes, slice).unwrap();
        assert!(none.is_empty());
        assert_eq!(stored_npy.store().memory_bytes(), 2100 * dim * 4);
        for (q, query) in queries.iter().enumerate() {
            for k in [1, 10, 50, 300] {
                assert_eq!(
                    dense::search(&stored, query, k).unwrap(),
                    dense::search(&read, query, k).unwrap(),
                    "question {q}, k={k}, slices of {slice} rows"
                );
                assert_eq!(
                    dense::search(&stored_npy, query, k).unwrap(),
                    dense::search(&from_npy, query, k).unwrap(),
                    "npy: question {q}, k={k}, slices of {slice} rows"
                );
            }
        }
    }
}

/// A store that cannot read back (the browser's storage taken away) makes a search fail with a
/// `DenseError`, never a shorter or wrong list, and never a panic.
#[test]
fn a_store_that_fails_to_read_back_fails_the_search() {
    use rag_fiches::data::stored::{load_bytes, RowStore};
    use rag_fiches::data::vectors;
    use rag_fiches::search::dense;
    use rag_fiches::search::dense::DenseError;
    struct Forgetful(usize);
    impl RowStore for Forgetful {
        fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
            self.0 += bytes.len();
            Ok(())
        }
        fn read(&self, _: usize, _: &mut [u8]) -> Result<(), String> {
            Err("NotFoundError".into())
        }
        fn memory_bytes(&self) -> usize {
            0
        }
        fn stored_bytes(&self) -> usize {
            self.0
        }
    }
    let fiches = fiches();
    let bytes = fake_set(&fiches).to_safetensors();
    let layout = vectors::layout(&bytes, bytes.len()).unwrap();
    let (stored, _) = load_bytes(layout, Forgetful(0), &bytes, 64).unwrap();
    assert_eq!(stored.info().stored_bytes, 200 * 1024 * 2);
    let q = stored_question(&bytes);
    assert!(matches!(
        dense::search(&stored, &q, 10),
        Err(DenseError::Rows { reason, .. }) if reason == "NotFoundError"
    ));
}

fn stored_question(bytes: &[u8]) -> Vec<f32> {
    VectorSet::from_safetensors(bytes).unwrap().row(3)
}

#[test]
fn the_manifest_names_the_local_model_the_shipped_vectors_were_computed_with() {
    use rag_fiches::encoder::identity::{content_hash, MODEL_FILE};
    let text = std::fs::read_to_string("data/manifeste.json").unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let named = manifest["modele_local"]
        .as_str()
        .expect("data/manifeste.json names the local model (modele_local)");
    assert!(
        named.starts_with("sha256:") && named.len() == 7 + 64,
        "{named}"
    );
    match std::fs::read(MODEL_FILE) {
        Ok(bytes) => assert_eq!(
            content_hash(&bytes),
            named,
            "{MODEL_FILE} is not the model the manifest names: vecteurs --embedder local writes both"
        ),
        Err(_) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("*** SKIPPED: no {MODEL_FILE} (bash scripts/modele.sh) ***")
        }
        Err(e) => panic!("{MODEL_FILE}: {e} (CI=true requires it: bash scripts/modele.sh)"),
    }
}

/// The page's head (what it fetches and caches) is the one made from that model: the manifest
/// names it by the hash of its bytes.
#[test]
fn the_manifest_names_the_page_head_made_from_that_model() {
    use rag_fiches::encoder::identity::{content_hash, HEAD_FIELD, MODEL_FILE};
    let text = std::fs::read_to_string("data/manifeste.json").unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let named = manifest[HEAD_FIELD]
        .as_str()
        .expect("the manifest names the page's head");
    let bytes = match std::fs::read(MODEL_FILE) {
        Ok(bytes) => bytes,
        Err(_) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("*** SKIPPED: no {MODEL_FILE} (bash scripts/modele.sh) ***");
            return;
        }
        Err(e) => panic!("{MODEL_FILE}: {e} (CI=true requires it: bash scripts/modele.sh)"),
    };
    let model = rag_fiches::encoder::Model::from_safetensors(&bytes).unwrap();
    assert_eq!(
        content_hash(&model.page_head().unwrap()),
        named,
        "data/manifeste.json does not name this model's head: modele --tete writes it"
    );
}
