//! tantivy as a peer (`cargo run --release --example pairs`): the figures the README quotes.
#![cfg(not(target_arch = "wasm32"))]

#[allow(dead_code)] // its `main` and `run` are the example's
#[path = "../examples/pairs.rs"]
mod pairs;

use rag_fiches::data::{parse_fiches, parse_questions};

#[test]
fn mots_plus_is_level_with_tantivy_once_ties_count_against_the_expected_fiche() {
    let fiches = parse_fiches(include_str!("../data/fiches.jsonl")).unwrap();
    let questions = parse_questions(include_str!("../data/questions.csv")).unwrap();
    let ms = pairs::measurements(fiches, &questions).unwrap();
    let courantes = |i: usize| {
        let k = &ms[i].kinds[1];
        (
            (k.hit1, k.hit5, (k.mrr10 * 1000.0).round() / 1000.0),
            (
                k.worst_hit1,
                k.worst_hit5,
                (k.worst_mrr10 * 1000.0).round() / 1000.0,
            ),
        )
    };
    assert_eq!(ms[2].method, "tantivy");
    // As ranked, tantivy's tie rule (the first indexed first) favours this catalogue, where the
    // expected fiche is usually the first of its siblings; counted pessimistically, the two are level.
    assert_eq!(courantes(2), ((16, 20, 0.868), (10, 19, 0.708)));
    assert_eq!(courantes(1), ((11, 19, 0.758), (10, 19, 0.708)));
    for m in &ms {
        assert_eq!(
            (m.kinds[0].worst_hit1, m.kinds[0].worst_hit5),
            (15, 15),
            "{}",
            m.method
        );
    }
}
