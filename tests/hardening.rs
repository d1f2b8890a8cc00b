//! Native ring: hostile and degenerate inputs. Every parser, analyser and the fusion run on a few
//! thousand seeded inputs (mutations of real files and random bytes) and must neither panic nor
//! produce NaN. The same targets run under cargo-fuzz (`fuzz/`) for longer campaigns.

// Test code: a failed expectation stops the test, which is how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use rag_fiches::data::vectors::VectorSet;
use rag_fiches::data::{parse_fiches, parse_questions, Fiche};
use rag_fiches::lab::{Keyword, Lab, Method, QuestionVectors};
use rag_fiches::search::analysis::Analyzer;
use rag_fiches::search::embed::{Embedder, FakeEmbedder};
use rag_fiches::search::fusion::rrf;

/// xorshift64*: deterministic, so a failure names its seed and can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A mutation of `seed`: bytes flipped, inserted, deleted, or chunks duplicated.
fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(8) {
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            1 => {
                let i = rng.below(v.len() + 1);
                v.insert(i, rng.next() as u8);
            }
            2 if !v.is_empty() => {
                let i = rng.below(v.len());
                let n = rng.below(v.len() - i + 1);
                v.drain(i..i + n);
            }
            3 if !v.is_empty() => {
                let i = rng.below(v.len());
                let n = rng.below(64).min(v.len() - i);
                let chunk = v[i..i + n].to_vec();
                v.splice(i..i, chunk);
            }
            _ => v.truncate(rng.below(v.len() + 1)),
        }
    }
    v
}

const FICHES: &str = include_str!("../data/fiches.jsonl");
const QUESTIONS: &str = include_str!("../data/questions.csv");
const RUNS: u64 = 3000;

#[test]
fn fiches_parser_survives_mutated_files() {
    let seed = &FICHES.as_bytes()[..4000];
    for s in 1..=RUNS {
        let mut rng = Rng(s);
        let bytes = mutate(&mut rng, seed);
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(fiches) = parse_fiches(&text) {
            // Whatever parses must also index and search without NaN.
            let lab = Lab::new(fiches);
            for r in lab
                .search(Method::MOTS_PLUS, "joint ciment", None, 5)
                .unwrap()
            {
                assert!(r.score.is_finite(), "seed {s}");
            }
        }
    }
}

