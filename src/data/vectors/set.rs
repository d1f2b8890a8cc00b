//! A catalogue's fiche vectors in memory ([`VectorSet`]): their rows as they came, their int8
//! codes, the question vectors shipped with them, and the checks against a catalogue.

use half::f16;

use crate::data::Fiche;

use super::*;

/// A catalogue's rows as they came: f16 as read from a file (widening them to f32 doubled their
/// memory, 205 MB at 50,000 × 1024), f32 when computed in this session. Either way a score is
/// computed on exactly these values, widened to f32 one row at a time.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Rows {
    /// IEEE half-precision bit patterns, widened by [`crate::kernels::widen_f16`].
    F16(Vec<u16>),
    F32(Vec<f32>),
}

impl Rows {
    pub(super) fn len(&self) -> usize {
        match self {
            Rows::F16(v) => v.len(),
            Rows::F32(v) => v.len(),
        }
    }

    /// Row `i` as f32 into `out` (replacing its contents).
    pub(super) fn widen(&self, i: usize, dim: usize, out: &mut Vec<f32>) {
        out.clear();
        match self {
            Rows::F16(v) => {
                out.resize(dim, 0.0);
                crate::kernels::widen_f16(&v[i * dim..(i + 1) * dim], out);
            }
            Rows::F32(v) => out.extend_from_slice(&v[i * dim..(i + 1) * dim]),
        }
    }
}

/// What a page needs to know of fiche vectors that another thread holds (the page's worker):
/// their model, shape and the memory they take there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VectorsInfo {
    pub model: String,
    pub dim: usize,
    pub count: usize,
    /// Bytes held in the memory of the thread that holds the set.
    pub memory_bytes: usize,
    /// Bytes of exact values kept in the browser's storage instead (0 when all are in memory).
    pub stored_bytes: usize,
}

/// Vectors of a catalogue, one row per fiche: the exact values, and an int8 copy to scan.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorSet {
    pub model: String,
    pub dim: usize,
    pub ids: Vec<String>,
    pub fingerprint: String,
    /// `count × dim` values, row-major.
    rows: Rows,
    int8: Int8Rows,
    /// Question vectors shipped with the fiches' (same model and dimension): text, vector.
    pub questions: Vec<(String, Vec<f32>)>,
}

pub(crate) fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

impl VectorSet {
    /// Builds a set from one vector per fiche (normalised here, as the seed does).
    pub fn new(
        model: &str,
        fiches: &[Fiche],
        rows: Vec<Vec<f32>>,
    ) -> Result<VectorSet, VectorsError> {
        let ids = fiches.iter().map(|f| f.id.clone()).collect();
        VectorSet::from_rows(model, ids, fingerprint(fiches), rows)
    }

    /// [`VectorSet::new`] for the fiches `ids` of fingerprint `fingerprint` (the page's worker
    /// has the ids and the fingerprint, not the fiches).
    pub fn from_rows(
        model: &str,
        ids: Vec<String>,
        fingerprint: String,
        rows: Vec<Vec<f32>>,
    ) -> Result<VectorSet, VectorsError> {
        same_count(ids.len(), rows.len())?;
        let dim = rows.first().map_or(0, Vec::len);
        let mut data = Vec::with_capacity(rows.len() * dim);
        for (row, mut v) in rows.into_iter().enumerate() {
            if v.len() != dim {
                return Err(VectorsError::Dim {
                    expected: dim,
                    found: v.len(),
                });
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(VectorsError::NotFinite { row });
            }
            normalise(&mut v);
            data.extend_from_slice(&v);
        }
        let rows = Rows::F32(data);
        let set = VectorSet {
            model: model.to_owned(),
            dim,
            ids,
            fingerprint,
            int8: Int8Rows::of(&rows, dim),
            rows,
            questions: Vec::new(),
        };
        set.check_values()?;
        Ok(set)
    }

