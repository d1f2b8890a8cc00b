#![no_main]
//! The safetensors vectors file reader: no panic, no non-finite value accepted.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(set) = rag_fiches::data::vectors::VectorSet::from_safetensors(data) {
        assert!(set.data.iter().all(|x| x.is_finite()));
        assert_eq!(set.data.len(), set.len() * set.dim);
    }
});
