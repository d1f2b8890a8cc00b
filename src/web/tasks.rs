//! The page's asynchronous work: fetching data, calling Mistral, reading files, the caches. A task
//! is given everything it needs when it starts (texts, fiches, the key, its call), reports by
//! messages, and after every `.await` checks that its catalogue (epoch) is still the page's before
//! it reads the state again. It never indexes the catalogue after an await.

use crate::answer;
use crate::data::intake::{utf8_text, utf8_text_pausing, FileKind, Selection};
use crate::data::vectors::VectorSet;
use crate::data::vectors::VectorsInfo;
use crate::data::{check_expected, parse_fiches_pausing, parse_questions, Fiche};
use crate::encoder::protocol::{Reply, Request};
use crate::fr::messages;
use crate::lab::{Encoder, Lab, Method, QuestionVectors};
use crate::measure::{Measurement, QuestionOutcome};
use crate::mistral::chat::{Chat, Message};
use crate::mistral::{self, cache, ApiError, ApiKey};

use super::api::{self, Call, Job};
use super::frame::Manifest;
use super::runtime::Shared;
use super::store;
use super::turns::{yield_now, Pacer};
use crate::page::update::{embedding_cost, outcome, vectors_cache_key};
use crate::page::{AnswerResult, Costs, Dataset, EvalItem, Msg};

/// Typing pauses this long before a question is embedded (each embedding costs).
const DEBOUNCE_MS: u32 = 400;
/// How often the pause in typing looks whether the question was committed meanwhile.
const COMMIT_POLL_MS: u32 = 50;

/// « Vérifier ma clé »: one embedding of a two-letter text (about 2 tokens, $0.0000002), so
/// that the answer is the API's verdict on this key, with the precise reason when refused.
pub async fn check_key(app: Shared, job: Job) {
    let Job { key, call, .. } = job;
    let verdict = match api::embed(&call, &key, &["ok"]).await {
        Ok(e) => {
            app.dispatch(Msg::Paid(embedding_cost(0, e.prompt_tokens)));
            Ok(format!(
                "Clé acceptée : {} a répondu ({} token{}).",
                mistral::MODEL,
                e.prompt_tokens,
                if e.prompt_tokens > 1 { "s" } else { "" }
            ))
        }
        Err(ApiError::Cancelled) => return,
        Err(e @ ApiError::Network { .. }) => Err(format!(
            "{} Une clé refusée peut aussi se montrer ainsi, si l'API répond sans les en-têtes CORS qui laissent le navigateur lire son refus : « vecteurs --verifier » le dit dans un terminal.",
            messages::api(&e)
        )),
        Err(e) => Err(messages::api(&e)),
    };
    app.dispatch(Msg::KeyChecked(verdict));
}

use super::dom::fetch_text;

/// `path` as a Blob, not copied into the module.
async fn fetch_blob(path: &str) -> Result<web_sys::Blob, String> {
    use wasm_bindgen::JsCast;
    let resp = gloo_net::http::Request::get(path)
        .send()
        .await
        .map_err(|_| format!("{path} : le réseau a échoué."))?;
    if !resp.ok() {
        return Err(format!("{path} : le serveur répond {}", resp.status()));
    }
    let read = web_sys::Response::from(resp)
        .blob()
        .map_err(|_| format!("{path} : lecture impossible."))?;
    wasm_bindgen_futures::JsFuture::from(read)
        .await
        .ok()
        .and_then(|b| b.dyn_into::<web_sys::Blob>().ok())
        .ok_or_else(|| format!("{path} : lecture impossible."))
}

async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    let resp = gloo_net::http::Request::get(path)
        .send()
        .await
        .map_err(|_| format!("{path} : le réseau a échoué."))?;
    if !resp.ok() {
        return Err(format!("{path} : le serveur répond {}", resp.status()));
    }
    resp.binary()
        .await
        .map_err(|_| format!("{path} : lecture impossible."))
}

/// Mistral fiche vectors the page's worker has read, checked and kept as `set`.
pub struct Attached {
    pub set: u64,
    pub info: VectorsInfo,
    pub questions: Vec<(String, Vec<f32>)>,
}

impl Attached {
    /// The message that installs these vectors for catalogue `epoch`.
    fn loaded(self, epoch: u64, origin: String, bytes: Option<Vec<u8>>) -> Msg {
        Msg::VectorsLoaded {
            epoch,
            set: self.set,
            info: self.info,
            questions: self.questions,
            origin,
            bytes,
        }
    }
}

