//! The page's start-up and its effect runner: it loads the bundled catalogue, builds the
//! [`State`], starts the [`App`] runtime with [`run_effect`], and turns each effect `update` asks
//! for into a task, a call or a write.

use crate::page::{KeyMsg, NavMsg, SearchMsg};
use wasm_bindgen::prelude::*;

use super::dom::{by_id, document, set_hidden, set_text};
use super::runtime::{fragment_state, spawn, App, Shared};
use super::{events, ids, store, tasks};
use crate::data::{check_expected, parse_fiches_with, parse_questions_with};
use crate::fr::messages;
use crate::page::{Dataset, Effect, Focus, Msg, State, Work};

/// Runs one effect `update` asked for: a task, a call, a write, a focus.
pub fn run_effect(shell: &Shared, effect: Effect) {
    let app = shell.clone();
    match effect {
        Effect::Start { run, work } => {
            let handle = shell.start(run);
            let paid = work.is_paid();
            // The browser's files, taken now: the runtime lets go of those not taken by the end
            // of this dispatch.
            let files = match &work {
                Work::ReadFiles { files, .. } | Work::ReadRuns { files } => shell.take_files(files),
                _ => Vec::new(),
            };
            shell.spawn_run(run, paid, tasks::run(app, handle, work, files));
        }
        Effect::Stop(run) => shell.stop(run),
        Effect::SkipWait(run) => shell.skip_wait(run),
        Effect::ForgetQuestionVector(question) => spawn(async move {
            let key = crate::mistral::cache::question_vector(crate::mistral::MODEL, &question);
            store::delete(store::QUESTION_VECTORS, &key).await;
        }),
        Effect::Ready => {
            if let Some(body) = document().body() {
                body.set_attribute("data-ready", "true").ok();
            }
            register_service_worker();
        }
        Effect::Worker(request) => super::worker_client::send(&app, &request, None),
        Effect::JournalAppend(entries) => spawn(tasks::append_journal(app, entries)),
        Effect::JournalErase => spawn(tasks::erase_journal(app)),
        Effect::KeepJudgments { entry, text } => {
            let kept =
                super::frame::local_storage().is_some_and(|s| s.set_item(&entry, &text).is_ok());
            // Told after this dispatch: an effect runs inside one.
            spawn(async move {
                app.dispatch(Msg::Judge(crate::page::JudgeMsg::Kept(kept)));
            });
        }
        Effect::RememberKey(Some(key)) => store::remember_key(&key),
        Effect::RememberKey(None) => store::forget_key(),
        Effect::Clipboard(link) => spawn(tasks::copy_link(app, link)),
        Effect::Download(name, bytes) => super::dom::download(&name, &bytes),
        Effect::Focus(place) => focus(match place {
            Focus::Results => ids::RESULTATS,
            Focus::TabChercher => ids::ONGLET_CHERCHER,
            Focus::TabMesurer => ids::ONGLET_MESURER,
            Focus::TabAmeliorer => ids::ONGLET_AMELIORER,
            Focus::TabQuestions => ids::ONGLET_QUESTIONS,
        }),
        Effect::OpenSettings => {
            by_id(ids::REGLAGES).set_attribute("open", "").ok();
            focus(ids::CLE);
        }
        Effect::HideGuide => store::hide_guide(),
        Effect::Step => spawn(async move {
            super::turns::yield_now().await;
            app.dispatch(Msg::Step);
        }),
    }
}

/// Scrolls to the element with id `id` and focuses it (focusable for the occasion if it is not).
fn focus(id: &str) {
    let el = by_id(id);
    if el.get_attribute("tabindex").is_none()
        && !matches!(el.tag_name().as_str(), "INPUT" | "BUTTON" | "SELECT")
    {
        el.set_attribute("tabindex", "-1").ok();
    }
    el.scroll_into_view();
    if let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
        el.focus().ok();
    }
}

