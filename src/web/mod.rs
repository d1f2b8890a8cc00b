//! The browser boundary: everything here converts, calls the core, renders. Only on wasm32.
//!
//! Two modules are built from it. The page's (feature `page`) is the whole lab. The first module
//! (feature `premier`, `src/bin/premier.rs`) is what the first result needs and no more: it draws
//! the keyword columns of the link's question, then fetches the page's module, which takes over
//! (see [`first`]).

/// Calls to Mistral's API: fetch, retries, timeout, cancellation.
#[cfg(feature = "page")]
pub mod api;
/// Start-up and the effect runner.
#[cfg(feature = "page")]
pub mod app;
/// Element builders that only ever insert text.
pub mod dom;
/// DOM events by delegation, each turned into a message.
#[cfg(feature = "page")]
pub mod events;
/// The first module: the link's keyword columns before the page's module has arrived.
#[cfg(feature = "premier")]
pub mod first;
/// What « Chercher » shows around its columns, drawn by both modules from plain inputs.
pub mod frame;
/// The lab exported to JavaScript, for the browser tests and the benchmarks (feature `api`).
#[cfg(all(feature = "api", feature = "page"))]
pub mod handle;
/// Element ids, as constants checked at start-up.
pub mod ids;
/// One module per panel, each rendering from the state alone.
#[cfg(feature = "page")]
pub mod panels;
/// One column of results, from the lab alone (the page's and the first module's).
pub mod results;
/// The runtime: the one state, `update`, rendering, and the handles the model names by id.
#[cfg(feature = "page")]
pub mod runtime;
/// IndexedDB and localStorage: cached vectors and answers, the opted-in key.
#[cfg(feature = "page")]
pub mod store;
/// The asynchronous work: fetches, calls to Mistral, file reads, each a keyed job's run or an
/// effect's.
#[cfg(feature = "page")]
pub mod tasks;
/// Turns of the event loop between steps of long work.
#[cfg(feature = "page")]
pub mod turns;
/// The page's Web Worker, from the page's side: requests with tickets, replies as messages.
#[cfg(feature = "page")]
pub mod worker_client;
/// The page's Web Worker as the runtime holds it (a leaf: handles and the tasks awaiting).
#[cfg(feature = "page")]
pub mod worker_handle;

#[cfg(feature = "page")]
use wasm_bindgen::prelude::*;

#[cfg(all(feature = "api", feature = "page"))]
pub use handle::LabHandle;

/// Starts the page when the module loads (the first module's loader, [`first`], calls it).
#[cfg(feature = "page")]
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    if web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"))
        .is_some()
    {
        wasm_bindgen_futures::spawn_local(app::run());
    }
}

/// `text` in Unicode NFC by the JavaScript engine (`String.prototype.normalize`): the page's
/// [`crate::data::IdNormalizer`], so that the module carries no normalization tables.
pub fn nfc(text: &str) -> String {
    if text.is_ascii() {
        return text.to_owned();
    }
    js_sys::JsString::from(text).normalize("NFC").into()
}