/// What the page says when its worker is gone.
const WORKER_GONE: &str = "le calcul en arrière-plan s'est arrêté (rechargez la page)";

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
    let set = super::worker_client::ticket();
    let request = Request::Vectors {
        set,
        ids_json: serde_json::to_string(&ids).unwrap_or_default(),
        fingerprint,
        npy,
    };
    match super::worker_client::ask(app, set, &request, Some(blob)).await {
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

/// [`attach_vectors`] for the catalogue in place (a safetensors file).
async fn attach_to_catalogue(app: &Shared, blob: &web_sys::Blob) -> Result<Attached, String> {
    let (ids, fingerprint) = app
        .peek(|s| {
            (
                s.data.lab.fiches().iter().map(|f| f.id.clone()).collect(),
                s.data.lab.fingerprint().to_owned(),
            )
        })
        .ok_or_else(|| WORKER_GONE.to_owned())?;
    attach_vectors(app, blob, ids, fingerprint, false).await
}

/// `bytes` as a Blob, to hand to the worker.
fn blob_of(bytes: &[u8]) -> Result<web_sys::Blob, String> {
    let array = js_sys::Uint8Array::from(bytes);
    web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(&array))
        .map_err(|_| "le navigateur refuse de créer le fichier".to_owned())
}

/// Asks the page's worker for the dense tops of `vectors` in `set`, and hands them to the page.
/// A `question` (the one in the box) supersedes an older one not yet searched.
pub async fn dense(
    app: &Shared,
    set: u64,
    vectors: Vec<Vec<f32>>,
    question: bool,
) -> Result<bool, String> {
    let ticket = super::worker_client::ticket();
    let request = Request::Dense {
        set,
        ticket,
        vectors,
        question,
    };
    let reply = super::worker_client::ask(app, ticket, &request, None).await;
    let Request::Dense { vectors, .. } = request else {
        return Err(WORKER_GONE.to_owned());
    };
    match reply {
        Some(Reply::Dense { tops, .. }) => {
            app.dispatch(Msg::DenseFound { set, vectors, tops });
            Ok(true)
        }
        Some(Reply::Superseded { .. }) => Ok(false),
        Some(Reply::DenseFailed { reason, .. }) => {
            app.dispatch(Msg::VectorsLost {
                set,
                reason: reason.clone(),
            });
            Err(reason)
        }
        _ => Err(WORKER_GONE.to_owned()),
    }
}

/// A question's dense top, asked of the page's worker: the question in the box's (`in_box`: a
/// newer one supersedes it), or a committed question's waiting to be journaled.
pub async fn dense_question(app: Shared, set: u64, vector: Vec<f32>, in_box: bool) {
    // Its failure is said by the vectors' panel (`VectorsLost`, `LocalWorkerDied`). Superseded,
    // it may be asked again if the learner comes back to that question.
    if let Ok(false) = dense(&app, set, vec![vector.clone()], in_box).await {
        app.dispatch(Msg::DenseSuperseded { set, vector });
    }
}

