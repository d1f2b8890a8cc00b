#![no_main]
//! Both analysers: spans always inside the text, on character boundaries.
use libfuzzer_sys::fuzz_target;
use rag_fiches::search::analysis::Analyzer;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for analyzer in [Analyzer::Seed, Analyzer::French] {
        for t in analyzer.analyze(&text) {
            assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end) && t.start < t.end);
        }
    }
});
