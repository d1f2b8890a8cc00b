//! `encodeur-rapide`: the same Web Worker as `encodeur`, built with the `relaxed` feature: its
//! dense scan multiplies bytes with relaxed SIMD (`rag_fiches::kernels::dot_u4_rows`). An engine
//! without relaxed SIMD refuses the whole module, so `www/encodeur-demarrage.js` starts this one
//! only where a module using it validates, and `encodeur` everywhere else.
//!
//! Natively there is nothing to run: it says so.

#[cfg(target_arch = "wasm32")]
fn main() {
    rag_fiches::worker::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    eprintln!("encodeur-rapide: the page's Web Worker with relaxed SIMD; it runs only in a browser (trunk build)");
    std::process::ExitCode::from(2)
}