/// Shipped vectors (named by `data/manifeste.json`) for the exercise's catalogue, else vectors
/// this browser computed before for exactly these fiche texts.
pub async fn load_vectors(app: Shared, epoch: u64) {
    let Some((bundled, cache_key)) = app.peek(|s| {
        (
            s.data.label.is_none(),
            vectors_cache_key(s.data.lab.fingerprint()),
        )
    }) else {
        return;
    };
    if bundled {
        let manifest: Manifest = match fetch_text("data/manifeste.json").await {
            Ok(text) => Manifest::parse(&text),
            Err(_) => Manifest::default(),
        };
        if let Some(name) = &manifest.vecteurs_local {
            let read = fetch_bytes(&format!("data/{name}")).await.and_then(|b| {
                let set = VectorSet::from_safetensors(&b).map_err(|e| messages::vectors(&e))?;
                set.check_model(crate::encoder::MODEL, crate::encoder::DIM)
                    .map_err(|e| messages::vectors(&e))?;
                Ok(set)
            });
            match read {
                Ok(set) => app.dispatch(Msg::LocalVectorsLoaded {
                    epoch,
                    set: Box::new(set),
                }),
                Err(e) => web_sys::console::warn_1(&format!("{name} : {e}").into()),
            }
        }
        if let Some(name) = manifest.vecteurs {
            // Fetched as a Blob and handed on: the page's module never holds it.
            let read = match fetch_blob(&format!("data/{name}")).await {
                Ok(blob) => attach_to_catalogue(&app, &blob).await,
                Err(e) => Err(e),
            };
            match read {
                Ok(a) => {
                    let origin = format!("livrés avec la page ({name})");
                    app.dispatch(a.loaded(epoch, origin, None));
                    if app
                        .peek(|s| s.data.lab.has_vectors(Encoder::Mistral))
                        .unwrap_or(false)
                    {
                        return;
                    }
                }
                Err(message) => {
                    let origin = format!("Le fichier livré {name} est refusé : {message}");
                    app.dispatch(Msg::VectorsRefused { epoch, origin });
                }
            }
        }
    }
    if let Some(bytes) = store::get_bytes(store::FICHE_VECTORS, &cache_key).await {
        // Kept for « Télécharger ».
        if let Ok(blob) = blob_of(&bytes) {
            if let Ok(a) = attach_to_catalogue(&app, &blob).await {
                let origin = "calculés dans ce navigateur (gardés en cache)".to_owned();
                app.dispatch(a.loaded(epoch, origin, Some(bytes)));
            }
        }
    }
}

/// Where the local encoder is served, and its key in the browser's cache.
const LOCAL_MODEL: &str = "data/modele-local.safetensors";

/// The local encoder: from this browser's cache, else fetched once with its progress shown (it is
/// large: its size is said) and kept in the cache; then handed to its Web Worker as a Blob, which
/// reads and prepares it off the page's thread ([`super::encoder`]).
pub async fn load_local_model(app: Shared) {
    match local_model_blob(&app).await {
        Ok(blob) => {
            app.dispatch(Msg::LocalModelPreparing(0));
            super::worker_client::send(
                &app,
                &crate::encoder::protocol::Request::Prepare,
                Some(&blob),
            );
        }
        Err(why) => app.dispatch(Msg::LocalModelFailed(why)),
    }
}

/// The model file: from the cache (a Blob; a Uint8Array from an earlier version), else fetched
/// and cached.
async fn local_model_blob(app: &Shared) -> Result<web_sys::Blob, String> {
    use wasm_bindgen::JsCast;
    match store::get(store::MODEL, LOCAL_MODEL).await {
        Some(v) if v.is_instance_of::<web_sys::Blob>() => Ok(v.unchecked_into()),
        Some(v) if v.is_instance_of::<js_sys::Uint8Array>() => {
            let parts = js_sys::Array::of1(&v);
            web_sys::Blob::new_with_u8_array_sequence(&parts)
                .map_err(|_| "Le modèle local gardé en cache n'a pas pu être relu.".to_owned())
        }
        _ => {
            let blob = fetch_with_progress(app, LOCAL_MODEL).await?;
            store::put(store::MODEL, LOCAL_MODEL, &blob).await;
            Ok(blob)
        }
    }
}

/// The file at `path` as a Blob of the chunks received, reporting progress as they arrive. The
/// chunks stay in JavaScript: nothing grows or copies in the module while downloading.
async fn fetch_with_progress(app: &Shared, path: &str) -> Result<web_sys::Blob, String> {
    use wasm_bindgen::JsCast;
    let absent = || {
        "Le modèle local n'est pas disponible sur ce site (il n'a pas été construit avec la page) : sens local et hybride local ne peuvent pas plonger de nouvelle question ; leurs mesures sur les questions de l'exercice restent.".to_owned()
    };
    let window = web_sys::window().ok_or_else(absent)?;
    let resp: web_sys::Response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(path))
        .await
        .map_err(|_| "Le modèle local n'a pas pu être chargé : le réseau a échoué.".to_owned())?
        .dyn_into()
        .map_err(|_| absent())?;
    if !resp.ok() {
        return Err(absent());
    }
    // A compressed response's Content-Length counts compressed bytes: it is no total then.
    let encoded = resp
        .headers()
        .get("content-encoding")
        .ok()
        .flatten()
        .is_some_and(|e| e != "identity");
    let total = resp
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|_| !encoded);
    let body = resp.body().ok_or_else(absent)?;
    let reader: web_sys::ReadableStreamDefaultReader =
        body.get_reader().dyn_into().map_err(|_| absent())?;
    let chunks = js_sys::Array::new();
    let (mut received, mut reported) = (0u64, 0u64);
    loop {
        let chunk = wasm_bindgen_futures::JsFuture::from(reader.read())
            .await
            .map_err(|_| {
                "Le modèle local n'a pas pu être chargé : la connexion a été coupée.".to_owned()
            })?;
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
        // One message per megabyte: the bar moves, the page does not re-render per packet.
        if received - reported >= 1_000_000 {
            reported = received;
            app.dispatch(Msg::LocalModelProgress {
                done: reported,
                total,
            });
        }
    }
    web_sys::Blob::new_with_u8_array_sequence(&chunks)
        .map_err(|_| "Le modèle local n'a pas pu être assemblé après son chargement.".to_owned())
}

