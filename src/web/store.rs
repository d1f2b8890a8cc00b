//! Browser storage: IndexedDB for what costs money to recompute (fiche vectors keyed by their
//! fingerprint and model, question vectors keyed by model and text), and localStorage for the key,
//! only when the learner ticks « retenir sur cet appareil ».

use js_sys::{Float32Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransactionMode};

use super::frame::{local_storage as local, stored, GUIDE_ENTRY, KEY_ENTRY};

const DB: &str = "rag-fiches";
const DB_VERSION: u32 = 4;
/// Fiche vectors files (safetensors bytes), by `model|fingerprint`.
pub const FICHE_VECTORS: &str = "vecteurs-fiches";
/// Question vectors (Float32Array), by `model|question`.
pub const QUESTION_VECTORS: &str = "vecteurs-questions";
/// Model answers (JSON), by `model|method|question|ids sent`: a re-run costs nothing.
pub const ANSWERS: &str = "reponses";
/// The local encoder's model file (safetensors bytes), by its path.
pub const MODEL: &str = "modele-local";
/// The journal of unanswered questions: one record per entry (its JSON), under
/// [`crate::journal::record_key`]. Never sent.
pub const JOURNAL: &str = "journal";
/// Where an earlier version kept the whole journal as one text of JSON lines (read once, moved
/// into records).
pub const JOURNAL_KEY: &str = "questions-sans-reponse";

/// Resolves when `request` succeeds, with its result.
async fn done(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        let finished = request.clone();
        let ok = Closure::once_into_js(move |_: web_sys::Event| {
            let result = finished.result().unwrap_or(JsValue::UNDEFINED);
            resolve.call1(&JsValue::NULL, &result).ok();
        });
        let err = Closure::once_into_js(move |e: web_sys::Event| {
            reject.call1(&JsValue::NULL, &e).ok();
        });
        request.set_onsuccess(Some(ok.unchecked_ref()));
        request.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise).await
}

/// Resolves to `true` when `tx` commits, `false` when it aborts or fails: a quota exceeded is often
/// told only here, after the request itself succeeded (the value is written at commit). The
/// handlers are set at once, before any event of `tx` can fire.
fn committed(tx: &web_sys::IdbTransaction) -> JsFuture {
    let promise = Promise::new(&mut |resolve, _| {
        let ok = resolve.clone();
        let complete = Closure::once_into_js(move |_: web_sys::Event| {
            ok.call1(&JsValue::NULL, &JsValue::TRUE).ok();
        });
        let failed = resolve.clone();
        let abort = Closure::once_into_js(move |_: web_sys::Event| {
            failed.call1(&JsValue::NULL, &JsValue::FALSE).ok();
        });
        let error = Closure::once_into_js(move |_: web_sys::Event| {
            resolve.call1(&JsValue::NULL, &JsValue::FALSE).ok();
        });
        tx.set_oncomplete(Some(complete.unchecked_ref()));
        tx.set_onabort(Some(abort.unchecked_ref()));
        tx.set_onerror(Some(error.unchecked_ref()));
    });
    JsFuture::from(promise)
}

/// An open connection, closed when dropped: none is left open to block another tab's upgrade.
struct Conn {
    db: IdbDatabase,
    /// Closes the connection when another tab opens a newer version (kept alive while open).
    _on_change: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.db.set_onversionchange(None);
        self.db.close();
    }
}

