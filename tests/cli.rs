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
    let out = mesurer(&["--all", "--vectors", "none", "--modele", "nowhere"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("mots            15/15     15/15   1.000      8/20     15/20   0.568"),
        "{text}"
    );
    // The pessimistic table: mots+ loses the first place of a courante to a tie (README), and
    // is level with tantivy's French pipeline there (10/20, 19/20, 0.708: `pairs`).
    let pessimistic = text.split("Pessimiste").nth(1).unwrap_or_default();
    assert!(
        pessimistic.contains("mots+           15/15     15/15   1.000     10/20     19/20   0.708"),
        "{text}"
    );
    // The product level (any variant of the expected product), as the page's « Bon produit ».
    let product = text.split("Bon produit").nth(1).unwrap_or_default();
    for row in [
        "mots            15/15     15/15   1.000     14/20     16/20   0.741",
        "mots+           15/15     15/15   1.000     19/20     20/20   0.960",
    ] {
        assert!(product.contains(row), "{text}");
    }
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
        "none",
        "--vecteurs-local",
        "none",
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
        // Ten lines per question, and an eleventh where it ties with the tenth.
        let tied = m
            .questions
            .iter()
            .filter(|q| q.tied_beyond.is_some())
            .count();
        assert_eq!(run.lines().count(), 400 + tied, "{file}");
        assert_eq!(
            run.lines()
                .filter(|l| l.split(' ').nth(3) == Some("11"))
                .count(),
            tied
        );
        let mrr = rag_fiches::measure::export::mrr_from_trec(&qrels, &run).unwrap();
        assert!(
            (mrr - expected).abs() < 1e-12,
            "{file}: {mrr} vs {expected}"
        );
    }
    // Run again into the same directory: nothing is overwritten without --force.
    std::fs::write(dir.join("run-mots.txt"), "mine\n").unwrap();
    let args = [
        "--all",
        "--vectors",
        "none",
        "--vecteurs-local",
        "none",
        "--trec",
        dir.to_str().unwrap(),
    ];
    let err = refused(&args);
    assert!(
        err.contains("already holds qrels.txt, run-mots.txt, run-mots-plus.txt: nothing written (add --force to overwrite)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("run-mots.txt")).unwrap(),
        "mine\n"
    );
    let out = mesurer(&[&args[..], &["--force"]].concat());
    assert!(out.status.success());
    assert_ne!(
        std::fs::read_to_string(dir.join("run-mots.txt")).unwrap(),
        "mine\n"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn vecteurs_keeps_the_manifest_s_other_fields() {
    let dir = Scratch::new("vecteurs-manifest");
    dir.file(
        "manifeste.json",
        br#"{"vecteurs": null, "titre": "Comptoir Arcelle", "version": 3}"#,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_vecteurs"))
        .args(["--embedder", "fake", "--questions", "none", "--out"])
        .arg(dir.0.join("v.safetensors"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("manifeste.json updated: its vecteurs now names v.safetensors"));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.0.join("manifeste.json")).unwrap()).unwrap();
    assert_eq!(
        manifest,
        serde_json::json!({"vecteurs": "v.safetensors", "titre": "Comptoir Arcelle", "version": 3})
    );
}

/// A temporary directory for one test, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Runs mesurer, expects exit 2, returns stderr.
fn refused(args: &[&str]) -> String {
    let out = mesurer(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn each_data_error_names_file_line_and_field_without_the_usage() {
    let dir = Scratch::new("mesurer-messages");
    let fiche = |famille: &str, nom: &str, texte: &str| {
        format!(r#"{{"id":"A-1","famille":{famille},"nom":{nom},"texte":{texte}}}"#)
    };
    let good = fiche(r#""Colles""#, r#""Colle""#, r#""Colle carrelage""#);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        // Bad UTF-8 on line 2: the line, not "stream did not contain valid UTF-8".
        (
            format!("{good}\n{}\n", fiche(r#""a""#, r#""b""#, "\"ab\u{1}\""))
                .replace('\u{1}', "\u{0}")
                .into_bytes()
                .into_iter()
                .map(|b| if b == 0 { 0xff } else { b })
                .collect(),
            "line 2: not UTF-8 text",
        ),
        (
            fiche(r#""a""#, r#""b""#, "5").into_bytes(),
            "line 1: field \"texte\" must be a string, found a number",
        ),
        (
            fiche(r#""a""#, r#"["b"]"#, r#""t""#).into_bytes(),
            "line 1: field \"nom\" must be a string, found a list",
        ),
        (
            fiche(r#""  ""#, r#""b""#, r#""t""#).into_bytes(),
            "line 1: field \"famille\" is empty",
        ),
        (
            fiche(r#""a""#, r#""""#, r#""t""#).into_bytes(),
            "line 1: field \"nom\" is empty",
        ),
    ];
    for (i, (bytes, expected)) in cases.iter().enumerate() {
        let path = dir.file(&format!("f{i}.jsonl"), bytes);
        let err = refused(&["--fiches", &path]);
        assert!(
            err.contains(&path) && err.contains(expected),
            "{expected}: {err}"
        );
        // One line and a hint, never the 19-line usage, for an error that is not about usage.
        assert!(!err.contains("usage:"), "{err}");
        assert_eq!(err.lines().count(), 2, "{err}");
    }
    // A usage error does print the usage.
    assert!(refused(&["--bogus"]).contains("usage: mesurer"));
}

#[test]
fn devices_fifos_and_directories_are_refused_not_read() {
    for path in ["/dev/zero", "/dev/urandom", "/tmp"] {
        let err = refused(&["--fiches", path]);
        assert!(err.contains("give a file"), "{path}: {err}");
    }
}

#[test]
fn questions_that_name_no_fiche_measure_nothing_and_say_so() {
    let dir = Scratch::new("mesurer-absentes");
    let path = dir.0.join("absentes.csv");
    std::fs::write(
        &path,
        "type;question;fiche_attendue\nabsente;Vendez-vous des fenêtres ?;\n",
    )
    .unwrap();
    let err = refused(&["--all", "--questions", path.to_str().unwrap()]);
    assert!(
        err.contains("absentes.csv: no question names its expected fiche (absentes only): nothing to measure"),
        "{err}"
    );
}

#[test]
fn all_says_which_methods_it_skipped_and_why() {
    let out = mesurer(&["--all", "--vectors", "none", "--vecteurs-local", "none"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with(
            "\nNon mesurées : sens, hybride, hybride+ : pas de fichier de vecteurs (none) ; voir vecteurs.\n\
             \nNon mesurées : sens local, hybride local : pas de fichier de vecteurs (none) ; voir vecteurs --embedder local.\n"
        ),
        "{text}"
    );
    // The local vectors ship the 40 questions': measured without the model. Other questions need it.
    let out = mesurer(&["--all", "--vectors", "none", "--modele", "nowhere"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\nhybride local   15/15     15/15   1.000"),
        "{text}"
    );
    // The best fusion against the best single method: its gap, interval (bootstrap, fixed seed),
    // t-test and the gap these 20 courantes can detect (measure::stats).
    assert!(
        text.contains(
            "\nhybride local contre mots+ (questions courantes) : 2 mieux, 3 moins bien, 15 à égalité ; test du signe p = 1.000\n  \
             écart de MRR@10 : -0.033, intervalle à 95 % [-0.133 ; +0.054] ; t apparié p = 0.510 ; décelable sur ces 20 questions (puissance 80 %) : 0.147\n"
        ),
        "{text}"
    );
    let out = mesurer(&[
        "--all",
        "--vectors",
        "none",
        "--modele",
        "nowhere",
        "--questions",
        "data/epreuve.csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with(
            "\nNon mesurées : sens local, hybride local : pas de modèle local (nowhere) pour les questions dont data/vecteurs-local.safetensors n'a pas les vecteurs ; voir scripts/modele.sh.\n"
        ),
        "{text}"
    );
}

#[test]
fn fusion_scores_are_rounded_like_the_others() {
    let dir = Scratch::new("mesurer-fusion");
    let vectors = dir.0.join("v.safetensors");
    let made = Command::new(env!("CARGO_BIN_EXE_vecteurs"))
        .args(["--embedder", "fake", "--out", vectors.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(made.status.success());
    let out = mesurer(&[
        "hybride",
        "--question",
        "colle carrelage",
        "--embedder",
        "fake",
        "--vectors",
        vectors.to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(" 1. AR-0021   0.03279  "), "{text}");
}

#[test]
fn catalogue_refuses_zero_and_huge_counts_and_a_non_utf8_argument_without_panicking() {
    let catalogue = env!("CARGO_BIN_EXE_catalogue");
    for n in ["0", "99999999999999999999999", "-3"] {
        let out = Command::new(catalogue)
            .args(["--fiches", n, "--out", "/tmp/never"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{n}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("--fiches takes a number from 1 to 1000000"),
            "{err}"
        );
    }
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(env!("CARGO_BIN_EXE_mesurer"))
        .arg(std::ffi::OsStr::from_bytes(b"--fiches\xff"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not UTF-8 text"));
}

#[test]
fn a_fifo_is_refused_at_once_and_a_bad_key_is_never_printed() {
    let dir = Scratch::new("mesurer-fifo");
    let fifo = dir.0.join("f.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Reading a FIFO with no writer blocks forever: it is refused before it is opened.
    let err = refused(&["--fiches", fifo.to_str().unwrap()]);
    assert!(err.contains("not a regular file (a FIFO"), "{err}");
    // A key with a zero-width space: refused before any request, and never printed.
    let out = Command::new(env!("CARGO_BIN_EXE_vecteurs"))
        .args(["--embedder", "mistral", "--out", "/tmp/never.safetensors"])
        .env("MISTRAL_API_KEY", "sk-secret\u{200b}key")
        .env("RAG_FICHES_API_BASE", "http://127.0.0.1:9")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MISTRAL_API_KEY: the key holds a character an HTTP header cannot carry (U+200B, character 10)"), "{err}");
    assert!(!err.contains("secret"), "{err}");
}

#[test]
fn a_stop_word_ablation_shows_both_figures_and_every_question_that_moves() {
    // Giving « sans » its idf back, and dropping « sous » again, is what mots+ was before the
    // decision (README « mots+, mot à mot »): three courantes lose a place, none gains.
    let out = mesurer(&["mots+", "--mot-vide", "sous", "--sans-mot-vide", "sans"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("Ablation de mots+ : « sans » plus mot vide ; « sous » mot vide\n"),
        "{text}"
    );
    assert!(
        text.contains("mots+ mod.      15/15     15/15   1.000      9/20     19/20   0.667"),
        "{text}"
    );
    assert!(
        text.contains("   1 → 2  moins  Mélanger de la colle sans s'épuiser au bras  (courante)\n"),
        "{text}"
    );
    assert!(
        text.contains("0 mieux, 3 moins bien ; test du signe p = 0.250"),
        "{text}"
    );
    // An ablation changes mots+ alone.
    let err = refused(&["mots", "--mot-vide", "sous"]);
    assert!(err.contains("change mots+ alone"), "{err}");
}

/// `--comparer`: our own run is identical to its method; the same run with two fiches of
/// different scores swapped differs from that rank; two fiches of equal score swapped do not.
#[test]
fn comparer_finds_where_a_run_ranks_otherwise_than_the_method_beyond_ties() {
    let dir = Scratch::new("mesurer-comparer");
    let trec = dir.0.to_str().unwrap().to_owned();
    let out = mesurer(&["mots", "--trec", &trec]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = std::fs::read_to_string(dir.0.join("run-mots.txt")).unwrap();
    // Lines of q01 and the ranks where they swap: a tie (equal scores) and no tie.
    let q01: Vec<Vec<&str>> = ours
        .lines()
        .filter(|l| l.starts_with("q01 "))
        .map(|l| l.split(' ').collect())
        .collect();
    let tie = (1..q01.len())
        .find(|&i| q01[i][4] == q01[i - 1][4])
        .expect("mots ties two fiches in q01's first ten");
    let strict = (1..q01.len())
        .find(|&i| q01[i][4] != q01[i - 1][4])
        .unwrap();
    let swapped = |at: usize| -> String {
        ours.lines()
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                if f[0] != "q01" {
                    return l.to_owned();
                }
                let r: usize = f[3].parse().unwrap();
                let other = if r == at {
                    at + 1
                } else if r == at + 1 {
                    at
                } else {
                    r
                };
                let o = &q01[other - 1];
                format!("q01 Q0 {} {r} {} {}", o[2], f[4], f[5])
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    std::fs::write(dir.0.join("strict.txt"), swapped(strict)).unwrap();
    let run = |file: &str| {
        let out = mesurer(&["mots", "--run", file, "--comparer", "mots"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let same = run(&format!("{trec}/run-mots.txt"));
    assert!(same.contains("Parité de mots (run) avec mots"), "{same}");
    assert!(
        same.contains("40 questions : 40 identiques, 0 identiques à égalités près, 0 diffèrent"),
        "{same}"
    );
    let differs = run(&format!("{trec}/strict.txt"));
    assert!(
        differs.contains(&format!("  q01 « Ciment blanc CEM I 52,5 en sac de 25 kg » : diffère au rang {strict} : mots {}", q01[strict - 1][2])),
        "{differs}"
    );
    assert!(
        differs.contains("39 identiques, 0 identiques à égalités près, 1 diffère"),
        "{differs}"
    );
    std::fs::write(dir.0.join("tie.txt"), swapped(tie)).unwrap();
    let ties = run(&format!("{trec}/tie.txt"));
    assert!(
        ties.contains("39 identiques, 1 identique à égalités près, 0 diffèrent"),
        "{ties}"
    );
    let alone = mesurer(&["mots", "--comparer", "mots"]);
    assert_eq!(alone.status.code(), Some(2));
}

#[test]
fn a_run_written_by_trec_and_read_back_by_run_gives_the_same_figures() {
    let dir = Scratch::new("mesurer-run");
    let trec = dir.0.to_str().unwrap().to_owned();
    let out = mesurer(&[
        "--all",
        "--vectors",
        "none",
        "--vecteurs-local",
        "none",
        "--trec",
        &trec,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs = format!("{trec}/run-mots.txt,{trec}/run-mots-plus.txt");
    let out = mesurer(&[
        "--all",
        "--vectors",
        "none",
        "--vecteurs-local",
        "none",
        "--run",
        &runs,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let export: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = &export["methods"];
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mots", "mots+", "mots (run)", "mots-plus"]);
    for (method, run) in [(0, 2), (1, 3)] {
        assert_eq!(all[method]["kinds"], all[run]["kinds"], "{}", names[run]);
        for (a, b) in all[method]["questions"]
            .as_array()
            .unwrap()
            .iter()
            .zip(all[run]["questions"].as_array().unwrap())
        {
            assert_eq!((&a["top"], &a["tie_ranks"]), (&b["top"], &b["tie_ranks"]));
        }
    }
    // A wrong line anywhere: refused with its line and reason, nothing printed.
    let bad = dir.file(
        "bad.txt",
        b"q01 Q0 AR-0001 1 2.5 x\nq02 Q0 AR-0999 1 2.5 x\n",
    );
    let out = mesurer(&["--run", &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad.txt: line 2: no fiche has the id \"AR-0999\": nothing measured"),
        "{err}"
    );
}

#[test]
fn the_local_methods_are_measured_with_the_shipped_vectors_and_the_local_model() {
    if !std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/modele-local.safetensors"
    ))
    .exists()
    {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "with CI=true scripts/modele.sh must have made the local model"
        );
        eprintln!("\n*** SKIPPED: no data/modele-local.safetensors (bash scripts/modele.sh makes it) ***\n");
        return;
    }
    let out = mesurer(&["--all", "--vectors", "none"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The figures the README quotes: the local encoder's vectors are computed by our code, the
    // questions embedded here by the same code.
    assert!(
        text.contains("sens local      14/15     15/15   0.967     11/20     18/20   0.708"),
        "{text}"
    );
    assert!(
        text.contains("hybride local   15/15     15/15   1.000     11/20     19/20   0.725"),
        "{text}"
    );
    let out = mesurer(&["sens-local", "--question", "un isolant qui ne brûle pas"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("Méthode : sens local\n"));
}

/// `mesurer | head -3`: the reader leaves early; `mesurer` stops quietly, as Unix tools do,
/// instead of panicking on the closed pipe.
#[test]
fn a_reader_that_leaves_early_ends_the_output_quietly() {
    use std::process::Stdio;
    let question = ["mots+", "--question", "colle carrelage", "--explain"];
    for args in [&[][..], &["--all"][..], &question[..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mesurer"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mesurer runs");
        // The pipe closed before `mesurer` has read its files and written a line: every write
        // fails with a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
    }
}

/// « Améliorer » from the terminal: the seed's parameters change nothing, b = 0 changes the
/// report, the seed's synonym brings rock wool back, and products are counted.
#[test]
fn settings_on_the_command_line_measure_what_the_page_measures() {
    let out = mesurer(&["mots", "--k1", "1.5", "--b", "0.75"]);
    assert!(out.status.success());
    assert_eq!(out.stdout, include_bytes!("golden/mesurer-mots.out"));
    let out = mesurer(&["mots", "--b", "0"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Méthode : mots (b = 0)\n"), "{text}");
    assert_ne!(text.as_bytes(), include_bytes!("golden/mesurer-mots.out"));

    let dir = std::env::temp_dir().join(format!("rag-fiches-enrichir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("enrichir.txt");
    std::fs::write(&file, "# the seed's fix\nAR-0063;ne brûle pas\n").unwrap();
    let out = mesurer(&["mots", "--enrichir", file.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let q = v["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["question"] == "Un isolant qui ne brûle pas")
        .unwrap();
    assert!(q["rank"].as_u64().unwrap() <= 5, "{q}");
    // « brûle » is that question's own word: the gain is measured on the question that inspired
    // it, said on stderr (the report's format is the seed's); words it does not ask say nothing.
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains("des mots ajoutés viennent des questions mesurées (AR-0063 + «\u{202f}brûle\u{202f}»\u{a0}: 1 question)")
            && said.contains("--questions AUTRES.csv (sur l'exercice, data/epreuve.csv)"),
        "{said}"
    );
    std::fs::write(&file, "AR-0063;incombustible\n").unwrap();
    let out = mesurer(&["mots", "--enrichir", file.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(!String::from_utf8(out.stderr).unwrap().contains("Attention"));

    let out = mesurer(&["mots+", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kinds"][1]["product"]["hit1"], 19);
    assert_eq!(v["kinds"][1]["hit1"], 11);
    assert!(v["questions"][0]["product_rank"].is_number());

    // The page's export read back, and a bad file said.
    let settings = dir.join("reglages.json");
    let mut s = rag_fiches::improve::Settings::of(rag_fiches::lab::Method::MOTS);
    s.b = 0.0;
    std::fs::write(&settings, s.to_json()).unwrap();
    let out = mesurer(&["--reglages", settings.to_str().unwrap()]);
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("Méthode : mots (b = 0)\n"));
    std::fs::write(&file, "AR-0063 ne brûle pas\n").unwrap();
    let out = mesurer(&["mots", "--enrichir", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("ligne 1"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn fiches_are_read_as_a_stream_exactly_as_a_whole_text_is_parsed() {
    use rag_fiches::cli::read_fiches;
    use rag_fiches::data::parse_fiches;
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/data/fiches.jsonl")).unwrap();
    assert_eq!(
        read_fiches(&format!("{root}/data/fiches.jsonl")),
        Ok(parse_fiches(&text).unwrap())
    );
    let dir = Scratch::new("fiches-flux");
    // A byte-order mark, CRLF, a blank line, no final newline.
    let odd = "\u{feff}{\"id\":\"A\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}\r\n\r\n{\"id\":\"B\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"u\"}";
    let path = dir.file("odd.jsonl", odd.as_bytes());
    assert_eq!(read_fiches(&path), Ok(parse_fiches(odd).unwrap()));
    // A byte that is not UTF-8 on line 3: the same words as for any file the terminal reads.
    let mut bad = odd.replace("\r\n\r\n", "\n\n").into_bytes();
    let at = bad.len() - 3;
    bad[at] = 0xff;
    let path = dir.file("bad.jsonl", &bad);
    let err = read_fiches(&path).unwrap_err();
    assert_eq!(
        err,
        format!(
            "{path}, line 3: not UTF-8 text (byte {} of the file); save it as UTF-8",
            at + 1
        )
    );
    // A duplicate id names both lines, as before.
    let dup = "{\"id\":\"A\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}\n{\"id\":\"A\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}\n";
    let path = dir.file("dup.jsonl", dup.as_bytes());
    assert_eq!(
        read_fiches(&path).unwrap_err(),
        format!("{path}: {}", parse_fiches(dup).unwrap_err())
    );
}

#[test]
fn a_catalogue_larger_than_memory_allows_is_stopped_and_said_in_english_and_french() {
    // `mesurer mots` on a machine that "has" `memory` bytes.
    let with_memory = |memory: &str| {
        Command::new(env!("CARGO_BIN_EXE_mesurer"))
            .args(["mots"])
            .env("RAG_FICHES_MEMOIRE", memory)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    // 80 kB: the limit is 20 kB of fiches; the exercise's file is 58 kB.
    let out = with_memory("80000");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("data/fiches.jsonl: stopped at line "), "{err}");
    assert!(err.contains("more than this machine can hold with their index (20.0 kB: a quarter of its 80.0 kB of available memory)"), "{err}");
    assert!(err.contains("arrêté à la ligne "), "{err}");
    // With 800 kB it measures as always.
    let out = with_memory("800000");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn qrels_add_the_graded_figures_and_a_bad_line_is_refused_with_its_place() {
    let out = mesurer(&["mots+", "--qrels", "data/qrels-graduees.txt"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The seed's report, then the graded table.
    assert!(text.starts_with("Méthode : mots+"), "{text}");
    let table = text
        .split("Mesures graduées (data/qrels-graduees.txt ; 35 questions jugées) :\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let row = table.lines().nth(1).unwrap();
    assert!(row.starts_with("mots+") && row.contains("0.962"), "{row}");
    let dir = std::env::temp_dir().join(format!("rag-fiches-qrels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("qrels.txt");
    for (text, said) in [
        (
            "q01 0 AR-0003 3\nq02 0 AR-9999 2\n",
            "ligne 2\u{a0}: aucune fiche n'a l'identifiant",
        ),
        (
            "q01 0 AR-0003 5\n",
            "ligne 1\u{a0}: la note «\u{202f}5\u{202f}» n'est pas",
        ),
        (
            "q01 0 AR-0003 3\nq01 0 AR-0003 2\n",
            "ligne 2\u{a0}: AR-0003 est jugée deux fois pour q01",
        ),
        (
            "q41 0 AR-0003 3\n",
            "ligne 1\u{a0}: aucune question n'a l'identifiant «\u{202f}q41\u{202f}»",
        ),
    ] {
        std::fs::write(&bad, text).unwrap();
        let out = mesurer(&["--qrels", bad.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(out.stdout.is_empty(), "nothing printed before the refusal");
        assert!(
            err.contains(bad.to_str().unwrap()) && err.contains(said),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Graded figures go with the text report only.
    assert!(!mesurer(&["--qrels", "data/qrels-graduees.txt", "--json"])
        .status
        .success());
}

/// « L'épreuve » (`data/epreuve.csv`, written as `data/epreuve.md` says): 40 courantes and 5
/// absentes over the same fiches, none repeating a question of the exercise's 40, every expected
/// fiche in the catalogue; measured by the terminal as the README quotes it.
#[test]
fn l_epreuve_is_a_second_set_of_questions_the_terminal_measures_as_the_readme_says() {
    use rag_fiches::data::{parse_fiches, parse_questions, QuestionKind};
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |name: &str| std::fs::read_to_string(format!("{root}/data/{name}")).unwrap();
    let fiches = parse_fiches(&read("fiches.jsonl")).unwrap();
    let epreuve = parse_questions(&read("epreuve.csv")).unwrap();
    let exercise = parse_questions(&read("questions.csv")).unwrap();
    let kinds = |k: QuestionKind| epreuve.iter().filter(|q| q.kind == k).count();
    assert_eq!(
        (kinds(QuestionKind::Courante), kinds(QuestionKind::Absente)),
        (40, 5)
    );
    for q in &epreuve {
        if let Some(id) = &q.expected {
            assert!(fiches.iter().any(|f| &f.id == id), "{id}: no such fiche");
        }
        assert!(
            exercise.iter().all(|e| e.text != q.text),
            "« {} » is one of the exercise's questions",
            q.text
        );
    }
    // Its questions' vectors by the local encoder ship beside it, with the same fiche vectors as
    // the exercise's file: the local methods are measured on it without the model.
    let vectors = |name: &str| {
        rag_fiches::data::vectors::VectorSet::from_safetensors(
            &std::fs::read(format!("{root}/data/{name}")).unwrap(),
        )
        .unwrap()
    };
    let (shipped, exercise_vectors) = (
        vectors("epreuve-local.safetensors"),
        vectors("vecteurs-local.safetensors"),
    );
    assert_eq!(
        shipped.questions.iter().map(|q| &q.0).collect::<Vec<_>>(),
        epreuve.iter().map(|q| &q.text).collect::<Vec<_>>()
    );
    assert_eq!(
        (shipped.model.as_str(), &shipped.fingerprint),
        (
            exercise_vectors.model.as_str(),
            &exercise_vectors.fingerprint
        )
    );
    assert!((0..shipped.len()).all(|i| shipped.row(i) == exercise_vectors.row(i)));
    let out = mesurer(&[
        "--all",
        "--questions",
        "data/epreuve.csv",
        "--vectors",
        "none",
        "--vecteurs-local",
        "data/epreuve-local.safetensors",
        "--modele",
        "nowhere",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "mots              0/0       0/0   0.000     25/40     32/40   0.696",
        "mots+             0/0       0/0   0.000     29/40     37/40   0.811",
    ] {
        assert!(text.contains(line), "{text}");
    }
    for line in [
        "sens local        0/0       0/0   0.000     23/40     34/40   0.671",
        "hybride local     0/0       0/0   0.000     28/40     36/40   0.786",
    ] {
        assert!(text.contains(line), "{text}");
    }
}

/// `--exporter-fiches` writes the catalogue as the seed's file is written: with no enrichment, the
/// exercise's `fiches.jsonl` byte for byte.
#[test]
fn the_catalogue_exported_without_enrichment_is_the_exercises_file() {
    let dir = Scratch::new("mesurer-export-fiches");
    let out = dir.0.join("fiches.jsonl");
    let run = mesurer(&["--exporter-fiches", out.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let root = env!("CARGO_MANIFEST_DIR");
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(format!("{root}/data/fiches.jsonl")).unwrap()
    );
}

/// Another catalogue from the repository's root: `--all` skips the exercise's default vectors,
/// which do not fit it, with a note; a vectors path given on the command line must be there and
/// fit, or nothing is measured.
#[test]
fn all_skips_default_vectors_that_do_not_fit_and_refuses_named_ones() {
    let dir = Scratch::new("mesurer-autre-catalogue");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_catalogue"))
        .args(["--fiches", "334", "--questions", "35", "--out"])
        .arg(&dir.0)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (f, q) = (dir.0.join("fiches.jsonl"), dir.0.join("questions.csv"));
    let (f, q) = (f.to_str().unwrap(), q.to_str().unwrap());
    let run = mesurer(&["--all", "--fiches", f, "--questions", q]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.contains("\nmots+ "), "{text}");
    assert!(
        text.contains(
            "\nNon mesurées : sens local, hybride local : data/vecteurs-local.safetensors ne convient pas : 200 vecteurs pour 334 fiches\u{a0}: il a été fait pour un autre catalogue ; voir vecteurs --embedder local --fiches.\n"
        ),
        "{text}"
    );
    let err = refused(&[
        "--all",
        "--fiches",
        f,
        "--questions",
        q,
        "--vecteurs-local",
        "data/vecteurs-local.safetensors",
    ]);
    assert!(
        err.contains("data/vecteurs-local.safetensors: the file holds 200 vectors for 334 fiches"),
        "{err}"
    );
    let err = refused(&["--all", "--vecteurs-local", "nowhere.safetensors"]);
    assert!(err.contains("nowhere.safetensors: no such file"), "{err}");
}

#[test]
fn a_sweep_in_the_terminal_is_ameliorers_chosen_on_one_half_and_reported_on_the_other() {
    let out = mesurer(&["hybride-local", "--balayer", "rrf-k"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with(
            "Balayage de k de RRF (8 réglages) depuis hybride local, sur 40 questions"
        ),
        "{text}"
    );
    // RRF's k from 60 to 1, chosen on the odd-ranked questions, holds on the others.
    assert!(text.contains("\nChoisi sur la moitié de calibrage, k = 1 (0,861 → 0,866 sur cette moitié) donne 0,828 sur l'autre moitié, contre 0,824 au départ"), "{text}");
    // As JSON: the grid and the choice, the page's verdict word for word.
    let out = mesurer(&["mots", "--balayer", "k1b", "--json"]);
    let sweep: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sweep["points"].as_array().unwrap().len(), 35);
    assert_eq!(sweep["grid"], "K1B");
    assert!(sweep["verdict"].as_str().unwrap().starts_with("Sur la moitié de calibrage, aucun réglage de la grille ne fait mieux que le départ (0,773)"), "{sweep}");
    // A grid the method does not have, and a grid that does not exist: said.
    for (args, said) in [
        (
            &["sens-local", "--balayer", "rrf-k"][..],
            "sens local has no fusion",
        ),
        (
            &["mots", "--balayer", "k1"][..],
            "unknown grid \"k1\": expected k1b or rrf-k",
        ),
        (
            &["mots", "--balayer", "k1b", "--ratees"][..],
            "run them one at a time",
        ),
    ] {
        let out = mesurer(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8(out.stderr).unwrap().contains(said),
            "{args:?}"
        );
    }
}

/// `--accord`: a second judge's qrels against the first's, on the fiches both graded — here the
/// derived qrels against a judge who grades every variant 1 instead of 2: the confusion table
/// says where, κ is the core's; without `--qrels`, or with a wrong line, it is refused.
#[test]
fn accord_says_how_two_judges_agree_and_refuses_a_bad_second_file() {
    let dir = std::env::temp_dir().join(format!("accord-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let derived = std::fs::read_to_string("data/qrels-graduees.txt").unwrap();
    let harsh: String = derived
        .lines()
        .map(|l| match l.strip_suffix(" 2") {
            Some(rest) => format!("{rest} 1\n"),
            None => format!("{l}\n"),
        })
        .collect();
    let second = dir.join("harsh.txt");
    std::fs::write(&second, harsh).unwrap();
    let second = second.to_str().unwrap();
    let out = mesurer(&["--qrels", "data/qrels-graduees.txt", "--accord", second]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let twos = derived.lines().filter(|l| l.ends_with(" 2")).count();
    let threes = derived.lines().filter(|l| l.ends_with(" 3")).count();
    assert!(
        text.contains(&format!("{} fiches notées des deux côtés", twos + threes)),
        "{text}"
    );
    assert!(
        text.contains(&format!("  2{:>6}{:>6}{:>6}{:>6}\n", 0, twos, 0, 0)),
        "{text}"
    );
    let exact = threes as f64 / (twos + threes) as f64;
    assert!(
        text.contains(&format!("mêmes notes : {exact:.3}")),
        "{text}"
    );
    let out = mesurer(&["--accord", second]);
    assert_eq!(out.status.code(), Some(2));
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "q01 0 AR-0003 3\nq02 0 AR-9999 1\n").unwrap();
    let out = mesurer(&[
        "--qrels",
        "data/qrels-graduees.txt",
        "--accord",
        bad.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt") && err.contains('2'), "{err}");
    assert!(out.stdout.is_empty(), "nothing measured before the refusal");
}
