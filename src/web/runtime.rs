//! The page's runtime: it holds the one [`State`], feeds it messages through [`update`], renders
//! the panels after each one, keeps the URL in step, and hands each effect to the runner it was
//! given ([`super::app::run_effect`]). It owns the handles the model names by id: the runs of
//! its keyed jobs and the files chosen.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::api::Call;
use super::panels::{self, Memo};
use super::turns::yield_now;
use crate::link::ViewState;
use crate::page::{update, Effect, FileRef, Msg, Report, RunId, State};

/// What runs an effect (the page's: [`super::app::run_effect`]).
pub type Runner = fn(&Shared, Effect);

/// The page: its state, what its panels last rendered, the messages waiting, and the handles.
pub struct App {
    state: RefCell<State>,
    memo: RefCell<Memo>,
    queue: RefCell<VecDeque<Msg>>,
    busy: Cell<bool>,
    /// A write of the URL is scheduled (see [`App::sync_url_soon`]).
    url_pending: Cell<bool>,
    runner: Runner,
    /// The keyed jobs' runs in flight, by the id the model's tracker gave them; a run leaves when
    /// its task ends or the model stops it.
    runs: RefCell<HashMap<RunId, Call>>,
    /// Files chosen and not yet handed to the task that reads them (cleared after each dispatch:
    /// a selection the model refused is never read).
    files: RefCell<HashMap<u64, web_sys::File>>,
    next_file: Cell<u64>,
    /// Runs whose task is still running, stopped or not ([`App::spawn_run`]).
    paid_tasks: Cell<usize>,
    /// The channel this tab tells the others on that the journal changed.
    journal_channel: RefCell<Option<web_sys::BroadcastChannel>>,
    /// The page's worker and the tasks awaiting its replies ([`super::worker_client`]).
    pub worker: super::worker_handle::WorkerClient,
}

pub type Shared = Rc<App>;

impl App {
    pub fn new(state: State, runner: Runner) -> Shared {
        Rc::new(App {
            state: RefCell::new(state),
            memo: RefCell::new(Memo::default()),
            queue: RefCell::new(VecDeque::new()),
            busy: Cell::new(false),
            url_pending: Cell::new(false),
            runner,
            runs: RefCell::new(HashMap::new()),
            files: RefCell::new(HashMap::new()),
            next_file: Cell::new(0),
            paid_tasks: Cell::new(0),
            journal_channel: RefCell::new(None),
            worker: Default::default(),
        })
    }

    /// Keeps the channel the tabs tell each other on that the journal changed.
    pub fn keep_journal_channel(&self, channel: web_sys::BroadcastChannel) {
        *self.journal_channel.borrow_mut() = Some(channel);
    }

