//! The page's side of its Web Worker ([`crate::worker`]): started on first need, requests kept
//! until it says it listens, replies turned into messages (the local encoder's) or handed to the
//! task awaiting them ([`ask`]: fiche vectors and dense searches), and its death (its module not
//! loaded, a crash) into a French message while the rest of the page goes on.

use crate::page::LocalMsg;
use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::runtime::Shared;
use super::worker_handle::{Handle, PendingModel, Waiter};
use crate::encoder::protocol::{Reply, Request};
use crate::page::Msg;

/// The worker's starter, beside the page (`www/encodeur-demarrage.js`).
const STARTER: &str = "encodeur-demarrage.js";

/// A number no other request of this page carries: a vectors set's or a dense request's.
pub fn ticket(app: &Shared) -> u64 {
    let t = &app.worker.tickets;
    t.set(t.get() + 1);
    t.get()
}

/// Sends `request` (which carries `key`, its set or ticket) and waits for its reply; `None` when
/// the worker died or could not start (the page is told apart, by [`LocalMsg::WorkerDied`]).
pub async fn ask(
    app: &Shared,
    key: u64,
    request: &Request,
    blob: Option<&web_sys::Blob>,
) -> Option<Reply> {
    let slot = Rc::new(RefCell::new(None));
    let mut resolver = None;
    let promise = js_sys::Promise::new(&mut |resolve, _| resolver = Some(resolve));
    let resolve = resolver?;
    app.worker.waiters.borrow_mut().insert(
        key,
        Waiter {
            reply: slot.clone(),
            resolve,
        },
    );
    send(app, request, blob);
    wasm_bindgen_futures::JsFuture::from(promise).await.ok();
    let reply = slot.borrow_mut().take();
    reply
}

/// Embeds `texts` with the local encoder in the worker, as its request `job`, telling `progress`
/// of each text done; `None` when the worker died or the request was abandoned ([`abandon`]).
pub async fn embed_texts(
    app: &Shared,
    job: u64,
    texts: Vec<String>,
    progress: impl Fn(usize) + 'static,
) -> Option<Vec<Vec<f32>>> {
    app.worker
        .progress
        .borrow_mut()
        .insert(job, Rc::new(progress));
    let reply = ask(app, job, &Request::Texts { job, texts }, None).await;
    app.worker.progress.borrow_mut().remove(&job);
    match reply {
        Some(Reply::Texts { vectors, .. }) => Some(vectors),
        _ => None,
    }
}

/// Abandons request `job` of texts: the worker stops computing it, its task ends with nothing.
pub fn abandon(app: &Shared, job: u64) {
    send(app, &Request::Stop { job }, None);
    wake(app, job, None);
}

/// Hands `reply` to the task awaiting `key` (none: the reply is dropped).
fn wake(app: &Shared, key: u64, reply: Option<Reply>) {
    let waiter = app.worker.waiters.borrow_mut().remove(&key);
    if let Some(waiter) = waiter {
        *waiter.reply.borrow_mut() = reply;
        waiter.resolve.call0(&JsValue::NULL).ok();
    }
}

/// The worker is gone: every awaiting task gets `None`.
fn wake_all(app: &Shared) {
    let keys: Vec<u64> = app.worker.waiters.borrow().keys().copied().collect();
    keys.into_iter().for_each(|k| wake(app, k, None));
}

/// Hands the model file to the worker, which checks its content hash (`expected`) and prepares
/// it. What happens to the browser's copy is decided by the worker's answer ([`replied`]): a
/// downloaded file is kept once prepared, a cached one that is refused is deleted.
pub fn prepare(app: &Shared, blob: web_sys::Blob, expected: Option<String>, cached: bool) {
    let key = expected.as_deref().map(crate::encoder::identity::cache_key);
    let downloaded = (!cached).then(|| blob.clone());
    *app.worker.pending_model.borrow_mut() = Some(PendingModel { key, downloaded });
    send(app, &Request::Prepare { sha256: expected }, Some(&blob));
}

