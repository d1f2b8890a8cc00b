#![no_main]
//! The .npy reader.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(rows) = rag_fiches::data::npy::read_matrix(data) {
        if let Some(first) = rows.first() {
            assert!(rows.iter().all(|r| r.len() == first.len()));
        }
    }
});