/// Embeds the question in the box, after a pause in typing or as soon as it is committed (Enter);
/// the cache first. A question typed over before either is not embedded.
pub async fn embed_question(app: Shared, job: Job, question: String, generation: u64) {
    let Job { key, call, .. } = job;
    let committed = |app: &Shared| {
        app.peek(|s| s.committed.as_deref() == Some(question.as_str()))
            .unwrap_or(false)
    };
    let mut waited = 0;
    while waited < DEBOUNCE_MS && !committed(&app) {
        api::sleep(COMMIT_POLL_MS).await;
        waited += COMMIT_POLL_MS;
    }
    let current = app
        .peek(|s| s.question_generation == generation)
        .unwrap_or(false);
    if call.is_cancelled() || !(current || committed(&app)) {
        return;
    }
    let cache_key = cache::question_vector(mistral::MODEL, &question);
    if let Some(vector) = store::get_vector(store::QUESTION_VECTORS, &cache_key).await {
        // A damaged entry (another length, NaN, not of norm 1) is deleted and paid for again.
        if crate::search::dense::check_unit_query(&vector, mistral::DIM).is_ok() {
            app.dispatch(Msg::QuestionEmbedded { question, vector });
            return;
        }
        store::delete(store::QUESTION_VECTORS, &cache_key).await;
    }
    match api::embed(&call, &key, &[&question]).await {
        Ok(e) => {
            app.dispatch(Msg::Paid(embedding_cost(0, e.prompt_tokens)));
            if let Some(vector) = e.vectors.into_iter().next() {
                store::put_vector(store::QUESTION_VECTORS, &cache_key, &vector).await;
                app.dispatch(Msg::QuestionEmbedded { question, vector });
            }
        }
        Err(ApiError::Cancelled) => {}
        Err(e) => {
            let message = messages::api(&e);
            app.dispatch(Msg::QuestionFailed { question, message });
        }
    }
}

