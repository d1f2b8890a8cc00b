//! The real engines' recipes (`engines/`): each runs from a clean clone, writes runs that
//! `mesurer --run` reads, and ranks as the method it mirrors where it should. Where a package
//! cannot be installed (no registry) the test says loudly that it is skipped; with
//! `RAG_FICHES_ENGINES=required` (scripts/test.sh) it fails instead.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// The summary line of `run`'s parity over `n` questions: (identical, identical up to ties,
/// different).
fn parity(report: &str, run: &str, n: usize) -> (usize, usize, usize) {
    let summary = format!("  {n} questions : ");
    let mut lines = report
        .lines()
        .skip_while(|l| !l.starts_with(&format!("Parité de {run} avec")));
    let header = lines
        .next()
        .unwrap_or_else(|| panic!("no parity for {run}:\n{report}"));
    let sum = lines
        .find(|l| l.starts_with(&summary))
        .unwrap_or_else(|| panic!("no summary after {header}:\n{report}"));
    let numbers: Vec<usize> = sum
        .trim_start_matches(&summary)
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "{sum}");
    assert_eq!(numbers.iter().sum::<usize>(), n, "{sum}");
    (numbers[0], numbers[1], numbers[2])
}

#[test]
fn sqlite_postgresql_and_lucene_rank_as_the_lab_where_they_compute_the_same() {
    let out = std::env::temp_dir().join(format!("rag-fiches-engines-{}", std::process::id()));
    let run = run_engines(&["all", out.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&out);
    let Some(run) = run else { return };
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "engines/run.sh failed:\n{stderr}");
    let report = String::from_utf8(run.stdout).unwrap();
    // Lucene given the seed's own tokens and BM25's parameters: the seed's ranking, to ties.
    assert_eq!(parity(&report, "lucene-mots", 40).2, 0, "{report}");
    // The same vectors by cosine in three engines: the lab's ranking, question for question (the
    // lab and the engines read the same shipped question vectors).
    for dense in ["sqlite-vec", "postgres-pgvector", "lucene-hnsw"] {
        let (_, _, differ) = parity(&report, dense, 40);
        assert_eq!(differ, 0, "{dense}: {differ} questions differ:\n{report}");
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
        parity(&report, other, 40);
    }
}

/// The recipes share `target/engines/` (its virtual environment, the Anserini jar): the tests
/// run them one at a time.
static ENGINES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `engines/run.sh` with `args`; `None` when a package could not be installed and the
/// engines are not required (said loudly).
fn run_engines(args: &[&str]) -> Option<std::process::Output> {
    run_engines_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// [`run_engines`] started from `cwd`: the paths given are read from there.
fn run_engines_in(cwd: &std::path::Path, args: &[&str]) -> Option<std::process::Output> {
    let _alone = ENGINES.lock().unwrap_or_else(|e| e.into_inner());
    let run = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/engines/run.sh"))
        .args(args)
        .current_dir(cwd)
        .env("MESURER", env!("CARGO_BIN_EXE_mesurer"))
        .output()
        .unwrap();
    if run.status.code() == Some(3) {
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            std::env::var("RAG_FICHES_ENGINES").as_deref() != Ok("required"),
            "RAG_FICHES_ENGINES=required, and a recipe's package could not be installed:\n{stderr}"
        );
        eprintln!(
            "\n*** SKIPPED the engines' recipes: {} ***\n",
            stderr.trim()
        );
        return None;
    }
    Some(run)
}

/// A developer's catalogue, not the exercise's files: the fiches from AR-0101 on, in reverse
/// order, and the questions whose fiche is among them (with those that have none).
fn own_catalogue(dir: &std::path::Path) -> usize {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fiches = std::fs::read_to_string(root.join("data/fiches.jsonl")).unwrap();
    let id = |line: &str| line.split('"').nth(3).unwrap().to_owned();
    let kept: Vec<&str> = fiches
        .lines()
        .filter(|l| l.trim_start().starts_with('{') && id(l).as_str() > "AR-0100")
        .rev()
        .collect();
    let ids: Vec<String> = kept.iter().map(|l| id(l)).collect();
    std::fs::write(dir.join("fiches.jsonl"), kept.join("\n") + "\n").unwrap();
    let questions = std::fs::read_to_string(root.join("data/questions.csv")).unwrap();
    let mut lines = questions.lines();
    let mut out = vec![lines.next().unwrap()];
    out.extend(lines.filter(|l| {
        let expected = l.rsplit(';').next().unwrap();
        expected.is_empty() || ids.iter().any(|id| id == expected)
    }));
    std::fs::write(dir.join("questions.csv"), out.join("\n") + "\n").unwrap();
    out.len() - 1
}

#[test]
fn the_recipes_run_on_a_developers_own_files_and_refuse_vectors_that_are_not_theirs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if !root.join("data/modele-local.safetensors").exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "with CI=true scripts/modele.sh must have made the local model"
        );
        eprintln!("\n*** SKIPPED: no data/modele-local.safetensors (bash scripts/modele.sh makes it) ***\n");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rag-fiches-own-engines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let n = own_catalogue(&dir);
    assert!(n > 10, "{n} questions");
    let (fiches, questions) = (dir.join("fiches.jsonl"), dir.join("questions.csv"));
    let (fiches, questions) = (fiches.to_str().unwrap(), questions.to_str().unwrap());

    // The exercise's vectors are not these fiches': refused with what to do, nothing run.
    let Some(refused) = run_engines(&[
        "--fiches",
        fiches,
        "--questions",
        questions,
        "--vecteurs-local",
        "data/vecteurs-local.safetensors",
        "sqlite",
    ]) else {
        return;
    };
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("its 200 vectors are not the 100 fiches'"),
        "{said}"
    );
    assert!(
        said.contains("vecteurs --embedder local --fiches"),
        "{said}"
    );
    // No vectors beside the fiches, none given: said before any engine starts.
    let missing = run_engines(&["--fiches", fiches, "--questions", questions]).unwrap();
    let said = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{said}");
    assert!(
        said.contains("vecteurs-local.safetensors: the engines' dense runs need"),
        "{said}"
    );

    // The local encoder's vectors of these files, beside them: the default.
    let made = Command::new(env!("CARGO_BIN_EXE_vecteurs"))
        .args([
            "--embedder",
            "local",
            "--fiches",
            fiches,
            "--questions",
            questions,
            "--out",
        ])
        .arg(dir.join("vecteurs-local.safetensors"))
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    // From the developer's own directory, with the paths they would type.
    let run = run_engines_in(
        &dir,
        &["--fiches", "fiches.jsonl", "--questions", "questions.csv"],
    )
    .unwrap();
    let report = String::from_utf8(run.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "engines/run.sh failed:\n{stderr}");
    // Written beside the fiches, measured on them.
    for name in [
        "sqlite-vec",
        "postgres-pgvector",
        "lucene-hnsw",
        "lucene-mots",
    ] {
        assert!(
            dir.join("runs").join(format!("run-{name}.txt")).exists(),
            "{name}"
        );
    }
    assert_eq!(parity(&report, "lucene-mots", n).2, 0, "{report}");
    for dense in ["sqlite-vec", "postgres-pgvector", "lucene-hnsw"] {
        let (_, _, differ) = parity(&report, dense, n);
        assert_eq!(differ, 0, "{dense}: {differ} questions differ:\n{report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
