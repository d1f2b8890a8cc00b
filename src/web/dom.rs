//! Building DOM nodes from Rust: text goes in as text nodes only, never as markup. Nothing here
//! panics: a DOM call that fails (it cannot, for the constant tags and attributes this crate uses)
//! leaves the node as it was.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlInputElement, Node};

/// The page's document. [`super::start`] runs nothing when there is none, so every later call
/// finds it.
#[allow(clippy::expect_used)]
pub fn document() -> Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("start() runs the page only in a window with a document")
}

/// The element with id `id`. Every id of [`super::ids::IN_PAGE`] is checked at start-up; an id
/// that is absent later (a panel's own element not rendered yet) gives a detached element, so
/// that writing to it is harmless.
pub fn by_id(id: &str) -> Element {
    let doc = document();
    doc.get_element_by_id(id)
        .or_else(|| doc.create_element("div").ok())
        .unwrap_or_else(|| doc.unchecked_into())
}

/// An `<input>` by id (see [`by_id`]).
pub fn input(id: &str) -> HtmlInputElement {
    by_id(id).unchecked_into()
}

/// An element under construction. Every string it is given becomes text, attribute or class:
/// nothing is ever parsed as HTML.
pub struct E(Element);

impl E {
    /// A new element; `tag` is a constant of this crate, always a valid name.
    pub fn new(tag: &str) -> E {
        let doc = document();
        E(doc
            .create_element(tag)
            .or_else(|_| doc.create_element("span"))
            .unwrap_or_else(|_| doc.unchecked_into()))
    }

    /// A new SVG element (`svg`, `rect`, `circle`, `line`, `text`…), built node by node too.
    pub fn svg(tag: &str) -> E {
        let doc = document();
        E(doc
            .create_element_ns(Some("http://www.w3.org/2000/svg"), tag)
            .or_else(|_| doc.create_element("span"))
            .unwrap_or_else(|_| doc.unchecked_into()))
    }

    /// Sets the `class` attribute (works for HTML and SVG elements alike).
    pub fn class(self, class: &str) -> E {
        self.0.set_attribute("class", class).ok();
        self
    }

    pub fn attr(self, name: &str, value: &str) -> E {
        self.0.set_attribute(name, value).ok();
        self
    }

    /// Sets the boolean attribute `name` when `on`.
    pub fn flag(self, name: &str, on: bool) -> E {
        if on {
            self.0.set_attribute(name, "").ok();
        }
        self
    }

    /// Appends `text` as a text node.
    pub fn text(self, text: &str) -> E {
        append_text(&self.0, text);
        self
    }

    pub fn child(self, child: impl AsRef<Node>) -> E {
        self.0.append_child(child.as_ref()).ok();
        self
    }

    pub fn children(self, children: impl IntoIterator<Item = Element>) -> E {
        for c in children {
            self.0.append_child(&c).ok();
        }
        self
    }

    pub fn build(self) -> Element {
        self.0
    }
}

impl AsRef<Node> for E {
    fn as_ref(&self) -> &Node {
        &self.0
    }
}

pub fn append_text(parent: &Element, text: &str) {
    let node = document().create_text_node(text);
    parent.append_child(&node).ok();
}

/// Sets `el`'s text, unless it is already that (a live region then stays quiet).
pub fn set_text(el: &Element, text: &str) {
    if el.text_content().as_deref() != Some(text) {
        el.set_text_content(Some(text));
    }
}

/// Sets or removes the boolean attribute `name` (`hidden`, `disabled`…), if it changes.
pub fn set_flag(el: &Element, name: &str, on: bool) {
    if on != el.has_attribute(name) {
        if on {
            el.set_attribute(name, "").ok();
        } else {
            el.remove_attribute(name).ok();
        }
    }
}

/// Shows or hides `el`.
pub fn set_hidden(el: &Element, hidden: bool) {
    set_flag(el, "hidden", hidden);
}

/// Enables or disables a button or an input.
pub fn set_disabled(el: &Element, disabled: bool) {
    set_flag(el, "disabled", disabled);
}

/// Removes every child of `el`.
pub fn clear(el: &Element) {
    el.set_text_content(None);
}

/// Replaces the children of `el` with `children`.
pub fn replace_children(el: &Element, children: impl IntoIterator<Item = Element>) {
    clear(el);
    for c in children {
        el.append_child(&c).ok();
    }
}