/// Embeds `fiches` (a snapshot taken when the learner clicked) by batches. The vectors are built,
/// fingerprinted and cached from that snapshot, so they are exactly those of the texts sent; and
/// they are stored and attached only if the catalogue is still the same.
///
/// Each text's vector is also cached on its own as soon as it is paid for, so that a run stopped
/// by a failed batch resumes where it stopped without paying twice. A text over the API's
/// per-input limit is cut to its first [`mistral::MAX_INPUT_BYTES`] bytes (and counted).
pub async fn compute_vectors(app: Shared, job: Job, fiches: Vec<Fiche>) {
    let Job { epoch, key, call } = job;
    let inputs: Vec<(&str, bool)> = fiches
        .iter()
        .map(|f| mistral::input_for(&f.texte))
        .collect();
    let cut = inputs.iter().filter(|(_, c)| *c).count();
    let total = inputs.len();
    let mut rows: Vec<Option<Vec<f32>>> = Vec::with_capacity(total);
    for (text, _) in &inputs {
        let k = cache::question_vector(mistral::MODEL, text);
        rows.push(store::get_vector(store::QUESTION_VECTORS, &k).await);
    }
    let known = rows.iter().filter(|r| r.is_some()).count();
    app.dispatch(Msg::ComputeProgress {
        epoch,
        done: known,
        total,
    });
    let missing: Vec<usize> = (0..total).filter(|&i| rows[i].is_none()).collect();
    let texts: Vec<&str> = missing.iter().map(|&i| inputs[i].0).collect();
    let mut done = known;
    for range in mistral::batches(&texts) {
        let (Some(batch), Some(which)) = (texts.get(range.clone()), missing.get(range)) else {
            break;
        };
        match api::embed(&call, &key, batch).await {
            Ok(e) => {
                app.dispatch(Msg::Paid(embedding_cost(e.prompt_tokens, 0)));
                for ((&i, text), v) in which.iter().zip(batch).zip(e.vectors) {
                    let k = cache::question_vector(mistral::MODEL, text);
                    store::put_vector(store::QUESTION_VECTORS, &k, &v).await;
                    if let Some(slot) = rows.get_mut(i) {
                        *slot = Some(v);
                    }
                }
                done += which.len();
                app.dispatch(Msg::ComputeProgress { epoch, done, total });
            }
            Err(e) => {
                let first = which
                    .first()
                    .and_then(|&i| fiches.get(i))
                    .map(|f| f.id.as_str());
                let last = which
                    .last()
                    .and_then(|&i| fiches.get(i))
                    .map(|f| f.id.as_str());
                let message = format!(
                    "Calcul interrompu sur le lot de {} fiches {} à {} : {} Les {} vecteurs déjà obtenus sont gardés : relancer ne les repaie pas.",
                    which.len(),
                    first.unwrap_or("?"),
                    last.unwrap_or("?"),
                    messages::api(&e),
                    done
                );
                app.dispatch(Msg::ComputeEnded { epoch, message });
                return;
            }
        }
        if call.is_cancelled() || !app.is_current(epoch) {
            let message = format!(
                "Calcul interrompu : Annulé. Les {done} vecteurs déjà obtenus sont gardés : relancer ne les repaie pas."
            );
            app.dispatch(Msg::ComputeEnded { epoch, message });
            return;
        }
    }
    let rows: Vec<Vec<f32>> = rows.into_iter().flatten().collect();
    // Checked and written here (the file « Télécharger » gives and the cache keeps), then
    // handed to the worker.
    let built = VectorSet::new(mistral::MODEL, &fiches, rows).map(|set| set.to_safetensors());
    let bytes = match built {
        Ok(b) => b,
        Err(e) => {
            let message = format!("Vecteurs refusés : {}", messages::vectors(&e));
            app.dispatch(Msg::ComputeEnded { epoch, message });
            return;
        }
    };
    if !app.is_current(epoch) || call.is_cancelled() {
        return;
    }
    let kept = store::put_bytes(
        store::FICHE_VECTORS,
        &vectors_cache_key(&crate::data::vectors::fingerprint(&fiches)),
        &bytes,
    )
    .await;
    let origin = if kept {
        "calculés dans ce navigateur (gardés en cache)".to_owned()
    } else {
        "calculés dans ce navigateur (non gardés : le stockage du navigateur est indisponible ; « Télécharger » les garde)".to_owned()
    };
    let ids = fiches.iter().map(|f| f.id.clone()).collect();
    let fingerprint = crate::data::vectors::fingerprint(&fiches);
    let attached = match blob_of(&bytes) {
        Ok(blob) => attach_vectors(&app, &blob, ids, fingerprint, false).await,
        Err(e) => Err(e),
    };
    match attached {
        Ok(a) => app.dispatch(a.loaded(epoch, origin, Some(bytes))),
        Err(reason) => {
            let message = format!("Vecteurs refusés : {reason}");
            app.dispatch(Msg::ComputeEnded { epoch, message });
            return;
        }
    }
    let cut_note = match cut {
        0 => String::new(),
        n => format!(
            " {} trop longue{} pour l'API (plus de 8 192 tokens) : seuls {} {} premiers octets ont été plongés.",
            crate::fr::count(n as u64, "fiche", "fiches"),
            if n > 1 { "s" } else { "" },
            if n > 1 { "leurs" } else { "ses" },
            crate::fr::int(mistral::MAX_INPUT_BYTES as u64)
        ),
    };
    let message = format!(
        "Vecteurs calculés. « Télécharger » donne le fichier à livrer dans data/ avec la page.{cut_note}"
    );
    app.dispatch(Msg::ComputeEnded { epoch, message });
}

