//! `encodeur`: the local encoder's Web Worker. Trunk builds it for the page as a worker module
//! (`www/index.html`, `data-type="worker"`, without the page's own code: `--no-default-features`),
//! and `www/encodeur-demarrage.js` starts it. See `rag_fiches::worker`.
//!
//! Natively there is nothing to run: it says so.

#[cfg(target_arch = "wasm32")]
fn main() {
    rag_fiches::worker::run();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    eprintln!("encodeur: the page's Web Worker for the local encoder; it runs only in a browser (trunk build)");
    std::process::ExitCode::from(2)
}
