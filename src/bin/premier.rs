//! `premier`: the page's first module. Trunk builds it as the page's main module (`www/index.html`,
//! with the `premier` feature and without `page`), so that what is fetched before the first result
//! is the keyword search and its columns only; it then loads the page's own module. See
//! `rag_fiches::web::first`.
//!
//! Natively there is nothing to run: it says so.

#[cfg(all(target_arch = "wasm32", feature = "premier"))]
fn main() {
    rag_fiches::web::first::run();
}

#[cfg(not(all(target_arch = "wasm32", feature = "premier")))]
fn main() -> std::process::ExitCode {
    eprintln!("premier: the page's first module; it runs only in a browser (trunk build)");
    std::process::ExitCode::from(2)
}
