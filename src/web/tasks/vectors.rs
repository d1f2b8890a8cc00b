//! Mistral's fiche vectors: the shipped or cached ones found for a catalogue, handed to the
//! page's worker, which keeps and searches them; dense tops asked of it; the other files shipped
//! with the exercise (the local encoder's vectors, the answers).

use crate::data::vectors::VectorSet;
use crate::data::vectors::VectorsInfo;
use crate::data::Question;
use crate::encoder::protocol::{Reply, Request};
use crate::fr::messages;
use crate::page::update::read_shipped;
use crate::page::Report;

use super::super::runtime::{Run, Shared};
use super::super::store;

/// `path` as a Blob, not copied into the module.
pub(super) async fn fetch_blob(path: &str) -> Result<web_sys::Blob, String> {
    use wasm_bindgen::JsCast;
    let resp = fetch_ok(path).await?;
    let read = web_sys::Response::from(resp)
        .blob()
        .map_err(|_| format!("{path} : lecture impossible."))?;
    wasm_bindgen_futures::JsFuture::from(read)
        .await
        .ok()
        .and_then(|b| b.dyn_into::<web_sys::Blob>().ok())
        .ok_or_else(|| format!("{path} : lecture impossible."))
}

/// The response for `path`, if the server answered it with a success.
async fn fetch_ok(path: &str) -> Result<gloo_net::http::Response, String> {
    let network = || format!("{path} : le réseau a échoué.");
    let started = crate::web::dom::fetch_started(path).ok_or_else(network)?;
    use wasm_bindgen::JsCast;
    let resp: web_sys::Response = wasm_bindgen_futures::JsFuture::from(started)
        .await
        .map_err(|_| network())?
        .dyn_into()
        .map_err(|_| network())?;
    let resp = gloo_net::http::Response::from(resp);
    if !resp.ok() {
        return Err(format!("{path} : le serveur répond {}", resp.status()));
    }
    Ok(resp)
}

pub(super) async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    let resp = fetch_ok(path).await?;
    resp.binary()
        .await
        .map_err(|_| format!("{path} : lecture impossible."))
}

/// The body's length as the response declares it, if it declares one that counts the bytes read
/// (a compressed response's Content-Length counts compressed bytes: it is no total then).
pub(super) fn declared_length(resp: &web_sys::Response) -> Option<u64> {
    let headers = resp.headers();
    let encoded = headers
        .get("content-encoding")
        .ok()
        .flatten()
        .is_some_and(|e| e != "identity");
    headers
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|_| !encoded)
}

/// `path`'s bytes, refused before they are all received when they pass `max`: a declared length
/// over it is refused unread, and the body is read in chunks and dropped at the first one that
/// passes it.
pub(super) async fn fetch_bytes_at_most(path: &str, max: usize) -> Result<Vec<u8>, String> {
    use wasm_bindgen::JsCast;
    let too_large = || {
        format!(
            "{path}\u{a0}: plus de {} octets, refusé.",
            crate::fr::int(max as u64)
        )
    };
    let unread = || format!("{path}\u{a0}: lecture impossible.");
    let resp = web_sys::Response::from(fetch_ok(path).await?);
    if declared_length(&resp).is_some_and(|n| n > max as u64) {
        if let Some(body) = resp.body() {
            let _ = body.cancel();
        }
        return Err(too_large());
    }
    let body = resp.body().ok_or_else(unread)?;
    let reader: web_sys::ReadableStreamDefaultReader =
        body.get_reader().dyn_into().map_err(|_| unread())?;
    let mut out: Vec<u8> = Vec::new();
    loop {
        let chunk = wasm_bindgen_futures::JsFuture::from(reader.read())
            .await
            .map_err(|_| unread())?;
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(out);
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(|_| unread())?;
        let bytes = js_sys::Uint8Array::new(&value);
        if out.len() + bytes.length() as usize > max {
            let _ = wasm_bindgen_futures::JsFuture::from(reader.cancel()).await;
            return Err(too_large());
        }
        out.extend_from_slice(&bytes.to_vec());
    }
}

/// Mistral fiche vectors the page's worker has read, checked and kept as `set`.
pub struct Attached {
    pub set: u64,
    pub info: VectorsInfo,
    pub questions: Vec<(String, Vec<f32>)>,
}

impl Attached {
    /// The report that installs these vectors, from `origin`; `bytes`: the file, when computed
    /// in this browser.
    pub(super) fn report(self, origin: String, bytes: Option<Vec<u8>>) -> Report {
        Report::VectorsAttached {
            set: self.set,
            info: self.info,
            questions: self.questions,
            origin,
            bytes,
        }
    }
}

/// What the page says when its worker is gone.
pub(super) const WORKER_GONE: &str = "le calcul en arrière-plan s'est arrêté (rechargez la page)";

