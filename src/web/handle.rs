//! `LabHandle`: the lab exported to JavaScript for the browser tests (`tests/web.rs`) and the
//! benchmarks (`tests/e2e/bench.mjs`), built only with the `api` feature. The page never calls it:
//! in the page's module it was 27.5 kB (9.8 kB gzipped, measured) fetched before the first result
//! for nothing.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::nfc;
use crate::data::vectors::VectorSet;
use crate::data::{check_expected, parse_fiches_with, parse_questions_with, Question};
use crate::lab::{Lab, Method, QuestionVectors};

fn method(name: &str) -> Result<Method, JsError> {
    Method::parse(name).ok_or_else(|| {
        JsError::new(&format!(
            "unknown method \"{name}\": expected mots or mots+"
        ))
    })
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    // Maps (not plain objects) would surprise JavaScript callers; tuples become arrays.
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value
        .serialize(&serializer)
        .map_err(|e| JsError::new(&e.to_string()))
}

/// One search result as JavaScript sees it.
#[derive(Serialize)]
struct JsHit<'a> {
    id: &'a str,
    nom: &'a str,
    famille: &'a str,
    score: f64,
}

/// The lab, exported: what the page runs, callable from JavaScript and from the browser tests.
#[wasm_bindgen]
pub struct LabHandle {
    lab: Lab,
    questions: Vec<Question>,
}

#[wasm_bindgen]
impl LabHandle {
    /// Parses and indexes a catalogue (`fiches.jsonl` text) and its questions (`questions.csv`).
    /// Throws an `Error` whose message names the line and field at fault.
    #[wasm_bindgen(constructor)]
    pub fn new(fiches: &str, questions: &str) -> Result<LabHandle, JsError> {
        let fiches = parse_fiches_with(fiches, nfc).map_err(|e| JsError::new(&e.to_string()))?;
        let questions = parse_questions_with(questions, super::nfc)
            .map_err(|e| JsError::new(&e.to_string()))?;
        check_expected(&fiches, &questions).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(LabHandle {
            lab: Lab::new(fiches),
            questions,
        })
    }

    /// Attaches a vectors file (safetensors bytes) after checking it was made for these fiches.
    #[wasm_bindgen(js_name = loadVectors)]
    pub fn load_vectors(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        let set = VectorSet::from_safetensors(bytes).map_err(|e| JsError::new(&e.to_string()))?;
        self.lab
            .set_vectors(set)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The `k` best fiches: `[{id, nom, famille, score}]`, best first. `vector` is the question's
    /// embedding, needed by `sens` and `hybride` (pass `undefined` for keyword methods).
    pub fn search(
        &self,
        method_name: &str,
        question: &str,
        k: usize,
        vector: Option<Vec<f32>>,
    ) -> Result<JsValue, JsError> {
        let m = method(method_name)?;
        let ranked = self
            .lab
            .search(m, question, vector.as_deref(), k)
            .map_err(|e| JsError::new(&e.to_string()))?;
        let hits: Vec<JsHit> = ranked
            .into_iter()
            .map(|r| {
                let f = &self.lab.fiches()[r.doc];
                JsHit {
                    id: &f.id,
                    nom: &f.nom,
                    famille: &f.famille,
                    score: r.score,
                }
            })
            .collect();
        to_js(&hits)
    }

    fn measurement(&self, method_name: &str) -> Result<crate::measure::Measurement, JsError> {
        self.lab
            .measure(
                method(method_name)?,
                &self.questions,
                &QuestionVectors::new(),
            )
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The measurement of a keyword method on the questions, as `mesurer --json` prints it.
    pub fn measure(&self, method_name: &str) -> Result<JsValue, JsError> {
        to_js(&self.measurement(method_name)?)
    }

    /// The seed's `mesurer.py` text for a keyword method.
    pub fn report(&self, method_name: &str) -> Result<String, JsError> {
        Ok(self.measurement(method_name)?.seed_report())
    }
}
