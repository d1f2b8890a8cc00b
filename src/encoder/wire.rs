//! How numbers travel between the page and its worker: beside the message, in typed arrays,
//! instead of inside it through serde. Rows of vectors as one `Float32Array` (`flat`) of `dim`
//! values per row ([`put_rows`]); dense tops as three arrays ([`put_tops`]).
//!
//! Inside the message, serde-wasm-bindgen reads every number as a JavaScript value, and an
//! internally tagged enum ([`super::protocol::Request`], [`super::protocol::Reply`]) is first
//! buffered whole: with a 50,000-fiche catalogue, the worker's replies (the 40 question vectors,
//! 40 × 1,024 numbers, and their tops) and the vectors sent back for those tops were the page's
//! longest tasks of a measurement (docs/benchmarks-history.md). A typed array is copied in one go.
//!
//! The rows' own field in the message travels empty; [`take_rows`] gives them back to whoever
//! decodes it. A message without `flat` keeps whatever its field holds (the tests and benchmarks
//! that talk to the worker directly send nested arrays).

use wasm_bindgen::{JsCast, JsValue};

const FLAT: &str = "flat";
const DIM: &str = "dim";

/// Sets `rows` beside `message` (an object) and returns the array's buffer, for a transfer list.
/// Rows of different lengths are not rows of one matrix: nothing is set then, nor for no rows.
pub fn put_rows<R: AsRef<[f32]>>(message: &JsValue, rows: &[R]) -> Option<js_sys::ArrayBuffer> {
    let dim = rows.first().map_or(0, |r| r.as_ref().len());
    if dim == 0 || rows.iter().any(|r| r.as_ref().len() != dim) {
        return None;
    }
    let flat = js_sys::Float32Array::new_with_length((rows.len() * dim) as u32);
    for (i, row) in rows.iter().enumerate() {
        flat.subarray((i * dim) as u32, ((i + 1) * dim) as u32)
            .copy_from(row.as_ref());
    }
    js_sys::Reflect::set(message, &FLAT.into(), &flat).ok()?;
    js_sys::Reflect::set(message, &DIM.into(), &(dim as f64).into()).ok()?;
    Some(flat.buffer())
}

/// The rows set beside `message` by [`put_rows`], removed from it (serde then reads the message
/// alone: a typed array is none of its fields' types). `None` when there are none, or when they
/// are not whole rows.
pub fn take_rows(message: &JsValue) -> Option<Vec<Vec<f32>>> {
    let object = message.dyn_ref::<js_sys::Object>()?;
    let flat = js_sys::Reflect::get(object, &FLAT.into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Float32Array>().ok());
    let dim = js_sys::Reflect::get(object, &DIM.into())
        .ok()
        .and_then(|d| d.as_f64())
        .filter(|d| *d >= 1.0 && d.fract() == 0.0)
        .map(|d| d as usize);
    js_sys::Reflect::delete_property(object, &FLAT.into()).ok();
    js_sys::Reflect::delete_property(object, &DIM.into()).ok();
    let (flat, dim) = (flat?, dim?);
    let values = flat.to_vec();
    if values.len() % dim != 0 {
        return None;
    }
    Some(values.chunks_exact(dim).map(<[f32]>::to_vec).collect())
}

const DOCS: &str = "docs";
const SCORES: &str = "scores";
const LENS: &str = "lens";

/// Sets dense tops (`(fiche, score)` best first, one list per vector) beside `message`, as three
/// typed arrays: every list's fiches (`Uint32Array`), their scores (`Float64Array`) and each
/// list's length (`Uint32Array`). Returns their buffers, for a transfer list. Through serde, the
/// 40 tops of 50 that « Mesurer » gets back were a long task to decode.
pub fn put_tops(message: &JsValue, tops: &[Vec<(u32, f64)>]) -> Option<[js_sys::ArrayBuffer; 3]> {
    let docs: Vec<u32> = tops.iter().flatten().map(|&(d, _)| d).collect();
    let scores: Vec<f64> = tops.iter().flatten().map(|&(_, s)| s).collect();
    let lens: Vec<u32> = tops.iter().map(|t| t.len() as u32).collect();
    let docs = js_sys::Uint32Array::from(docs.as_slice());
    let scores = js_sys::Float64Array::from(scores.as_slice());
    let lens = js_sys::Uint32Array::from(lens.as_slice());
    js_sys::Reflect::set(message, &DOCS.into(), &docs).ok()?;
    js_sys::Reflect::set(message, &SCORES.into(), &scores).ok()?;
    js_sys::Reflect::set(message, &LENS.into(), &lens).ok()?;
    Some([docs.buffer(), scores.buffer(), lens.buffer()])
}

/// The tops set beside `message` by [`put_tops`], removed from it. `None` when there are none, or
/// when their lengths do not add up.
pub fn take_tops(message: &JsValue) -> Option<Vec<Vec<(u32, f64)>>> {
    let object = message.dyn_ref::<js_sys::Object>()?;
    let get = |key: &str| {
        let value = js_sys::Reflect::get(object, &key.into()).ok();
        js_sys::Reflect::delete_property(object, &key.into()).ok();
        value
    };
    let docs = get(DOCS).and_then(|d| d.dyn_into::<js_sys::Uint32Array>().ok());
    let scores = get(SCORES).and_then(|s| s.dyn_into::<js_sys::Float64Array>().ok());
    let lens = get(LENS).and_then(|l| l.dyn_into::<js_sys::Uint32Array>().ok());
    let (docs, scores, lens) = (docs?.to_vec(), scores?.to_vec(), lens?.to_vec());
    let total: usize = lens.iter().map(|&l| l as usize).sum();
    if docs.len() != total || scores.len() != total {
        return None;
    }
    let mut pairs = docs.into_iter().zip(scores);
    Some(
        lens.iter()
            .map(|&l| pairs.by_ref().take(l as usize).collect())
            .collect(),
    )
}
