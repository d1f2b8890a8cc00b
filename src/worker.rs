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

use crate::data::vectors::VectorSet;
use crate::encoder::protocol::{DenseQueue, Queue, Reply, Request, Work};
use crate::encoder::Model;
use crate::fr::messages;
use crate::lab::Lab;
use crate::mistral;

/// The worker's state: the model once prepared, the queue, and whether a pump is running; the
/// fiche vectors sets by id, their dense queue, and whether its pump is running.
#[derive(Default)]
struct Worker {
    model: Option<Model>,
    queue: Queue,
    pumping: bool,
    sets: Vec<(u64, VectorSet)>,
    dense: DenseQueue,
    dense_pumping: bool,
}

type Shared = Rc<RefCell<Worker>>;

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
    let request = js_sys::Reflect::get(&data, &JsValue::from_str("request"))
        .ok()
        .and_then(|r| serde_wasm_bindgen::from_value::<Request>(r).ok());
    let Some(request) = request else {
        // Only the page talks to this worker, with the types above: anything else is ignored.
        return;
    };
    match request {
        Request::Prepare => {
            let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                .ok()
                .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
            let worker = worker.clone();
            wasm_bindgen_futures::spawn_local(async move {
                prepare(&worker, blob).await;
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
                let reply = match read_vectors(blob, &ids_json, &fingerprint, npy).await {
                    Ok(mut vectors) => {
                        let questions = std::mem::take(&mut vectors.questions);
                        let info = vectors.info();
                        let mut w = worker.borrow_mut();
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
                post(&reply);
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
async fn prepare(worker: &Shared, blob: Option<web_sys::Blob>) {
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
            worker.borrow_mut().model = Some(model);
            post(&Reply::Ready);
        }
        Err(e) => post(&Reply::Refused {
            reason: crate::fr::messages::model(&e),
        }),
    }
}

/// Reads, checks and quantises a Mistral fiche vectors file for the fiches `ids`, in steps (a
/// newer question's dense search is served between two steps).
async fn read_vectors(
    blob: Option<web_sys::Blob>,
    ids_json: &str,
    fingerprint: &str,
    npy: bool,
) -> Result<VectorSet, String> {
    let ids: Vec<String> = serde_json::from_str(ids_json)
        .map_err(|_| "la liste des fiches transmise est illisible".to_owned())?;
    let blob = blob.ok_or_else(|| "le fichier des vecteurs n'a pas été transmis".to_owned())?;
    let bytes = read_blob(&blob)?;
    let set = if npy {
        let rows = crate::data::npy::read_matrix(&bytes).map_err(|e| messages::npy(&e))?;
        drop(bytes);
        VectorSet::from_rows(mistral::MODEL, ids.clone(), fingerprint.to_owned(), rows)
    } else {
        let set = VectorSet::from_safetensors_pausing(&bytes, |_| yield_now()).await;
        drop(bytes);
        set
    };
    let said = |e: crate::data::vectors::VectorsError| messages::vectors(&e);
    let set = set.map_err(said)?;
    set.check_model(mistral::MODEL, mistral::DIM)
        .map_err(said)?;
    set.check_ids(ids.iter().map(String::as_str), ids.len(), fingerprint)
        .map_err(said)?;
    Ok(set)
}

/// Serves the dense queue until it is empty, one vector per turn of the event loop.
/// Started with `dense_pumping` set by the caller, which it clears when done.
async fn pump_dense(worker: Shared) {
    loop {
        let reply = {
            let mut w = worker.borrow_mut();
            let Some((set, vector)) = w.dense.next() else {
                break;
            };
            let top = match w.sets.iter().find(|(s, _)| *s == set) {
                Some((_, vectors)) => {
                    crate::search::dense::search(vectors, vector, Lab::dense_depth())
                        .map(|top| {
                            top.into_iter()
                                .map(|(doc, score)| (doc as u32, score))
                                .collect()
                        })
                        .map_err(|e| messages::dense(&e))
                }
                None => Err("ces vecteurs ne sont plus chargés".to_owned()),
            };
            w.dense.done(top)
        };
        if let Some(reply) = reply {
            post(&reply);
        }
        yield_now().await;
    }
    worker.borrow_mut().dense_pumping = false;
}

fn read_blob(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    let reader = web_sys::FileReaderSync::new().map_err(|e| describe(&e))?;
    let buffer = reader
        .read_as_array_buffer(blob)
        .map_err(|e| describe(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
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
        let vector = {
            let w = worker.borrow();
            let Some(model) = w.model.as_ref() else { break };
            match &work {
                Work::Question(text) | Work::Text { text, .. } => model.embed(text),
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

/// Sends `reply` to the page.
fn post(reply: &Reply) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    // A catalogue's vectors travel as one Float32Array beside the message, its buffer transferred
    // (not copied): as nested arrays, the page's decoding of 240 × 512 numbers was a long task.
    if let Reply::Texts { epoch, vectors } = reply {
        let head = Reply::Texts {
            epoch: *epoch,
            vectors: Vec::new(),
        };
        let Ok(value) = serde::Serialize::serialize(&head, &serializer) else {
            return;
        };
        let dim = vectors.first().map_or(0, Vec::len);
        let flat = js_sys::Float32Array::from(vectors.concat().as_slice());
        js_sys::Reflect::set(&value, &"flat".into(), &flat).ok();
        js_sys::Reflect::set(&value, &"dim".into(), &(dim as f64).into()).ok();
        let transfer = js_sys::Array::of1(&flat.buffer());
        scope.post_message_with_transfer(&value, &transfer).ok();
        return;
    }
    if let Ok(value) = serde::Serialize::serialize(reply, &serializer) {
        scope.post_message(&value).ok();
    }
}

/// Resolves on the next turn of the worker's event loop, after the messages already waiting: a
/// message to itself through a fresh `MessageChannel` (queued behind the page's messages, and not
/// clamped to 4 ms as nested timeouts are). Not `scheduler.yield()`: its continuation runs ahead
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
