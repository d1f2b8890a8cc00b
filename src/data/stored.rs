//! Fiche vectors read from their file a slice at a time, with only their int8 codes kept in
//! memory: the exact values go to a [`RowStore`], from which a dense search re-reads the few
//! candidates it scores exactly. The page's worker keeps them in the browser's storage (its
//! origin-private file system), so at 50,000 × 1024 its memory holds the 51 MB of codes instead
//! of 154 MB of f16 rows and codes, and it never holds the file whole.
//!
//! Same checks, same values, same results as [`VectorSet::from_safetensors`] and
//! [`VectorSet::from_rows`] (the `.npy` path): the header is read by [`vectors::layout`] or
//! [`npy::layout`], every row is checked by the same function, quantised by the same function, and
//! the exact values stored are those a [`VectorSet`] keeps (f16 as read, f32 as read, or a `.npy`
//! row normalised in f32). The tests compare both on whole files and on hostile ones.
//!
//! [`VectorSet`]: crate::data::vectors::VectorSet
//! [`VectorSet::from_safetensors`]: crate::data::vectors::VectorSet::from_safetensors
//! [`VectorSet::from_rows`]: crate::data::vectors::VectorSet::from_rows
//! [`npy::layout`]: crate::data::npy::layout

use std::cell::RefCell;
use std::ops::Range;

use crate::data::vectors::{
    self, check_row, normalise, Encoding, Int8Rows, Layout, VectorsError, VectorsInfo,
};
use crate::search::dense::DenseRows;

/// Where the exact values of a set's rows are kept, in the order they were appended.
pub trait RowStore {
    /// Appends bytes (whole rows, little-endian).
    fn append(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Fills `out` with the bytes appended at `offset`.
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), String>;
    /// Bytes the store holds in this thread's memory.
    fn memory_bytes(&self) -> usize;
    /// Bytes the store keeps outside it.
    fn stored_bytes(&self) -> usize;
}

/// A [`RowStore`] in memory: where the browser gives no storage (and in the native tests).
#[derive(Debug, Default)]
pub struct MemoryStore(Vec<u8>);

impl MemoryStore {
    /// A store that will hold `bytes` without growing (a wasm module never gives memory back, so
    /// doubling its way up would keep the larger buffer's memory for good).
    pub fn with_capacity(bytes: usize) -> MemoryStore {
        MemoryStore(Vec::with_capacity(bytes))
    }
}

impl RowStore for MemoryStore {
    fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<(), String> {
        let bytes = offset
            .checked_add(out.len())
            .and_then(|end| self.0.get(offset..end))
            .ok_or_else(|| format!("no bytes at {offset}"))?;
        out.copy_from_slice(bytes);
        Ok(())
    }
    fn memory_bytes(&self) -> usize {
        self.0.capacity()
    }
    fn stored_bytes(&self) -> usize {
        0
    }
}

/// Reads a vectors file's rows slice by slice: [`Loader::next_slice`] says which bytes of the file
/// to read next, [`Loader::feed`] takes them, [`Loader::finish`] takes the questions' bytes.
pub struct Loader<S> {
    layout: Layout,
    int8: Int8Rows,
    store: S,
    /// Rows fed so far.
    fed: usize,
    /// The encoding of the exact values stored.
    stored: Encoding,
    values: Vec<f32>,
    exact: Vec<u8>,
}

