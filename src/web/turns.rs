//! Turns of the event loop: long work on the page's thread pauses between steps, so that input and
//! rendering go first.

/// The pause the stepped computations await (`steps`): a turn of the event loop once
/// [`Pacer::SLICE_MS`] have passed since the last one, nothing otherwise (each turn costs a few
/// milliseconds: timeouts nested more than five deep are clamped).
pub struct Pacer {
    since: std::cell::Cell<f64>,
}

impl Default for Pacer {
    fn default() -> Pacer {
        Pacer::new()
    }
}

impl Pacer {
    const SLICE_MS: f64 = 16.0;

    pub fn new() -> Pacer {
        Pacer {
            since: std::cell::Cell::new(js_sys::Date::now()),
        }
    }

    /// Whether the next [`Pacer::pause`] yields.
    pub fn due(&self) -> bool {
        js_sys::Date::now() - self.since.get() >= Self::SLICE_MS
    }

    pub async fn pause(&self) {
        if self.due() {
            self.turn().await;
        }
    }

    /// A turn of the event loop now, due or not: before work that cannot pause inside.
    pub async fn turn(&self) {
        yield_now().await;
        self.since.set(js_sys::Date::now());
    }
}

/// Resolves on the next turn of the event loop: by `scheduler.yield()` where the browser has it
/// (Chromium 129 and later: input and rendering go first, then this task goes on before other
/// waiting tasks), by a zero timeout otherwise (nested timeouts are clamped: a load of 50,000
/// fiches in short steps took a tenth longer without `scheduler.yield()`).
pub async fn yield_now() {
    use wasm_bindgen::{JsCast, JsValue};
    let scheduler = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("scheduler"))
        .ok()
        .filter(|s| s.is_object());
    let yielded = scheduler.and_then(|s| {
        let f = js_sys::Reflect::get(&s, &JsValue::from_str("yield")).ok()?;
        let f: &js_sys::Function = f.dyn_ref()?;
        f.call0(&s).ok()?.dyn_into::<js_sys::Promise>().ok()
    });
    let promise = yielded.unwrap_or_else(|| {
        js_sys::Promise::new(&mut |resolve, _| {
            if let Some(w) = web_sys::window() {
                w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0)
                    .ok();
            }
        })
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.ok();
}
