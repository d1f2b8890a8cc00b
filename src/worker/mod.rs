//! The page's Web Worker (wasm32 only; its module is `src/bin/encodeur.rs`, built by Trunk as a
//! worker beside the page): it owns the local encoder's model and embeds questions and fiches,
//! and it holds the catalogue's Mistral fiche vectors and runs their dense searches, off the
//! page's thread. With `web`, the only module that touches a browser.
//!
//! Messages are [`protocol::Request`] in and [`protocol::Reply`] out (serde, through
//! `serde-wasm-bindgen`). Work goes through a [`protocol::Queue`]: between two texts the worker
//! yields to its event loop, so a newer question or catalogue that arrives meanwhile is taken
//! into account before the next text. Errors come back as replies.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::data::npy;
use crate::data::stored::{Loaded, Loader, MemoryStore, RowStore, StoredSet};
use crate::data::vectors::{self, VectorsError};
use crate::encoder::protocol::{DenseQueue, Queue, Reply, Request, Work};
use crate::encoder::Model;
use crate::fr::messages;
use crate::lab::Lab;
use crate::mistral;

mod blocks;
mod rows;
mod sets;

pub use rows::remove_unlocked;

use self::rows::*;
use self::sets::*;

/// The worker's state: the model once prepared, the queue, and whether a pump is running; the
/// fiche vectors sets by id, their dense queue, and whether its pump is running.
#[derive(Default)]
struct Worker {
    model: Option<Model>,
    /// The content hash the page named for `model`: the same head sent again (the page asks for
    /// the model again after a failed download of rows) keeps this one and the rows it gathered.
    model_sha256: Option<String>,
    queue: Queue,
    pumping: bool,
    sets: Vec<(u64, StoredSet<Store>)>,
    /// Milliseconds spent searching since the last dense reply: sent with it.
    dense_ms: f64,
    /// Of those, milliseconds spent reading exact rows back from origin-private files.
    dense_rows_ms: f64,
    dense: DenseQueue,
    dense_pumping: bool,
}

type Shared = Rc<RefCell<Worker>>;

/// A catalogue's texts whose missing rows are fetched with the one in hand: one round of
/// requests per 64 texts rather than per text.
const AHEAD: usize = 64;

/// How an xz file starts.
const XZ_MAGIC: &[u8] = b"\xfd7zXZ\x00";

/// How often, at most, the page hears of a catalogue's progress.
const PROGRESS_MS: f64 = 250.0;

/// Installs the message handler and says so to the page.
pub fn run() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let worker: Shared = Rc::new(RefCell::new(Worker::default()));
    let onmessage =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            received(&worker, e.data());
        });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    onmessage.forget();
    post(&Reply::Started);
}

