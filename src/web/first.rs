//! The first module (`src/bin/premier.rs`, feature `premier`): what a shared link's first result
//! needs, and nothing else. It reads the link, fetches the bundled fiches, builds the keyword
//! indexes and draws the keyword columns of the link's question with the page's own column code
//! ([`super::results`]). Then it fetches the page's module (`rag-fiches.js`, built by Trunk beside
//! it), which starts, reads the same link and takes over every panel, these columns included.
//!
//! Drawing is best effort: whatever it cannot do (no question in the link, the « Mesurer » view,
//! a file that does not parse) it leaves to the page's module, which says what went wrong. Only a
//! page module that does not load is reported here.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::dom::{by_id, document, fetch_text, input, replace_children, set_hidden, set_text};
use super::{ids, results};
use crate::data::{parse_fiches_with, parse_questions};
use crate::lab::{Lab, Method};
use crate::link::{View, ViewState, DEFAULT_METHODS};

#[wasm_bindgen(inline_js = "
export function load_page() {
  // This file is snippets/<crate>/inline0.js beside the modules, wherever the page is served.
  const at = (file) => new URL(`../../${file}`, import.meta.url).href;
  return import(at('rag-fiches.js')).then((m) =>
    m.default({ module_or_path: at('rag-fiches_bg.wasm') }).then(() => {
      // Trunk's loader set this to the first module's bindings: the page's are the lab's.
      window.wasmBindings = m;
    }));
}")]
extern "C" {
    fn load_page() -> js_sys::Promise;
}

/// Draws the link's keyword columns, then loads the page's module.
pub fn run() {
    console_error_panic_hook::set_once();
    wasm_bindgen_futures::spawn_local(async {
        if document().get_element_by_id(ids::RESULTATS).is_some() {
            draw().await;
        }
        if let Err(e) = JsFuture::from(load_page()).await {
            let alert = by_id(ids::ERREUR);
            set_text(
                &alert,
                "Le laboratoire n'a pas pu démarrer : le module de la page ne s'est pas chargé. Rechargez la page.",
            );
            set_hidden(&alert, false);
            web_sys::console::error_2(&JsValue::from_str("rag-fiches.js"), &e);
        }
    });
}

/// The keyword columns of the link's question, as the page's first render draws them.
async fn draw() -> Option<()> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let link = ViewState::from_fragment(&hash);
    let question = link.question.filter(|_| link.view == View::Chercher)?;
    let methods = if link.methods.is_empty() {
        DEFAULT_METHODS.to_vec()
    } else {
        link.methods
    };
    let keyword: Vec<_> = methods
        .into_iter()
        .filter_map(|m| match m {
            Method::Keyword(k) => Some(k),
            _ => None,
        })
        .collect();
    if keyword.is_empty() {
        return None;
    }
    // Both requests in flight at once, as the page's own load does (the HTML preloads both).
    let fiches = fetch_text("data/fiches.jsonl");
    let questions = fetch_text("data/questions.csv");
    let (fiches, questions) = (fiches.await.ok()?, questions.await.ok()?);
    let fiches = parse_fiches_with(&fiches, super::nfc).ok()?;
    let expected = parse_questions(&questions)
        .ok()?
        .into_iter()
        .find(|q| q.text == question)
        .and_then(|q| q.expected);
    let lab = Lab::new(fiches);
    let columns = keyword.into_iter().map(|k| {
        let why = |doc: usize, _: f64| results::keyword_why(&lab, k, &question, doc);
        let method = Method::Keyword(k);
        results::ranked(
            results::frame(method),
            &lab,
            method,
            &question,
            None,
            expected.as_deref(),
            &why,
        )
    });
    input(ids::QUESTION).set_value(&question);
    replace_children(&by_id(ids::RESULTATS), columns);
    Some(())
}