/// `text` with the byte ranges of `marks` (sorted, non-overlapping) wrapped in `<mark>` elements.
pub fn highlighted(tag: &str, text: &str, marks: &[(usize, usize)]) -> Element {
    let el = E::new(tag).build();
    let mut pos = 0;
    for &(start, end) in marks {
        let (Some(before), Some(marked)) = (text.get(pos..start), text.get(start..end)) else {
            continue;
        };
        append_text(&el, before);
        el.append_child(&E::new("mark").text(marked).build()).ok();
        pos = end;
    }
    append_text(&el, text.get(pos..).unwrap_or_default());
    el
}

/// `<option>`s for `values` (value, label), `selected` marked.
pub fn options<'a>(
    values: impl IntoIterator<Item = (&'a str, &'a str)>,
    selected: Option<&str>,
) -> Vec<Element> {
    values
        .into_iter()
        .map(|(value, label)| {
            E::new("option")
                .attr("value", value)
                .flag("selected", Some(value) == selected)
                .text(label)
                .build()
        })
        .collect()
}

/// Offers `bytes` as a file named `name` to download.
pub fn download(name: &str, bytes: &[u8]) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let a: web_sys::HtmlAnchorElement = E::new("a")
        .attr("href", &url)
        .attr("download", name)
        .build()
        .unchecked_into();
    a.click();
    // The browser reads the blob after this function returns: revoking the URL at once races
    // with the download (on a busy machine the file came out wrong). It is revoked a minute later.
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        web_sys::Url::revoke_object_url(&url).ok();
    });
    if let Some(w) = web_sys::window() {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000)
            .ok();
    }
}

/// A wrapper that scrolls sideways when its content is wider than the screen (a phone), and can
/// be focused so that a keyboard can scroll it too.
pub fn scroller(label: &str, content: Element) -> Element {
    E::new("div")
        .class("defile")
        .attr("tabindex", "0")
        .attr("role", "region")
        .attr("aria-label", label)
        .child(content)
        .build()
}

/// The page's first script (`www/index.html`): the requests it started, shared by every module
/// of the page (`ask` starts one, `take` gives a copy of its response).
const FETCHES: &str = "ragFichesFetches";

fn fetches_call(method: &str, path: &str) -> Option<wasm_bindgen::JsValue> {
    use wasm_bindgen::JsCast;
    let window = web_sys::window()?;
    let fetches = js_sys::Reflect::get(&window, &FETCHES.into())
        .ok()
        .filter(wasm_bindgen::JsValue::is_object)?;
    let call: js_sys::Function = js_sys::Reflect::get(&fetches, &method.into())
        .ok()?
        .dyn_into()
        .ok()?;
    call.call1(&fetches, &path.into()).ok()
}

/// The request for `path`, relative to the page: a copy of the one already started for it
/// ([`fetch_ahead`] or the page's first script), else a new one.
pub fn fetch_started(path: &str) -> Option<js_sys::Promise> {
    use wasm_bindgen::JsCast;
    fetches_call("take", path)
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
        .or_else(|| web_sys::window().map(|w| w.fetch_with_str(path)))
}

/// Starts the request for `path` now; the page's own request for it, made later through
/// [`fetch_started`], gets its answer. Works alike in every engine, which
/// `<link rel="preload" as="fetch">` does not: WebKit fetches the file again.
pub fn fetch_ahead(path: &str) {
    fetches_call("ask", path);
}

/// The text at `path`, relative to the page. The request starts when this is called, not when
/// the future is first polled: two files asked one after the other are fetched together.
pub fn fetch_text(path: &str) -> impl std::future::Future<Output = Result<String, String>> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let started = fetch_started(path);
    let path = path.to_owned();
    async move {
        let network = || format!("{path} : le réseau a échoué.");
        let unreadable = || format!("{path} : lecture impossible.");
        let resp: web_sys::Response = JsFuture::from(started.ok_or_else(network)?)
            .await
            .map_err(|_| network())?
            .dyn_into()
            .map_err(|_| network())?;
        if !resp.ok() {
            return Err(format!(
                "{path} : le serveur répond {} {}",
                resp.status(),
                resp.status_text()
            ));
        }
        JsFuture::from(resp.text().map_err(|_| unreadable())?)
            .await
            .map_err(|_| unreadable())?
            .as_string()
            .ok_or_else(unreadable)
    }
}