/// A message from the page: `{request, blob?}`.
fn received(worker: &Shared, data: JsValue) {
    let rows = crate::encoder::wire::take_rows(&data);
    let mut request = js_sys::Reflect::get(&data, &JsValue::from_str("request"))
        .ok()
        .and_then(|r| serde_wasm_bindgen::from_value::<Request>(r).ok());
    // A measurement's question vectors come beside the request (`encoder::wire`).
    if let (Some(Request::Dense { vectors, .. }), Some(rows)) = (&mut request, rows) {
        *vectors = rows;
    }
    let Some(request) = request else {
        // Only the page talks to this worker, with the types above: anything else is ignored.
        return;
    };
    match request {
        Request::Prepare { sha256 } => {
            let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                .ok()
                .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
            let worker = worker.clone();
            wasm_bindgen_futures::spawn_local(async move {
                prepare(&worker, blob, sha256.as_deref()).await;
                pump(worker).await;
            });
        }
        Request::Vectors {
            set,
            ids_json,
            fingerprint,
            npy,
        } => {
            let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                .ok()
                .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
            let worker = worker.clone();
            wasm_bindgen_futures::spawn_local(async move {
                // The set it replaces leaves first: its memory can be reused.
                worker.borrow_mut().sets.retain(|(s, _)| *s != set);
                let mut timing = LoadTiming::default();
                let read = read_vectors(blob, &ids_json, &fingerprint, npy, set, &mut timing);
                let reply = match read.await {
                    Ok((vectors, questions)) => {
                        let info = vectors.info();
                        let [high, low] = vectors.int8().planes();
                        timing.read_bound_ms = read_bound_ms(high);
                        timing.codes_bound_ms = timing.read_bound_ms + read_bound_ms(low);
                        let mut w = worker.borrow_mut();
                        // Again: another load of the same set may have ended meanwhile.
                        w.sets.retain(|(s, _)| *s != set);
                        w.sets.push((set, vectors));
                        Reply::Vectors {
                            set,
                            info,
                            questions,
                        }
                    }
                    Err(reason) => Reply::VectorsRefused { set, reason },
                };
                // For the benchmarks: the worker's whole memory (`module_bytes`: a wasm module's
                // memory only grows, so this is its peak so far), and where reading the rows went.
                post_with(
                    &reply,
                    &[
                        ("module_bytes", module_bytes()),
                        ("rows_ms", timing.rows_ms),
                        ("file_read_ms", timing.file_read_ms),
                        ("feed_ms", timing.feed_ms),
                        ("probe_ms", timing.probe_ms),
                        ("read_bound_ms", timing.read_bound_ms),
                        ("codes_bound_ms", timing.codes_bound_ms),
                    ],
                );
            });
        }
        Request::Dense {
            set,
            ticket,
            vectors,
            question,
        } => {
            let replies = worker
                .borrow_mut()
                .dense
                .push(set, ticket, vectors, question);
            replies.iter().for_each(post);
            let idle = !std::mem::replace(&mut worker.borrow_mut().dense_pumping, true);
            if idle {
                wasm_bindgen_futures::spawn_local(pump_dense(worker.clone()));
            }
        }
        Request::Forget { set } => {
            let replies = {
                let mut w = worker.borrow_mut();
                w.sets.retain(|(s, _)| *s != set);
                w.dense.forget(set)
            };
            replies.iter().for_each(post);
        }
        other => {
            let at_once = worker.borrow_mut().queue.push(other);
            if let Some(reply) = at_once {
                post(&reply);
            }
            if !worker.borrow().pumping {
                wasm_bindgen_futures::spawn_local(pump(worker.clone()));
            }
        }
    }
}

/// Reads the model file (synchronously: this is a worker) and prepares it in steps, saying the
/// percentage done.
async fn prepare(worker: &Shared, blob: Option<web_sys::Blob>, sha256: Option<&str>) {
    {
        let w = worker.borrow();
        if w.model.is_some() && sha256.is_some() && w.model_sha256.as_deref() == sha256 {
            drop(w);
            post(&Reply::Ready);
            return;
        }
    }
    let bytes = match blob.map(|b| read_blob(&b)) {
        Some(Ok(bytes)) => bytes,
        Some(Err(reason)) => {
            post(&Reply::Refused { reason });
            return;
        }
        None => {
            post(&Reply::Refused {
                reason: "le fichier du modèle n'a pas été transmis".to_owned(),
            });
            return;
        }
    };
    // The page's head comes xz-compressed (`encoder::blocks::HEAD_FILE`); a whole model file
    // (the tests' own) as it is.
    let bytes = if bytes.starts_with(XZ_MAGIC) {
        let mut out = Vec::with_capacity(bytes.len() * 2);
        if let Err(e) = lzma_rs::xz_decompress(&mut &bytes[..], &mut out) {
            post(&Reply::Refused {
                reason: format!("le fichier du modèle est illisible ({e})"),
            });
            return;
        }
        out
    } else {
        bytes
    };
    // Only the model the page names: a cached copy of another build, a truncated download or a
    // server's fallback page is refused before anything is read from it.
    if let Some(expected) = sha256 {
        let found = crate::encoder::identity::content_hash(&bytes);
        if found != expected {
            post(&Reply::Refused {
                reason: messages::model_not_this_page(bytes.len(), &found, expected),
            });
            return;
        }
    }
    let shown = std::cell::Cell::new(u8::MAX);
    let prepared = Model::from_safetensors_pausing(&bytes, |percent| {
        if shown.replace(percent) != percent {
            post(&Reply::Preparing { percent });
        }
        yield_now()
    })
    .await;
    drop(bytes);
    match prepared {
        Ok(model) => {
            let mut w = worker.borrow_mut();
            w.model = Some(model);
            w.model_sha256 = sha256.map(str::to_owned);
            drop(w);
            post(&Reply::Ready);
        }
        Err(e) => post(&Reply::Refused {
            reason: crate::fr::messages::model(&e),
        }),
    }
}