    /// Adds the vectors of `questions` (texts, one vector each, normalised here).
    pub fn with_questions(
        mut self,
        questions: &[&str],
        rows: Vec<Vec<f32>>,
    ) -> Result<VectorSet, VectorsError> {
        same_count(questions.len(), rows.len())?;
        for (row, (q, mut v)) in questions.iter().zip(rows).enumerate() {
            if v.len() != self.dim {
                return Err(VectorsError::Dim {
                    expected: self.dim,
                    found: v.len(),
                });
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(VectorsError::NotFinite { row });
            }
            normalise(&mut v);
            self.questions.push(((*q).to_owned(), v));
        }
        self.check_values()?;
        Ok(self)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// What another thread needs to know of this set.
    pub fn info(&self) -> VectorsInfo {
        VectorsInfo {
            model: self.model.clone(),
            dim: self.dim,
            count: self.len(),
            memory_bytes: self.memory_bytes(),
            stored_bytes: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Row `i`, exactly, as f32.
    pub fn row(&self, i: usize) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.dim);
        self.rows.widen(i, self.dim, &mut out);
        out
    }

    /// Row `i`, exactly, as f32 into `out` (replacing its contents): no allocation once `out`
    /// has grown to `dim`.
    pub fn row_into(&self, i: usize, out: &mut Vec<f32>) {
        self.rows.widen(i, self.dim, out);
    }

    /// Every row's int8 codes and scales.
    pub fn int8(&self) -> &Int8Rows {
        &self.int8
    }

    /// Bytes the set holds in memory for its fiche rows: the exact values and the int8 copy.
    pub fn memory_bytes(&self) -> usize {
        let exact = match &self.rows {
            Rows::F16(v) => v.len() * 2,
            Rows::F32(v) => v.len() * 4,
        };
        exact + self.int8.memory_bytes()
    }

    fn check_values(&self) -> Result<(), VectorsError> {
        let mut buf = Vec::with_capacity(self.dim);
        for row in 0..self.len() {
            self.rows.widen(row, self.dim, &mut buf);
            check_row(row, &buf)?;
        }
        // Question rows are numbered after the fiche rows.
        for (i, (_, v)) in self.questions.iter().enumerate() {
            check_row(self.len() + i, v)?;
        }
        Ok(())
    }

    /// The safetensors bytes (values rounded to f16). Written here rather than by
    /// `safetensors::serialize`, whose metadata is a `HashMap` serialised in a random order: the
    /// same vectors must give the same bytes, so that a committed file only changes when they do.
    /// Keys are sorted; the header is padded with spaces to a multiple of 8 bytes, as the crate
    /// does; the crate reads the result back (see the tests).
    pub fn to_safetensors(&self) -> Vec<u8> {
        let mut data = Vec::with_capacity(self.rows.len() * 2);
        match &self.rows {
            Rows::F16(v) => v
                .iter()
                .for_each(|x| data.extend_from_slice(&x.to_le_bytes())),
            Rows::F32(v) => v
                .iter()
                .for_each(|&x| data.extend_from_slice(&f16::from_f32(x).to_le_bytes())),
        }
        let fiche_bytes = data.len();
        for (_, v) in &self.questions {
            for &x in v {
                data.extend_from_slice(&f16::from_f32(x).to_le_bytes());
            }
        }
        let ids = serde_json::to_string(&self.ids).unwrap_or_default();
        // serde_json's Map is ordered by key: the header is deterministic.
        let mut header = serde_json::json!({
            "__metadata__": {
                "format": FORMAT,
                "version": VERSION,
                "model": self.model,
                "dim": self.dim.to_string(),
                "count": self.len().to_string(),
                "ids": ids,
                "fingerprint": self.fingerprint,
            },
            TENSOR: {
                "dtype": "F16",
                "shape": [self.len(), self.dim],
                "data_offsets": [0, fiche_bytes],
            },
        });
        if !self.questions.is_empty() {
            let texts: Vec<&str> = self.questions.iter().map(|(q, _)| q.as_str()).collect();
            let meta = &mut header["__metadata__"];
            meta["questions"] =
                serde_json::Value::String(serde_json::to_string(&texts).unwrap_or_default());
            meta["questions_count"] = serde_json::Value::String(texts.len().to_string());
            header[QUESTIONS_TENSOR] = serde_json::json!({
                "dtype": "F16",
                "shape": [texts.len(), self.dim],
                "data_offsets": [fiche_bytes, data.len()],
            });
        }
        let mut header = header.to_string().into_bytes();
        while !header.len().is_multiple_of(8) {
            header.push(b' ');
        }
        let mut out = Vec::with_capacity(8 + header.len() + data.len());
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&data);
        out
    }

