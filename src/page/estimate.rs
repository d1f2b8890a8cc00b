//! What each paid button would send and cost, and the status line that goes with it: the page's
//! panels render these strings, and `tests/red_team_3.rs` reads the same ones. A confirmation is
//! always shown with the estimate of the run it confirms, never with an older run's message.

use crate::answer::{self, judge, rerank, Source};
use crate::data::Fiche;
use crate::fr;
use crate::lab::Method;
use crate::mistral::{chat, prices};

use super::parts::{judge_or_default, model_or_default, Phase};
use super::State;

/// Bytes an answer adds to the judge's prompt, in the estimate: the instructions ask for two or
/// three sentences.
pub const JUDGED_ANSWER_BYTES: usize = 600;

/// The price of `tokens` sent to `model`, in words.
pub fn price(model: &str, tokens: usize) -> String {
    match prices::cost_usd(model, tokens as u64, 0) {
        Some(usd) => format!(
            "≈ {} au tarif de {model} relevé en {}, réponses en plus",
            fr::dollars(usd),
            prices::CHECKED
        ),
        None => format!("prix inconnu pour {model}"),
    }
}

/// « Mesurer les réponses »'s status line: the progress while it runs; the estimate of the run
/// chosen whenever « Confirmer » is offered; otherwise what stopped the last run, or the estimate.
pub fn eval_status(s: &State) -> String {
    let e = &s.data.evaluation;
    if let Phase::Running { done, total } = e.phase {
        return format!("{done} réponses sur {total}");
    }
    let Some(source) = s.evaluation_source() else {
        return String::new();
    };
    let model = model_or_default(&s.choices.eval_model);
    let judge = judge_or_default(&s.choices.judge);
    match &e.message {
        Some(message) if !e.confirming => message.clone(),
        _ => eval_estimate(s, source, &model, &judge),
    }
}

/// « Reclasser les 20 premières »'s status line, under the same rule as [`eval_status`].
pub fn rerank_status(s: &State) -> String {
    let e = &s.data.evaluation;
    if let Phase::Running { done, total } = e.rerank_phase {
        return format!("{done} listes reclassées sur {total}");
    }
    let model = model_or_default(&s.choices.eval_model);
    match (&e.rerank_message, s.rerank_method()) {
        (Some(message), _) if !e.rerank_confirming => message.clone(),
        (_, Some(m)) if s.key.is_some() => rerank_estimate(s, m, &model),
        _ => String::new(),
    }
}

/// What a run would send, at most, answers and judgements, and what that costs at the models'
/// prices. The judge reads the same fiches and question, and the answer: counted here as
/// [`JUDGED_ANSWER_BYTES`] more per question.
pub fn eval_estimate(s: &State, source: Source, model: &str, judge: &str) -> String {
    // A measured method's first results per question are those a run sends (the first five of
    // the same search), read from the measurement instead of searched again.
    let measured = source.method().and_then(|method| {
        s.data
            .measured()
            .into_iter()
            .find(|m| m.method == method.name())
    });
    let lab = &s.data.lab;
    let tokens: usize = s
        .data
        .questions
        .iter()
        .enumerate()
        .filter_map(|(i, q)| {
            let messages = match source {
                Source::Catalogue => answer::catalogue_prompt_sized(&q.text, lab.fiches()),
                Source::Method(method) => {
                    let sent: Vec<Fiche> = match measured.and_then(|m| m.questions.get(i)) {
                        Some(o) if o.question == q.text => o
                            .top
                            .iter()
                            .take(answer::FICHES_SENT)
                            .filter_map(|(id, _)| lab.fiches().get(lab.doc_of(id)?).cloned())
                            .collect(),
                        _ => s.fiches_for(method, &q.text).ok()?,
                    };
                    let refs: Vec<&Fiche> = sent.iter().collect();
                    answer::prompt_sized(&q.text, &refs)
                }
            };
            Some(chat::estimate_tokens(&messages))
        })
        .sum();
    let judged = tokens + s.data.questions.len() * JUDGED_ANSWER_BYTES;
    format!(
        "{} questions, au plus {} tokens envoyés pour les réponses ({}) et {} pour le juge ({}) ; les réponses et verdicts déjà obtenus ne coûtent rien.",
        s.data.questions.len(),
        fr::int(tokens as u64),
        price(model, tokens),
        fr::int(judged as u64),
        price(judge, judged),
    )
}

/// What reranking `method`'s top 20 would send, at most, and its cost.
pub fn rerank_estimate(s: &State, method: Method, model: &str) -> String {
    let tokens: usize = s
        .data
        .questions
        .iter()
        .filter_map(|q| {
            let read = s.first_stage(method, &q.text).ok()?;
            let refs: Vec<&Fiche> = read.iter().collect();
            Some(chat::estimate_tokens(&rerank::rerank_prompt(
                &q.text, &refs,
            )))
        })
        .sum();
    format!(
        "{} questions, les 20 premières fiches de {} notées par {model} : au plus {} tokens envoyés ({}) ; les notes déjà obtenues ne coûtent rien.",
        s.data.questions.len(),
        method.name(),
        fr::int(tokens as u64),
        price(model, tokens),
    )
}

/// What « Demander au juge » would send for the answer shown, and its cost: `None` when there is
/// no answer to judge.
pub fn judge_estimate(s: &State) -> Option<String> {
    let r = s.data.answering.result.as_ref()?;
    let (chat, _) = r.outcome.as_ref().ok()?;
    let refs: Vec<&Fiche> = r.sent.iter().collect();
    let tokens = chat::estimate_tokens(&judge::judge_prompt(&r.question, &refs, &chat.content));
    let model = judge_or_default(&s.choices.judge);
    Some(format!(
        "au plus {} tokens envoyés ({})",
        fr::int(tokens as u64),
        price(&model, tokens)
    ))
}