impl<S: RowStore> Loader<S> {
    pub fn new(layout: Layout, store: S) -> Loader<S> {
        // A `.npy` row is normalised, so it is stored as the f32 values a `VectorSet` keeps.
        let stored = if layout.normalise {
            Encoding::F32
        } else {
            layout.encoding
        };
        Loader {
            int8: Int8Rows::with_capacity(layout.count, layout.dim),
            values: Vec::with_capacity(layout.dim),
            exact: Vec::new(),
            layout,
            store,
            fed: 0,
            stored,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The store the exact rows go to (the worker may move them to another one between slices).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// Bytes of one row in the store.
    pub fn row_bytes(&self) -> usize {
        self.layout.dim * self.stored.width()
    }

    /// Bytes of one row in the file (its encoding may be wider than the store's).
    pub fn file_row_bytes(&self) -> usize {
        self.layout.dim * self.layout.encoding.width()
    }

    /// The bytes of the file holding the next `rows` rows at most (`None` once all were fed).
    pub fn next_slice(&self, rows: usize) -> Option<Range<usize>> {
        let left = self.layout.count - self.fed;
        if left == 0 {
            return None;
        }
        let row_bytes = self.layout.dim * self.layout.encoding.width();
        let start = self.layout.rows.start + self.fed * row_bytes;
        Some(start..start + rows.clamp(1, left) * row_bytes)
    }

    /// Percent of the rows fed.
    pub fn percent(&self) -> u8 {
        (self.fed * 100 / self.layout.count.max(1)) as u8
    }

    /// Reads, checks and quantises the rows in `raw` (the bytes [`Loader::next_slice`] named),
    /// and stores their exact values.
    pub fn feed(&mut self, raw: &[u8]) -> Result<(), VectorsError> {
        let dim = self.layout.dim;
        let row_bytes = dim * self.layout.encoding.width();
        if row_bytes == 0 || !raw.len().is_multiple_of(row_bytes) {
            return Err(VectorsError::Unreadable {
                reason: format!("{} bytes are not whole rows of {row_bytes}", raw.len()),
            });
        }
        let rows = raw.len() / row_bytes;
        if rows > self.layout.count - self.fed {
            return Err(VectorsError::Unreadable {
                reason: "more rows than the header says".into(),
            });
        }
        self.exact.clear();
        for raw in raw.chunks_exact(row_bytes) {
            let row = self.fed;
            self.layout.encoding.widen(raw, &mut self.values);
            if self.layout.normalise {
                if self.values.iter().any(|x| !x.is_finite()) {
                    return Err(VectorsError::NotFinite { row });
                }
                normalise(&mut self.values);
                self.exact
                    .extend(self.values.iter().flat_map(|x| x.to_le_bytes()));
            } else {
                self.exact.extend_from_slice(raw);
            }
            check_row(row, &self.values)?;
            self.int8.push(&self.values);
            self.fed += 1;
        }
        self.store
            .append(&self.exact)
            .map_err(|reason| VectorsError::Store { reason })
    }

    /// The byte range of the question rows, if the file has any: read them once all rows are fed.
    pub fn questions_slice(&self) -> Option<Range<usize>> {
        self.layout.questions.as_ref().map(|(_, r, _)| r.clone())
    }

    /// The set, and the question vectors read from `questions` (the bytes of
    /// [`Loader::questions_slice`], empty without it).
    pub fn finish(self, questions: &[u8]) -> Result<Loaded<S>, VectorsError> {
        if self.fed != self.layout.count {
            return Err(VectorsError::Count {
                expected: self.layout.count,
                found: self.fed,
            });
        }
        let questions = vectors::read_questions(&self.layout, questions)?;
        Ok((
            StoredSet {
                model: self.layout.model,
                dim: self.layout.dim,
                count: self.layout.count,
                int8: self.int8,
                stored: self.stored,
                store: self.store,
                scratch: RefCell::new(Vec::new()),
            },
            questions,
        ))
    }
}

/// A loaded set and the question vectors its file carried, if any.
pub type Loaded<S> = (StoredSet<S>, Vec<(String, Vec<f32>)>);

/// Fiche vectors whose int8 codes are in memory and whose exact values are in a [`RowStore`].
pub struct StoredSet<S> {
    pub model: String,
    pub dim: usize,
    pub count: usize,
    int8: Int8Rows,
    stored: Encoding,
    store: S,
    scratch: RefCell<Vec<u8>>,
}

impl<S: RowStore> StoredSet<S> {
    /// What another thread needs to know of this set.
    pub fn info(&self) -> VectorsInfo {
        VectorsInfo {
            model: self.model.clone(),
            dim: self.dim,
            count: self.count,
            memory_bytes: self.int8.memory_bytes() + self.store.memory_bytes(),
            stored_bytes: self.store.stored_bytes(),
        }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    /// Every row's int8 codes and scales.
    pub fn int8(&self) -> &Int8Rows {
        &self.int8
    }
}

impl<S: RowStore> DenseRows for StoredSet<S> {
    fn dim(&self) -> usize {
        self.dim
    }
    fn len(&self) -> usize {
        self.count
    }
    fn int8(&self) -> &Int8Rows {
        &self.int8
    }
    fn exact_row(&self, i: usize, out: &mut Vec<f32>) -> Result<(), String> {
        let row_bytes = self.dim * self.stored.width();
        let mut raw = self.scratch.borrow_mut();
        raw.resize(row_bytes, 0);
        self.store.read(i * row_bytes, &mut raw)?;
        self.stored.widen(&raw, out);
        Ok(())
    }
}

/// Reads a whole file in memory through a [`Loader`], `rows_per_slice` rows at a time: what the
/// worker does with a Blob's slices, for the native tests.
pub fn load_bytes<S: RowStore>(
    layout: Layout,
    store: S,
    bytes: &[u8],
    rows_per_slice: usize,
) -> Result<Loaded<S>, VectorsError> {
    let mut loader = Loader::new(layout, store);
    while let Some(slice) = loader.next_slice(rows_per_slice) {
        let raw = bytes.get(slice).ok_or_else(|| VectorsError::Unreadable {
            reason: "truncated".into(),
        })?;
        loader.feed(raw)?;
    }
    let questions = loader
        .questions_slice()
        .and_then(|r| bytes.get(r))
        .unwrap_or_default();
    loader.finish(questions)
}
