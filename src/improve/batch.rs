//! Several settings measured on every question in bounded steps: « Améliorer » re-measures after
//! each change, and sweeps a grid, on catalogues of any size without holding the page's thread
//! (at 50,000 fiches one measurement of 40 questions is 40 searches over 50,000 scores, a sweep
//! 36 of them, a changed analysis one rebuilt index). Each [`Batch::step`] does about
//! [`WORK_PER_STEP`] units of work; natively, [`Batch::run`] does them all at once.

use crate::data::Question;
use crate::lab::Lab;
use crate::measure::{Measurement, QuestionOutcome};

use super::settings::Settings;
use super::tuned::{Building, DenseTops, Start, Tuned};
use super::Error;

/// The work of one step, in fiches scored: a question searched costs the catalogue's size, a
/// byte of text indexed [`INDEX_BYTE_WORK`]. Sized so that no step of « Améliorer » is a long
/// task in the page on the largest catalogues it measures (BENCHMARKS.md has the figures).
pub const WORK_PER_STEP: usize = 600_000;

/// A byte of text analysed and indexed, in fiches scored (both measured by
/// `cargo run --release --bin bench -- --ameliorer`).
pub const INDEX_BYTE_WORK: usize = 2;

/// One of the settings, where its measurement stands.
#[derive(Debug, Clone)]
enum Stage {
    /// Not started: its index may be the previous settings'.
    Waiting(Settings),
    Building(Building),
    Measuring(Tuned, Vec<QuestionOutcome>),
    Done(Tuned, Measurement),
    /// Only while a stage moves on to the next.
    Moving,
}

/// The measurements of a list of settings, in order, each reusing the index of the one before
/// when its analysis is the same.
#[derive(Debug, Clone)]
pub struct Batch {
    stages: Vec<Stage>,
    /// The settings before the first (their index reused), then the last one prepared.
    previous: Option<Tuned>,
}

impl Batch {
    pub fn new(list: Vec<Settings>, previous: Option<Tuned>) -> Batch {
        Batch {
            stages: list.into_iter().map(Stage::Waiting).collect(),
            previous,
        }
    }

    /// Does about [`WORK_PER_STEP`] of the work left (at least one unit of it: a question, or a
    /// fiche indexed). `Ok(true)` once every settings' measurement is done.
    pub fn step(
        &mut self,
        lab: &Lab,
        questions: &[Question],
        dense: &DenseTops,
    ) -> Result<bool, Error> {
        self.advance(lab, questions, dense, WORK_PER_STEP)
    }

    /// Every measurement at once.
    pub fn run(
        mut self,
        lab: &Lab,
        questions: &[Question],
        dense: &DenseTops,
    ) -> Result<Vec<(Tuned, Measurement)>, Error> {
        self.advance(lab, questions, dense, usize::MAX)?;
        Ok(self.finish())
    }

    fn advance(
        &mut self,
        lab: &Lab,
        questions: &[Question],
        dense: &DenseTops,
        budget: usize,
    ) -> Result<bool, Error> {
        let search_work = lab.fiches().len().max(1);
        let mut spent = 0usize;
        for stage in &mut self.stages {
            loop {
                if spent >= budget {
                    return Ok(false);
                }
                let next = match std::mem::replace(stage, Stage::Moving) {
                    Stage::Waiting(settings) => {
                        match Tuned::start(lab, settings, self.previous.take())? {
                            Start::Ready(t) => Stage::Measuring(t, Vec::new()),
                            Start::Building(b) => Stage::Building(b),
                        }
                    }
                    Stage::Building(mut b) => {
                        let left = (budget - spent).div_ceil(INDEX_BYTE_WORK);
                        spent =
                            spent.saturating_add(b.step(lab, left).saturating_mul(INDEX_BYTE_WORK));
                        if b.done(lab) {
                            Stage::Measuring(b.finish(lab), Vec::new())
                        } else {
                            Stage::Building(b)
                        }
                    }
                    Stage::Measuring(t, mut outcomes) => match questions.get(outcomes.len()) {
                        Some(q) => {
                            outcomes.push(t.outcome(lab, q, dense)?);
                            spent = spent.saturating_add(search_work);
                            Stage::Measuring(t, outcomes)
                        }
                        None => {
                            let m = t.measurement(lab, outcomes);
                            self.previous = Some(t.clone());
                            Stage::Done(t, m)
                        }
                    },
                    finished @ (Stage::Done(..) | Stage::Moving) => {
                        *stage = finished;
                        break;
                    }
                };
                *stage = next;
            }
        }
        Ok(true)
    }

    /// Questions measured so far and in all (an index being built counts as none).
    pub fn progress(&self, questions: usize) -> (usize, usize) {
        let done = self
            .stages
            .iter()
            .map(|s| match s {
                Stage::Waiting(_) | Stage::Building(_) | Stage::Moving => 0,
                Stage::Measuring(_, o) => o.len(),
                Stage::Done(..) => questions,
            })
            .sum();
        (done, questions * self.stages.len())
    }

    /// The index being built, if one is: fiches indexed and in all.
    pub fn building(&self, lab: &Lab) -> Option<(usize, usize)> {
        self.stages.iter().find_map(|s| match s {
            Stage::Building(b) => Some((b.indexed(), lab.fiches().len())),
            _ => None,
        })
    }

    /// Whether every measurement is done.
    pub fn done(&self) -> bool {
        self.stages.iter().all(|s| matches!(s, Stage::Done(..)))
    }

    /// The settings' measurements, in order (every one done: see [`Batch::done`]).
    pub fn finish(self) -> Vec<(Tuned, Measurement)> {
        self.stages
            .into_iter()
            .filter_map(|s| match s {
                Stage::Done(t, m) => Some((t, m)),
                _ => None,
            })
            .collect()
    }
}
