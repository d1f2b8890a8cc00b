//! The calls to Mistral that spend the learner's key: checking it, embedding the question in
//! the box, the fiches and the questions for « Mesurer », an answer and the answers' evaluation.

use crate::answer::shipped::{Reranked, RerankedList, Tokens};
use crate::answer::{self, judge, Source};
use crate::data::vectors::VectorSet;
use crate::data::Fiche;
use crate::fr::messages;
use crate::lab::Method;
use crate::mistral::chat::{Chat, Message};
use crate::mistral::{self, cache, ApiError, ApiKey};
use crate::page::{AnswerMsg, KeyMsg};

use super::super::api::{self, Call};
use super::super::runtime::{Run, Shared};
use super::super::store;
use super::vectors::*;
use crate::page::update::{embedding_cost, outcome, vectors_cache_key};
use crate::page::{
    AnswerResult, Chats, Costs, EvalItem, EvalRun, Msg, Report, RerankItem, RerankRun,
};

/// « Vérifier ma clé »: one embedding of a two-letter text (about 2 tokens, $0.0000002), so
/// that the answer is the API's verdict on this key, with the precise reason when refused.
pub async fn check_key(app: Shared, run: Run, key: ApiKey) {
    let verdict = match api::embed(&run.call, &key, &["ok"]).await {
        Ok(e) => {
            app.dispatch(Msg::Key(KeyMsg::Paid(embedding_cost(0, e.prompt_tokens))));
            Ok(format!(
                "Clé acceptée : {} a répondu ({} token{}).",
                mistral::MODEL,
                e.prompt_tokens,
                if e.prompt_tokens > 1 { "s" } else { "" }
            ))
        }
        Err(ApiError::Cancelled) => return,
        Err(e @ ApiError::Network { .. }) => Err(format!(
            "{} Une clé refusée peut aussi se montrer ainsi, si l'API répond sans les en-têtes CORS qui laissent le navigateur lire son refus : « vecteurs --verifier » le dit dans un terminal.",
            messages::api(&e)
        )),
        Err(e) => Err(messages::api(&e)),
    };
    run.report(Report::KeyChecked(verdict));
}

/// The pause in typing: `ms`, then [`Report::Paused`] (a question typed over meanwhile stops the
/// run, and its report is dropped).
pub async fn pause(run: Run, ms: u32) {
    api::sleep(ms).await;
    if !run.call.is_cancelled() {
        run.report(Report::Paused);
    }
}

/// Embeds a question (the cache first).
pub async fn embed_question(app: Shared, run: Run, key: ApiKey, question: String) {
    let call = &run.call;
    let cache_key = cache::question_vector(mistral::MODEL, &question);
    if let Some(vector) = store::get_vector(store::QUESTION_VECTORS, &cache_key).await {
        // A damaged entry (another length, NaN, not of norm 1) is deleted and paid for again.
        if crate::search::dense::check_unit_query(&vector, mistral::DIM).is_ok() {
            run.report(Report::QuestionEmbedded(vector));
            return;
        }
        store::delete(store::QUESTION_VECTORS, &cache_key).await;
    }
    match api::embed(call, &key, &[&question]).await {
        Ok(e) => {
            app.dispatch(Msg::Key(KeyMsg::Paid(embedding_cost(0, e.prompt_tokens))));
            if let Some(vector) = e.vectors.into_iter().next() {
                store::put_vector(store::QUESTION_VECTORS, &cache_key, &vector).await;
                run.report(Report::QuestionEmbedded(vector));
            }
        }
        Err(ApiError::Cancelled) => {}
        Err(e) => run.report(Report::QuestionFailed(messages::api(&e))),
    }
}

