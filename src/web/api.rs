//! The page's calls to Mistral: `fetch` with the learner's key, the core's retry policy, a timeout
//! per kind of call, waits shown with a countdown (and cut short or cancelled by the learner), and
//! cancellation (a newer question cancels the older request).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

use crate::mistral::chat::{self, Chat, Message};
use crate::mistral::{self, ApiError, ApiKey, Attempt, CallKind, Embeddings, Next, WaitReason};

use super::frame::API_BASE;
pub use crate::page::Wait;

type WaitHook = Rc<dyn Fn(&Call, Option<Wait>)>;
type CancelHook = Box<dyn FnOnce()>;

/// A cancellable call in flight.
#[derive(Clone, Default)]
pub struct Call {
    cancelled: Rc<Cell<bool>>,
    /// « Réessayer maintenant »: the wait in progress ends at once.
    skip: Rc<Cell<bool>>,
    controller: Rc<RefCell<Option<AbortController>>>,
    /// Told of every second of a wait, and of its end (`None`).
    on_wait: Rc<RefCell<Option<WaitHook>>>,
    /// Run once when the call is stopped: what a request outside `fetch` needs to stop (a
    /// request to the page's worker).
    on_cancel: Rc<RefCell<Option<CancelHook>>>,
}

impl Call {
    pub fn new() -> Call {
        Call::default()
    }

    /// Stops the call: the request in flight is aborted and no retry follows.
    pub fn cancel(&self) {
        self.cancelled.set(true);
        if let Some(c) = self.controller.borrow().as_ref() {
            c.abort();
        }
        let hook = self.on_cancel.borrow_mut().take();
        if let Some(hook) = hook {
            hook();
        }
    }

    /// What stopping the call must also do, once (at once if it was stopped already).
    pub fn on_cancel(&self, hook: impl FnOnce() + 'static) {
        if self.is_cancelled() {
            hook();
        } else {
            *self.on_cancel.borrow_mut() = Some(Box::new(hook));
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// Makes `controller`'s request part of this call: cancelling the call aborts it (at once if
    /// the call was cancelled already).
    pub fn hold(&self, controller: AbortController) {
        if self.is_cancelled() {
            controller.abort();
        }
        *self.controller.borrow_mut() = Some(controller);
    }

    /// Ends the current wait now: the next attempt starts at once.
    pub fn skip_wait(&self) {
        self.skip.set(true);
    }

    /// Whether `other` is this same call (clones share their state).
    pub fn same(&self, other: &Call) -> bool {
        Rc::ptr_eq(&self.cancelled, &other.cancelled)
    }

    /// Who hears of this call's waits (the page, to show the countdown).
    pub fn on_wait(&self, hook: impl Fn(&Call, Option<Wait>) + 'static) {
        *self.on_wait.borrow_mut() = Some(Rc::new(hook));
    }

    fn tell(&self, wait: Option<Wait>) {
        let hook = self.on_wait.borrow().clone();
        if let Some(h) = hook {
            h(self, wait);
        }
    }
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Waits `ms` before the next attempt, telling the call's hook the seconds left each second;
/// ends early on « Réessayer maintenant » or a cancel.
async fn wait(call: &Call, ms: u32, reason: WaitReason) {
    call.skip.set(false);
    let end = now_ms() + ms as f64;
    loop {
        let left = end - now_ms();
        if left <= 0.0 || call.skip.get() || call.is_cancelled() {
            break;
        }
        let seconds = (left / 1000.0).ceil() as u32;
        call.tell(Some(Wait { seconds, reason }));
        // Wake at the next whole second left, or sooner to notice a skip.
        let step = left - (seconds.saturating_sub(1) as f64) * 1000.0;
        sleep(step.clamp(1.0, 250.0) as u32).await;
    }
    call.skip.set(false);
    call.tell(None);
}

/// Waits `ms` milliseconds.
pub async fn sleep(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32)
                .ok();
        }
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.ok();
}

/// One attempt: `Ok(body)` for a 200, else what happened.
async fn attempt(
    call: &Call,
    kind: CallKind,
    key: &ApiKey,
    path: &str,
    body: &str,
) -> Result<String, (Option<u16>, Option<String>, String, bool)> {
    let controller =
        AbortController::new().map_err(|_| (None, None, "AbortController".to_owned(), false))?;
    let signal = controller.signal();
    *call.controller.borrow_mut() = Some(controller.clone());
    let timed_out = Rc::new(Cell::new(false));
    let timer = {
        let timed_out = timed_out.clone();
        let controller = controller.clone();
        let cb = Closure::once_into_js(move || {
            timed_out.set(true);
            controller.abort();
        });
        web_sys::window().and_then(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(
                cb.unchecked_ref(),
                kind.timeout_ms() as i32,
            )
            .ok()
        })
    };
    let url = format!("{API_BASE}{path}");
    // Exactly two headers: any other one would fail the API's CORS preflight.
    let request = gloo_net::http::Request::post(&url)
        .header("Authorization", &key.bearer())
        .header("Content-Type", "application/json")
        .abort_signal(Some(&signal))
        .body(body.to_owned());
    let result = match request {
        Ok(r) => r.send().await,
        Err(e) => Err(e),
    };
    if let (Some(w), Some(t)) = (web_sys::window(), timer) {
        w.clear_timeout_with_handle(t);
    }
    let resp = match result {
        Ok(resp) => resp,
        // The transport's text is not kept: it may quote a request header (the key).
        Err(_) => {
            let what = "TypeError: Failed to fetch".to_owned();
            return Err((None, None, what, timed_out.get()));
        }
    };
    let status = resp.status();
    // Null in a browser against the real API, which does not expose it (see mistral::Attempt).
    let retry_after = resp.headers().get("retry-after");
    let text = resp.text().await.unwrap_or_default();
    if status == 200 {
        Ok(text)
    } else {
        Err((Some(status), retry_after, text, false))
    }
}

