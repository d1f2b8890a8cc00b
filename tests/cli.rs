//! Native ring: the `mesurer` terminal front, run as a learner runs it.
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
