//! The page's controller: it holds the one [`State`], feeds it messages through [`update`], renders
//! the panels after each one, keeps the URL in step, and runs the effects `update` asks for.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::dom::{by_id, document, set_hidden, set_text};
use super::panels::{self, Memo};
use super::state::{Dataset, Effect, Msg, State};
use super::update::update;
use super::{events, ids, store, tasks};
use crate::data::{check_expected, parse_fiches_with, parse_questions};
use crate::fr::messages;
use crate::link::ViewState;

/// The page: its state, what its panels last rendered, and the messages waiting.
pub struct App {
    state: RefCell<State>,
    memo: RefCell<Memo>,
    queue: RefCell<VecDeque<Msg>>,
    busy: Cell<bool>,
    /// A write of the URL is scheduled (see [`App::sync_url_soon`]).
    url_pending: Cell<bool>,
    /// Dense tops asked of the page's worker and not superseded: `(set, vector key)`.
    dense_asked: RefCell<std::collections::HashSet<(u64, u64)>>,
}

pub type Shared = Rc<App>;

impl App {
    /// Applies `msg`, renders, runs what it started. A message sent while another is being
    /// handled (an effect that reports at once) waits its turn: `update` never re-enters.
    pub fn dispatch(self: &Rc<Self>, msg: Msg) {
        self.queue.borrow_mut().push_back(msg);
        if self.busy.replace(true) {
            return;
        }
        loop {
            let Some(msg) = self.queue.borrow_mut().pop_front() else {
                break;
            };
            let effects = match self.state.try_borrow_mut() {
                Ok(mut s) => update(&mut s, msg),
                Err(_) => Vec::new(),
            };
            self.render();
            for effect in effects {
                self.run(effect);
            }
        }
        self.busy.set(false);
        self.ask_dense();
    }

    /// Asks the page's worker for the dense top of the question in the box, once, when the view
    /// needs it and the lab does not know it; and for those of committed questions waiting to be
    /// journaled (these as a measurement's are: they neither supersede the box's nor are
    /// superseded by it).
    fn ask_dense(self: &Rc<Self>) {
        if let Some(Some((set, vector))) = self.peek(State::dense_wanted) {
            if self.first_ask(set, &vector) {
                spawn(tasks::dense_question(self.clone(), set, vector, true));
            }
        }
        for (set, vector) in self.peek(State::dense_waiting).unwrap_or_default() {
            if self.first_ask(set, &vector) {
                spawn(tasks::dense_question(self.clone(), set, vector, false));
            }
        }
    }

    /// Whether this dense top was not asked already (and is now).
    fn first_ask(&self, set: u64, vector: &[f32]) -> bool {
        let key = (set, crate::lab::vector_key(vector));
        let mut asked = self.dense_asked.borrow_mut();
        if asked.len() > 4096 {
            asked.clear();
        }
        asked.insert(key)
    }

    pub fn forget_dense_asked(&self, key: (u64, u64)) {
        self.dense_asked.borrow_mut().remove(&key);
    }

    /// Reads the state now (between two awaits of a task, never across one).
    pub fn peek<R>(&self, f: impl FnOnce(&State) -> R) -> Option<R> {
        self.state.try_borrow().ok().map(|s| f(&s))
    }

    /// Whether `epoch` is still the catalogue's: a task checks it after every await.
    pub fn is_current(&self, epoch: u64) -> bool {
        self.peek(|s| s.data.epoch == epoch).unwrap_or(false)
    }

    fn render(self: &Rc<Self>) {
        let (Ok(s), Ok(mut memo)) = (self.state.try_borrow(), self.memo.try_borrow_mut()) else {
            return;
        };
        panels::render(&s, &mut memo);
        let deferred = memo.take_deferred();
        drop((s, memo));
        if deferred {
            self.render_soon();
        }
        self.sync_url_soon();
    }

    /// Renders again on the next turn of the event loop: a heavy view builds one part per turn
    /// ([`panels::Memo::defer`]), and input waiting meanwhile is handled between two parts.
    fn render_soon(self: &Rc<Self>) {
        let app = self.clone();
        spawn(async move {
            tasks::yield_now().await;
            app.render();
        });
    }

    /// Writes the state into the URL on the next turn of the event loop, once for however many
    /// renders came before. Chromium's `replaceState` recalculates the page's styles at once when
    /// the DOM has changed (40-60 ms after « Mesurer » is first shown); later, it costs nothing.
    fn sync_url_soon(self: &Rc<Self>) {
        if self.url_pending.replace(true) {
            return;
        }
        let app = self.clone();
        spawn(async move {
            tasks::yield_now().await;
            app.url_pending.set(false);
            if let Some(link) = app.peek(State::link_state) {
                sync_url(&link);
            }
        });
    }