/// Embeds the questions not yet known (the cache first), then asks for the dense measurements.
pub async fn measure_dense(app: Shared, job: Job, questions: Vec<String>) {
    let Job { epoch, key, call } = job;
    let mut missing: Vec<String> = Vec::new();
    let mut found = Vec::new();
    for q in questions {
        match store::get_vector(
            store::QUESTION_VECTORS,
            &cache::question_vector(mistral::MODEL, &q),
        )
        .await
        {
            Some(v) => found.push((q, v)),
            None => missing.push(q),
        }
    }
    app.dispatch(Msg::DenseProgress {
        epoch,
        vectors: found,
    });
    let refs: Vec<&str> = missing.iter().map(String::as_str).collect();
    for range in mistral::batches(&refs) {
        let Some(batch) = refs.get(range) else { break };
        match api::embed(&call, &key, batch).await {
            Ok(e) => {
                app.dispatch(Msg::Paid(embedding_cost(0, e.prompt_tokens)));
                let mut vectors = Vec::new();
                for (text, v) in batch.iter().zip(e.vectors) {
                    let cache_key = cache::question_vector(mistral::MODEL, text);
                    store::put_vector(store::QUESTION_VECTORS, &cache_key, &v).await;
                    vectors.push((text.to_string(), v));
                }
                // Question vectors stay valid whatever the catalogue: they are kept.
                app.dispatch(Msg::DenseProgress { epoch, vectors });
            }
            Err(e) => {
                // What was embedded stays in memory and in the cache: a retry pays only the rest.
                let message = Some(format!("Mesure interrompue : {}", messages::api(&e)));
                app.dispatch(Msg::DenseEnded { epoch, message });
                return;
            }
        }
    }
    app.dispatch(Msg::DenseEnded {
        epoch,
        message: None,
    });
}

/// An answer from the cache (memory, then IndexedDB) or from the model; `true` when cached.
async fn obtain(
    app: &Shared,
    call: &Call,
    key: &ApiKey,
    model: &str,
    messages: &[Message],
) -> Result<(Chat, bool), ApiError> {
    let cache_key = cache::answer(model, messages);
    if let Some(chat) = app.peek(|s| s.answers.get(&cache_key).cloned()).flatten() {
        return Ok((chat, true));
    }
    let stored = store::get_text(store::ANSWERS, &cache_key).await;
    if let Some(chat) = stored.and_then(|t| serde_json::from_str::<Chat>(&t).ok()) {
        app.dispatch(Msg::AnswerObtained {
            key: cache_key,
            chat: chat.clone(),
        });
        return Ok((chat, true));
    }
    let mut chat = api::chat(call, key, model, messages).await?;
    chat.obtained = js_sys::Date::new_0().to_iso_string().as_string();
    let cost = Costs::chat(model, chat.prompt_tokens, chat.completion_tokens);
    app.dispatch(Msg::Paid(cost));
    if let Ok(text) = serde_json::to_string(&chat) {
        store::put_text(store::ANSWERS, &cache_key, &text).await;
    }
    app.dispatch(Msg::AnswerObtained {
        key: cache_key,
        chat: chat.clone(),
    });
    Ok((chat, false))
}

/// « Rédiger la réponse » for `question` from the fiches `sent`.
pub async fn answer(app: Shared, job: Job, model: String, question: String, sent: Vec<Fiche>) {
    let Job { epoch, key, call } = job;
    let refs: Vec<&Fiche> = sent.iter().collect();
    let messages = answer::prompt(&question, &refs);
    let outcome = match obtain(&app, &call, &key, &model, &messages).await {
        Err(ApiError::Cancelled) => return,
        other => other.map_err(|e| messages::api(&e)),
    };
    let result = AnswerResult {
        question,
        model,
        sent,
        outcome,
    };
    app.dispatch(Msg::AnswerShown { epoch, result });
}

