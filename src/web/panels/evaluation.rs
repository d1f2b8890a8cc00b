//! « Mesurer les réponses »: the method and model, the estimate and its confirmation, the
//! progress, and the evaluation beside the refusal threshold.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlProgressElement};

use crate::fr;
use crate::measure::compare;

use super::super::dom::{by_id, clear, options, replace_children, set_text, E};
use super::super::ids;
use super::answer::model_options;
use super::shipped::{answers_table, non_list, rerank_table, AnswerRow, Reread};
use super::{answer_view, Memo};
use crate::answer::Source;
use crate::page::{estimate, judge_or_default, model_or_default, Phase, State};

fn button(id: &str, text: &str) -> Element {
    E::new("button")
        .attr("type", "button")
        .attr("id", id)
        .text(text)
        .build()
}

pub fn render(s: &State, memo: &mut Memo) {
    super::shipped::render(s, memo);
    let sources = s.evaluation_sources();
    let source = s.evaluation_source();
    let model = model_or_default(&s.choices.eval_model);
    let judge = judge_or_default(&s.choices.judge);
    if memo.changed("eval-methode", (&sources, source)) {
        replace_children(
            &by_id(ids::EVAL_METHODE),
            options(
                sources.iter().map(|m| (m.name(), m.name())),
                source.map(Source::name),
            ),
        );
    }
    if memo.changed("eval-modele", &model) {
        replace_children(&by_id(ids::EVAL_MODELE), model_options(&model));
    }
    if memo.changed("eval-juge", &judge) {
        replace_children(&by_id(ids::EVAL_JUGE), model_options(&judge));
    }
    let Some(source) = source else { return };
    let e = &s.data.evaluation;
    let actions = (&e.phase, e.confirming, s.key.is_some(), &model, &judge);
    if memo.changed("eval-actions", actions) {
        let controls: Vec<Element> = match (&e.phase, e.confirming, s.key.is_some()) {
            (Phase::Running { done, total }, _, _) => {
                vec![
                    button(ids::EVAL_ANNULER, "Annuler"),
                    progress(ids::EVAL_PROGRESSION, "Réponses obtenues", *done, *total),
                ]
            }
            (Phase::Idle, true, _) => vec![
                button(
                    ids::EVAL_CONFIRMER,
                    &format!("Confirmer avec {model}, jugé par {judge}"),
                ),
                button(ids::EVAL_ANNULER, "Annuler"),
            ],
            (Phase::Idle, false, false) => vec![E::new("span")
                .text("Entrez votre clé Mistral pour mesurer les réponses.")
                .build()],
            (Phase::Idle, false, true) => vec![button(ids::EVAL_LANCER, "Mesurer les réponses")],
        };
        replace_children(&by_id(ids::EVAL_ACTIONS), controls);
    }
    let status_inputs = (
        s.data.epoch,
        source,
        &model,
        &judge,
        s.qvectors.len(),
        &e.phase,
        &e.message,
        e.confirming,
    );
    if let Phase::Running { done, .. } = e.phase {
        if let Ok(p) = by_id(ids::EVAL_PROGRESSION).dyn_into::<HtmlProgressElement>() {
            p.set_value(done as f64);
        }
    }
    if memo.changed("eval-etat", status_inputs) {
        set_text(&by_id(ids::EVAL_ETAT), &estimate::eval_status(s));
    }
    let shown = e
        .runs
        .iter()
        .find(|r| r.is_for(source, &model, &judge) && !r.outcomes.is_empty());
    let runs_key: Vec<(Source, &str, &str, usize)> = e
        .runs
        .iter()
        .map(|r| {
            (
                r.source,
                r.model.as_str(),
                r.judge.as_str(),
                r.outcomes.len(),
            )
        })
        .collect();
    let result_inputs = (
        s.data.epoch,
        shown.map(|r| (r.source, &r.model, &r.judge, r.outcomes.len())),
        runs_key,
    );
    if memo.changed("eval-resultat", result_inputs) {
        let target = by_id(ids::EVAL_RESULTAT);
        match shown {
            None if e.runs.is_empty() => {
                replace_children(&target, [super::shipped::instructions()])
            }
            None => replace_children(&target, [super::shipped::instructions(), runs_table(s)]),
            Some(run) => {
                let measured = run.measured();
                let threshold = source
                    .method()
                    .and_then(|method| {
                        let m = s
                            .data
                            .measured()
                            .into_iter()
                            .find(|x| x.method == method.name())?;
                        let c = compare::calibrate_split(m)?;
                        let ev = &measured.evaluation;
                        Some(format!(
                            "À comparer : un seuil de score sous {} (calibré sur les 1re, 3e, 5e… questions) trie {} des questions de test ; \
                             le modèle, lui, refuse {} des {} questions sans réponse et {} des {} qui en ont une.",
                            method.name(),
                            fr::percent(c.test_accuracy),
                            ev.correct_refusals,
                            ev.absent,
                            ev.false_refusals,
                            ev.answerable
                        ))
                    })
                    .unwrap_or_default();
                let items: Vec<Reread> = run
                    .outcomes
                    .iter()
                    .zip(&run.sent)
                    .map(|(o, sent)| Reread {
                        question: &o.question,
                        answer: &o.answer,
                        sent,
                    })
                    .collect();
                let mut parts = vec![
                    super::shipped::instructions(),
                    answer_view::render_evaluation(
                        &measured,
                        &run.outcomes,
                        &run.verdicts,
                        &judge,
                        &threshold,
                    ),
                ];
                parts.extend(non_list(source.name(), &measured.non, &items));
                parts.push(runs_table(s));
                replace_children(&target, parts);
            }
        }
    }
    render_rerank(s, memo, &model);
}