#[test]
fn questions_parser_survives_mutated_files() {
    for s in 1..=RUNS {
        let mut rng = Rng(s);
        let bytes = mutate(&mut rng, QUESTIONS.as_bytes());
        let _ = parse_questions(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn vectors_and_npy_readers_survive_mutated_files() {
    let fiches: Vec<Fiche> = parse_fiches(FICHES).unwrap().into_iter().take(3).collect();
    let e = FakeEmbedder::new(16);
    let texts: Vec<&str> = fiches.iter().map(|f| f.texte.as_str()).collect();
    let rows = e.embed(&texts);
    let safetensors = VectorSet::new("m", &fiches, rows.clone())
        .unwrap()
        .to_safetensors();
    let npy = rag_fiches::data::npy::write_matrix(&rows);
    for s in 1..=RUNS {
        let mut rng = Rng(s);
        let mutated = mutate(&mut rng, &safetensors);
        let whole = VectorSet::from_safetensors(&mutated);
        if let Ok(set) = &whole {
            assert!(
                (0..set.len()).all(|i| set.row(i).iter().all(|x| x.is_finite())),
                "seed {s}"
            );
            let _ = set.check_fiches(&fiches);
        }
        // The worker's reader, from the header's bytes alone then slices, agrees with it:
        // the same error, or a set that searches the same.
        assert_eq!(
            sliced(&mutated).map_err(|e| e.to_string()),
            whole.map(|set| searches(&set)).map_err(|e| e.to_string()),
            "seed {s}"
        );
        let mutated = mutate(&mut rng, &npy);
        if let Ok(rows) = rag_fiches::data::npy::read_matrix(&mutated) {
            let _ = VectorSet::new("m", &fiches, rows);
        }
        let whole = rag_fiches::data::npy::read_matrix(&mutated).map(|_| ());
        let head = rag_fiches::data::npy::header_end(&mutated)
            .and_then(|end| {
                rag_fiches::data::npy::layout(
                    &mutated[..end.min(mutated.len())],
                    mutated.len(),
                    "m",
                )
            })
            .map(|_| ());
        assert_eq!(head, whole, "seed {s}");
    }
}

#[test]
fn analysers_survive_arbitrary_text() {
    let alphabet: Vec<char> =
        "aéÀœ'’ -.,;?!0129\u{200b}\u{a0}\u{202e}\u{5d0}🙂\u{130}ß\u{301}\n\t<>&\""
            .chars()
            .collect();
    for s in 1..=RUNS {
        let mut rng = Rng(s);
        let len = rng.below(200);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for analyzer in [Analyzer::Seed, Analyzer::French] {
            for t in analyzer.analyze(&text) {
                // Every span points into the text at character boundaries.
                assert!(
                    text.is_char_boundary(t.start) && text.is_char_boundary(t.end),
                    "seed {s}: {text:?}"
                );
                assert!(t.start < t.end && !t.term.is_empty(), "seed {s}");
            }
        }
    }
}

#[test]
fn fusion_survives_arbitrary_lists() {
    for s in 1..=RUNS {
        let mut rng = Rng(s);
        let a: Vec<usize> = (0..rng.below(80)).map(|_| rng.below(100)).collect();
        let b: Vec<usize> = (0..rng.below(80)).map(|_| rng.below(100)).collect();
        let fused = rrf(&[&a, &b], 60.0, 50);
        for w in fused.windows(2) {
            assert!(w[0].1 >= w[1].1, "seed {s}");
        }
        let mut seen = std::collections::HashSet::new();
        assert!(
            fused
                .iter()
                .all(|(d, p)| seen.insert(*d) && p.is_finite() && *p > 0.0),
            "seed {s}"
        );
    }
}

#[test]
fn hostile_questions_search_without_error_or_nan() {
    let lab = Lab::new(parse_fiches(FICHES).unwrap());
    let long = "isolant ".repeat(1250); // 10,000 characters
    let questions = [
        "",
        "   ",
        "?!…;:",
        "le la les de du",
        "\u{200b}\u{200b}joint\u{200b}",
        "joint\u{a0}époxy",
        "🙂🙂 joint 🙂",
        "مرحبا עברית joint",
        "\u{202e}tniojsilos",
        &long,
        "<img src=x onerror=alert(1)></mark><script>",
    ];
    for q in questions {
        for m in Method::KEYWORD {
            let hits = lab.search(m, q, None, 10).unwrap();
            assert_eq!(hits.len(), 10, "{q:?}");
            assert!(
                hits.iter().all(|h| h.score.is_finite() && h.score >= 0.0),
                "{q:?}"
            );
            let e = lab.explain(
                if m == Method::MOTS {
                    Keyword::Mots
                } else {
                    Keyword::MotsPlus
                },
                q,
                hits[0].doc,
            );
            assert!(e.score.is_finite());
        }
    }
    // Zero-width and non-breaking spaces separate words like spaces do.
    assert_eq!(
        Analyzer::French.terms("joint\u{a0}époxy"),
        Analyzer::French.terms("joint époxy")
    );
}

#[test]
fn degenerate_catalogues_measure_without_nan() {
    let one = r#"{"id":"A","famille":"f","nom":"n","texte":"joint"}"#;
    let same = (0..5)
        .map(|i| format!(r#"{{"id":"S{i}","famille":"f","nom":"n","texte":"joint gris"}}"#))
        .collect::<Vec<_>>()
        .join("\n");
    let stop = r#"{"id":"Z","famille":"f","nom":"n","texte":"le la les"}"#;
    for (fiches, expected) in [(one.to_owned(), "A"), (same, "S0"), (stop.to_owned(), "Z")] {
        let fiches = parse_fiches(&fiches).unwrap();
        let questions = parse_questions(&format!(
            "type;question;fiche_attendue\nexacte;joint;{expected}\nabsente;rien;\n"
        ))
        .unwrap();
        let lab = Lab::new(fiches);
        for m in Method::KEYWORD {
            let measured = lab.measure(m, &questions, &QuestionVectors::new()).unwrap();
            assert!(measured.kinds.iter().all(|k| k.mrr10.is_finite()));
            assert!(measured
                .questions
                .iter()
                .flat_map(|q| &q.top)
                .all(|t| t.1.is_finite()));
            let calibration = rag_fiches::measure::compare::calibrate(
                &rag_fiches::measure::compare::best_scores(&measured),
            );
            assert!(calibration.is_some_and(|c| c.threshold.is_finite()));
        }
    }
}

/// The worker's way of reading a vectors file: its first bytes, the header they announce, then
/// slices of rows into a store; then the top 5 of each row's own vector.
fn sliced(bytes: &[u8]) -> Result<Vec<Vec<(usize, f64)>>, rag_fiches::data::vectors::VectorsError> {
    use rag_fiches::data::stored::{load_bytes, MemoryStore};
    use rag_fiches::data::vectors;
    let prefix = &bytes[..bytes.len().min(vectors::HEADER_PREFIX)];
    let end = vectors::header_end(prefix)?;
    let layout = vectors::layout(&bytes[..end.min(bytes.len())], bytes.len())?;
    let (set, _) = load_bytes(layout, MemoryStore::default(), bytes, 2)?;
    let mut tops = Vec::new();
    for i in 0..rag_fiches::search::dense::DenseRows::len(&set) {
        let int8 = rag_fiches::search::dense::DenseRows::int8(&set);
        let (codes, scale) = (int8.codes(i), int8.scale(i));
        let q: Vec<f32> = codes.iter().map(|&c| f32::from(c) * scale).collect();
        tops.push(rag_fiches::search::dense::search(&set, &q, 5).unwrap());
    }
    Ok(tops)
}

fn searches(set: &VectorSet) -> Vec<Vec<(usize, f64)>> {
    (0..set.len())
        .map(|i| {
            let (codes, scale) = (set.int8().codes(i), set.int8().scale(i));
            let q: Vec<f32> = codes.iter().map(|&c| f32::from(c) * scale).collect();
            rag_fiches::search::dense::search(set, &q, 5).unwrap()
        })
        .collect()
}
