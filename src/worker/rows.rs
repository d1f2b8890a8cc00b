//! Where a set's exact rows live while the dense scan reads its codes: in memory, or in the
//! origin-private file system when the browser offers it (and in memory when it fails).

use super::*;

/// Where reading a vectors file's rows went, in milliseconds (for the benchmarks): from the first
/// row to the last, of which reading the file and checking, quantising and storing rows (the rest
/// is the probe and the turns of the event loop between steps).
#[derive(Default)]
pub(super) struct LoadTiming {
    pub(super) rows_ms: f64,
    pub(super) file_read_ms: f64,
    pub(super) feed_ms: f64,
    /// One row read back from the origin-private file, on average over the probe.
    pub(super) probe_ms: f64,
    /// The dense scan's memory read bound in this worker (its first pass reads the high planes
    /// of the int8 codes): see [`read_bound_ms`].
    pub(super) read_bound_ms: f64,
    /// The same over both planes: a scan of every int8 code, as the first pass did before it read the high planes alone.
    pub(super) codes_bound_ms: f64,
}

/// The fastest of three reads of every byte of `codes` ([`crate::kernels::read_probe`]), in
/// milliseconds: the least time a dense scan over them can take in this worker, on this machine,
/// now. Measured once per load (about three scans' time), for the benchmarks.
pub(super) fn read_bound_ms(codes: &[u8]) -> f64 {
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
/// cost of a few milliseconds (a 103 MB file read in 512 kB slices took several times as long as
/// in 8 MB ones), so rows are read 8 MB at a time into JavaScript's memory, and copied into the module's and fed
/// [`vectors::ROWS_PER_STEP`] at a time, yielding between steps.
pub(super) const READ_ROWS: usize = 16 * vectors::ROWS_PER_STEP;

/// Bytes `range` of `blob`, left in JavaScript's memory (synchronously: this is a worker).
pub(super) fn read_js(
    blob: &web_sys::Blob,
    range: std::ops::Range<usize>,
) -> Result<js_sys::Uint8Array, String> {
    let part = blob
        .slice_with_f64_and_f64(range.start as f64, range.end as f64)
        .map_err(|e| describe(&e))?;
    read_blob_js(&part)
}

/// Bytes `range` of `blob`, in the module's memory.
pub(super) fn read_slice(
    blob: &web_sys::Blob,
    range: std::ops::Range<usize>,
) -> Result<Vec<u8>, String> {
    read_js(blob, range).map(|bytes| bytes.to_vec())
}

/// Where the worker keeps a set's exact values.
pub(super) enum Store {
    Opfs(OpfsStore),
    Memory(MemoryStore),
}

/// Reads of a row in the origin-private file system slower than this on average move the rows
/// to memory. In Chromium a 2 kB row reads about a hundred times faster with a profile on disk
/// than in an incognito window, where the browser keeps those files in memory anyway; a dense
/// search reads 200 rows.
pub(super) const SLOW_ROW_READ_MS: f64 = 0.05;

/// Rows read at random to time the file system.
pub(super) const PROBE_READS: usize = 32;

/// Rounds of [`PROBE_READS`] at most, until one is fast.
pub(super) const PROBE_ROUNDS: usize = 3;

impl Store {
    /// Times [`PROBE_READS`] reads of random rows among those written so far, and moves them to
    /// memory (`capacity` bytes reserved) if a read takes over [`SLOW_ROW_READ_MS`].
    /// Returns the time of one read (0 without a file to read).
    pub(super) fn keep_if_fast(
        &mut self,
        row_bytes: usize,
        capacity: usize,
    ) -> Result<f64, String> {
        let Store::Opfs(opfs) = self else {
            return Ok(0.0);
        };
        let rows = opfs.len / row_bytes.max(1);
        if rows == 0 {
            return Ok(0.0);
        }
        let mut row = vec![0u8; row_bytes];
        // The fastest of up to PROBE_ROUNDS rounds: with a profile on disk one round of 32 reads
        // was seven times slower in one run than in the next (the first reads after writing),
        // which kept 102 MB in memory for nothing; in an incognito window every round
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
    /// Storage is an optimisation: when the file cannot take more (the origin's quota is full, or
    /// the file system fails), what it holds moves to memory and the rest follows it there.
    fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        let opfs = match self {
            Store::Memory(memory) => return memory.append(bytes),
            Store::Opfs(opfs) => opfs,
        };
        if opfs.append(bytes).is_ok() {
            return Ok(());
        }
        let mut written = vec![0u8; opfs.len];
        opfs.read(0, &mut written)?;
        let mut memory = MemoryStore::with_capacity(written.len() + bytes.len());
        memory.append(&written)?;
        memory.append(bytes)?;
        // The file is closed and removed as the store is dropped.
        *self = Store::Memory(memory);
        Ok(())
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

pub(super) use crate::encoder::protocol::ROWS_DIRECTORY as STORE_DIRECTORY;

/// A set's exact values in a file of the origin's private file system, through a synchronous
/// access handle (only a worker has one): reading the 200 candidates of a search back is quick in
/// Chromium with a profile on disk (an incognito window's are slower: see
/// [`Store::keep_if_fast`]). The handle locks the file: it is this worker's alone, and it is
/// removed when the set is dropped; a file left by a closed tab is removed by the next worker that
/// opens one.
pub(super) struct OpfsStore {
    directory: web_sys::FileSystemDirectoryHandle,
    pub(super) name: String,
    handle: web_sys::FileSystemSyncAccessHandle,
    pub(super) len: usize,
}

impl OpfsStore {
    pub(super) async fn open(set: u64) -> Result<OpfsStore, JsValue> {
        use wasm_bindgen_futures::JsFuture;
        let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        // Read, not called blindly: where the engine has no `navigator.storage` (WebKitGTK's
        // defaults) or no `getDirectory`, calling it would throw out of the module and kill the
        // worker before the caller's fallback to memory runs.
        let storage = js_sys::Reflect::get(&scope.navigator(), &"storage".into())?;
        let usable = storage.is_object()
            && js_sys::Reflect::get(&storage, &"getDirectory".into())?.is_function();
        if !usable {
            return Err(JsValue::from_str(
                "no origin-private file system (navigator.storage.getDirectory)",
            ));
        }
        let storage: web_sys::StorageManager = storage.unchecked_into();
        let root: web_sys::FileSystemDirectoryHandle =
            JsFuture::from(storage.get_directory()).await?.dyn_into()?;
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
        // Checked the same way; a file whose handle is refused (WebKitGTK: « Backend does not
        // support this operation ») is removed rather than left empty.
        let syncable = js_sys::Reflect::get(&file, &"createSyncAccessHandle".into())?.is_function();
        let handle = match syncable {
            true => JsFuture::from(file.create_sync_access_handle()).await,
            false => Err(JsValue::from_str("no synchronous access handle")),
        };
        let handle: web_sys::FileSystemSyncAccessHandle = match handle {
            Ok(h) => h.dyn_into()?,
            Err(e) => {
                JsFuture::from(directory.remove_entry(&name)).await.ok();
                return Err(e);
            }
        };
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
pub async fn remove_unlocked(directory: &web_sys::FileSystemDirectoryHandle) {
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
pub(super) fn at(offset: usize) -> web_sys::FileSystemReadWriteOptions {
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
