//! The graded measures (`measure::graded`) checked against an independent reference:
//! `ir_measures` (trec_eval's code, through pytrec_eval) computes nDCG@10, R@10 and Judged@10 on
//! the same runs and qrels, question by question, and agrees with the lab to 1e-6. The runs are
//! the exercise's keyword methods' first ten, written with scores that decrease with the rank:
//! trec_eval orders fiches of equal score by their id, and the check is of the formulas, not of
//! an order of ties. Installed as the engines' recipes install theirs; where PyPI cannot be
//! reached the test says loudly that it is skipped, and with `RAG_FICHES_ENGINES=required`
//! (scripts/test.sh) it fails instead.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, HashMap};
use std::process::Command;

use rag_fiches::data::{parse_fiches, parse_questions, Question};
use rag_fiches::lab::{Keyword, Lab, Method, QuestionVectors};
use rag_fiches::measure::export::{qid, run_name};
use rag_fiches::measure::graded::{self, Qrels};
use rag_fiches::measure::Measurement;

fn exercise() -> (Lab, Vec<Question>) {
    let fiches = parse_fiches(include_str!("../data/fiches.jsonl")).unwrap();
    let questions = parse_questions(include_str!("../data/questions.csv")).unwrap();
    (Lab::new(fiches), questions)
}

/// A run's first ten as TREC writes them, with scores that give ranks no tie to break.
fn run_file(m: &Measurement) -> String {
    let mut out = String::new();
    for (i, q) in m.questions.iter().enumerate() {
        for (rank, (id, _)) in q.top.iter().take(10).enumerate() {
            let score = 100 - rank;
            out += &format!(
                "{} Q0 {id} {} {score} {}\n",
                qid(i),
                rank + 1,
                run_name(&m.method)
            );
        }
    }
    out
}

/// The derived qrels, with judgments of every grade added from `m`'s first ten: its second
/// fiche judged 1 and its tenth 0 where they have no grade yet (so that Judged@10 and the
/// lower grades are exercised too).
fn with_more_grades(derived: &Qrels, m: &Measurement) -> String {
    let mut text = derived.to_trec();
    for (i, q) in m.questions.iter().enumerate() {
        let judged = derived.of(i);
        let has = |id: &str| judged.is_some_and(|g| g.contains_key(id));
        for (rank, grade) in [(1, 1), (9, 0)] {
            if let Some((id, _)) = q.top.get(rank) {
                if !has(id) {
                    text += &format!("{} 0 {id} {grade}\n", qid(i));
                }
            }
        }
    }
    text
}

#[test]
fn ir_measures_computes_the_graded_figures_of_the_lab() {
    let (lab, questions) = exercise();
    let none = QuestionVectors::new();
    let measured: Vec<Measurement> = [Method::Keyword(Keyword::Mots), Method::MOTS_PLUS]
        .into_iter()
        .map(|m| lab.measure(m, &questions, &none).unwrap())
        .collect();
    let derived = Qrels::derived(&questions, lab.fiches(), lab.products());
    let ids = lab.fiches().iter().map(|f| f.id.as_str()).collect();
    let richer = Qrels::parse(&with_more_grades(&derived, &measured[0]), &questions, &ids).unwrap();
    assert!(richer.len() > derived.len());
    let dir = std::env::temp_dir().join(format!("rag-fiches-graded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runs = Vec::new();
    for m in &measured {
        let path = dir.join(format!("{}.txt", run_name(&m.method)));
        std::fs::write(&path, run_file(m)).unwrap();
        runs.push(path.to_str().unwrap().to_owned());
    }
    for (label, qrels) in [("derived", &derived), ("richer", &richer)] {
        let qrels_path = dir.join(format!("qrels-{label}.txt"));
        std::fs::write(&qrels_path, qrels.to_trec()).unwrap();
        let out = Command::new("bash")
            .arg("engines/ir_measures.sh")
            .arg(&qrels_path)
            .args(&runs)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(3) {
            let _ = std::fs::remove_dir_all(&dir);
            assert!(
                std::env::var("RAG_FICHES_ENGINES").as_deref() != Ok("required"),
                "RAG_FICHES_ENGINES=required, and ir_measures could not be installed:\n{stderr}"
            );
            eprintln!(
                "\n*** SKIPPED the check by ir_measures: {} ***\n",
                stderr.trim()
            );
            return;
        }
        assert!(
            out.status.success(),
            "engines/ir_measures.sh failed:\n{stderr}"
        );
        // (run, measure) → qid → value.
        let mut theirs: HashMap<(String, String), BTreeMap<String, f64>> = HashMap::new();
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "{line}");
            theirs
                .entry((f[0].to_owned(), f[1].to_owned()))
                .or_default()
                .insert(f[2].to_owned(), f[3].parse().unwrap());
        }
        for m in &measured {
            let name = run_name(&m.method);
            let mut compared = 0;
            for (i, q) in m.questions.iter().enumerate() {
                let Some(grades) = qrels.of(i) else {
                    continue;
                };
                let top: Vec<String> = q.top.iter().map(|(id, _)| id.clone()).collect();
                let ours = graded::question(&top, grades);
                for (measure, value) in [
                    ("nDCG@10", ours.ndcg10),
                    ("R@10", ours.recall10),
                    ("Judged@10", ours.judged10),
                ] {
                    let their = theirs
                        .get(&(name.clone(), measure.to_owned()))
                        .and_then(|by_q| by_q.get(&qid(i)))
                        .unwrap_or_else(|| {
                            panic!("{label}: no {measure} of {name} for {}", qid(i))
                        });
                    assert!(
                        (their - value).abs() < 1e-6,
                        "{label}, {name}, {}, {measure}: ir_measures {their}, the lab {value}",
                        qid(i)
                    );
                    compared += 1;
                }
            }
            let judged = (0..m.questions.len())
                .filter(|&i| qrels.of(i).is_some())
                .count();
            assert_eq!(judged, if label == "derived" { 35 } else { 40 });
            assert_eq!(compared, 3 * judged, "{label}: {name}");
            // The means the terminal prints are the means of those questions.
            let mean = graded::measure(m, qrels).all;
            let their_mean = |measure: &str| {
                let by_q = &theirs[&(name.clone(), measure.to_owned())];
                by_q.values().sum::<f64>() / by_q.len() as f64
            };
            assert!(
                (mean.ndcg10 - their_mean("nDCG@10")).abs() < 1e-6,
                "{label}: {name}"
            );
            assert!(
                (mean.recall10 - their_mean("R@10")).abs() < 1e-6,
                "{label}: {name}"
            );
            assert!(
                (mean.judged10 - their_mean("Judged@10")).abs() < 1e-6,
                "{label}: {name}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The exercise's derived qrels, shipped as `data/qrels-graduees.txt`, are what
/// `mesurer --qrels-derivees` prints.
#[test]
fn the_shipped_graded_qrels_are_the_derived_ones() {
    let (lab, questions) = exercise();
    let derived = Qrels::derived(&questions, lab.fiches(), lab.products());
    assert_eq!(
        include_str!("../data/qrels-graduees.txt"),
        derived.to_trec(),
        "data/qrels-graduees.txt: regenerate with mesurer --qrels-derivees"
    );
    // The expected fiche 3, its product's other variants 2: 35 questions, 82 judgments.
    assert_eq!(derived.len(), 82);
    for (i, q) in questions.iter().enumerate() {
        match &q.expected {
            Some(id) => assert_eq!(derived.of(i).unwrap()[id], 3),
            None => assert!(derived.of(i).is_none()),
        }
    }
}