fn read_blob(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    read_blob_js(blob).map(|bytes| bytes.to_vec())
}

/// The whole of `blob`, in JavaScript's memory (synchronously: this is a worker).
fn read_blob_js(blob: &web_sys::Blob) -> Result<js_sys::Uint8Array, String> {
    let reader = web_sys::FileReaderSync::new().map_err(|e| describe(&e))?;
    let buffer = reader
        .read_as_array_buffer(blob)
        .map_err(|e| describe(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer))
}

fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "le fichier n'a pas pu être lu".to_owned())
}

/// Serves the queue until it is empty, one text per turn of the event loop, once the model is
/// ready.
async fn pump(worker: Shared) {
    {
        let mut w = worker.borrow_mut();
        if w.pumping || w.model.is_none() {
            return;
        }
        w.pumping = true;
    }
    let mut said = js_sys::Date::now();
    loop {
        let work = worker.borrow_mut().queue.take_next();
        let Some(work) = work else { break };
        let text = match &work {
            Work::Question(text) | Work::Text { text, .. } => text.as_str(),
        };
        let attempt = {
            let w = worker.borrow();
            let Some(model) = w.model.as_ref() else { break };
            model.try_embed(text)
        };
        let vector = match attempt {
            Ok(vector) => vector,
            // Rows this text needs are not here yet: fetched (or read from Cache Storage), with
            // those of the catalogue's next texts, in one go.
            Err(mut missing) => {
                if matches!(work, Work::Text { .. }) {
                    let w = worker.borrow();
                    if let Some(model) = w.model.as_ref() {
                        for next in w.queue.upcoming(AHEAD) {
                            missing.extend(model.missing_blocks_for(next));
                        }
                    }
                    missing.sort_unstable();
                    missing.dedup();
                }
                let mut fetched = blocks::fetch(&worker, &missing).await;
                let mut embedded = worker.borrow().model.as_ref().map(|m| m.try_embed(text));
                // A model prepared meanwhile (another head) lacks the rows just added to the one
                // it replaced: its own are fetched, once.
                if let (Ok(()), Some(Err(still))) = (&fetched, &embedded) {
                    let still = still.clone();
                    fetched = blocks::fetch(&worker, &still).await;
                    embedded = worker.borrow().model.as_ref().map(|m| m.try_embed(text));
                }
                let w = worker.borrow();
                match (fetched, embedded) {
                    (Ok(()), Some(Ok(vector))) => vector,
                    (Err(reason), _) => {
                        drop(w);
                        post(&Reply::RowsFailed { reason });
                        break;
                    }
                    _ => {
                        drop(w);
                        post(&Reply::RowsFailed {
                            reason: "des lignes du modèle manquent encore après leur chargement"
                                .to_owned(),
                        });
                        break;
                    }
                }
            }
        };
        let reply = worker.borrow_mut().queue.done(work, vector);
        match reply {
            // Progress is said a few times a second, not after every text.
            Some(Reply::Progress { .. }) if js_sys::Date::now() - said < PROGRESS_MS => {}
            Some(reply) => {
                said = js_sys::Date::now();
                post(&reply);
            }
            None => {}
        }
        // A newer question or catalogue sent meanwhile is read here.
        yield_now().await;
    }
    worker.borrow_mut().pumping = false;
}

