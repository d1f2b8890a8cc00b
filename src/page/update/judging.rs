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
        JudgeMsg::FilesChosen(files) => {
            j.refused = None;
            match files.into_iter().next() {
                Some(f) if f.size > QRELS_MAX_BYTES => {
                    j.refused = Some(format!(
                        "{}\u{a0}: plus de {}\u{a0}Mo, il n'a pas été lu.",
                        f.name,
                        QRELS_MAX_BYTES / 1_000_000
                    ))
                }
                Some(f) => {
                    s.selection += 1;
                    s.data.judging.reading = Some((s.selection, vec![f]));
                }
                None => {}
            }
        }
        JudgeMsg::Adopted => {
            let Some((_, theirs)) = &j.other else {
                return;
            };
            if !j.read {
                return;
            }
            let mut taken = false;
            for (q, grades) in theirs.iter() {
                for (fiche, g) in grades {
                    if j.hand.grade(q, fiche).is_none() {
                        j.hand.judge(q, fiche, *g);
                        taken = true;
                    }
                }
            }
            if taken {
                kept(s, fx);
            }
        }
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

/// The largest qrels file read: 2,000 questions × 100 fiches judged, at about 25 bytes a line.
pub const QRELS_MAX_BYTES: u64 = 5_000_000;

/// The kept judgments, read once per catalogue; another judge's file while it is read.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    if !s.data.judging.read {
        want(Subject::ReadJudgments);
    }
    if let Some((n, _)) = &s.data.judging.reading {
        want(Subject::ReadQrels(*n));
    }
}

/// What import `n` reads.
pub(super) fn read_work(s: &State, n: u64) -> Option<Work> {
    match &s.data.judging.reading {
        Some((m, files)) if *m == n => Some(Work::ReadRuns {
            files: files.clone(),
        }),
        _ => None,
    }
}

/// Another judge's file read: checked line by line against the questions and fiches, kept whole
/// as the other judge, or refused whole with its line.
pub(super) fn other_read(s: &mut State, n: u64, read: Vec<(String, Result<String, String>)>) {
    let d = &mut s.data;
    if d.judging.reading.as_ref().is_none_or(|(m, _)| *m != n) {
        return;
    }
    d.judging.reading = None;
    let Some((name, text)) = read.into_iter().next() else {
        return;
    };
    let ids: HashSet<&str> = d.lab.fiches().iter().map(|f| f.id.as_str()).collect();
    let parsed = text.and_then(|text| {
        crate::measure::graded::Qrels::parse(&text, &d.questions, &ids)
            .map_err(|e| crate::fr::messages::qrels(&e, &name))
    });
    match parsed {
        Ok(qrels) => {
            d.judging.other = Some((name, qrels));
            d.judging.refused = None;
        }
        Err(why) => d.judging.refused = Some(why),
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