/// The worker prepared the model: a downloaded one is kept in the cache under its hash, and the
/// page is told if it could not be (storage full, a private window).
fn model_ready(app: &Shared) {
    let Some(pending) = app.worker.pending_model.borrow_mut().take() else {
        return;
    };
    let named = pending.key.is_some();
    let (Some(key), Some(blob)) = (pending.key, pending.downloaded) else {
        if !named {
            app.dispatch(Msg::Local(LocalMsg::NotKept));
        }
        return;
    };
    let app = app.clone();
    wasm_bindgen_futures::spawn_local(async move {
        if !super::store::put(super::store::MODEL, &key, &blob).await
            && !put_model_bytes(&key, &blob).await
        {
            app.dispatch(Msg::Local(LocalMsg::NotKept));
        }
    });
}

/// The model kept as its bytes (an `ArrayBuffer`) where the browser refuses to store a Blob:
/// WebKit's private windows (« Error preparing Blob/File data to be stored in object store »)
/// store the same 81 MB as bytes. Read back by `tasks::local`.
async fn put_model_bytes(key: &str, blob: &web_sys::Blob) -> bool {
    let Ok(bytes) = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await else {
        return false;
    };
    super::store::put(super::store::MODEL, key, &bytes).await
}

/// The worker refused the model: a cached copy is deleted and fetched again (`true`); a
/// downloaded one was never kept (`false`).
fn model_refused(app: &Shared) -> bool {
    let Some(pending) = app.worker.pending_model.borrow_mut().take() else {
        return false;
    };
    match (pending.key, pending.downloaded) {
        (Some(key), None) => {
            wasm_bindgen_futures::spawn_local(async move {
                super::store::delete(super::store::MODEL, &key).await;
            });
            true
        }
        _ => false,
    }
}

/// Sends `request` (with the model file for [`Request::Prepare`]), starting the worker first if
/// needed.
pub fn send(app: &Shared, request: &Request, blob: Option<&web_sys::Blob>) {
    // A measurement's question vectors go beside the request, as one Float32Array
    // (`encoder::wire`): through serde, 40 × 1,024 numbers were a long task here.
    let (head, rows) = match request {
        Request::Dense {
            set,
            ticket,
            vectors,
            question,
        } if !vectors.is_empty() => (
            &Request::Dense {
                set: *set,
                ticket: *ticket,
                vectors: Vec::new(),
                question: *question,
            },
            Some(vectors),
        ),
        _ => (request, None),
    };
    let Ok(value) = serde_wasm_bindgen::to_value(head) else {
        return;
    };
    let message = js_sys::Object::new();
    js_sys::Reflect::set(&message, &"request".into(), &value).ok();
    if let Some(rows) = rows {
        if crate::encoder::wire::put_rows(&message, rows).is_none() {
            // Rows of different lengths (never from the page): sent as they are.
            let Ok(whole) = serde_wasm_bindgen::to_value(request) else {
                return;
            };
            js_sys::Reflect::set(&message, &"request".into(), &whole).ok();
        }
    }
    if let Some(blob) = blob {
        js_sys::Reflect::set(&message, &"blob".into(), blob).ok();
    }
    // Never dispatch while the handle is borrowed: `update` may send again.
    let failed = (|| {
        let mut slot = app.worker.handle.borrow_mut();
        if slot.as_ref().is_some_and(|h| h.restartable) {
            // Dropped here, outside its own handlers.
            *slot = None;
        }
        if slot.is_none() {
            match start(app) {
                Ok(handle) => *slot = Some(handle),
                Err(why) => return Some(why),
            }
        }
        let handle = slot.as_mut()?;
        if handle.dead {
            return Some(String::new());
        }
        if handle.started {
            handle.worker.post_message(&message).ok();
        } else {
            handle.waiting.push(message.into());
        }
        None
    })();
    match failed {
        // Already said when it died: only the tasks awaiting it are told.
        Some(why) if why.is_empty() => wake_all(app),
        Some(why) => {
            wake_all(app);
            app.dispatch(Msg::Local(LocalMsg::WorkerDied(why)));
        }
        None => {}
    }
}