/// Embeds `fiches` (a snapshot taken when the learner clicked) by batches. The vectors are built,
/// fingerprinted and cached from that snapshot, so they are exactly those of the texts sent; and
/// they are stored and attached only if the run was not stopped (a new catalogue stops it).
///
/// Each text's vector is also cached on its own as soon as it is paid for, so that a run stopped
/// by a failed batch resumes where it stopped without paying twice. A text over the API's
/// per-input limit is cut to its first [`mistral::MAX_INPUT_BYTES`] bytes (and counted).
pub async fn compute_vectors(app: Shared, run: Run, key: ApiKey, fiches: Vec<Fiche>) {
    let call = &run.call;
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
    run.report(Report::ComputeProgress { done: known, total });
    let missing: Vec<usize> = (0..total).filter(|&i| rows[i].is_none()).collect();
    let texts: Vec<&str> = missing.iter().map(|&i| inputs[i].0).collect();
    let mut done = known;
    for range in mistral::batches(&texts) {
        let (Some(batch), Some(which)) = (texts.get(range.clone()), missing.get(range)) else {
            break;
        };
        match api::embed(call, &key, batch).await {
            Ok(e) => {
                app.dispatch(Msg::Key(KeyMsg::Paid(embedding_cost(e.prompt_tokens, 0))));
                for ((&i, text), v) in which.iter().zip(batch).zip(e.vectors) {
                    let k = cache::question_vector(mistral::MODEL, text);
                    store::put_vector(store::QUESTION_VECTORS, &k, &v).await;
                    if let Some(slot) = rows.get_mut(i) {
                        *slot = Some(v);
                    }
                }
                done += which.len();
                run.report(Report::ComputeProgress { done, total });
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
                    "Calcul interrompu sur le lot de {} fiches {} à {} : {} Les {} vecteurs déjà obtenus sont gardés : relancer ne les repaie pas.",
                    which.len(),
                    first.unwrap_or("?"),
                    last.unwrap_or("?"),
                    messages::api(&e),
                    done
                );
                run.report(Report::ComputeEnded(message));
                return;
            }
        }
        // A stopped run (« Annuler », a new catalogue): the model has said so already.
        if call.is_cancelled() {
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
            let message = format!("Vecteurs refusés : {}", messages::vectors(&e));
            run.report(Report::ComputeEnded(message));
            return;
        }
    };
    if call.is_cancelled() {
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
        "calculés dans ce navigateur (non gardés : le stockage du navigateur est indisponible ; « Télécharger » les garde)".to_owned()
    };
    let ids = fiches.iter().map(|f| f.id.clone()).collect();
    let fingerprint = crate::data::vectors::fingerprint(&fiches);
    let attached = match blob_of(&bytes) {
        Ok(blob) => attach_vectors(&app, &blob, ids, fingerprint, false).await,
        Err(e) => Err(e),
    };
    match attached {
        Ok(a) => run.report(a.report(origin, Some(bytes))),
        Err(reason) => {
            let message = format!("Vecteurs refusés : {reason}");
            run.report(Report::ComputeEnded(message));
            return;
        }
    }
    let cut_note = match cut {
        0 => String::new(),
        n => format!(
            " {} trop longue{} pour l'API (plus de 8 192 tokens) : seuls {} {} premiers octets ont été plongés.",
            crate::fr::count(n as u64, "fiche", "fiches"),
            if n > 1 { "s" } else { "" },
            if n > 1 { "leurs" } else { "ses" },
            crate::fr::int(mistral::MAX_INPUT_BYTES as u64)
        ),
    };
    let message = format!(
        "Vecteurs calculés. « Télécharger » donne le fichier à livrer dans data/ avec la page.{cut_note}"
    );
    run.report(Report::ComputeEnded(message));
}

/// Embeds the questions not yet known (the cache first), then asks for the dense measurements.
pub async fn measure_dense(app: Shared, run: Run, key: ApiKey, questions: Vec<String>) {
    let call = &run.call;
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
    run.report(Report::DenseProgress(found));
    let refs: Vec<&str> = missing.iter().map(String::as_str).collect();
    for range in mistral::batches(&refs) {
        let Some(batch) = refs.get(range) else { break };
        match api::embed(call, &key, batch).await {
            Ok(e) => {
                app.dispatch(Msg::Key(KeyMsg::Paid(embedding_cost(0, e.prompt_tokens))));
                let mut vectors = Vec::new();
                for (text, v) in batch.iter().zip(e.vectors) {
                    let cache_key = cache::question_vector(mistral::MODEL, text);
                    store::put_vector(store::QUESTION_VECTORS, &cache_key, &v).await;
                    vectors.push((text.to_string(), v));
                }
                // Question vectors stay valid whatever the catalogue: they are kept.
                run.report(Report::DenseProgress(vectors));
            }
            Err(e) => {
                // What was embedded stays in memory and in the cache: a retry pays only the rest.
                let message = Some(format!("Mesure interrompue : {}", messages::api(&e)));
                run.report(Report::DenseEnded(message));
                return;
            }
        }
    }
    run.report(Report::DenseEnded(None));
}

/// An answer from the cache (the chats the job was given, then IndexedDB) or from the model;
/// `true` when cached.
pub(super) async fn obtain(
    app: &Shared,
    call: &Call,
    cached: &Chats,
    key: &ApiKey,
    model: &str,
    messages: &[Message],
) -> Result<(Chat, bool), ApiError> {
    let cache_key = cache::answer(model, messages);
    if let Some(chat) = cached.get(&cache_key) {
        return Ok((chat.clone(), true));
    }
    let stored = store::get_text(store::ANSWERS, &cache_key).await;
    if let Some(chat) = stored.and_then(|t| serde_json::from_str::<Chat>(&t).ok()) {
        app.dispatch(Msg::Answer(AnswerMsg::Obtained {
            key: cache_key,
            chat: chat.clone(),
        }));
        return Ok((chat, true));
    }
    let mut chat = api::chat(call, key, model, messages).await?;
    chat.obtained = js_sys::Date::new_0().to_iso_string().as_string();
    let cost = Costs::chat(model, chat.prompt_tokens, chat.completion_tokens);
    app.dispatch(Msg::Key(KeyMsg::Paid(cost)));
    if let Ok(text) = serde_json::to_string(&chat) {
        store::put_text(store::ANSWERS, &cache_key, &text).await;
    }
    app.dispatch(Msg::Answer(AnswerMsg::Obtained {
        key: cache_key,
        chat: chat.clone(),
    }));
    Ok((chat, false))
}

