//! The first module (`src/bin/premier.rs`, feature `premier`): what a shared link's first result
//! needs, and nothing else. It reads the link, fetches the bundled fiches, builds the keyword
//! indexes and draws the keyword columns of the link's question with the page's own column code
//! ([`super::results`]), and what « Chercher » shows above them with the page's own
//! ([`super::frame`]), so that the columns stay where they are when the page takes over. Then it
//! fetches the page's module (`rag-fiches.js`, built by Trunk beside it), which starts, reads the
//! same link and takes over every panel, these columns included.
//!
//! Drawing is best effort: whatever it cannot do (no question in the link, the « Mesurer » view,
//! a file that does not parse) it leaves to the page's module, which says what went wrong. Only a
//! page module that does not load is reported here.

use std::collections::HashSet;
use std::future::Future;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::dom::{
    by_id, document, fetch_ahead, fetch_text, input, replace_children, set_hidden, set_text,
};
use super::frame::{self, stored, CostLine, Manifest, GUIDE_ENTRY, KEY_ENTRY};
use super::{ids, results};
use crate::data::{parse_fiches_with, parse_questions_with};
use crate::lab::{rehearsal, Encoder, Keyword, Lab, Method};
use crate::link::{View, ViewState, DEFAULT_METHODS};
use crate::mistral::ApiKey;

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

/// A User Timing mark (`performance.mark`): `tests/e2e/bench.mjs` reads them to say where the
/// time before the first result goes (`first:start`, `first:manifest`, `first:read`,
/// `first:indexed`, `first:drawn`).
/// Screens this narrow or narrower open with « Par où commencer » folded: its steps would fill the
/// first screen, and the question box must be on it.
const FOLDED_GUIDE_WIDTH: f64 = 600.0;

/// Folds « Par où commencer » on a phone, before the first paint of the page's content.
fn fold_guide_on_a_phone() {
    let narrow = web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|w| w.as_f64())
        .is_some_and(|w| w <= FOLDED_GUIDE_WIDTH);
    if narrow {
        if let Some(guide) = document().get_element_by_id(ids::COMMENCER_GUIDE) {
            guide.remove_attribute("open").ok();
        }
    }
}

fn timing_mark(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        performance.mark(name).ok();
    }
}

/// Draws the link's keyword columns, then loads the page's module.
pub fn run() {
    timing_mark("first:start");
    console_error_panic_hook::set_once();
    fold_guide_on_a_phone();
    wasm_bindgen_futures::spawn_local(async {
        let manifest = fetch_text("data/manifeste.json");
        let remembered = Remembered::read();
        let link = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .map(|hash| ViewState::from_fragment(&hash))
            .filter(|link| link.view == View::Chercher)
            .filter(|_| document().get_element_by_id(ids::RESULTATS).is_some());
        // The fiches and questions (asked for by the page's first script) taken as soon as they come, and the
        // search they are for rehearsed while they come: see [`rehearse`].
        let files = link.as_ref().map(|_| {
            (
                fetch_text("data/fiches.jsonl"),
                fetch_text("data/questions.csv"),
            )
        });
        if link
            .as_ref()
            .is_some_and(|l| l.question.as_deref().is_some_and(|q| !q.trim().is_empty()))
        {
            rehearse();
        }
        let manifest = manifest
            .await
            .map(|m| Manifest::parse(&m))
            .unwrap_or_default();
        timing_mark("first:manifest");
        if let (Some(link), Some(files)) = (link, files) {
            draw(&manifest, &remembered, link, files).await;
        }
        // The local encoder's vectors of the fiches (250 kB) are the page's, not the first
        // result's: asked for only now, while the page's module loads, and taken from this
        // request by the page's own. Asked for with the fiches, they would share a slow
        // network with the first module and delay the first result.
        if let Some(name) = &manifest.vecteurs_local {
            fetch_ahead(&format!("data/{name}"));
        }
        if let Err(e) = JsFuture::from(load_page()).await {
            let alert = by_id(ids::ERREUR);
            set_text(
                &alert,
                "Le laboratoire n'a pas pu démarrer : le module de la page ne s'est pas chargé. Rechargez la page.",
            );
            set_hidden(&alert, false);
            web_sys::console::error_2(&JsValue::from_str("rag-fiches.js"), &e);
        }
    });
}