/// « Mesurer les réponses »: each question in turn, prepared when the run started.
pub async fn evaluate(app: Shared, job: Job, model: String, method: Method, items: Vec<EvalItem>) {
    let Job { epoch, key, call } = job;
    let total = items.len();
    let mut outcomes = Vec::with_capacity(total);
    for (i, item) in items.iter().enumerate() {
        match obtain(&app, &call, &key, &model, &item.messages).await {
            Ok((chat, _)) => outcomes.push(outcome(item, chat)),
            Err(e) => {
                let message = match e {
                    ApiError::Cancelled => "Mesure annulée. Les réponses déjà obtenues sont gardées : relancer ne les repaie pas.".to_owned(),
                    other => format!(
                        "Mesure interrompue : {} Les réponses déjà obtenues sont gardées : relancer ne les repaie pas.",
                        messages::api(&other)
                    ),
                };
                app.dispatch(Msg::EvalEnded {
                    epoch,
                    outcome: Err(message),
                });
                return;
            }
        }
        app.dispatch(Msg::EvalProgress {
            epoch,
            done: i + 1,
            total,
        });
    }
    app.dispatch(Msg::EvalEnded {
        epoch,
        outcome: Ok((method, model, outcomes)),
    });
}

/// A file's bytes, read 4 MB at a time: each slice of the file is read by the browser, then copied
/// into the module, with a turn of the event loop whenever the [`Pacer`] says. Reading a 100 MB
/// file whole made the browser's own task of 50-70 ms on the page's thread when the read ended,
/// and held a second copy of the file in JavaScript until it was copied.
async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    const STEP: f64 = (4 << 20) as f64;
    let failed = || format!("{} : lecture impossible.", file.name());
    let pacer = Pacer::new();
    let size = file.size();
    let mut out = Vec::with_capacity(size as usize);
    let mut at = 0.0;
    while at < size {
        let end = size.min(at + STEP);
        let slice = file.slice_with_f64_and_f64(at, end).map_err(|_| failed())?;
        let buffer = wasm_bindgen_futures::JsFuture::from(slice.array_buffer())
            .await
            .map_err(|_| failed())?;
        let array = js_sys::Uint8Array::new(&buffer);
        let start = out.len();
        out.resize(start + array.length() as usize, 0);
        array.copy_to(&mut out[start..]);
        at = end;
        pacer.pause().await;
    }
    Ok(out)
}

/// Reads and checks the learner's files (fiches, questions, optionally vectors); nothing leaves
/// the browser. The catalogue in place stays until every check has passed.
pub async fn read_files(app: Shared, seq: u64, files: Vec<web_sys::File>, selection: Selection) {
    // A later selection (or « Revenir au catalogue de l'exercice ») makes this one moot: its work
    // stops at the next step, and what it would report is dropped by `update`.
    let superseded = || app.peek(|s| s.selection != seq).unwrap_or(true);
    let parsed = async {
        let file = |i: usize| files.get(i).ok_or_else(|| "fichier introuvable.".to_owned());
        let (f_file, q_file) = (file(selection.fiches)?, file(selection.questions)?);
        // Checked, parsed and indexed in steps (see `Pacer`).
        let pacer = Pacer::new();
        let pacer = &pacer;
        let text = |name: String, bytes| async move {
            utf8_text_pausing(&name, bytes, |_| pacer.pause())
                .await
                .map_err(|e| messages::intake(&e))
        };
        let fiches_text = text(f_file.name(), read_file(f_file).await?).await?;
        let questions_text = text(q_file.name(), read_file(q_file).await?).await?;
        let (f_name, q_name) = (f_file.name(), q_file.name());
        let said = |e: crate::data::DataError| messages::data_in(&e, &f_name, &q_name);
        // Parsed and indexed in steps, with turns of the event loop between them: 50,000 fiches
        // held the page's thread for 3.7-4.9 s in one task.
        let fiches = parse_fiches_pausing(&fiches_text, super::nfc, |_| pacer.pause())
            .await
            .map_err(said)?;
        // The check builds a set of every id (20 ms at 50,000 fiches in a build without
        // `wasm-opt`): a step of its own.
        pacer.turn().await;
        let questions = parse_questions(&questions_text).map_err(said)?;
        check_expected(&fiches, &questions).map_err(said)?;
        pacer.turn().await;
        let label = format!("vos données ({}, {})", f_file.name(), q_file.name());
        let mut data =
            Dataset::new_pausing(0, fiches, questions, Some(label), |_| pacer.pause()).await;
        if superseded() {
            return Err(String::new());
        }
        if let Some((i, kind)) = selection.vectors {
            let v = file(i)?;
            let name = v.name();
            // Read, checked and kept by the page's worker, from the file itself: the page's
            // thread never reads it (50,000 vectors, 103 MB).
            let ids = data.lab.fiches().iter().map(|f| f.id.clone()).collect();
            let fingerprint = data.lab.fingerprint().to_owned();
            let a = attach_vectors(&app, v, ids, fingerprint, kind == FileKind::Npy)
                .await
                .map_err(|e| format!("{name} : {e}"))?;
            data.shipped_questions = a.questions;
            data.lab.set_vectors_away(a.set, a.info);
            data.vectors_origin = if kind == FileKind::Npy {
                format!("chargés depuis {name} (un .npy ne porte pas d'empreinte : seule sa forme a été vérifiée)")
            } else {
                format!("chargés depuis {name}")
            };
        }
        Ok::<_, String>(data)
    }
    .await;
    match parsed {
        Ok(data) => app.dispatch(Msg::DatasetLoaded {
            seq,
            data: Box::new(data),
        }),
        Err(e) => app.dispatch(Msg::FilesRefused {
            seq,
            errors: vec![e],
        }),
    }
}

