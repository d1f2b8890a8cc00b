//! The real engines' recipes (`engines/`): each runs from a clean clone, writes runs that
//! `mesurer --run` reads, and ranks as the method it mirrors where it should. Where a package
//! cannot be installed (no registry) the test says loudly that it is skipped; with
//! `RAG_FICHES_ENGINES=required` (scripts/test.sh) it fails instead.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// The summary line of `run`'s parity: (identical, identical up to ties, different).
fn parity(report: &str, run: &str) -> (usize, usize, usize) {
    let mut lines = report
        .lines()
        .skip_while(|l| !l.starts_with(&format!("Parité de {run} avec")));
    let header = lines
        .next()
        .unwrap_or_else(|| panic!("no parity for {run}:\n{report}"));
    let sum = lines
        .find(|l| l.starts_with("  40 questions : "))
        .unwrap_or_else(|| panic!("no summary after {header}:\n{report}"));
    let numbers: Vec<usize> = sum
        .trim_start_matches("  40 questions : ")
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "{sum}");
    assert_eq!(numbers.iter().sum::<usize>(), 40, "{sum}");
    (numbers[0], numbers[1], numbers[2])
}

#[test]
fn sqlite_postgresql_and_lucene_rank_as_the_lab_where_they_compute_the_same() {
    let out = std::env::temp_dir().join(format!("rag-fiches-engines-{}", std::process::id()));
    let run = Command::new("bash")
        .args(["engines/run.sh", "all", out.to_str().unwrap()])
        .env("MESURER", env!("CARGO_BIN_EXE_mesurer"))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.status.code() == Some(3) {
        assert!(
            std::env::var("RAG_FICHES_ENGINES").as_deref() != Ok("required"),
            "RAG_FICHES_ENGINES=required, and a recipe's package could not be installed:\n{stderr}"
        );
        eprintln!(
            "\n*** SKIPPED the engines' recipes: {} ***\n",
            stderr.trim()
        );
        return;
    }
    assert!(run.status.success(), "engines/run.sh failed:\n{stderr}");
    let report = String::from_utf8(run.stdout).unwrap();
    // Lucene given the seed's own tokens and BM25's parameters: the seed's ranking, to ties.
    assert_eq!(parity(&report, "lucene-mots").2, 0, "{report}");
    // The same vectors by cosine in three engines: the lab's ranking, but where the lab embeds
    // the question itself in f32 and the engines read its shipped f16 vector (one near-tie).
    for dense in ["sqlite-vec", "postgres-pgvector", "lucene-hnsw"] {
        let (_, _, differ) = parity(&report, dense);
        assert!(differ <= 1, "{dense}: {differ} questions differ:\n{report}");
    }
    // Other analyses and other fusions: measured and compared, whatever their figures.
    for other in [
        "sqlite-fts5",
        "sqlite-hybride",
        "postgres-french",
        "postgres-hybride",
        "lucene-fr",
        "lucene-hybride",
    ] {
        parity(&report, other);
    }
}