/// Bytes of the worker module's memory.
fn module_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_or(0.0, |m| {
            m.buffer()
                .unchecked_into::<js_sys::ArrayBuffer>()
                .byte_length() as f64
        })
}

thread_local! {
    /// The worker's clock, looked up once: a dense search reads it twice per exact row.
    static PERFORMANCE: Option<web_sys::Performance> = js_sys::global()
        .unchecked_into::<web_sys::WorkerGlobalScope>()
        .performance();
    /// Milliseconds spent so far reading exact rows back from origin-private files.
    static ROWS_READ_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Milliseconds since the worker started, to the microsecond where the browser allows.
fn now() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map_or_else(js_sys::Date::now, |p| p.now()))
}

/// Sends `reply` to the page.
fn post(reply: &Reply) {
    post_with(reply, &[]);
}

/// Sends `reply` to the page, with more numeric properties beside its fields.
fn post_with(reply: &Reply, extra: &[(&str, f64)]) {
    use crate::encoder::wire::{put_rows, put_tops};
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    let encode = |reply: &Reply| {
        let value = serde::Serialize::serialize(reply, &serializer).ok()?;
        for &(key, number) in extra {
            js_sys::Reflect::set(&value, &key.into(), &number.into()).ok();
        }
        Some(value)
    };
    // Bulk numbers travel beside the message in typed arrays, their buffers transferred, not
    // copied (`encoder::wire`): a catalogue's vectors (as nested arrays, the page's decoding of
    // 240 × 512 numbers was a long task) and the question vectors a vectors file carries as one
    // Float32Array, dense tops as three arrays. The message's own field travels empty.
    enum Beside<'a> {
        Rows(Vec<&'a [f32]>),
        Tops(&'a [Vec<(u32, f64)>]),
    }
    let split = match reply {
        Reply::Texts { job, vectors } => Some((
            Reply::Texts {
                job: *job,
                vectors: Vec::new(),
            },
            Beside::Rows(vectors.iter().map(Vec::as_slice).collect()),
        )),
        Reply::Vectors {
            set,
            info,
            questions,
        } => Some((
            Reply::Vectors {
                set: *set,
                info: info.clone(),
                questions: questions
                    .iter()
                    .map(|(t, _)| (t.clone(), Vec::new()))
                    .collect(),
            },
            Beside::Rows(questions.iter().map(|(_, v)| v.as_slice()).collect()),
        )),
        Reply::Dense { set, ticket, tops } => Some((
            Reply::Dense {
                set: *set,
                ticket: *ticket,
                tops: Vec::new(),
            },
            Beside::Tops(tops),
        )),
        _ => None,
    };
    if let Some((head, beside)) = split {
        if let Some(value) = encode(&head) {
            let buffers = match beside {
                Beside::Rows(rows) => put_rows(&value, &rows).map(|b| vec![b]),
                Beside::Tops(tops) => put_tops(&value, tops).map(Vec::from),
            };
            if let Some(buffers) = buffers {
                let transfer = js_sys::Array::new();
                for buffer in buffers {
                    transfer.push(&buffer);
                }
                scope.post_message_with_transfer(&value, &transfer).ok();
                return;
            }
        }
    }
    // No bulk numbers, or none that could go beside (no rows, or rows that are not one matrix):
    // the reply whole, inside the message.
    if let Some(value) = encode(reply) {
        scope.post_message(&value).ok();
    }
}

/// Resolves on the next turn of the worker's event loop, after the messages already waiting: a
/// message to itself through a fresh `MessageChannel` (queued behind the page's messages, and not
/// clamped as nested timeouts are). Not `scheduler.yield()`: its continuation runs ahead
/// of waiting tasks, so a question sent during a catalogue waited for the whole catalogue.
async fn yield_now() {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        return;
    };
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        channel.port1().set_onmessage(Some(&resolve));
    });
    channel.port2().post_message(&JsValue::UNDEFINED).ok();
    wasm_bindgen_futures::JsFuture::from(promise).await.ok();
    channel.port1().set_onmessage(None);
}
