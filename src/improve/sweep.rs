//! A sweep: one setting tried over a grid, the best chosen on one half of the questions and
//! reported on the other — beside what choosing on all of them would have claimed. With 40
//! questions, the best of twenty settings on the same questions is mostly luck; the other half
//! says how much of the gain is real.

use serde::Serialize;

use crate::data::{Question, QuestionKind};
use crate::lab::Lab;
use crate::measure::{Measurement, DEPTH};

use super::batch::Batch;
use super::settings::Settings;
use super::tuned::DenseTops;
use super::Error;
use crate::fr::numbers::plain as fr;

/// What a sweep moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Grid {
    /// BM25's k1 and b together.
    K1B,
    /// RRF's k.
    RrfK,
}

pub const K1S: [f64; 7] = [0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.4];
pub const BS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
pub const RRF_KS: [f64; 8] = [1.0, 5.0, 10.0, 20.0, 40.0, 60.0, 100.0, 200.0];

/// One setting of the grid and its MRR@10 on each half and on all answerable questions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub label: String,
    pub settings: Settings,
    pub calibration: f64,
    pub test: f64,
    pub all: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    pub grid: Grid,
    /// The settings swept from, measured the same way.
    pub start: Point,
    pub points: Vec<Point>,
    /// The point chosen on the calibration half (the first of equal scores: grid order).
    pub best_calibration: usize,
    /// The point that looks best on all the questions.
    pub best_all: usize,
    pub verdict: String,
}

/// MRR@10 over the answerable questions of rows `keep` (row numbers from 0).
pub fn mrr(m: &Measurement, keep: impl Fn(usize) -> bool) -> f64 {
    let rr: Vec<f64> = m
        .questions
        .iter()
        .enumerate()
        .filter(|(i, o)| o.kind != QuestionKind::Absente && keep(*i))
        .map(|(_, o)| {
            o.rank
                .filter(|&r| r <= DEPTH)
                .map_or(0.0, |r| 1.0 / r as f64)
        })
        .collect();
    if rr.is_empty() {
        0.0
    } else {
        rr.iter().sum::<f64>() / rr.len() as f64
    }
}

/// The point of `settings`, measured `m`. The halves are the refusal threshold's calibration's:
/// even rows, odd rows.
fn point(settings: Settings, label: String, m: &Measurement) -> Point {
    Point {
        label,
        settings,
        calibration: mrr(m, |i| i % 2 == 0),
        test: mrr(m, |i| i % 2 == 1),
        all: mrr(m, |_| true),
    }
}

fn pct(x: f64) -> String {
    crate::fr::numbers::decimal(x, 3)
}

/// The grid's settings from `from` (everything else kept), each with its label.
pub fn plan(from: &Settings, grid: Grid) -> Vec<(String, Settings)> {
    match grid {
        Grid::K1B => K1S
            .iter()
            .flat_map(|&k1| BS.iter().map(move |&b| (k1, b)))
            .map(|(k1, b)| {
                let s = Settings {
                    k1,
                    b,
                    ..from.clone()
                };
                (format!("k1 = {}\u{202f}; b = {}", fr(k1), fr(b)), s)
            })
            .collect(),
        Grid::RrfK => RRF_KS
            .iter()
            .map(|&k| {
                let s = Settings {
                    fusion: crate::search::fusion::Fusion::Rrf { k },
                    ..from.clone()
                };
                (format!("k = {}", fr(k)), s)
            })
            .collect(),
    }
}

/// The settings a sweep measures: `from`, then the grid's ([`plan`]).
pub fn settings(from: &Settings, grid: Grid) -> Vec<Settings> {
    std::iter::once(from.clone())
        .chain(plan(from, grid).into_iter().map(|(_, s)| s))
        .collect()
}

/// Sweeps `grid` from `from` (everything else kept), every point measured at once.
pub fn sweep(
    lab: &Lab,
    questions: &[Question],
    dense: &DenseTops,
    from: &Settings,
    grid: Grid,
) -> Result<Sweep, Error> {
    let measured = Batch::new(settings(from, grid), None).run(lab, questions, dense)?;
    let measurements: Vec<Measurement> = measured.into_iter().map(|(_, m)| m).collect();
    Ok(conclude(from, grid, &measurements))
}

/// The sweep's verdict from the measurements of [`settings`]`(from, grid)`, in that order.
pub fn conclude(from: &Settings, grid: Grid, measured: &[Measurement]) -> Sweep {
    let start = point(from.clone(), "départ".into(), &measured[0]);
    let points: Vec<Point> = plan(from, grid)
        .into_iter()
        .zip(&measured[1..])
        .map(|((label, s), m)| point(s, label, m))
        .collect();
    // The best point by `f`; on equal values the starting settings when they are on the grid
    // (a tie is no reason to change), else the first in grid order.
    let best = |f: fn(&Point) -> f64| {
        let top = points.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        points
            .iter()
            .position(|p| f(p) == top && p.settings == *from)
            .or_else(|| points.iter().position(|p| f(p) == top))
            .unwrap_or(0)
    };
    let best_calibration = best(|p| p.calibration);
    let best_all = best(|p| p.all);
    let (c, a) = (&points[best_calibration], &points[best_all]);
    let claimed = a.all - start.all;
    let kept = c.test - start.test;
    let hindsight = if claimed > 0.0 {
        format!(
            " Choisi sur toutes les questions, {} semblerait gagner {} de MRR@10 : un gain qu'aucune question restée à part ne pourrait vérifier.",
            a.label,
            pct(claimed)
        )
    } else {
        String::new()
    };
    let verdict = if c.calibration <= start.calibration {
        format!(
            "Sur la moitié de calibrage, aucun réglage de la grille ne fait mieux que le départ ({}) : rien à changer.{hindsight}",
            pct(start.calibration)
        )
    } else {
        format!(
            "Choisi sur la moitié de calibrage, {} ({} → {} sur cette moitié) donne {} sur l'autre moitié, contre {} au départ : {}.{hindsight}",
            c.label,
            pct(start.calibration),
            pct(c.calibration),
            pct(c.test),
            pct(start.test),
            if kept > 0.0 {
                format!("un gain de {} qui tient sur des questions qu'il n'a pas vues", pct(kept))
            } else {
                "le gain de la moitié de calibrage a disparu sur l'autre".to_owned()
            }
        )
    };
    Sweep {
        grid,
        start,
        points,
        best_calibration,
        best_all,
        verdict,
    }
}
