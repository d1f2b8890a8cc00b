#![no_main]
//! fiches.jsonl parser, then indexing and searching whatever parses.
use libfuzzer_sys::fuzz_target;
use rag_fiches::lab::{Lab, Method};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(fiches) = rag_fiches::data::parse_fiches(&text) {
        let lab = Lab::new(fiches);
        for r in lab.search(Method::MOTS_PLUS, "joint ciment", None, 5).unwrap() {
            assert!(r.score.is_finite());
        }
    }
});
