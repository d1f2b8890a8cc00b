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

/// The worker's state: the model once prepared, the queue, and whether a pump is running; the
/// fiche vectors sets by id, their dense queue, and whether its pump is running.
#[derive(Default)]
struct Worker {
    model: Option<Model>,
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

/// Reads, checks and quantises a Mistral fiche vectors file for the fiches `ids`, a slice of rows
/// at a time (a newer question's dense search is served between two slices): the file is never
/// held whole, only the int8 codes stay in memory, and the exact values go to the browser's
/// storage ([`OpfsStore`]), or stay in memory where there is none.
async fn read_vectors(
    blob: Option<web_sys::Blob>,
    ids_json: &str,
    fingerprint: &str,
    npy: bool,
    set: u64,
    timing: &mut LoadTiming,
) -> Result<Loaded<Store>, String> {
    let ids: Vec<String> = serde_json::from_str(ids_json)
        .map_err(|_| "la liste des fiches transmise est illisible".to_owned())?;
    let blob = blob.ok_or_else(|| "le fichier des vecteurs n'a pas été transmis".to_owned())?;
    let size = blob.size() as usize;
    let said = |e: VectorsError| messages::vectors(&e);
    let mut layout = if npy {
        let prefix = read_slice(&blob, 0..size.min(npy::HEADER_PREFIX))?;
        let end = npy::header_end(&prefix).map_err(|e| messages::npy(&e))?;
        let head = read_slice(&blob, 0..size.min(end))?;
        npy::layout(&head, size, mistral::MODEL).map_err(|e| messages::npy(&e))?
    } else {
        if size > vectors::MAX_FILE_BYTES {
            return Err(said(VectorsError::TooLarge {
                bytes: size,
                max: vectors::MAX_FILE_BYTES,
            }));
        }
        let prefix = read_slice(&blob, 0..size.min(vectors::HEADER_PREFIX))?;
        let end = vectors::header_end(&prefix).map_err(said)?;
        let head = read_slice(&blob, 0..size.min(end))?;
        vectors::layout(&head, size).map_err(said)?
    };
    // Another catalogue's file is refused before its rows are read.
    layout
        .check(mistral::MODEL, mistral::DIM, &ids, fingerprint)
        .map_err(said)?;
    drop(ids);
    layout.ids = None;
    yield_now().await;
    let store = match OpfsStore::open(set).await {
        Ok(store) => Store::Opfs(store),
        Err(_) => Store::Memory(MemoryStore::with_capacity(layout.exact_bytes())),
    };
    let capacity = layout.exact_bytes();
    let mut loader = Loader::new(layout, store);
    let mut probed = false;
    let start = now();
    let (row_bytes, file_row_bytes) = (loader.row_bytes(), loader.file_row_bytes());
    // One step's bytes at a time in the module's memory, which never shrinks: the slice read from
    // the file stays in JavaScript's.
    let mut step = Vec::new();
    while let Some(slice) = loader.next_slice(READ_ROWS) {
        let t = now();
        let raw = read_js(&blob, slice)?;
        timing.file_read_ms += now() - t;
        let (len, step_bytes) = (
            raw.length() as usize,
            vectors::ROWS_PER_STEP * file_row_bytes,
        );
        for start in (0..len).step_by(step_bytes) {
            let t = now();
            let end = (start + step_bytes).min(len);
            step.resize(end - start, 0);
            raw.subarray(start as u32, end as u32).copy_to(&mut step);
            loader.feed(&step).map_err(said)?;
            timing.feed_ms += now() - t;
            if !probed {
                probed = true;
                timing.probe_ms = loader.store_mut().keep_if_fast(row_bytes, capacity)?;
            }
            yield_now().await;
        }
    }
    timing.rows_ms = now() - start;
    let questions = match loader.questions_slice() {
        Some(slice) => read_slice(&blob, slice)?,
        None => Vec::new(),
    };
    loader.finish(&questions).map_err(said)
}

/// Where reading a vectors file's rows went, in milliseconds (for the benchmarks): from the first
/// row to the last, of which reading the file and checking, quantising and storing rows (the rest
/// is the probe and the turns of the event loop between steps).
#[derive(Default)]
struct LoadTiming {
    rows_ms: f64,
    file_read_ms: f64,
    feed_ms: f64,
    /// One row read back from the origin-private file, on average over the probe.
    probe_ms: f64,
    /// The dense scan's memory read bound in this worker (its first pass reads the high planes
    /// of the int8 codes): see [`read_bound_ms`].
    read_bound_ms: f64,
    /// The same over both planes: a scan of every int8 code, as the first pass was until 12-03.
    codes_bound_ms: f64,
}

/// The fastest of three reads of every byte of `codes` ([`crate::kernels::read_probe`]), in
/// milliseconds: the least time a dense scan over them can take in this worker, on this machine,
/// now. Measured once per load (about three scans' time), for the benchmarks.
fn read_bound_ms(codes: &[u8]) -> f64 {
    let mut best = f64::INFINITY;
    let mut seen = 0u64;
    for _ in 0..3 {
        let t = now();
        seen ^= crate::kernels::read_probe(std::hint::black_box(codes));
        best = best.min(now() - t);
    }
    std::hint::black_box(seen);
    best
}

/// Rows read from the file at once: each `FileReaderSync` read of a learner's file has a fixed
/// cost of a few milliseconds (103 MB took 858 ms in 196 reads of 512 kB, 191–359 ms in 13 reads of
/// 8 MB; BENCHMARKS.md, 12-02), so rows are read
/// 8 MB at a time into JavaScript's memory, and copied into the module's and fed
/// [`vectors::ROWS_PER_STEP`] at a time, yielding between steps.
const READ_ROWS: usize = 16 * vectors::ROWS_PER_STEP;

/// Bytes `range` of `blob`, left in JavaScript's memory (synchronously: this is a worker).
fn read_js(
    blob: &web_sys::Blob,
    range: std::ops::Range<usize>,
) -> Result<js_sys::Uint8Array, String> {
    let part = blob
        .slice_with_f64_and_f64(range.start as f64, range.end as f64)
        .map_err(|e| describe(&e))?;
    read_blob_js(&part)
}

/// Bytes `range` of `blob`, in the module's memory.
fn read_slice(blob: &web_sys::Blob, range: std::ops::Range<usize>) -> Result<Vec<u8>, String> {
    read_js(blob, range).map(|bytes| bytes.to_vec())
}

/// Where the worker keeps a set's exact values.
enum Store {
    Opfs(OpfsStore),
    Memory(MemoryStore),
}

/// Reads of a row in the origin-private file system slower than this on average move the rows
/// to memory. Measured in Chromium (BENCHMARKS.md, 11-30 late night): about 0.005 ms per 2 kB row
/// with a profile on disk, 0.4 ms in an incognito window, where the browser keeps those files in
/// memory anyway; a dense search reads 200 rows.
const SLOW_ROW_READ_MS: f64 = 0.05;

/// Rows read at random to time the file system.
const PROBE_READS: usize = 32;

/// Rounds of [`PROBE_READS`] at most, until one is fast.
const PROBE_ROUNDS: usize = 3;

impl Store {
    /// Times [`PROBE_READS`] reads of random rows among those written so far, and moves them to
    /// memory (`capacity` bytes reserved) if a read takes over [`SLOW_ROW_READ_MS`].
    /// Returns the time of one read (0 without a file to read).
    fn keep_if_fast(&mut self, row_bytes: usize, capacity: usize) -> Result<f64, String> {
        let Store::Opfs(opfs) = self else {
            return Ok(0.0);
        };
        let rows = opfs.len / row_bytes.max(1);
        if rows == 0 {
            return Ok(0.0);
        }
        let mut row = vec![0u8; row_bytes];
        // The fastest of up to PROBE_ROUNDS rounds: with a profile on disk one round of 32 reads
        // took 0.022 ms per read in one run and 0.147 ms in the next (the first reads after
        // writing), which kept 102 MB in memory for nothing; in an incognito window every round
        // is slow.
        let mut per_read = f64::INFINITY;
        for _ in 0..PROBE_ROUNDS {
            let start = now();
            for _ in 0..PROBE_READS {
                let i = ((js_sys::Math::random() * rows as f64) as usize).min(rows - 1);
                opfs.read(i * row_bytes, &mut row)?;
            }
            per_read = per_read.min((now() - start) / PROBE_READS as f64);
            if per_read <= SLOW_ROW_READ_MS {
                break;
            }
        }
        if per_read > SLOW_ROW_READ_MS {
            let mut memory = MemoryStore::with_capacity(capacity);
            let mut written = vec![0u8; opfs.len];
            opfs.read(0, &mut written)?;
            memory.append(&written)?;
            // The file is closed and removed as the store is dropped.
            *self = Store::Memory(memory);
        }
        Ok(per_read)
    }
}

impl RowStore for Store {
    fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Store::Opfs(s) => s.append(bytes),
            Store::Memory(s) => s.append(bytes),
        }
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), String> {
        match self {
            Store::Opfs(s) => s.read(offset, out),
            Store::Memory(s) => s.read(offset, out),
        }
    }
    fn memory_bytes(&self) -> usize {
        match self {
            Store::Opfs(s) => s.memory_bytes(),
            Store::Memory(s) => s.memory_bytes(),
        }
    }
    fn stored_bytes(&self) -> usize {
        match self {
            Store::Opfs(s) => s.stored_bytes(),
            Store::Memory(s) => s.stored_bytes(),
        }
    }
}