    /// Tells the other tabs `message` on that channel (none: nothing to tell).
    pub fn tell_journal_channel(&self, message: &JsValue) {
        if let Some(channel) = &*self.journal_channel.borrow() {
            channel.post_message(message).ok();
        }
    }

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
            let now = String::from(js_sys::Date::new_0().to_iso_string());
            // `update` never re-enters (messages sent meanwhile wait in the queue), so the state
            // is free here; a borrow held across a dispatch would be a bug, said loudly.
            let effects = match self.state.try_borrow_mut() {
                Ok(mut s) => update(&mut s, msg, &now),
                Err(_) => {
                    web_sys::console::error_1(&JsValue::from_str(
                        "rag-fiches: a message arrived while the state was borrowed",
                    ));
                    Vec::new()
                }
            };
            self.render();
            for effect in effects {
                (self.runner)(self, effect);
            }
        }
        self.busy.set(false);
        self.files.borrow_mut().clear();
    }

    /// Keeps the files of a selection for the task that will read them, and names them for the
    /// model.
    pub fn hold_files(&self, list: Option<web_sys::FileList>) -> Vec<FileRef> {
        let list: Vec<web_sys::File> = list
            .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
            .unwrap_or_default();
        let mut held = self.files.borrow_mut();
        list.into_iter()
            .map(|f| {
                let id = self.next_file.get() + 1;
                self.next_file.set(id);
                let named = FileRef {
                    id,
                    name: f.name(),
                    size: f.size() as u64,
                };
                held.insert(id, f);
                named
            })
            .collect()
    }

    pub fn take_files(&self, refs: &[FileRef]) -> Vec<web_sys::File> {
        let mut held = self.files.borrow_mut();
        refs.iter().filter_map(|r| held.remove(&r.id)).collect()
    }

    /// The handle of run `id`: a new call, whose waits and reports the page hears of under the
    /// run's id.
    pub fn start(self: &Rc<Self>, id: RunId) -> Run {
        let call = Call::new();
        let app = Rc::downgrade(self);
        call.on_wait(move |_, wait| {
            if let Some(app) = app.upgrade() {
                app.dispatch(Msg::Report(id, Report::Waiting(wait)));
            }
        });
        self.runs.borrow_mut().insert(id, call.clone());
        Run {
            id,
            call,
            app: Rc::downgrade(self),
        }
    }

    /// Runs the task of run `id`, which leaves the table when the task ends; a `paid` one is
    /// counted while it runs ([`App::mark_paid_tasks`]).
    pub fn spawn_run(
        self: &Rc<Self>,
        id: RunId,
        paid: bool,
        task: impl std::future::Future<Output = ()> + 'static,
    ) {
        let app = self.clone();
        let count = usize::from(paid);
        self.paid_tasks.set(self.paid_tasks.get() + count);
        self.mark_paid_tasks();
        spawn(async move {
            task.await;
            app.runs.borrow_mut().remove(&id);
            app.paid_tasks
                .set(app.paid_tasks.get().saturating_sub(count));
            app.mark_paid_tasks();
        });
    }

    /// Says on the page's `<body>` how many tasks that may spend the key are still running
    /// (`data-appels`): « 0 » means no request to Mistral can be sent until the next gesture, a
    /// fact the end-to-end tests wait for instead of a fixed sleep.
    pub fn mark_paid_tasks(&self) {
        if let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        {
            body.set_attribute("data-appels", &self.paid_tasks.get().to_string())
                .ok();
        }
    }

    /// Stops run `id`, if it still runs: its request is aborted, no retry follows.
    pub fn stop(&self, id: RunId) {
        if let Some(call) = self.runs.borrow_mut().remove(&id) {
            call.cancel();
        }
    }

    /// Ends run `id`'s wait before its next attempt.
    pub fn skip_wait(&self, id: RunId) {
        if let Some(call) = self.runs.borrow().get(&id) {
            call.skip_wait();
        }
    }

    /// Reads the state now (between two awaits of a task, never across one).
    pub fn peek<R>(&self, f: impl FnOnce(&State) -> R) -> Option<R> {
        self.state.try_borrow().ok().map(|s| f(&s))
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
            yield_now().await;
            app.render();
        });
    }

    /// Writes the state into the URL on the next turn of the event loop, once for however many
    /// renders came before. Chromium's `replaceState` recalculates the page's styles at once when
    /// the DOM has changed (a long task after « Mesurer » is first shown); later, it costs
    /// nothing.
    fn sync_url_soon(self: &Rc<Self>) {
        if self.url_pending.replace(true) {
            return;
        }
        let app = self.clone();
        spawn(async move {
            yield_now().await;
            app.url_pending.set(false);
            if let Some(link) = app.peek(State::link_state) {
                sync_url(&link);
            }
        });
    }
}

/// A keyed job's run as its task holds it: its call, aborted when the model stops the run, and
/// the way to report (a report the model no longer tracks is dropped there).
#[derive(Clone)]
pub struct Run {
    pub id: RunId,
    pub call: Call,
    app: std::rc::Weak<App>,
}

impl Run {
    pub fn report(&self, report: Report) {
        if let Some(app) = self.app.upgrade() {
            app.dispatch(Msg::Report(self.id, report));
        }
    }
}

pub fn spawn(task: impl std::future::Future<Output = ()> + 'static) {
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