    fn run(self: &Rc<Self>, effect: Effect) {
        let app = self.clone();
        match effect {
            Effect::CheckKey { job } => spawn(tasks::check_key(app, job)),
            Effect::EmbedQuestion {
                job,
                question,
                generation,
            } => spawn(tasks::embed_question(app, job, question, generation)),
            Effect::ComputeVectors { job, fiches } => {
                spawn(tasks::compute_vectors(app, job, fiches))
            }
            Effect::MeasureDense { job, questions } => {
                spawn(tasks::measure_dense(app, job, questions))
            }
            Effect::Answer {
                job,
                model,
                question,
                sent,
            } => spawn(tasks::answer(app, job, model, question, sent)),
            Effect::Evaluate {
                job,
                model,
                method,
                items,
            } => spawn(tasks::evaluate(app, job, model, method, items)),
            Effect::LoadVectors { epoch } => spawn(tasks::load_vectors(app, epoch)),
            Effect::ReadFiles { files, selection } => {
                spawn(tasks::read_files(app, files, selection))
            }
            Effect::Measure {
                seq,
                epoch,
                methods,
                vectors,
            } => spawn(tasks::measure(app, seq, epoch, methods, vectors)),
            Effect::ReadRuns { epoch, files } => spawn(tasks::read_runs(app, epoch, files)),
            Effect::LoadLocalModel => spawn(tasks::load_local_model(app)),
            Effect::Encoder(request) => super::encoder::send(&app, &request, None),
            Effect::SaveJournal(text) => spawn(async move {
                store::put_text(store::JOURNAL, store::JOURNAL_KEY, &text).await;
            }),
            Effect::RememberKey(Some(key)) => store::remember_key(&key),
            Effect::RememberKey(None) => store::forget_key(),
            Effect::Clipboard(link) => spawn(tasks::copy_link(app, link)),
            Effect::Download(name, bytes) => super::dom::download(&name, &bytes),
            Effect::Focus(id) => focus(id),
            Effect::OpenSettings => {
                by_id(ids::REGLAGES).set_attribute("open", "").ok();
                focus(ids::CLE);
            }
            Effect::HideGuide => store::hide_guide(),
        }
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

fn spawn(task: impl std::future::Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(task);
}

/// Writes the state into the URL's fragment (replacing the history entry, not adding one).
fn sync_url(link: &ViewState) {
    let fragment = format!("#{}", link.to_fragment());
    let Some(w) = web_sys::window() else { return };
    if w.location().hash().ok().as_deref() == Some(fragment.as_str()) {
        return;
    }
    if let Ok(h) = w.history() {
        h.replace_state_with_url(&JsValue::NULL, "", Some(&fragment))
            .ok();
    }
}

/// The state the URL's fragment carries. Unknown keys are ignored (see `link`).
pub fn fragment_state() -> ViewState {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    ViewState::from_fragment(&hash)
}

/// Loads the bundled data (relative to the page, so it works under any sub-path) and starts.
pub async fn run() {
    // Read before anything renders: every render writes the state's own fragment into the URL.
    let link = fragment_state();
    let missing = ids::missing(&document());
    if !missing.is_empty() {
        fail(&format!(
            "la page n'a pas les éléments {}.",
            missing.join(", ")
        ));
        return;
    }
    let app = match load().await {
        Ok(state) => Rc::new(App {
            state: RefCell::new(state),
            memo: RefCell::new(Memo::default()),
            queue: RefCell::new(VecDeque::new()),
            busy: Cell::new(false),
            url_pending: Cell::new(false),
            dense_asked: RefCell::new(Default::default()),
        }),
        Err(message) => {
            fail(&message);
            return;
        }
    };
    events::listen(&app);
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
    app.dispatch(Msg::FragmentChanged(link));
    if let Some(typed) = typed {
        app.dispatch(Msg::QuestionTyped(typed));
    }
    if store::guide_hidden() {
        app.dispatch(Msg::GuideClosed);
    }
    // In the first paint (these dispatches render in the same task): the header's cost line and
    // which methods can run depend on it, and the first module drew them with it.
    if let Some(saved) = store::remembered_key() {
        app.dispatch(Msg::KeyTyped(saved));
        app.dispatch(Msg::RememberConfirmed);
    }
    tasks::load_vectors(app.clone(), 0).await;
    if let Some(text) = store::get_text(store::JOURNAL, store::JOURNAL_KEY).await {
        app.dispatch(Msg::JournalLoaded(crate::journal::Journal::from_jsonl(
            &text,
        )));
    }
    app.dispatch(Msg::Settled);
    if let Some(body) = document().body() {
        body.set_attribute("data-ready", "true").ok();
    }
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
    // Both requests in flight at once (the HTML preloads both; each await is a round trip to the
    // network process all the same).
    let fiches = super::dom::fetch_text("data/fiches.jsonl");
    let questions = super::dom::fetch_text("data/questions.csv");
    let fiches_text = fiches.await?;
    let questions_text = questions.await?;
    let fiches = parse_fiches_with(&fiches_text, super::nfc).map_err(|e| messages::data(&e))?;
    let questions = parse_questions(&questions_text).map_err(|e| messages::data(&e))?;
    check_expected(&fiches, &questions).map_err(|e| messages::data(&e))?;
    let data = Dataset::new(0, fiches, questions, None);
    let mut state = State::new(data, (fiches_text, questions_text));
    state.shared_origin = web_sys::window()
        .and_then(|w| w.location().hostname().ok())
        .is_some_and(|h| crate::link::shared_origin(&h));
    Ok(state)
}