/// The directory of the origin-private file system where workers keep exact values.
const STORE_DIRECTORY: &str = "rag-fiches-vecteurs";

/// A set's exact values in a file of the origin's private file system, through a synchronous
/// access handle (only a worker has one): reading the 200 candidates of a search back took about
/// 1 ms in Chromium with a profile on disk (an incognito window's are slower: see
/// [`Store::keep_if_fast`]). The handle locks the file: it is this worker's alone, and it is
/// removed when the set is dropped; a file left by a closed tab is removed by the next worker that
/// opens one.
struct OpfsStore {
    directory: web_sys::FileSystemDirectoryHandle,
    name: String,
    handle: web_sys::FileSystemSyncAccessHandle,
    len: usize,
}

impl OpfsStore {
    async fn open(set: u64) -> Result<OpfsStore, JsValue> {
        use wasm_bindgen_futures::JsFuture;
        let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        let root: web_sys::FileSystemDirectoryHandle =
            JsFuture::from(scope.navigator().storage().get_directory())
                .await?
                .dyn_into()?;
        let create = web_sys::FileSystemGetDirectoryOptions::new();
        create.set_create(true);
        let directory: web_sys::FileSystemDirectoryHandle =
            JsFuture::from(root.get_directory_handle_with_options(STORE_DIRECTORY, &create))
                .await?
                .dyn_into()?;
        remove_unlocked(&directory).await;
        let name = format!(
            "{:016x}-{set}.bin",
            (js_sys::Math::random() * 2f64.powi(53)) as u64
        );
        let create = web_sys::FileSystemGetFileOptions::new();
        create.set_create(true);
        let file: web_sys::FileSystemFileHandle =
            JsFuture::from(directory.get_file_handle_with_options(&name, &create))
                .await?
                .dyn_into()?;
        let handle: web_sys::FileSystemSyncAccessHandle =
            JsFuture::from(file.create_sync_access_handle())
                .await?
                .dyn_into()?;
        handle.truncate_with_f64(0.0)?;
        Ok(OpfsStore {
            directory,
            name,
            handle,
            len: 0,
        })
    }
}

