//! Building DOM nodes from Rust: text goes in as text nodes only, never as markup.

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, Node};

pub fn document() -> Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect_throw("rag-fiches runs in a page with a document")
}

/// The element with id `id`, which `www/index.html` must provide.
pub fn by_id(id: &str) -> Element {
    document()
        .get_element_by_id(id)
        .unwrap_or_else(|| wasm_bindgen::throw_str(&format!("index.html lacks #{id}")))
}

/// An element under construction. Every string it is given becomes text, attribute or class:
/// nothing is ever parsed as HTML.
pub struct E(Element);

impl E {
    /// A new element; `tag` is a constant of this crate, always a valid name.
    pub fn new(tag: &str) -> E {
        E(document()
            .create_element(tag)
            .expect_throw("valid tag name"))
    }

    /// A new SVG element (`svg`, `rect`, `circle`, `line`, `text`…), built node by node too.
    pub fn svg(tag: &str) -> E {
        E(document()
            .create_element_ns(Some("http://www.w3.org/2000/svg"), tag)
            .expect_throw("valid SVG tag name"))
    }

    /// Sets the `class` attribute (works for HTML and SVG elements alike).
    pub fn class(self, class: &str) -> E {
        self.0
            .set_attribute("class", class)
            .expect_throw("class attribute");
        self
    }

    pub fn attr(self, name: &str, value: &str) -> E {
        self.0
            .set_attribute(name, value)
            .expect_throw("valid attribute name");
        self
    }

    /// Appends `text` as a text node.
    pub fn text(self, text: &str) -> E {
        append_text(&self.0, text);
        self
    }

    pub fn child(self, child: impl AsRef<Node>) -> E {
        self.0.append_child(child.as_ref()).expect_throw("append");
        self
    }

    pub fn children(self, children: impl IntoIterator<Item = Element>) -> E {
        for c in children {
            self.0.append_child(&c).expect_throw("append");
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
    parent.append_child(&node).expect_throw("append");
}

/// `x` with `decimals` decimals and a French decimal comma (« 0,57 »).
pub fn fr(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}").replace('.', ",")
}

/// A whole number as French writes it, thousands separated by a narrow no-break space
/// (« 35 673 »).
pub fn fr_int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// Removes every child of `el`.
pub fn clear(el: &Element) {
    el.set_text_content(None);
}

/// Replaces the children of `el` with `children`.
pub fn replace_children(el: &Element, children: impl IntoIterator<Item = Element>) {
    clear(el);
    for c in children {
        el.append_child(&c).expect_throw("append");
    }
}

/// `text` with the byte ranges of `marks` (sorted, non-overlapping) wrapped in `<mark>` elements.
pub fn highlighted(tag: &str, text: &str, marks: &[(usize, usize)]) -> Element {
    let el = E::new(tag).build();
    let mut pos = 0;
    for &(start, end) in marks {
        if start < pos
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        append_text(&el, &text[pos..start]);
        el.append_child(&E::new("mark").text(&text[start..end]).build())
            .expect_throw("append");
        pos = end;
    }
    append_text(&el, &text[pos..]);
    el
}