    /// Reads a vectors file, checking its structure and values (not yet its catalogue: see
    /// [`VectorSet::check_fiches`]). Never panics on untrusted bytes.
    pub fn from_safetensors(bytes: &[u8]) -> Result<VectorSet, VectorsError> {
        crate::steps::run_ready(Self::from_safetensors_pausing(bytes, |_| {
            std::future::ready(())
        }))
    }

    /// [`VectorSet::from_safetensors`], awaiting `pause(percent done)` after every
    /// [`ROWS_PER_STEP`] rows read, checked and quantised: the page yields to its event loop
    /// there (50,000 rows read in one go held its thread for over a second).
    pub async fn from_safetensors_pausing<F, Fut>(
        bytes: &[u8],
        mut pause: F,
    ) -> Result<VectorSet, VectorsError>
    where
        F: FnMut(u8) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        // The header is JSON holding every id: 50,000 of them make a long step of their own, so
        // reading it is a step of its own.
        let layout = layout(bytes, bytes.len())?;
        pause(0).await;
        let (dim, count) = (layout.dim, layout.count);
        // Row by row: stored as read, widened once to be checked and quantised.
        let half = layout.encoding == Encoding::F16;
        let mut rows = if half {
            Rows::F16(Vec::with_capacity(count * dim))
        } else {
            Rows::F32(Vec::with_capacity(count * dim))
        };
        let mut int8 = Int8Rows::with_capacity(count, dim);
        let mut buf = Vec::with_capacity(dim);
        let width = layout.encoding.width();
        for (row, raw) in bytes[layout.rows.clone()]
            .chunks_exact(dim * width)
            .enumerate()
        {
            match &mut rows {
                Rows::F16(v) => v.extend(
                    raw.chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]])),
                ),
                Rows::F32(v) => v.extend(
                    raw.chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                ),
            }
            rows.widen(row, dim, &mut buf);
            check_row(row, &buf)?;
            int8.push(&buf);
            if (row + 1) % ROWS_PER_STEP == 0 {
                pause(((row + 1) * 100 / count) as u8).await;
            }
        }
        let questions = match &layout.questions {
            Some((_, range, _)) => read_questions(&layout, &bytes[range.clone()])?,
            None => Vec::new(),
        };
        let Layout {
            model,
            ids,
            fingerprint,
            ..
        } = layout;
        Ok(VectorSet {
            model,
            dim,
            ids: ids.unwrap_or_default(),
            fingerprint: fingerprint.unwrap_or_default(),
            int8,
            rows,
            questions,
        })
    }

    /// Refuses a set made for other fiches, naming the first difference.
    pub fn check_fiches(&self, fiches: &[Fiche]) -> Result<(), VectorsError> {
        self.check_fiches_with(fiches, &fingerprint(fiches))
    }

    /// [`VectorSet::check_fiches`] with the fiches' [`fingerprint`] already computed.
    pub fn check_fiches_with(&self, fiches: &[Fiche], expected: &str) -> Result<(), VectorsError> {
        self.check_ids(fiches.iter().map(|f| f.id.as_str()), fiches.len(), expected)
    }

    /// [`VectorSet::check_fiches_with`] from the fiches' ids alone (`count` of them).
    pub fn check_ids<'a>(
        &self,
        ids: impl Iterator<Item = &'a str>,
        count: usize,
        expected: &str,
    ) -> Result<(), VectorsError> {
        if self.len() != count {
            return Err(VectorsError::Count {
                expected: count,
                found: self.len(),
            });
        }
        for (row, (id, f)) in self.ids.iter().zip(ids).enumerate() {
            if id != f {
                return Err(VectorsError::Ids {
                    row,
                    expected: f.to_owned(),
                    found: id.clone(),
                });
            }
        }
        if self.fingerprint != expected {
            return Err(VectorsError::OtherFiches {
                expected: expected.to_owned(),
                found: self.fingerprint.clone(),
            });
        }
        Ok(())
    }

    /// Refuses a set made with another model than the one that will embed the questions.
    pub fn check_model(&self, model: &str, dim: usize) -> Result<(), VectorsError> {
        check_model_dim(&self.model, self.dim, model, dim)?;
        Ok(())
    }
}