/// « Rédiger la réponse » for `question` from the fiches `sent`.
pub async fn answer(
    app: Shared,
    run: Run,
    cached: &Chats,
    key: ApiKey,
    model: String,
    question: String,
    sent: Vec<Fiche>,
) {
    let call = &run.call;
    let refs: Vec<&Fiche> = sent.iter().collect();
    let messages = answer::prompt(&question, &refs);
    let outcome = match obtain(&app, call, cached, &key, &model, &messages).await {
        Err(ApiError::Cancelled) => return,
        other => other.map_err(|e| messages::api(&e)),
    };
    let result = AnswerResult {
        question,
        model,
        sent,
        outcome,
    };
    run.report(Report::AnswerShown(result));
}

/// What a run stopped by `e` says (`what`: « Mesure », « Reclassement »; `kept`: what was
/// obtained is kept, and a second run does not pay for it again).
fn stopped(what: &str, gender_e: &str, kept: &str, e: ApiError) -> String {
    match e {
        ApiError::Cancelled => format!("{what} annulé{gender_e}. {kept}"),
        other => format!(
            "{what} interrompu{gender_e} : {} {kept}",
            messages::api(&other)
        ),
    }
}

/// « Mesurer les réponses »: each question in turn, prepared when the run started, answered by
/// `model` then judged by `judge` (both from the cache when the same messages went to the same
/// model before: nothing is paid twice).
pub async fn evaluate(
    app: Shared,
    run: Run,
    cached: &Chats,
    key: ApiKey,
    model: String,
    judge: String,
    (source, items): (Source, Vec<EvalItem>),
) {
    let call = &run.call;
    let total = items.len();
    let mut done = EvalRun {
        source,
        model: model.clone(),
        judge: judge.clone(),
        outcomes: Vec::with_capacity(total),
        verdicts: Vec::with_capacity(total),
        sent: Vec::with_capacity(total),
        tokens: Tokens::default(),
        judge_tokens: Tokens::default(),
    };
    for (i, item) in items.iter().enumerate() {
        let judged = async {
            let (chat, _) = obtain(&app, call, cached, &key, &model, &item.messages).await?;
            let asked = judge::judge_from(&item.messages, &item.question.text, &chat.content);
            let (verdict, _) = obtain(&app, call, cached, &key, &judge, &asked).await?;
            Ok::<_, ApiError>((chat, verdict))
        };
        match judged.await {
            Ok((chat, verdict)) => {
                done.tokens = done.tokens + Tokens::of(&chat);
                done.judge_tokens = done.judge_tokens + Tokens::of(&verdict);
                done.verdicts.push(judge::parse_verdict(&verdict.content));
                done.sent.push(item.ids.clone());
                done.outcomes.push(outcome(item, chat));
            }
            Err(e) => {
                let message = stopped(
                    "Mesure",
                    "e",
                    "Les réponses déjà obtenues sont gardées : relancer ne les repaie pas.",
                    e,
                );
                run.report(Report::EvalEnded(Err(message)));
                return;
            }
        }
        run.report(Report::EvalProgress { done: i + 1, total });
    }
    run.report(Report::EvalEnded(Ok(done)));
}

/// One chat asked by a control (« Demander au juge »…): its reply's text, from the cache when the
/// same messages went to the same model before.
pub async fn chat(
    app: Shared,
    run: Run,
    cached: &Chats,
    key: ApiKey,
    model: String,
    messages: Vec<Message>,
) {
    let outcome = match obtain(&app, &run.call, cached, &key, &model, &messages).await {
        Err(ApiError::Cancelled) => return,
        Ok((chat, _)) => Ok(chat.content),
        Err(e) => Err(messages::api(&e)),
    };
    run.report(Report::Chatted(outcome));
}

/// « Reclasser les 20 premières »: each question's fiches marked by `model` (from the cache when
/// the same messages went to the same model before).
pub async fn rerank(
    app: Shared,
    run: Run,
    cached: &Chats,
    key: ApiKey,
    model: String,
    method: Method,
    items: Vec<RerankItem>,
) {
    let call = &run.call;
    let total = items.len();
    let mut lists = Vec::with_capacity(total);
    for (i, item) in items.into_iter().enumerate() {
        match obtain(&app, call, cached, &key, &model, &item.messages).await {
            Ok((chat, _)) => lists.push(RerankedList {
                read: item.read,
                tokens: Tokens::of(&chat),
                reply: chat.content,
            }),
            Err(e) => {
                let message = stopped(
                    "Reclassement",
                    "",
                    "Les notes déjà obtenues sont gardées : relancer ne les repaie pas.",
                    e,
                );
                run.report(Report::RerankEnded(Err(message)));
                return;
            }
        }
        run.report(Report::RerankProgress { done: i + 1, total });
    }
    let reranked = Reranked {
        stage: method.name().into(),
        lists,
    };
    run.report(Report::RerankEnded(Ok(RerankRun { model, reranked })));
}
