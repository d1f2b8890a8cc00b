//! Fiche vectors in the worker: a file read, checked and kept as a set, and the dense queue
//! served one vector per turn of the event loop.

use super::rows::*;
use super::*;

/// Reads, checks and quantises a Mistral fiche vectors file for the fiches `ids`, a slice of rows
/// at a time (a newer question's dense search is served between two slices): the file is never
/// held whole, only the int8 codes stay in memory, and the exact values go to the browser's
/// storage ([`OpfsStore`]), or stay in memory where there is none.
pub(super) async fn read_vectors(
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

/// Serves the dense queue until it is empty, one vector per turn of the event loop.
/// Started with `dense_pumping` set by the caller, which it clears when done.
pub(super) async fn pump_dense(worker: Shared) {
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
