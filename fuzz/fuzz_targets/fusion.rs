#![no_main]
//! RRF over arbitrary lists: sorted, finite, each fiche once.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let half = data.len() / 2;
    let a: Vec<usize> = data[..half].iter().map(|&b| b as usize).collect();
    let b: Vec<usize> = data[half..].iter().map(|&b| b as usize % 64).collect();
    let fused = rag_fiches::search::fusion::rrf(&[&a, &b], 60.0, 50);
    let mut seen = std::collections::HashSet::new();
    for w in fused.windows(2) {
        assert!(w[0].1 >= w[1].1);
    }
    assert!(fused.iter().all(|(d, p)| seen.insert(*d) && p.is_finite()));
});
