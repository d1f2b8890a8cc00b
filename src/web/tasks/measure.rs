//! A stepped measurement of some methods on the catalogue's questions.

use crate::fr::messages;
use crate::lab::{Encoder, Lab, Method, QuestionVectors};
use crate::measure::{Measurement, QuestionOutcome};
use crate::page::MeasureMsg;

use super::super::runtime::Shared;
use super::super::turns::{yield_now, Pacer};
use super::vectors::*;
use crate::page::Msg;

/// Measures `methods` on the catalogue's questions, a question at a time, with a turn of the event
/// loop whenever the [`Pacer`](crate::web::turns::Pacer)'s slice has passed. Each step reads the catalogue afresh and stops if it has been
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
            let result = Err(format!("Mesure impossible : {reason}."));
            app.dispatch(Msg::Measure(MeasureMsg::Measured { seq, epoch, result }));
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
                app.dispatch(Msg::Measure(MeasureMsg::Measured { seq, epoch, result }));
                return;
            }
            None => return,
        }
        if pacer.due() {
            app.dispatch(Msg::Measure(MeasureMsg::Progress { seq, done: i + 1 }));
            pacer.pause().await;
        }
    }
    let Some(measured) = app.peek(|s| {
        (s.data.epoch == epoch).then(|| {
            methods
                .iter()
                .zip(outcomes)
                .map(|(m, o)| s.data.lab.measurement(m.name(), m.score_decimals(), o))
                .collect::<Vec<Measurement>>()
        })
    }) else {
        return;
    };
    let Some(measured) = measured else {
        return;
    };
    app.dispatch(Msg::Measure(MeasureMsg::Measured {
        seq,
        epoch,
        result: Ok(measured),
    }));
}