/// Every run of this catalogue side by side, the whole catalogue included when it ran.
fn runs_table(s: &State) -> Element {
    let rows: Vec<AnswerRow> = s
        .data
        .evaluation
        .runs
        .iter()
        .map(|r| AnswerRow {
            name: r.source.name(),
            measured: r.measured(),
            model: &r.model,
        })
        .collect();
    E::new("div")
        .class("runs-reponses")
        .child(
            E::new("h4")
                .text("Les réponses mesurées, source par source")
                .build(),
        )
        .child(answers_table(
            "Les réponses mesurées",
            &rows,
            s.data.questions.len(),
        ))
        .build()
}

fn progress(id: &str, label: &str, done: usize, total: usize) -> Element {
    let progress = E::new("progress")
        .attr("id", id)
        .attr("aria-label", label)
        .build();
    if let Ok(p) = progress.clone().dyn_into::<HtmlProgressElement>() {
        p.set_max(total.max(1) as f64);
        p.set_value(done as f64);
    }
    progress
}

/// « Reclasser les 20 premières » of the source's method: the button, its confirmation with the
/// estimate, the progress, and the rerankings done.
fn render_rerank(s: &State, memo: &mut Memo, model: &str) {
    let e = &s.data.evaluation;
    let method = s.rerank_method();
    let inputs = (
        &e.rerank_phase,
        e.rerank_confirming,
        s.key.is_some(),
        model,
        method,
    );
    if memo.changed("reclasser-actions", inputs) {
        let controls: Vec<Element> = match (
            method,
            &e.rerank_phase,
            e.rerank_confirming,
            s.key.is_some(),
        ) {
            (_, Phase::Running { done, total }, _, _) => vec![
                button(ids::RECLASSER_ANNULER, "Annuler"),
                progress(
                    ids::RECLASSER_PROGRESSION,
                    "Listes reclassées",
                    *done,
                    *total,
                ),
            ],
            (None, ..) => vec![E::new("span")
                .text("Choisissez une méthode dans « fiches de » pour reclasser ses 20 premières fiches.")
                .build()],
            (Some(_), Phase::Idle, false, false) => vec![E::new("span")
                .text("Entrez votre clé Mistral pour reclasser les 20 premières fiches.")
                .build()],
            (Some(_), Phase::Idle, true, _) => vec![
                button(ids::RECLASSER_CONFIRMER, &format!("Confirmer avec {model}")),
                button(ids::RECLASSER_ANNULER, "Annuler"),
            ],
            (Some(m), Phase::Idle, false, true) => vec![button(
                ids::RECLASSER_LANCER,
                &format!("Reclasser les 20 premières de {}", m.name()),
            )],
        };
        replace_children(&by_id(ids::RECLASSER_ACTIONS), controls);
    }
    // The estimate searches every question's top 20: only when what it depends on changed.
    let status_inputs = (
        s.data.epoch,
        s.data.measure_version,
        s.qvectors.len(),
        &e.rerank_phase,
        &e.rerank_message,
        e.rerank_confirming,
        method,
        model,
        s.key.is_some(),
    );
    if memo.changed("reclasser-etat", status_inputs) {
        set_text(&by_id(ids::RECLASSER_ETAT), &estimate::rerank_status(s));
    }
    if let Phase::Running { done, .. } = e.rerank_phase {
        if let Ok(p) = by_id(ids::RECLASSER_PROGRESSION).dyn_into::<HtmlProgressElement>() {
            p.set_value(done as f64);
        }
    }
    let done: Vec<(&str, usize)> = e
        .reranks
        .iter()
        .map(|r| (r.reranked.stage.as_str(), r.reranked.lists.len()))
        .collect();
    if memo.changed("reclasser-resultat", (s.data.epoch, &done)) {
        let target = by_id(ids::RECLASSER_RESULTAT);
        if e.reranks.is_empty() {
            clear(&target);
        } else {
            let rows: Vec<(&str, &crate::answer::shipped::Reranked)> = e
                .reranks
                .iter()
                .map(|r| (r.model.as_str(), &r.reranked))
                .collect();
            replace_children(
                &target,
                [rerank_table("Reclassement", &rows, &s.data.questions)],
            );
        }
    }
}