/// What this browser remembers that the first draw depends on. Read while the manifest's request
/// is in flight: the first read of `localStorage` in a page waits for the browser to open its
/// storage (a few milliseconds, sometimes tens, in new contexts of the benchmark machine), and
/// that wait is then spent while the page's thread would wait for the manifest anyway.
struct Remembered {
    /// A key the learner chose to keep, as the page will find it.
    key: bool,
    /// The guide was closed once: it stays closed.
    guide_closed: bool,
}

impl Remembered {
    fn read() -> Remembered {
        Remembered {
            key: stored(KEY_ENTRY).is_some_and(|k| ApiKey::parse(&k).is_ok()),
            guide_closed: stored(GUIDE_ENTRY).is_some(),
        }
    }
}

/// Runs, on the [`rehearsal`] catalogue, every step of core code that the first search takes:
/// parsing both files, building both keyword indexes, what `mots+` changes, both searches, the
/// ranks, scores and highlights of the columns. The browser compiles each of these functions at
/// its first call; done here, that happens while the page's thread would otherwise wait for the
/// files (they are asked for just before): in alternated pairs of cold loads, the first result
/// came earlier in 11 pairs of 12 (docs/benchmarks-history.md). It adds 1.5 kB to the
/// module gzipped.
fn rehearse() {
    use std::hint::black_box;
    let Ok(fiches) = parse_fiches_with(rehearsal::FICHES, super::nfc) else {
        return;
    };
    black_box(parse_questions_with(rehearsal::QUESTIONS, super::nfc).ok());
    let lab = Lab::new(fiches);
    let question = rehearsal::QUESTION;
    black_box(lab.keyword_changes(question));
    for k in [Keyword::Mots, Keyword::MotsPlus] {
        let method = Method::Keyword(k);
        let terms: HashSet<String> = k.analyzer().terms(question).into_iter().collect();
        let Ok(hits) = lab.search(method, question, None, crate::measure::DEPTH) else {
            continue;
        };
        for (i, hit) in hits.iter().enumerate() {
            black_box(results::rank_text(&hits, i));
            black_box(crate::fr::decimal(hit.score, method.display_decimals()));
            if let Some(fiche) = lab.fiches().get(hit.doc) {
                black_box(k.analyzer().highlight_spans(&fiche.texte, &terms, 8));
            }
        }
    }
}