async fn open() -> Result<Conn, JsValue> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or_else(|| JsValue::from_str("IndexedDB indisponible"))?;
    let request: IdbOpenDbRequest = factory.open_with_u32(DB, DB_VERSION)?;
    let upgrading = request.clone();
    let upgrade = Closure::once_into_js(move |_: web_sys::Event| {
        if let Ok(db) = upgrading.result() {
            let db: IdbDatabase = db.unchecked_into();
            for store in [FICHE_VECTORS, QUESTION_VECTORS, ANSWERS, JOURNAL, MODEL] {
                if !db.object_store_names().contains(store) {
                    db.create_object_store(store).ok();
                }
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    // Another tab holding the database at an older version blocks the upgrade: the open is then
    // given up (the page works without its cache) instead of waiting forever.
    let blocked = Closure::once_into_js(move |_: web_sys::Event| {
        web_sys::console::warn_1(&JsValue::from_str(
            "rag-fiches : le cache (IndexedDB) est bloqué par un autre onglet ouvert sur une version plus ancienne ; la page continue sans lui.",
        ));
    });
    request.set_onblocked(Some(blocked.unchecked_ref()));
    let db: IdbDatabase = with_timeout(done(&request), OPEN_TIMEOUT_MS)
        .await
        .ok_or_else(|| JsValue::from_str("IndexedDB bloquée"))??
        .unchecked_into();
    // A newer version opened in another tab asks this connection to close: it does, at once.
    let closing = db.clone();
    let on_change = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| closing.close());
    db.set_onversionchange(Some(on_change.as_ref().unchecked_ref()));
    Ok(Conn {
        db,
        _on_change: on_change,
    })
}

/// An open that has not succeeded after this long (blocked, or a browser that never answers) is
/// given up: the cache is an optimisation.
const OPEN_TIMEOUT_MS: i32 = 3000;

/// `future`'s output, or `None` after `ms` milliseconds.
pub async fn with_timeout<T>(future: impl std::future::Future<Output = T>, ms: i32) -> Option<T> {
    use std::future::Future;
    use std::task::Poll;
    let timer = Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
                .ok();
        }
    });
    let mut future = std::pin::pin!(future);
    let mut timer = std::pin::pin!(JsFuture::from(timer));
    std::future::poll_fn(|cx| {
        if let Poll::Ready(v) = future.as_mut().poll(cx) {
            return Poll::Ready(Some(v));
        }
        if timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await
}

/// The value under `key` in `store`, if any. Storage failures (private mode, quota) read as
/// absent: the cache is an optimisation, never a requirement.
pub async fn get(store: &str, key: &str) -> Option<JsValue> {
    let conn = open().await.ok()?;
    read(&conn.db, store, key).await
}

async fn read(db: &IdbDatabase, store: &str, key: &str) -> Option<JsValue> {
    let tx = db.transaction_with_str(store).ok()?;
    let request = tx
        .object_store(store)
        .ok()?
        .get(&JsValue::from_str(key))
        .ok()?;
    let value = done(&request).await.ok()?;
    (!value.is_undefined()).then_some(value)
}

/// Stores `value` under `key`: `true` when it was stored. Failures (no storage, quota, blocked)
/// are not errors (see [`get`]), but the caller must not claim a value is cached when it is not.
pub async fn put(store: &str, key: &str, value: &JsValue) -> bool {
    let Ok(conn) = open().await else { return false };
    write(&conn.db, store, key, value).await
}

async fn write(db: &IdbDatabase, store: &str, key: &str, value: &JsValue) -> bool {
    let Ok(tx) = db.transaction_with_str_and_mode(store, IdbTransactionMode::Readwrite) else {
        return false;
    };
    let Ok(os) = tx.object_store(store) else {
        return false;
    };
    let commit = committed(&tx);
    match os.put_with_key(value, &JsValue::from_str(key)) {
        Ok(request) => {
            done(&request).await.is_ok() && commit.await.is_ok_and(|v| v.as_bool() == Some(true))
        }
        Err(_) => false,
    }
}

/// Deletes the value under `key` (a cached value found unusable): `true` when it was deleted.
pub async fn delete(store: &str, key: &str) -> bool {
    let Ok(conn) = open().await else { return false };
    let Ok(tx) = conn
        .db
        .transaction_with_str_and_mode(store, IdbTransactionMode::Readwrite)
    else {
        return false;
    };
    let Ok(os) = tx.object_store(store) else {
        return false;
    };
    match os.delete(&JsValue::from_str(key)) {
        Ok(request) => done(&request).await.is_ok(),
        Err(_) => false,
    }
}

/// Runs `requests` on `store` in one read-write transaction, all or none: `true` when committed.
/// A request `requests` cannot make aborts the transaction.
async fn in_one_transaction(
    store: &str,
    requests: impl FnOnce(&web_sys::IdbObjectStore) -> Result<(), JsValue>,
) -> bool {
    let Ok(conn) = open().await else { return false };
    let Ok(tx) = conn
        .db
        .transaction_with_str_and_mode(store, IdbTransactionMode::Readwrite)
    else {
        return false;
    };
    let Ok(os) = tx.object_store(store) else {
        return false;
    };
    let commit = committed(&tx);
    if requests(&os).is_err() {
        tx.abort().ok();
        return false;
    }
    commit.await.is_ok_and(|v| v.as_bool() == Some(true))
}

/// Stores every `(key, value)` of `records` in one transaction (all or none): `true` when
/// committed.
pub async fn put_all(store: &str, records: &[(String, JsValue)]) -> bool {
    in_one_transaction(store, |os| {
        for (key, value) in records {
            os.put_with_key(value, &JsValue::from_str(key))?;
        }
        Ok(())
    })
    .await
}

/// Every record of `store` whose key is a string, in key order, read in one transaction; `None`
/// when the storage cannot be read (which is not an empty store).
pub async fn get_all(store: &str) -> Option<Vec<(String, JsValue)>> {
    let conn = open().await.ok()?;
    let tx = conn.db.transaction_with_str(store).ok()?;
    let os = tx.object_store(store).ok()?;
    let keys = os.get_all_keys().ok()?;
    let values = os.get_all().ok()?;
    let keys = js_sys::Array::from(&done(&keys).await.ok()?);
    let values = js_sys::Array::from(&done(&values).await.ok()?);
    Some(
        keys.iter()
            .zip(values.iter())
            .filter_map(|(k, v)| Some((k.as_string()?, v)))
            .collect(),
    )
}

/// Deletes, in one transaction, every record of `store` whose key is in `keys` and every record
/// whose key is at most `up_to`: `true` when committed.
pub async fn delete_all(store: &str, up_to: Option<&str>, keys: &[String]) -> bool {
    in_one_transaction(store, |os| {
        if let Some(last) = up_to {
            let range = web_sys::IdbKeyRange::upper_bound(&JsValue::from_str(last))?;
            os.delete(&range)?;
        }
        for key in keys {
            os.delete(&JsValue::from_str(key))?;
        }
        Ok(())
    })
    .await
}

/// Empties `store` in one transaction: `true` when committed.
pub async fn clear(store: &str) -> bool {
    in_one_transaction(store, |os| os.clear().map(drop)).await
}

/// The value under `key` if it is a `T` (a stored value of another type reads as absent).
async fn get_as<T: JsCast>(store: &str, key: &str) -> Option<T> {
    get(store, key).await?.dyn_into::<T>().ok()
}

pub async fn get_bytes(store: &str, key: &str) -> Option<Vec<u8>> {
    Some(get_as::<Uint8Array>(store, key).await?.to_vec())
}

pub async fn put_bytes(store: &str, key: &str, bytes: &[u8]) -> bool {
    put(store, key, &Uint8Array::from(bytes).into()).await
}

pub async fn get_vector(store: &str, key: &str) -> Option<Vec<f32>> {
    Some(get_as::<Float32Array>(store, key).await?.to_vec())
}

pub async fn put_vector(store: &str, key: &str, v: &[f32]) -> bool {
    put(store, key, &Float32Array::from(v).into()).await
}

pub async fn get_text(store: &str, key: &str) -> Option<String> {
    get(store, key).await?.as_string()
}

pub async fn put_text(store: &str, key: &str, text: &str) -> bool {
    put(store, key, &JsValue::from_str(text)).await
}

pub fn remembered_key() -> Option<String> {
    stored(KEY_ENTRY)
}

pub fn remember_key(key: &str) {
    if let Some(s) = local() {
        s.set_item(KEY_ENTRY, key).ok();
    }
}

pub fn forget_key() {
    if let Some(s) = local() {
        s.remove_item(KEY_ENTRY).ok();
    }
}

/// Whether « Par où commencer » was dismissed on this device.
pub fn guide_hidden() -> bool {
    stored(GUIDE_ENTRY).is_some()
}

pub fn hide_guide() {
    if let Some(s) = local() {
        s.set_item(GUIDE_ENTRY, "1").ok();
    }
}

/// Removes the files a closed or reloaded tab's worker left in the origin-private file system
/// (a set's exact values, large at scale): a file a live worker holds is locked, its removal fails, and it
/// stays. Where the browser has no such file system (or no `navigator.storage`), nothing to do.
pub async fn remove_orphan_rows() {
    use wasm_bindgen_futures::JsFuture;
    let Some(window) = web_sys::window() else {
        return;
    };
    let storage = js_sys::Reflect::get(&window.navigator(), &"storage".into()).ok();
    let Some(storage) = storage.filter(JsValue::is_object) else {
        return;
    };
    let has = js_sys::Reflect::get(&storage, &"getDirectory".into()).is_ok_and(|f| f.is_function());
    if !has {
        return;
    }
    let storage: web_sys::StorageManager = storage.unchecked_into();
    let Ok(root) = JsFuture::from(storage.get_directory()).await else {
        return;
    };
    let root: web_sys::FileSystemDirectoryHandle = root.unchecked_into();
    let name = crate::encoder::protocol::ROWS_DIRECTORY;
    let Ok(directory) = JsFuture::from(root.get_directory_handle(name)).await else {
        return;
    };
    let directory: web_sys::FileSystemDirectoryHandle = directory.unchecked_into();
    crate::worker::remove_unlocked(&directory).await;
}
