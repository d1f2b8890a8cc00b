//! The local encoder's model: from this browser's cache under its content hash, else fetched with
//! its progress shown; then handed to the page's worker, which checks the hash before preparing
//! it. It is kept in the cache only once the worker has prepared it
//! ([`super::super::worker_client::prepare`]).

use super::super::dom::fetch_text;
use super::super::frame::Manifest;
use super::super::runtime::{Run, Shared};
use super::super::store;
use crate::encoder::blocks::HEAD_FILE;
use crate::encoder::identity::{cache_key, MODEL_FILE};
use crate::page::Report;

/// The local encoder: the model the manifest names, from this browser's cache, else fetched once
/// with its progress shown; then handed to its Web Worker as a Blob, which checks and prepares it
/// off the page's thread.
pub async fn load_local_model(app: Shared, run: Run) {
    let manifest = match fetch_text("data/manifeste.json").await {
        Ok(text) => Manifest::parse(&text),
        Err(_) => Manifest::default(),
    };
    let expected = manifest.modele_local;
    // The whole model an earlier page kept here (81 MB): the head replaces it.
    if let Some(whole) = manifest.modele_entier {
        store::delete(store::MODEL, &cache_key(&whole)).await;
    }
    match local_model_blob(&run, expected.as_deref()).await {
        Ok((blob, cached)) => {
            run.report(Report::LocalModelFetched);
            super::super::worker_client::prepare(&app, blob, expected, cached);
        }
        Err(Download::Failed(why)) => run.report(Report::LocalModelDownloadFailed(why)),
        // The learner stopped wanting it: the model already knows.
        Err(Download::Stopped) => {}
    }
}

/// The local encoder's vectors of the learner's catalogue (`texts`: its fiches, then
/// `questions`), computed by the page's worker off the page's thread, with their progress.
/// Stopping the run abandons the worker's computation.
pub async fn embed_texts(app: Shared, run: Run, texts: Vec<String>, questions: Vec<String>) {
    use super::super::worker_client;
    let job = worker_client::ticket(&app);
    let weak = std::rc::Rc::downgrade(&app);
    run.call.on_cancel(move || {
        if let Some(app) = weak.upgrade() {
            worker_client::abandon(&app, job);
        }
    });
    let hears = run.clone();
    let reply = worker_client::embed_texts(&app, job, texts, move |done| {
        hears.report(Report::LocalTextsProgress(done))
    })
    .await;
    if let Some(vectors) = reply.filter(|_| !run.call.is_cancelled()) {
        run.report(Report::LocalTextsEmbedded { questions, vectors });
    }
}

/// Why the model did not arrive.
pub(super) enum Download {
    /// Said to the learner; the next gesture that needs the model tries again.
    Failed(String),
    /// No local method is shown any more: the download was given up at its next chunk.
    Stopped,
}

impl From<String> for Download {
    fn from(why: String) -> Download {
        Download::Failed(why)
    }
}

/// A download that receives nothing for this long is given up (and said).
const STALL_MS: i32 = 30_000;

/// The model file and whether it came from the cache: the cache is read only under the content
/// hash the page names (a build that names none caches nothing); else it is fetched. A copy kept
/// under the bare path by an earlier version of the page, never checked, is deleted.
pub(super) async fn local_model_blob(
    run: &Run,
    expected: Option<&str>,
) -> Result<(web_sys::Blob, bool), Download> {
    use wasm_bindgen::JsCast;
    if let Some(hash) = expected {
        if let Some(v) = store::get(store::MODEL, &cache_key(hash)).await {
            // A Blob, or its bytes where the browser refused the Blob (worker_client).
            let blob = match v.dyn_into::<web_sys::Blob>() {
                Ok(blob) => Some(blob),
                Err(v) if v.is_instance_of::<js_sys::ArrayBuffer>() => {
                    web_sys::Blob::new_with_buffer_source_sequence(&js_sys::Array::of1(&v)).ok()
                }
                Err(_) => None,
            };
            if let Some(blob) = blob {
                return Ok((blob, true));
            }
        }
    }
    store::delete(store::MODEL, MODEL_FILE).await;
    let blob = fetch_with_progress(run, HEAD_FILE).await?;
    Ok((blob, false))
}