fn start(app: &Shared) -> Result<Handle, String> {
    let worker = web_sys::Worker::new(STARTER).map_err(|e| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "le navigateur refuse de le lancer".to_owned())
    })?;
    let on_reply = app.clone();
    let onmessage =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            if let Some(reply) = decode(e.data()) {
                replied(&on_reply, reply);
            }
        });
    let on_error = app.clone();
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        // Handled here: the page says it, the console need not.
        e.prevent_default();
        let detail = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "son module n'a pas pu être chargé".to_owned());
        let started = (|| {
            let mut slot = on_error.worker.handle.borrow_mut();
            let handle = slot.as_mut()?;
            handle.dead = true;
            handle.restartable = !handle.started;
            handle.waiting.clear();
            handle.worker.terminate();
            Some(handle.started)
        })();
        wake_all(&on_error);
        on_error.dispatch(match started {
            Some(false) => Msg::Local(LocalMsg::WorkerNotStarted(detail)),
            _ => Msg::Local(LocalMsg::WorkerDied(detail)),
        });
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    Ok(Handle {
        worker,
        started: false,
        waiting: Vec::new(),
        dead: false,
        restartable: false,
        _onmessage: onmessage,
        _onerror: onerror,
    })
}

/// A reply from the worker; numbers come in typed arrays beside it (`encoder::wire`): a
/// catalogue's vectors, the question vectors of a vectors file (one row per question), and dense
/// tops.
fn decode(data: JsValue) -> Option<Reply> {
    let rows = crate::encoder::wire::take_rows(&data);
    let tops_sent = js_sys::Reflect::has(&data, &"lens".into()).unwrap_or(false);
    let beside = crate::encoder::wire::take_tops(&data);
    let mut reply = serde_wasm_bindgen::from_value::<Reply>(data).ok()?;
    if let Reply::Dense { ticket, tops, .. } = &mut reply {
        match beside {
            Some(beside) => *tops = beside,
            // Never from this worker; said rather than taken as tops with no fiche.
            None if tops_sent => {
                return Some(Reply::DenseFailed {
                    ticket: *ticket,
                    reason: "les fiches trouvées sont arrivées incomplètes".to_owned(),
                })
            }
            None => {}
        }
    }
    match (&mut reply, rows) {
        (Reply::Texts { vectors, .. }, Some(rows)) => *vectors = rows,
        (Reply::Vectors { set, questions, .. }, Some(rows)) => {
            if rows.len() != questions.len() {
                // Never from this worker; said rather than left without an answer.
                return Some(Reply::VectorsRefused {
                    set: *set,
                    reason: "les vecteurs des questions sont arrivés incomplets".to_owned(),
                });
            }
            for ((_, vector), row) in questions.iter_mut().zip(rows) {
                *vector = row;
            }
        }
        _ => {}
    }
    Some(reply)
}

fn replied(app: &Shared, reply: Reply) {
    let msg = match reply {
        Reply::Started => {
            if let Some(handle) = app.worker.handle.borrow_mut().as_mut() {
                handle.started = true;
                for message in handle.waiting.drain(..) {
                    handle.worker.post_message(&message).ok();
                }
            }
            return;
        }
        Reply::Preparing { percent } => Msg::Local(LocalMsg::Preparing(percent)),
        Reply::Ready => {
            model_ready(app);
            Msg::Local(LocalMsg::Ready)
        }
        Reply::Refused { reason } if model_refused(app) => Msg::Local(LocalMsg::Evicted(reason)),
        Reply::Refused { reason } => Msg::Local(LocalMsg::Failed(format!(
            "Le modèle local est refusé : {reason}. Sens local ne peut pas plonger de nouvelle question."
        ))),
        Reply::Question { text, vector } => Msg::Local(LocalMsg::QuestionEmbedded {
            question: text,
            vector,
        }),
        Reply::Progress { job, done } => {
            // Taken out of the table before it is told: telling it dispatches a message.
            let hear = app.worker.progress.borrow().get(&job).cloned();
            if let Some(hear) = hear {
                hear(done);
            }
            return;
        }
        Reply::Rows { done, total, bytes } => Msg::Local(LocalMsg::Rows { done, total, bytes }),
        Reply::RowsFailed { reason } => Msg::Local(LocalMsg::RowsFailed(reason)),
        Reply::Texts { job, .. } => return wake(app, job, Some(reply)),
        Reply::Vectors { set, .. } | Reply::VectorsRefused { set, .. } => {
            return wake(app, set, Some(reply));
        }
        Reply::Dense { ticket, .. }
        | Reply::Superseded { ticket }
        | Reply::DenseFailed { ticket, .. } => return wake(app, ticket, Some(reply)),
    };
    app.dispatch(msg);
}
