//! The page's Web Worker as the runtime holds it: its handle, the tasks awaiting its replies, the
//! model handed to it ([`super::worker_client`] works them). A leaf: it imports nothing of `web`,
//! so that the runtime may hold it while the client imports the runtime.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::encoder::protocol::Reply;

/// The page's worker, once started.
pub struct Handle {
    pub worker: web_sys::Worker,
    /// It said [`Reply::Started`]: requests go at once.
    pub started: bool,
    /// Requests sent before it listened, in order.
    pub waiting: Vec<JsValue>,
    /// It died: nothing more is sent (the page says why; a reload starts it again).
    pub dead: bool,
    /// It failed before it listened (its module could not be fetched: offline, a server's
    /// error): the next request starts a new one.
    pub restartable: bool,
    /// Its handlers, alive as long as it is.
    pub _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    pub _onerror: Closure<dyn FnMut(web_sys::Event)>,
}

/// A task awaiting the reply to its request.
pub struct Waiter {
    pub reply: Rc<RefCell<Option<Reply>>>,
    pub resolve: js_sys::Function,
}

/// The model handed to the worker and not yet prepared: its cache key (when the page names its
/// hash), the file when it was downloaded (to keep once prepared), or `None` when it came from the
/// cache (to delete if the worker refuses it).
pub struct PendingModel {
    pub key: Option<String>,
    pub downloaded: Option<web_sys::Blob>,
}

/// Told of how many texts of a request are embedded so far.
pub type Progress = Rc<dyn Fn(usize)>;

/// Everything the page holds of its worker.
#[derive(Default)]
pub struct WorkerClient {
    pub handle: RefCell<Option<Handle>>,
    /// Tasks awaiting a reply, by their request's set or ticket.
    pub waiters: RefCell<HashMap<u64, Waiter>>,
    /// The last ticket given ([`super::worker_client::ticket`]).
    pub tickets: Cell<u64>,
    pub pending_model: RefCell<Option<PendingModel>>,
    /// Who hears of the progress of each request of texts, by its number.
    pub progress: RefCell<HashMap<u64, Progress>>,
}