/// The file at `path` as a Blob of the chunks received, reporting progress as they arrive. The
/// chunks stay in JavaScript: nothing grows or copies in the module while downloading. The run
/// stopped (the learner no longer wants the model: local methods unticked, « Annuler »), its
/// request is aborted at once, rather than at its next chunk.
pub(super) async fn fetch_with_progress(run: &Run, path: &str) -> Result<web_sys::Blob, Download> {
    use wasm_bindgen::JsCast;
    let absent = || {
        "Le modèle local n'est pas disponible sur ce site (il n'a pas été construit avec la page) : sens local et hybride local ne peuvent pas plonger de nouvelle question ; leurs mesures sur les questions de l'exercice restent.".to_owned()
    };
    let window = web_sys::window().ok_or_else(absent)?;
    // Not wanted any more (the learner unticked or cancelled meanwhile): stopped, not failed.
    let stopped = || run.call.is_cancelled();
    let init = web_sys::RequestInit::new();
    if let Ok(c) = web_sys::AbortController::new() {
        init.set_signal(Some(&c.signal()));
        run.call.hold(c);
    }
    let resp =
        wasm_bindgen_futures::JsFuture::from(window.fetch_with_str_and_init(path, &init)).await;
    let resp: web_sys::Response = match resp {
        Ok(r) => r.dyn_into().map_err(|_| absent())?,
        Err(_) if stopped() => return Err(Download::Stopped),
        Err(_) => return Err("Le modèle local n'a pas pu être chargé : le réseau a échoué. Tapez une autre question pour réessayer.".to_owned().into()),
    };
    // A file the site does not have is not built with it; any other answer may pass.
    match resp.status() {
        200..=299 => {}
        404 | 410 => return Err(absent().into()),
        status => {
            return Err(format!(
                "Le modèle local n'a pas pu être chargé : le serveur a répondu {status}. Tapez une autre question pour réessayer."
            )
            .into())
        }
    }
    let total = super::vectors::declared_length(&resp);
    let body = resp.body().ok_or_else(absent)?;
    let reader: web_sys::ReadableStreamDefaultReader =
        body.get_reader().dyn_into().map_err(|_| absent())?;
    let chunks = js_sys::Array::new();
    let (mut received, mut reported) = (0u64, 0u64);
    loop {
        if stopped() {
            let _ = reader.cancel();
            return Err(Download::Stopped);
        }
        let read = super::super::store::with_timeout(
            wasm_bindgen_futures::JsFuture::from(reader.read()),
            STALL_MS,
        );
        let Some(chunk) = read.await else {
            let _ = reader.cancel();
            return Err(format!(
                "Le modèle local n'arrive plus (rien reçu depuis {} s) : téléchargement abandonné. Tapez une autre question pour réessayer.",
                STALL_MS / 1000
            )
            .into());
        };
        let chunk = match chunk {
            Ok(c) => c,
            Err(_) if stopped() => return Err(Download::Stopped),
            Err(_) => return Err("Le modèle local n'a pas pu être chargé : la connexion a été coupée. Tapez une autre question pour réessayer.".to_owned().into()),
        };
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        if let Ok(value) = js_sys::Reflect::get(&chunk, &"value".into()) {
            received += u64::from(js_sys::Uint8Array::new(&value).length());
            chunks.push(&value);
        }
        // One message per quarter megabyte: the bar moves, the page does not re-render per packet.
        if received - reported >= 250_000 {
            reported = received;
            run.report(Report::LocalModelProgress {
                done: reported,
                total,
            });
        }
    }
    web_sys::Blob::new_with_u8_array_sequence(&chunks).map_err(|_| {
        "Le modèle local n'a pas pu être assemblé après son chargement."
            .to_owned()
            .into()
    })
}