/// Removes the files of `directory` no live worker holds (a handle's lock makes removing its file
/// fail, and that failure is the answer).
async fn remove_unlocked(directory: &web_sys::FileSystemDirectoryHandle) {
    use wasm_bindgen_futures::JsFuture;
    let keys = directory.keys();
    let mut names = Vec::new();
    while let Ok(next) = keys.next() {
        let Ok(step) = JsFuture::from(next).await else {
            break;
        };
        let done = js_sys::Reflect::get(&step, &"done".into()).map_or(true, |d| d.is_truthy());
        if done {
            break;
        }
        if let Some(name) = js_sys::Reflect::get(&step, &"value".into())
            .ok()
            .and_then(|v| v.as_string())
        {
            names.push(name);
        }
    }
    for name in names {
        JsFuture::from(directory.remove_entry(&name)).await.ok();
    }
}

/// Options for a synchronous access handle's read or write at byte `offset`.
fn at(offset: usize) -> web_sys::FileSystemReadWriteOptions {
    let options = web_sys::FileSystemReadWriteOptions::new();
    options.set_at(offset as f64);
    options
}

impl RowStore for OpfsStore {
    fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        let written = self
            .handle
            .write_with_u8_array_and_options(bytes, &at(self.len))
            .map_err(|e| describe(&e))?;
        if written as usize != bytes.len() {
            return Err(format!("{written} of {} bytes written", bytes.len()));
        }
        self.len += bytes.len();
        Ok(())
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), String> {
        let started = now();
        let read = self.handle.read_with_u8_array_and_options(out, &at(offset));
        ROWS_READ_MS.set(ROWS_READ_MS.get() + now() - started);
        let read = read.map_err(|e| describe(&e))?;
        if read as usize != out.len() {
            return Err(format!("{read} of {} bytes read at {offset}", out.len()));
        }
        Ok(())
    }
    fn memory_bytes(&self) -> usize {
        0
    }
    fn stored_bytes(&self) -> usize {
        self.len
    }
}

impl Drop for OpfsStore {
    fn drop(&mut self) {
        self.handle.close();
        // Closed above, so it can go; a failure leaves it to the next worker's clean-up.
        let _ = self.directory.remove_entry(&self.name);
    }
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
            let started = now();
            let rows_before = ROWS_READ_MS.get();
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
            w.dense_ms += now() - started;
            w.dense_rows_ms += ROWS_READ_MS.get() - rows_before;
            let reply = w.dense.done(top);
            let spent = if reply.is_some() {
                (
                    std::mem::take(&mut w.dense_ms),
                    std::mem::take(&mut w.dense_rows_ms),
                )
            } else {
                (0.0, 0.0)
            };
            reply.map(|r| (r, spent))
        };
        if let Some((reply, (spent, rows))) = reply {
            // The time the worker spent searching for this reply (`search_ms`), and of it in
            // reading exact rows back from the origin-private file (`rows_read_ms`), for the
            // benchmarks: the page reads the reply's typed fields only.
            post_with(&reply, &[("search_ms", spent), ("rows_read_ms", rows)]);
        }
        yield_now().await;
    }
    worker.borrow_mut().dense_pumping = false;
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
        Reply::Texts { epoch, vectors } => Some((
            Reply::Texts {
                epoch: *epoch,
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