/// POSTs `body` to `path` until a 200 (its body is returned), retrying where waiting can help.
/// The key goes only to [`API_BASE`], in the `Authorization` header.
async fn post(
    call: &Call,
    kind: CallKind,
    key: &ApiKey,
    path: &str,
    body: &str,
) -> Result<String, ApiError> {
    let mut n = 1;
    loop {
        if call.is_cancelled() {
            return Err(ApiError::Cancelled);
        }
        let failure = match attempt(call, kind, key, path, body).await {
            Ok(text) => return Ok(text),
            Err(f) => f,
        };
        if call.is_cancelled() {
            return Err(ApiError::Cancelled);
        }
        let (status, retry_after, text, timed_out) = failure;
        let outcome = match status {
            Some(status) => Attempt::Status {
                status,
                retry_after: retry_after.as_deref(),
                body: &text,
            },
            None if timed_out => Attempt::Timeout,
            None => Attempt::Network(&text),
        };
        match mistral::next_step(kind, n, &outcome) {
            Next::Retry { wait_ms, reason } => {
                wait(call, wait_ms, reason).await;
                n += 1;
            }
            Next::Fail(e) => return Err(e),
        }
    }
}

/// Embeds `texts` (one request; callers batch with [`mistral::batches`]).
pub async fn embed(call: &Call, key: &ApiKey, texts: &[&str]) -> Result<Embeddings, ApiError> {
    let text = post(
        call,
        CallKind::Embeddings,
        key,
        mistral::EMBEDDINGS_PATH,
        &mistral::embedding_request(texts),
    )
    .await?;
    mistral::parse_embeddings(&text, texts.len())
}

/// One chat completion (temperature 0) with `model`.
pub async fn chat(
    call: &Call,
    key: &ApiKey,
    model: &str,
    messages: &[Message],
) -> Result<Chat, ApiError> {
    let text = post(
        call,
        CallKind::Chat,
        key,
        chat::CHAT_PATH,
        &chat::chat_request(model, messages),
    )
    .await?;
    chat::parse_chat(&text)
}