/// Measures `methods` on the catalogue's questions, a question at a time, with a turn of the event
/// loop whenever 16 ms have passed. Each step reads the catalogue afresh and stops if it has been
/// replaced.
pub async fn measure(
    app: Shared,
    seq: u64,
    epoch: u64,
    methods: Vec<Method>,
    vectors: QuestionVectors,
) {
    // Started by a message whose render has just run: the first step waits for the next turn.
    yield_now().await;
    let Some(questions) = app.peek(|s| s.data.questions.clone()) else {
        return;
    };
    // The dense tops of every question, asked of the page's worker at once (it searches them one
    // per turn, a question typed meanwhile going first).
    let wanted = app.peek(|s| {
        let lab = &s.data.lab;
        let set = lab.vectors_away()?;
        if !methods
            .iter()
            .any(|m| m.encoder() == Some(Encoder::Mistral))
        {
            return None;
        }
        let missing: Vec<Vec<f32>> = questions
            .iter()
            .filter_map(|q| vectors.get(&q.text))
            .filter(|v| !lab.knows_dense(Encoder::Mistral, v, Lab::dense_depth()))
            .cloned()
            .collect();
        Some((set, missing))
    });
    if let Some(Some((set, missing))) = wanted {
        if let Err(reason) = dense(&app, set, missing, false).await {
            let result = Err(format!("Mesure impossible : {reason}."));
            app.dispatch(Msg::Measured { seq, epoch, result });
            return;
        }
    }
    let mut outcomes: Vec<Vec<QuestionOutcome>> = vec![Vec::new(); methods.len()];
    let pacer = Pacer::new();
    for (i, q) in questions.iter().enumerate() {
        let step = app.peek(|s| {
            (s.data.epoch == epoch).then(|| {
                methods
                    .iter()
                    .map(|&m| s.data.lab.outcome(m, q, &vectors))
                    .collect::<Result<Vec<_>, _>>()
            })
        });
        match step.flatten() {
            Some(Ok(row)) => {
                for (list, o) in outcomes.iter_mut().zip(row) {
                    list.push(o);
                }
            }
            Some(Err(e)) => {
                let result = Err(messages::search(&e));
                app.dispatch(Msg::Measured { seq, epoch, result });
                return;
            }
            None => return,
        }
        if pacer.due() {
            app.dispatch(Msg::MeasureProgress { seq, done: i + 1 });
            pacer.pause().await;
        }
    }
    let result = Ok(methods
        .iter()
        .zip(outcomes)
        .map(|(m, o)| Measurement::from_outcomes(m.name(), m.score_decimals(), o))
        .collect());
    app.dispatch(Msg::Measured { seq, epoch, result });
}

/// Reads TREC run files, one message per file (in the order chosen); nothing leaves the browser.
pub async fn read_runs(app: Shared, epoch: u64, files: Vec<web_sys::File>) {
    for file in files {
        let name = file.name();
        let text = match read_file(&file).await {
            Ok(bytes) => utf8_text(&name, bytes).map_err(|e| messages::intake(&e)),
            Err(e) => Err(e),
        };
        app.dispatch(Msg::RunFileRead { epoch, name, text });
    }
}

/// Copies the shared link to the clipboard, and says whether it worked.
pub async fn copy_link(app: Shared, link: String) {
    let Some(w) = web_sys::window() else { return };
    let promise = w.navigator().clipboard().write_text(&link);
    let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
    app.dispatch(Msg::LinkCopied(copied));
}
