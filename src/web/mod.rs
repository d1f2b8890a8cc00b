//! The browser boundary: everything here converts, calls the core, renders. Only on wasm32.

/// Calls to Mistral's API: fetch, retries, timeout, cancellation.
pub mod api;
/// The controller: the one state, `update`, rendering, effects.
pub mod app;
/// Element builders that only ever insert text.
pub mod dom;
/// The local encoder's Web Worker, from the page's side.
pub mod encoder;
/// DOM events by delegation, each turned into a message.
pub mod events;
/// The lab exported to JavaScript, for the browser tests and the benchmarks (feature `api`).
#[cfg(feature = "api")]
pub mod handle;
/// Element ids, as constants checked at start-up.
pub mod ids;
/// One module per panel, each rendering from the state alone.
pub mod panels;
/// The page's state, its messages and effects.
pub mod state;
/// IndexedDB and localStorage: cached vectors and answers, the opted-in key.
pub mod store;
/// The asynchronous work: fetches, calls to Mistral, file reads, each tagged with its epoch.
pub mod tasks;
/// `update`: the one place the state changes.
pub mod update;

use wasm_bindgen::prelude::*;

#[cfg(feature = "api")]
pub use handle::LabHandle;

/// Starts the page when the module loads (Trunk's loader calls it).
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
