//! The local model's blocks of rows ([`crate::encoder::blocks`]), fetched by the worker when a
//! text needs them: from Cache Storage when an earlier visit kept them, else from the site, all
//! at once. Each block is inflated and checked (length, header, checksum, and the pin the head
//! names for it) before it is used or kept, as served (compressed); a failed, damaged or foreign
//! fetch is tried again, a cached block that fails is deleted and fetched, and only a checked
//! block is ever cached. One cache is kept, this model's: another model's is deleted.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::{post, Shared};
use crate::encoder::blocks::{block_path, fingerprint_hex};
use crate::encoder::protocol::Reply;

/// Tries per block before the failure is said: a dropped connection or a server's hiccup is
/// tried again after each of [`WAIT_MS`].
const TRIES: u32 = 3;
const WAIT_MS: [i32; 2] = [500, 2_000];
/// A block's request is abandoned when its whole answer has not come within this: blocks weigh
/// a few kilobytes, so a request this late hangs (a stalled connection, a proxy), and its try is
/// counted as failed, as the head's stall is.
const BLOCK_STALL_MS: i32 = 10_000;
/// The blocks' cache is named by this (the blocks' layout: xz, with proofs) and the model's
/// fingerprint.
const CACHE_PREFIX: &str = "rag-fiches-lignes-v2-";
/// What every blocks' cache name starts with, this layout's or an earlier one's.
const CACHES: &str = "rag-fiches-lignes-";

/// Fetches blocks `missing` into the worker's model, saying how many arrived.
pub(super) async fn fetch(worker: &Shared, missing: &[u32]) -> Result<(), String> {
    let fingerprint = worker
        .borrow()
        .model
        .as_ref()
        .and_then(crate::encoder::Model::fingerprint)
        .ok_or_else(|| "le modèle n'attend aucune ligne".to_owned())?;
    let cache = open_cache(&format!("{CACHE_PREFIX}{}", fingerprint_hex(&fingerprint))).await;
    let total = missing.len() as u32;
    let mut done = 0u32;
    let mut bytes = 0u64;
    let mut wanted = Vec::new();
    for &block in missing {
        match cached(cache.as_ref(), block).await {
            Some(file) if add(worker, block, &file).is_ok() => done += 1,
            Some(_) => {
                // Not this model's block after all: never read again.
                if let Some(c) = &cache {
                    let _ = JsFuture::from(c.delete_with_str(&block_path(block))).await;
                }
                wanted.push(block);
            }
            None => wanted.push(block),
        }
    }
    if wanted.is_empty() {
        return Ok(());
    }
    post(&Reply::Rows { done, total, bytes });
    // Every request starts at once; they are read in order.
    let first: Vec<_> = wanted.iter().map(|&b| request(b)).collect();
    for (&block, started) in wanted.iter().zip(first) {
        let mut answer = receive(started).await;
        let mut tries = 1;
        loop {
            let checked = match answer {
                Ok(file) => add(worker, block, &file).map(|()| file),
                Err(why) => Err(why),
            };
            match checked {
                Ok(file) => {
                    bytes += file.len() as u64;
                    // Kept beside the work, not before it: the text waits for no write.
                    if let Some(c) = cache.clone() {
                        wasm_bindgen_futures::spawn_local(async move { keep(&c, block, file).await });
                    }
                    break;
                }
                Err(why) if tries >= TRIES => {
                    return Err(format!(
                        "le bloc {block} des lignes du modèle n'a pas pu être chargé après {TRIES} essais ({why})"
                    ))
                }
                Err(_) => {
                    sleep(WAIT_MS[(tries - 1) as usize]).await;
                    tries += 1;
                    answer = receive(request(block)).await;
                }
            }
        }
        done += 1;
        post(&Reply::Rows { done, total, bytes });
    }
    Ok(())
}

/// Block `block`'s file, as served, inflated and taken into the worker's model, checked.
fn add(worker: &Shared, block: u32, served: &[u8]) -> Result<(), String> {
    let file = crate::encoder::blocks::unpack(served)
        .map_err(|_| format!("{} octets reçus, incomplets ou endommagés", served.len()))?;
    let mut w = worker.borrow_mut();
    let model = w
        .model
        .as_mut()
        .ok_or_else(|| "plus de modèle".to_owned())?;
    model.add_block(block, &file).map_err(|e| match e {
        crate::encoder::blocks::BlockError::Length { found, expected } => {
            format!("{found} octets reçus sur {expected}")
        }
        crate::encoder::blocks::BlockError::Unpinned => {
            "fichier bien formé mais différent de celui que nomme la tête du modèle".to_owned()
        }
        _ => "fichier endommagé".to_owned(),
    })
}

