//! Measures how much storing the fiche vectors in f16 instead of f32 changes dense rankings, with
//! the fake embedder over the 40 questions. Prints figures; asserts nothing.

// Test code: a failed expectation stops the test, which is how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use rag_fiches::{data::vectors::VectorSet, data::*, lab::*, search::embed::*};
fn main() {
    let fiches = parse_fiches(include_str!("../data/fiches.jsonl")).unwrap();
    let qs = parse_questions(include_str!("../data/questions.csv")).unwrap();
    let e = FakeEmbedder::new(1024);
    let texts: Vec<&str> = fiches.iter().map(|f| f.texte.as_str()).collect();
    let f32set = VectorSet::new("m", &fiches, e.embed(&texts)).unwrap();
    let f16set = VectorSet::from_safetensors(&f32set.to_safetensors()).unwrap();
    let (mut a, mut b) = (Lab::new(fiches.clone()), Lab::new(fiches.clone()));
    a.set_vectors(f32set).unwrap();
    b.set_vectors(f16set).unwrap();
    let (mut same10, mut same1, mut maxdiff) = (0, 0, 0f64);
    for q in &qs {
        let v = e.embed(&[&q.text]).remove(0);
        let x = a.search(Method::Sens, &q.text, Some(&v), 10).unwrap();
        let y = b.search(Method::Sens, &q.text, Some(&v), 10).unwrap();
        if x.iter().map(|r| r.doc).eq(y.iter().map(|r| r.doc)) {
            same10 += 1;
        }
        if x[0].doc == y[0].doc {
            same1 += 1;
        }
        for (r, s) in x.iter().zip(&y) {
            maxdiff = maxdiff.max((r.score - s.score).abs());
        }
    }
    println!(
        "identical top 10: {same10}/40, identical top 1: {same1}/40, max score diff {maxdiff:.2e}"
    );
}
