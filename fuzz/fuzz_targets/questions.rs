#![no_main]
//! questions.csv parser.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rag_fiches::data::parse_questions(&String::from_utf8_lossy(data));
});