/// Loads the bundled data (relative to the page, so it works under any sub-path) and starts.
pub async fn run() {
    // Read before anything renders: every render writes the state's own fragment into the URL.
    let link = fragment_state();
    let missing = super::panels::missing_ids(&document());
    if !missing.is_empty() {
        fail(&format!(
            "la page n'a pas les éléments {}.",
            missing.join(", ")
        ));
        return;
    }
    // What a closed or reloaded tab's worker left behind, removed before anything else is stored.
    spawn(store::remove_orphan_rows());
    let app = match load().await {
        Ok(state) => App::new(state, run_effect),
        Err(message) => {
            fail(&message);
            return;
        }
    };
    events::listen(&app);
    app.mark_paid_tasks();
    // The controls the first module could not serve come alive with the listeners that serve
    // them (`data-attend-module` in www/index.html).
    while let Ok(Some(el)) = document().query_selector("[data-attend-module][inert]") {
        if el.remove_attribute("inert").is_err() {
            break;
        }
    }
    by_id(ids::RESULTATS).remove_attribute("aria-busy").ok();
    super::dom::input(ids::QUESTION)
        .set_attribute(super::frame::TAKEN_OVER, "")
        .ok();
    // What the learner typed while this module loaded (the first module only ever writes the
    // link's question there): kept, not overwritten by the link's.
    // The box marked as edited by the first module counts even emptied.
    let field = super::dom::input(ids::QUESTION);
    let typed = field.value();
    let edited = field.has_attribute(super::frame::EDITED);
    let typed =
        ((edited || !typed.is_empty()) && Some(&typed) != link.question.as_ref()).then_some(typed);
    // The first render, with the link's view and question: the catalogue can be searched at once,
    // while its vectors, the journal and a remembered key are read.
    app.dispatch(Msg::Nav(NavMsg::FragmentChanged(link)));
    if let Some(typed) = typed {
        app.dispatch(Msg::Search(SearchMsg::Typed(typed)));
    }
    if store::guide_hidden() {
        app.dispatch(Msg::Nav(NavMsg::GuideClosed));
    }
    // In the first paint (these dispatches render in the same task): the header's cost line and
    // which methods can run depend on it, and the first module drew them with it.
    if let Some(saved) = store::remembered_key() {
        app.dispatch(Msg::Key(KeyMsg::Typed(saved)));
        app.dispatch(Msg::Key(KeyMsg::RememberConfirmed));
    }
    tasks::start_journal(app.clone()).await;
    // Ready ([`Effect::Ready`]) once the exercise's vectors have been looked for too.
    app.dispatch(Msg::Settled);
}

/// Registers the page's service worker (`www/sw.js`), once the page is ready: it keeps this
/// build for use offline after this visit. Where there is none (an insecure context, a browser
/// that refuses it), the page works online as before.
fn register_service_worker() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator = window.navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let promise = navigator.service_worker().register("sw.js");
    spawn(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    });
}

fn fail(message: &str) {
    let alert = by_id(ids::ERREUR);
    set_text(
        &alert,
        &format!("Le laboratoire n'a pas pu démarrer. {message}"),
    );
    set_hidden(&alert, false);
    web_sys::console::error_1(&JsValue::from_str(message));
}

async fn load() -> Result<State, String> {
    // Both requests in flight at once (the page's first script started both; each await is a round trip to the
    // network process all the same).
    let fiches = super::dom::fetch_text("data/fiches.jsonl");
    let questions = super::dom::fetch_text("data/questions.csv");
    let manifest = super::dom::fetch_text("data/manifeste.json");
    let fiches_text = fiches.await?;
    let questions_text = questions.await?;
    // A deploy without a manifest (or with one that does not parse) ships nothing more.
    let manifest = super::frame::Manifest::parse(&manifest.await.unwrap_or_default());
    let fiches = parse_fiches_with(&fiches_text, super::nfc).map_err(|e| messages::data(&e))?;
    let questions =
        parse_questions_with(&questions_text, super::nfc).map_err(|e| messages::data(&e))?;
    check_expected(&fiches, &questions).map_err(|e| messages::data(&e))?;
    let data = Dataset::new(0, fiches.clone(), questions.clone(), None);
    let mut state = State::new(data, (fiches, questions), super::nfc);
    // This tab's name in the journal's records: random, so that two tabs never write one key.
    state.journal_writer.0 = format!("{:08x}", (js_sys::Math::random() * 4_294_967_296.0) as u64);
    state.shipped_files = Some(crate::page::ShippedFiles {
        vectors: manifest.vecteurs,
        local_vectors: manifest.vecteurs_local,
        answers: manifest.reponses,
    });
    state.shared_origin = web_sys::window()
        .and_then(|w| w.location().hostname().ok())
        .is_some_and(|h| crate::link::shared_origin(&h));
    // The device's memory in GiB where the browser says it (Chromium; absent elsewhere).
    let device_gib = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w.navigator(), &"deviceMemory".into()).ok())
        .and_then(|v| v.as_f64());
    state.fiches_max = crate::data::intake::fiches_limit(device_gib);
    Ok(state)
}
