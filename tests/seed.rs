//! Native ring: the seed's reference output and its rankings, reproduced exactly.

// Test code: a failed expectation stops the test, which is how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(not(target_arch = "wasm32"))]

use rag_fiches::data::{parse_fiches, parse_questions};
use rag_fiches::lab::{Keyword, Lab, Method};

const FICHES: &str = include_str!("../data/fiches.jsonl");
const QUESTIONS: &str = include_str!("../data/questions.csv");
const REFERENCE: &str = include_str!("golden/mesurer-mots.out");

fn lab() -> Lab {
    Lab::new(parse_fiches(FICHES).unwrap())
}

#[test]
fn mots_report_is_the_seed_reference_byte_for_byte() {
    let questions = parse_questions(QUESTIONS).unwrap();
    let report = lab()
        .measure_keyword(Keyword::Mots, &questions)
        .seed_report();
    assert_eq!(report, REFERENCE);
}

#[test]
fn bundled_data_is_the_canonical_seed_data() {
    // The sizes the seed gives (35,673 bytes of texte) and the files of shared/data, unchanged.
    let fiches = parse_fiches(FICHES).unwrap();
    let bytes: usize = fiches.iter().map(|f| f.texte.len()).sum();
    assert_eq!(bytes, 35_673);
    assert!(
        QUESTIONS.contains("\r\n"),
        "questions.csv keeps Python's CRLF line ends"
    );
}

/// The top 10 of every question, ids and raw scores, against the seed's own bm25.py
/// (`tests/golden/make_golden.py` regenerates the file). Scores are compared for equality, to the
/// bit: every operation runs in the seed's order, and Python prints floats that read back exactly.
#[test]
fn mots_top10_of_all_40_questions_match_the_seed_algorithm() {
    #[derive(serde::Deserialize)]
    struct Row {
        question: String,
        top: Vec<(String, f64)>,
    }
    let golden: Vec<Row> = serde_json::from_str(include_str!("golden/mots-top10.json")).unwrap();
    let lab = lab();
    assert_eq!(golden.len(), 40);
    for row in golden {
        let ours = lab.search(Method::MOTS, &row.question, None, 10).unwrap();
        assert_eq!(ours.len(), row.top.len());
        for (r, (id, score)) in ours.iter().zip(&row.top) {
            assert_eq!(&lab.fiches()[r.doc].id, id, "{}", row.question);
            assert_eq!(r.score, *score, "{}", row.question);
        }
    }
}

#[test]
fn mots_plus_keeps_exactes_and_finds_19_courantes_of_20() {
    let questions = parse_questions(QUESTIONS).unwrap();
    let m = lab().measure_keyword(Keyword::MotsPlus, &questions);
    let (exacte, courante) = (&m.kinds[0], &m.kinds[1]);
    assert_eq!((exacte.hit1, exacte.hit5), (15, 15));
    assert!(courante.hit5 >= 19, "{courante:?}");
}

#[test]
fn measurement_figures_of_mots() {
    let questions = parse_questions(QUESTIONS).unwrap();
    let m = lab().measure_keyword(Keyword::Mots, &questions);
    let courante = &m.kinds[1];
    assert_eq!(
        (courante.questions, courante.hit1, courante.hit5),
        (20, 8, 15)
    );
    // MRR@10 is the mean of 1/rank over the 20 courantes, counting 0 outside the top 10.
    let rr: f64 = m
        .questions
        .iter()
        .filter(|q| q.kind == rag_fiches::data::QuestionKind::Courante)
        .map(|q| q.rank.map_or(0.0, |r| 1.0 / r as f64))
        .sum();
    assert!((courante.mrr10 - rr / 20.0).abs() < 1e-15);
    assert!(courante.mrr10 > 0.4 && courante.mrr10 < 0.8);
}