/// What « Chercher » shows for the link, as the page's first render draws it once the vectors and
/// a remembered key are read: the header's lines, the guide, the methods, the line of methods that
/// cannot run, and the keyword columns. Whatever differs would move the columns when the page's
/// module takes over (see the end-to-end test « the columns do not move »).
async fn draw(
    manifest: &Manifest,
    remembered: &Remembered,
    link: ViewState,
    (fiches, questions): (
        impl Future<Output = Result<String, String>>,
        impl Future<Output = Result<String, String>>,
    ),
) -> Option<()> {
    let shown = if link.methods.is_empty() {
        DEFAULT_METHODS.to_vec()
    } else {
        link.methods
    };
    let question = link.question.unwrap_or_default();
    // Whatever the learner does to the box before the page's module arrives, emptying it
    // included, is theirs: marked, so that neither this module nor the page puts the link's
    // question back (`app::run`).
    let field = input(ids::QUESTION);
    let mark = field.clone();
    let edited = Closure::<dyn Fn()>::new(move || {
        // Once the page's module has taken over, the box and the results are its own.
        if mark.has_attribute(frame::TAKEN_OVER) {
            return;
        }
        mark.set_attribute(frame::EDITED, "").ok();
        // The columns drawn are the link's question's: they are not this one's until the
        // page's module takes over (`app::run` clears the mark).
        by_id(ids::RESULTATS)
            .set_attribute("aria-busy", "true")
            .ok();
    });
    field
        .add_event_listener_with_callback("input", edited.as_ref().unchecked_ref())
        .ok();
    edited.forget();
    let (fiches, questions) = (fiches.await.ok()?, questions.await.ok()?);
    let fiches = parse_fiches_with(&fiches, super::nfc).ok()?;
    let questions = parse_questions_with(&questions, super::nfc).ok()?;
    timing_mark("first:read");
    let example = questions.iter().find(|q| q.text == question);

    let key = remembered.key;
    frame::header(
        fiches.len(),
        questions.len(),
        None,
        key.then_some(&CostLine::default()),
    );
    set_hidden(&by_id(ids::COMMENCER), remembered.guide_closed);
    frame::method_choices(&shown);
    frame::expected(example, &fiches);
    if !field.has_attribute(frame::EDITED) {
        field.set_value(&question);
    }

    // Which methods can run, as the page will find once its vectors are read: Mistral's fiche
    // vectors ship or not, and the question's vector is the key's to make. Whether the shipped
    // vectors hold an exercise question's own is only known once they are read: then the page
    // says what cannot run. (Vectors this browser computed and cached are not looked for here:
    // the page's line then changes once it finds them.)
    let fiche_vectors = manifest.vecteurs.is_some();
    let question_vector = match (key, fiche_vectors, example) {
        (true, _, _) => Some(true),
        (false, true, Some(_)) => None,
        (false, _, _) => Some(false),
    };
    let local_runs = manifest.vecteurs_local.is_some();
    let blocked: Option<Vec<(Method, &str)>> = question_vector.map(|qv| {
        shown
            .iter()
            .filter_map(|&m| match m.encoder() {
                None => None,
                Some(Encoder::Mistral) => Some((m, frame::mistral_blocked(fiche_vectors, qv)?)),
                Some(Encoder::Local) => (!local_runs).then_some((m, frame::LOCAL_VECTORS_MISSING)),
            })
            .collect()
    });
    if let Some(blocked) = &blocked {
        let offer = frame::offer_local(blocked, &shown, key, local_runs);
        frame::unavailable(blocked, &[], None, offer);
    }
    let runnable: Vec<Method> = shown
        .iter()
        .copied()
        .filter(|m| blocked.iter().flatten().all(|(b, _)| b != m))
        .collect();
    let keyword: Vec<Keyword> = runnable
        .iter()
        .filter_map(|&m| match m {
            Method::Keyword(k) => Some(k),
            _ => None,
        })
        .collect();

    if question.trim().is_empty() {
        let columns = keyword.into_iter().map(|k| {
            results::empty(
                results::frame(Method::Keyword(k)),
                "Tapez une question ou choisissez un exemple.",
            )
        });
        replace_children(&by_id(ids::RESULTATS), columns);
        return Some(());
    }
    let expected = example.and_then(|q| q.expected.as_deref());
    let lab = Lab::new(fiches);
    timing_mark("first:indexed");
    frame::changes(&lab, &shown, &question);
    if blocked.is_some() {
        let search = |m: Method| match m {
            Method::Keyword(k) => Some(lab.keyword_search(k, &question, crate::measure::DEPTH)),
            _ => None,
        };
        frame::summary(&lab, &question, &runnable, expected, &search);
    }
    let columns = keyword.into_iter().map(|k| {
        let method = Method::Keyword(k);
        results::ranked(
            results::frame(method),
            &lab,
            method,
            &question,
            None,
            expected,
        )
    });
    replace_children(&by_id(ids::RESULTATS), columns);
    timing_mark("first:drawn");
    Some(())
}
