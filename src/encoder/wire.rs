//! How rows of vectors travel between the page and its worker: beside the message, as one
//! `Float32Array` (`flat`) of `dim` values per row, instead of inside it through serde.
//!
//! Inside the message, serde-wasm-bindgen reads every number as a JavaScript value, and an
//! internally tagged enum ([`super::protocol::Request`], [`super::protocol::Reply`]) is first
//! buffered whole: the 40 question vectors of a 50,000-fiche catalogue (40 × 1,024 numbers) took
//! the page's thread a task of 38-51 ms to decode, and as long to encode when « Mesurer » sent
//! them back for their dense tops (CDP profile, 2026-12-03). A typed array is copied in one go.
//!
//! The rows' own field in the message travels empty; [`take_rows`] gives them back to whoever
//! decodes it. A message without `flat` keeps whatever its field holds (the tests and benchmarks
//! that talk to the worker directly send nested arrays).

use wasm_bindgen::{JsCast, JsValue};

const FLAT: &str = "flat";
const DIM: &str = "dim";

/// Sets `rows` beside `message` (an object) and returns the array's buffer, for a transfer list.
/// Rows of different lengths are not rows of one matrix: nothing is set then.
pub fn put_rows(message: &JsValue, rows: &[Vec<f32>]) -> Option<js_sys::ArrayBuffer> {
    let dim = rows.first().map_or(0, Vec::len);
    if dim == 0 || rows.iter().any(|r| r.len() != dim) {
        return None;
    }
    let flat = js_sys::Float32Array::new_with_length((rows.len() * dim) as u32);
    for (i, row) in rows.iter().enumerate() {
        flat.subarray((i * dim) as u32, ((i + 1) * dim) as u32)
            .copy_from(row);
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
