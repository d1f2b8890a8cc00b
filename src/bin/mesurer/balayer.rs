//! `mesurer METHOD --balayer k1b|rrf-k`: « Améliorer »'s sweep in the terminal, from the same
//! core ([`rag_fiches::improve::sweep`]): the grid tried from the settings, the best chosen on one
//! half of the questions and reported on the other, with the page's verdict word for word.

use rag_fiches::cli::Fail;
use rag_fiches::data::Question;
use rag_fiches::improve::sweep::{sweep, Grid, Point, Sweep};
use rag_fiches::improve::{DenseTops, Settings};
use rag_fiches::lab::Lab;

/// Sweeps `grid` from `settings`, prints the sweep (as JSON with `json`).
pub fn run(
    lab: &Lab,
    questions: &[Question],
    dense: &DenseTops,
    settings: &Settings,
    grid: Grid,
    json: bool,
) -> Result<(), Fail> {
    let base = settings.base().map_err(|e| e.to_string())?;
    let fits = match grid {
        Grid::K1B => settings.keyword().is_some(),
        Grid::RrfK => base.fused_keyword().is_some(),
    };
    if !fits {
        return Err(Fail::Usage(format!(
            "--balayer {}: {} has no {}",
            name(grid),
            base.name(),
            match grid {
                Grid::K1B => "BM25 (a keyword method or a fusion has)",
                Grid::RrfK => "fusion (hybride, hybride+ or hybride-local has)",
            }
        )));
    }
    let sw = sweep(lab, questions, dense, settings, grid).map_err(|e| e.to_string())?;
    if json {
        rag_fiches::outln!(
            "{}",
            serde_json::to_string_pretty(&sw).map_err(|e| e.to_string())?
        );
    } else {
        rag_fiches::out!("{}", report(&sw, questions.len()));
    }
    Ok(())
}

fn name(grid: Grid) -> &'static str {
    match grid {
        Grid::K1B => "k1b",
        Grid::RrfK => "rrf-k",
    }
}

/// The sweep as the page's table shows it (start, chosen on the calibration half, best on all),
/// every point of the grid after it, then the verdict.
fn report(sw: &Sweep, questions: usize) -> String {
    let line = |label: &str, p: &Point| {
        format!(
            "{label:<50} {:>9.3} {:>9.3} {:>9.3}\n",
            p.calibration, p.test, p.all
        )
    };
    let mut out = format!(
        "Balayage de {} ({} réglages) depuis {}, sur {questions} questions : choisi sur les questions de rang impair (1re, 3e, 5e…), vérifié sur les autres.\n\n",
        match sw.grid {
            Grid::K1B => "k1 × b",
            Grid::RrfK => "k de RRF",
        },
        sw.points.len(),
        sw.start.settings.name()
    );
    out += &format!(
        "{:<50} {:>9} {:>9} {:>9}\n",
        "MRR@10", "calibrage", "test", "toutes"
    );
    out += &line("départ", &sw.start);
    out += &line(
        &format!(
            "choisi sur le calibrage : {}",
            sw.points[sw.best_calibration].label
        ),
        &sw.points[sw.best_calibration],
    );
    out += &line(
        &format!("meilleur sur toutes : {}", sw.points[sw.best_all].label),
        &sw.points[sw.best_all],
    );
    out += "\nLa grille :\n";
    for p in &sw.points {
        out += &line(&format!("  {}", p.label), p);
    }
    out += &format!("\n{}\n", sw.verdict);
    out
}
