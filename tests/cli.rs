//! Native ring: the `mesurer` terminal front, run as a learner runs it.

// Test code: a failed expectation stops the test, which is how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn mesurer(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mesurer"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("mesurer runs")
}

#[test]
fn prints_the_seed_reference_by_default() {
    let out = mesurer(&[]);
    assert!(out.status.success());
    assert_eq!(out.stdout, include_bytes!("golden/mesurer-mots.out"));
}

#[test]
fn json_gives_every_question_with_its_top_10_and_rank() {
    let out = mesurer(&["mots", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let questions = v["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 40);
    let first = &questions[0];
    assert_eq!(first["type"], "exacte");
    assert_eq!(first["expected"], "AR-0003");
    assert_eq!(first["rank"], 1);
    assert_eq!(first["top"].as_array().unwrap().len(), 10);
    assert_eq!(first["top"][0][0], "AR-0003");
    let absente = &questions[39];
    assert_eq!(absente["type"], "absente");
    assert!(absente["expected"].is_null() && absente["rank"].is_null());
    assert_eq!(v["kinds"][1]["hit1"], 8);
    assert_eq!(v["kinds"][1]["hit5"], 15);
}

#[test]
fn mots_plus_prints_the_seed_format() {
    let out = mesurer(&["mots+"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Méthode : mots+\nQuestions exactes : 15 ; bonne fiche en tête : 15"));
}

#[test]
fn explain_prints_terms_that_sum_to_the_score() {
    let out = mesurer(&[
        "mots+",
        "--question",
        "Un isolant qui ne brûle pas",
        "--explain",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("idf = ln(1 + (N − df + 0.5) / (df + 0.5))"),
        "{text}"
    );
    assert!(text.contains("brûle"), "{text}");
    assert!(text.contains("ignorés : Un, qui, ne, pas"), "{text}");
}

#[test]
fn a_missing_file_exits_non_zero_with_its_name() {
    let out = mesurer(&["--fiches", "nowhere/fiches.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot read nowhere/fiches.jsonl"), "{err}");
}

#[test]
fn a_malformed_questions_file_exits_non_zero_naming_the_line() {
    let dir = std::env::temp_dir().join(format!("mesurer-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("questions.csv");
    std::fs::write(
        &path,
        "type;question;fiche_attendue\nexacte;Joint;AR-9999\n",
    )
    .unwrap();
    let out = mesurer(&["--questions", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("line 2: fiche_attendue \"AR-9999\" is not an id of the fiches"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn an_unknown_method_is_refused() {
    let out = mesurer(&["magie"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("unknown method \"magie\""));
}

#[test]
fn all_prints_every_method_with_its_refusal_threshold() {
    let out = mesurer(&["--all", "--vectors", "nowhere.safetensors"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("mots         15/15     15/15    1.00      8/20     15/20    0.57"),
        "{text}"
    );
    assert!(text.contains("mots+ "), "{text}");
    assert!(text.contains("Seuil de refus"), "{text}");
    assert!(text.contains("aucun seuil ne sépare"), "{text}");
}

#[test]
fn trec_files_read_back_give_the_measured_mrr() {
    use rag_fiches::data::{parse_fiches, parse_questions};
    use rag_fiches::lab::{Keyword, Lab};
    let dir = std::env::temp_dir().join(format!("mesurer-trec-{}", std::process::id()));
    let out = mesurer(&[
        "--all",
        "--vectors",
        "nowhere",
        "--trec",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let lab = Lab::new(parse_fiches(include_str!("../data/fiches.jsonl")).unwrap());
    let questions = parse_questions(include_str!("../data/questions.csv")).unwrap();
    let qrels = std::fs::read_to_string(dir.join("qrels.txt")).unwrap();
    assert_eq!(
        qrels.lines().count(),
        35,
        "one line per answerable question"
    );
    for (keyword, file) in [
        (Keyword::Mots, "run-mots.txt"),
        (Keyword::MotsPlus, "run-mots-plus.txt"),
    ] {
        let m = lab.measure_keyword(keyword, &questions);
        let expected = (m.kinds[0].mrr10 * 15.0 + m.kinds[1].mrr10 * 20.0) / 35.0;
        let run = std::fs::read_to_string(dir.join(file)).unwrap();
        assert_eq!(run.lines().count(), 400, "ten lines per question");
        let mrr = rag_fiches::measure::export::mrr_from_trec(&qrels, &run).unwrap();
        assert!(
            (mrr - expected).abs() < 1e-12,
            "{file}: {mrr} vs {expected}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}