/// Hands a Mistral fiche vectors file (safetensors, or a bare `.npy` matrix) to the page's worker,
/// which reads it, checks it against the fiches `ids` and their fingerprint, and keeps it: the
/// page's thread never holds the vectors (103 MB at 50,000 fiches).
pub async fn attach_vectors(
    app: &Shared,
    blob: &web_sys::Blob,
    ids: Vec<String>,
    fingerprint: String,
    npy: bool,
) -> Result<Attached, String> {
    let set = super::super::worker_client::ticket(app);
    let request = Request::Vectors {
        set,
        ids_json: serde_json::to_string(&ids).unwrap_or_default(),
        fingerprint,
        npy,
    };
    match super::super::worker_client::ask(app, set, &request, Some(blob)).await {
        Some(Reply::Vectors {
            info, questions, ..
        }) => Ok(Attached {
            set,
            info,
            questions,
        }),
        Some(Reply::VectorsRefused { reason, .. }) => Err(reason),
        _ => Err(WORKER_GONE.to_owned()),
    }
}

/// `bytes` as a Blob, to hand to the worker.
pub(super) fn blob_of(bytes: &[u8]) -> Result<web_sys::Blob, String> {
    let array = js_sys::Uint8Array::from(bytes);
    web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(&array))
        .map_err(|_| "le navigateur refuse de créer le fichier".to_owned())
}

/// Dense tops asked of the page's worker in its vectors `set`: the question in the box's
/// (`in_box`: a newer one supersedes it in the worker's queue, and its run then ends with
/// nothing), or those a measurement or a committed question waiting to be journaled needs. A
/// failure is reported (the set is dropped); a dead worker is said by the page already.
pub(super) async fn dense_tops(
    app: Shared,
    run: Run,
    set: u64,
    vectors: Vec<Vec<f32>>,
    in_box: bool,
) {
    let ticket = super::super::worker_client::ticket(&app);
    let request = Request::Dense {
        set,
        ticket,
        vectors,
        question: in_box,
    };
    let reply = super::super::worker_client::ask(&app, ticket, &request, None).await;
    let Request::Dense { vectors, .. } = request else {
        return;
    };
    match reply {
        Some(Reply::Dense { tops, .. }) => run.report(Report::DenseFound { vectors, tops }),
        Some(Reply::DenseFailed { reason, .. }) => run.report(Report::DenseLost(reason)),
        _ => {}
    }
}

/// The answers shipped with the exercise (`data/{name}`), checked against its catalogue: a file
/// computed for other texts is refused whole, and the page says why.
pub(super) async fn fetch_answers(
    run: Run,
    name: String,
    fingerprint: String,
    ids: Vec<String>,
    questions: Vec<Question>,
) {
    let outcome = fetch_bytes_at_most(
        &format!("data/{name}"),
        crate::answer::shipped::MAX_FILE_BYTES,
    )
    .await
    .and_then(|bytes| read_shipped(&bytes, &fingerprint, &ids, &questions));
    if let Err(e) = &outcome {
        web_sys::console::warn_1(&format!("{name}\u{a0}: {e}").into());
    }
    run.report(Report::AnswersShipped(outcome));
}

/// The local encoder's vectors shipped with the exercise (`data/{name}`), read and checked.
pub(super) async fn fetch_local_vectors(run: Run, name: String) {
    let read = fetch_bytes(&format!("data/{name}")).await.and_then(|b| {
        let set = VectorSet::from_safetensors(&b).map_err(|e| messages::vectors(&e))?;
        set.check_model(crate::encoder::MODEL, crate::encoder::DIM)
            .map_err(|e| messages::vectors(&e))?;
        Ok(set)
    });
    if let Err(e) = &read {
        web_sys::console::warn_1(&format!("{name}\u{a0}: {e}").into());
    }
    run.report(Report::LocalVectors(read.ok().map(Box::new)));
}

/// The catalogue's Mistral fiche vectors, handed to the page's worker: the file `shipped` with
/// the page (in `data/`), else the one this browser computed before for exactly these fiche
/// texts (under `cache_key`).
pub(super) async fn find_vectors(
    app: Shared,
    run: Run,
    shipped: Option<String>,
    cache_key: String,
    ids: Vec<String>,
    fingerprint: String,
) {
    if let Some(name) = shipped {
        // Fetched as a Blob and handed on: the page's module never holds it.
        let read = match fetch_blob(&format!("data/{name}")).await {
            Ok(blob) => attach_vectors(&app, &blob, ids.clone(), fingerprint.clone(), false).await,
            Err(e) => Err(e),
        };
        match read {
            Ok(a) => {
                run.report(a.report(format!("livrés avec la page ({name})"), None));
                run.report(Report::VectorsSought);
                return;
            }
            Err(message) => run.report(Report::VectorsRefused(format!(
                "Le fichier livré {name} est refusé\u{a0}: {message}"
            ))),
        }
    }
    if let Some(bytes) = store::get_bytes(store::FICHE_VECTORS, &cache_key).await {
        // Kept for « Télécharger ».
        if let Ok(blob) = blob_of(&bytes) {
            if let Ok(a) = attach_vectors(&app, &blob, ids, fingerprint, false).await {
                let origin = "calculés dans ce navigateur (gardés en cache)".to_owned();
                run.report(a.report(origin, Some(bytes)));
            }
        }
    }
    run.report(Report::VectorsSought);
}
