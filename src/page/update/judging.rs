//! « Questions »: the pool of the measured methods' first fiches judged by hand, one pair at a
//! time, each judgment kept on this device at once and the qrels in force made again.

use std::collections::HashSet;

use crate::measure::graded::MAX_GRADE;
use crate::measure::judging::Judgments;

use super::super::effect::Effect;
use super::super::jobs::{Subject, Work};
use super::super::judging::{entry, Judging};
use super::super::msg::JudgeMsg;
use super::super::state::State;

/// What the view says when this device could not keep the judgments.
pub const NOT_KEPT: &str = "Vos notes n'ont pas pu être gardées sur cet appareil (stockage plein \
    ou interdit, comme en navigation privée)\u{a0}: exportez-les avant de fermer la page.";

pub(super) fn update(s: &mut State, msg: JudgeMsg, fx: &mut Vec<Effect>) {
    let j = &mut s.data.judging;
    match msg {
        JudgeMsg::Graded {
            question,
            fiche,
            grade,
        } => {
            // Not before the kept judgments are read (they would overwrite them), and only a
            // pair of the pool as it is now.
            if !j.read || grade > MAX_GRADE || !j.pool.contains(question, &fiche) {
                return;
            }
            j.hand.judge(question, &fiche, grade);
            kept(s, fx);
        }
        JudgeMsg::Undone => {
            if j.read && j.hand.undo().is_some() {
                kept(s, fx);
            }
        }
        JudgeMsg::Exported => fx.push(Effect::Download(
            "qrels-graduees.txt".into(),
            j.qrels.to_trec().into_bytes(),
        )),
        JudgeMsg::Kept(false) => j.message = Some(NOT_KEPT.to_owned()),
        // Kept again: only the word that they were not goes (not what a read set aside).
        JudgeMsg::Kept(true) => {
            if j.message.as_deref() == Some(NOT_KEPT) {
                j.message = None;
            }
        }
    }
}

/// The judgments changed: the qrels in force made again, and the judgments kept.
fn kept(s: &mut State, fx: &mut Vec<Effect>) {
    let d = &mut s.data;
    d.judging.refresh(&d.qrels);
    fx.push(Effect::KeepJudgments {
        entry: entry(d.lab.fingerprint(), &d.questions),
        text: d.judging.hand.to_trec(),
    });
}

/// The kept judgments, read once per catalogue.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if !s.data.judging.read {
        want(Subject::ReadJudgments);
    }
}

pub(super) fn work(s: &State) -> Work {
    Work::ReadJudgments {
        entry: entry(s.data.lab.fingerprint(), &s.data.questions),
    }
}

/// The kept judgments arrived (`None`: none kept). A text that does not fit the catalogue is
/// set aside with a word, not half-read.
pub(super) fn read(s: &mut State, text: Option<String>) {
    let d = &mut s.data;
    d.judging.read = true;
    let Some(text) = text else {
        return;
    };
    let ids: HashSet<&str> = d.lab.fiches().iter().map(|f| f.id.as_str()).collect();
    match Judgments::parse(&text, &d.questions, &ids) {
        Ok(hand) => d.judging.hand = hand,
        Err(e) => {
            d.judging.message = Some(format!(
                "Les notes gardées sur cet appareil pour ce catalogue ne se lisent plus ({})\u{a0}: elles sont laissées de côté.",
                crate::fr::messages::qrels(&e, "notes gardées")
            ))
        }
    }
    d.judging.refresh(&d.qrels);
}

/// The pool made again when the measurements changed.
pub(super) fn ensure(s: &mut State) {
    let d = &mut s.data;
    let measured = d.measured();
    let inputs = Judging::pool_inputs(d.measure_version, &measured);
    if d.judging.pooled_from.as_ref() == Some(&inputs) {
        return;
    }
    let pool = crate::measure::judging::Pool::new(
        &measured,
        crate::measure::judging::POOL_DEPTH,
        &d.qrels,
    );
    d.judging.pool = pool;
    d.judging.pooled_from = Some(inputs);
}