fn scope() -> web_sys::WorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// A block's request under way, aborted by its timer after [`BLOCK_STALL_MS`].
struct Started {
    promise: js_sys::Promise,
    timed_out: std::rc::Rc<std::cell::Cell<bool>>,
}

fn request(block: u32) -> Started {
    let timed_out = std::rc::Rc::new(std::cell::Cell::new(false));
    let init = web_sys::RequestInit::new();
    let controller = web_sys::AbortController::new().ok();
    if let Some(c) = &controller {
        init.set_signal(Some(&c.signal()));
        let flag = timed_out.clone();
        let c = c.clone();
        // Fires once in any case (and is then freed): aborting an answered request does nothing.
        let abort = wasm_bindgen::closure::Closure::once_into_js(move || {
            flag.set(true);
            c.abort();
        });
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(
            abort.unchecked_ref(),
            BLOCK_STALL_MS,
        );
    }
    let promise = scope().fetch_with_str_and_init(&block_path(block), &init);
    // A request whose reading is given up (an earlier block failed for good) still rejects when
    // its timer aborts it, or when the network fails: handled here, it is no unhandled rejection.
    thread_local!(static IGNORED: wasm_bindgen::closure::Closure<dyn FnMut(JsValue)> =
        wasm_bindgen::closure::Closure::new(|_: JsValue| {}));
    IGNORED.with(|ignore| {
        let _ = promise.catch(ignore);
    });
    Started { promise, timed_out }
}

/// The block's bytes, or why not (a status, a connection cut, no answer in time).
async fn receive(started: Started) -> Result<Vec<u8>, String> {
    let Started { promise, timed_out } = started;
    let late = || format!("pas de réponse en {} s", BLOCK_STALL_MS / 1000);
    let response: web_sys::Response = JsFuture::from(promise)
        .await
        .map_err(|_| match timed_out.get() {
            true => late(),
            false => "le réseau a échoué".to_owned(),
        })?
        .dyn_into()
        .map_err(|_| "réponse illisible".to_owned())?;
    if response.status() != 200 {
        return Err(format!("le serveur a répondu {}", response.status()));
    }
    let body = response
        .array_buffer()
        .map_err(|_| "réponse illisible".to_owned())?;
    let buffer = JsFuture::from(body)
        .await
        .map_err(|_| match timed_out.get() {
            true => late(),
            false => "la connexion a été coupée".to_owned(),
        })?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// This model's Cache Storage, where the browser has one (not in an insecure context). The
/// blocks of another model, or of an earlier layout, are deleted: never read again, they would
/// only fill the learner's storage.
async fn open_cache(name: &str) -> Option<web_sys::Cache> {
    let has = js_sys::Reflect::get(&scope(), &JsValue::from_str("caches"))
        .ok()
        .is_some_and(|c| !c.is_undefined() && !c.is_null());
    if !has {
        return None;
    }
    let storage = scope().caches().ok()?;
    // Once per model a worker holds, not at every question.
    thread_local!(static SWEPT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) });
    if SWEPT.with(|s| s.replace(name.to_owned())) != name {
        sweep(&storage, name).await;
    }
    JsFuture::from(storage.open(name))
        .await
        .ok()?
        .dyn_into()
        .ok()
}

/// Deletes every blocks' cache but `keep`.
async fn sweep(storage: &web_sys::CacheStorage, keep: &str) {
    if let Ok(keys) = JsFuture::from(storage.keys()).await {
        for key in js_sys::Array::from(&keys).iter() {
            if let Some(other) = key.as_string() {
                if other.starts_with(CACHES) && other != keep {
                    let _ = JsFuture::from(storage.delete(&other)).await;
                }
            }
        }
    }
}

async fn cached(cache: Option<&web_sys::Cache>, block: u32) -> Option<Vec<u8>> {
    let found = JsFuture::from(cache?.match_with_str(&block_path(block)))
        .await
        .ok()?;
    let response: web_sys::Response = found.dyn_into().ok()?;
    let buffer = JsFuture::from(response.array_buffer().ok()?).await.ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Keeps a checked block. A cache that refuses (full, private window) only costs a fetch later.
async fn keep(cache: &web_sys::Cache, block: u32, mut file: Vec<u8>) {
    if let Ok(response) = web_sys::Response::new_with_opt_u8_array(Some(&mut file)) {
        let _ = JsFuture::from(cache.put_with_str(&block_path(block), &response)).await;
    }
}

async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}
