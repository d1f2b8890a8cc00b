//! Measurements in steps, taken by the model (a newer one of the same methods supersedes the
//! older), the imported TREC runs, and the files « Exporter » offers.

use crate::data::Question;
use crate::fr::messages;
use crate::improve::batch::WORK_PER_STEP;
use crate::lab::{Encoder, Lab, Method, QuestionVectors};
use crate::measure::export;

use super::super::dataset::Dataset;
use super::super::dataset::Measuring;
use super::super::effect::{Effect, FileRef};
use super::super::jobs::{Subject, Work};
use super::super::msg::MeasureMsg;
use super::super::state::State;

/// « Importer un run »: files over [`RUN_MAX_BYTES`] are refused before they are read.
pub(super) fn run_files_chosen(s: &mut State, files: Vec<FileRef>) {
    s.data.ui.run_messages.clear();
    if let Some(f) = files.iter().find(|f| f.size > RUN_MAX_BYTES) {
        s.data.ui.run_messages.push(Err(format!(
            "{} : plus de {} Mo, au-delà de ce qu'un run de {} résultats par question peut peser : il n'a pas été lu.",
            f.name,
            RUN_MAX_BYTES / 1_000_000,
            crate::measure::import::MAX_PER_QUESTION
        )));
    } else if !files.is_empty() {
        s.selection += 1;
        s.data.ui.run_reads.push((s.selection, files));
    }
}

/// The run files being read, each import a job until its files are read.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    for (n, _) in &s.data.ui.run_reads {
        want(Subject::ReadRuns(*n));
    }
}

/// What import `n` reads.
pub(super) fn work(s: &State, n: u64) -> Option<Work> {
    s.data
        .ui
        .run_reads
        .iter()
        .find(|(m, _)| *m == n)
        .map(|(_, files)| Work::ReadRuns {
            files: files.clone(),
        })
}

/// The files of import `n` read: each imported in the order chosen, each saying how it went.
pub(super) fn runs_read(s: &mut State, n: u64, read: Vec<(String, Result<String, String>)>) {
    s.data.ui.run_reads.retain(|(m, _)| *m != n);
    for (name, text) in read {
        let said = import_run(s, &name, text);
        s.data.ui.run_messages.push(said);
    }
}

/// Starts measuring `methods` in steps (see [`Measuring`]): a measurement under way of some of
/// them measures the others alone, and these are measured again from the start.
pub(super) fn request_measure(s: &mut State, methods: Vec<Method>, vectors: QuestionVectors) {
    for m in &mut s.data.ui.measuring {
        let kept: Vec<bool> = m.methods.iter().map(|x| !methods.contains(x)).collect();
        let mut keep = kept.iter().copied();
        m.methods.retain(|_| keep.next().unwrap_or(false));
        let mut keep = kept.iter().copied();
        m.outcomes.retain(|_| keep.next().unwrap_or(false));
    }
    s.data.ui.measuring.retain(|m| !m.methods.is_empty());
    s.data.ui.measuring.push(Measuring {
        outcomes: vec![Vec::new(); methods.len()],
        methods,
        vectors,
        done: 0,
        total: s.data.questions.len(),
    });
}

/// Questions whose dense tops a measurement asks of the page's worker ahead of its steps: a
/// window well under what the lab remembers ([`crate::lab::Lab::remember_dense`]).
const TOPS_AHEAD: usize = 256;

/// The vectors whose dense tops the measurements wait for: Mistral's fiche vectors are held by
/// the page's worker, which searches them (its report, `Report::DenseFound`, lets the
/// measurement go on).
pub(super) fn tops_wanted(s: &State) -> Vec<Vec<f32>> {
    let mut out: Vec<Vec<f32>> = Vec::new();
    for m in &s.data.ui.measuring {
        for q in s.data.questions.iter().skip(m.done).take(TOPS_AHEAD) {
            if let Some(v) = top_missing(&s.data.lab, m, q) {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
        }
    }
    out
}

/// The vector of `q` whose dense top `m` waits for: it measures a method over Mistral's
/// vectors, which the page's worker holds, and the lab does not know that top yet.
fn top_missing<'a>(lab: &Lab, m: &'a Measuring, q: &Question) -> Option<&'a Vec<f32>> {
    if lab.vectors_away().is_none()
        || !m
            .methods
            .iter()
            .any(|x| x.encoder() == Some(Encoder::Mistral))
    {
        return None;
    }
    m.vectors
        .get(&q.text)
        .filter(|v| !lab.knows_dense(Encoder::Mistral, v, Lab::dense_depth()))
}

/// Whether a measurement can take a step now: its next question's dense top, if it needs one,
/// is known.
pub(super) fn can_step(s: &State) -> bool {
    s.data.ui.measuring.iter().any(|m| next_ready(s, m))
}

fn next_ready(s: &State, m: &Measuring) -> bool {
    s.data
        .questions
        .get(m.done)
        .is_none_or(|q| top_missing(&s.data.lab, m, q).is_none())
}

/// One step of every measurement that can go on: about [`WORK_PER_STEP`] fiches scored, at
/// least one question; a measurement done replaces each of its methods' measurements.
pub(super) fn step(s: &mut State) {
    let mut i = 0;
    while i < s.data.ui.measuring.len() {
        let m = &s.data.ui.measuring[i];
        if !next_ready(s, m) {
            i += 1;
            continue;
        }
        let per_question = s.data.lab.fiches().len().max(1) * m.methods.len().max(1);
        let mut budget = (WORK_PER_STEP / per_question).max(1);
        let mut failed = None;
        let m = &mut s.data.ui.measuring[i];
        while m.done < m.total && budget > 0 {
            let q = &s.data.questions[m.done];
            let lab = &s.data.lab;
            if top_missing(lab, m, q).is_some() {
                break;
            }
            let row: Result<Vec<_>, _> = m
                .methods
                .iter()
                .map(|&x| lab.outcome(x, q, &m.vectors))
                .collect();
            match row {
                Ok(row) => {
                    for (list, o) in m.outcomes.iter_mut().zip(row) {
                        list.push(o);
                    }
                }
                Err(e) => {
                    failed = Some(messages::search(&e));
                    break;
                }
            }
            m.done += 1;
            budget -= 1;
        }
        if failed.is_none() && m.done < m.total {
            i += 1;
            continue;
        }
        let m = s.data.ui.measuring.remove(i);
        match failed {
            Some(message) => failed_measure(s, &m, message),
            None => measured(s, m),
        }
    }
}

/// A measurement done: each method's measurement replaces the one before.
fn measured(s: &mut State, m: Measuring) {
    for (method, outcomes) in m.methods.iter().zip(m.outcomes) {
        let measurement = s
            .data
            .lab
            .measurement(method.name(), method.score_decimals(), outcomes);
        s.data
            .measurements
            .retain(|x| x.method != measurement.method);
        s.data.measurements.push(measurement);
        s.data.measure_version += 1;
    }
}

/// A measurement that failed: a dense one says why where « Mesurer » shows the dense methods.
fn failed_measure(s: &mut State, m: &Measuring, message: String) {
    if m.methods
        .iter()
        .any(|x| x.encoder() == Some(Encoder::Mistral))
    {
        s.data.ui.dense_message = Some(format!("Mesure impossible : {message}"));
    }
}

/// The file « Exporter » offers for `what`: `csv`, `json`, `qrels` or `run:<method>`.
pub(super) fn export_file(s: &State, what: &str) -> Option<(String, String)> {
    let ms: Vec<_> = s.data.measured().into_iter().cloned().collect();
    match what {
        "csv" => Some(("mesures.csv".into(), export::csv(&ms))),
        "json" => Some(("mesures.json".into(), export::json(&ms))),
        "qrels" => ms.first().map(|m| ("qrels.txt".into(), export::qrels(m))),
        "reglages" => s
            .data
            .improve
            .settings
            .as_ref()
            .map(|r| ("reglages.json".into(), r.to_json())),
        // « Améliorer »'s enrichments: the enriched catalogue to index, and the words added (the
        // `--enrichir` format).
        "fiches-enrichies" => {
            let enrich = &s.data.improve.settings.as_ref()?.enrich;
            let text = crate::improve::enriched_jsonl(&s.data.lab, enrich).ok()?;
            (!enrich.is_empty()).then(|| ("fiches-enrichies.jsonl".into(), text))
        }
        "enrichissements" => {
            let enrich = &s.data.improve.settings.as_ref()?.enrich;
            (!enrich.is_empty()).then(|| {
                (
                    "enrichissements.txt".into(),
                    crate::improve::Settings::enrichments_text(enrich),
                )
            })
        }
        other => {
            let name = other.strip_prefix("run:")?;
            let m = ms.iter().find(|m| m.method == name)?;
            Some((
                format!("run-{}.txt", export::run_name(name)),
                export::trec_run(m),
            ))
        }
    }
}

/// A TREC run file is refused above this size before it is read.
pub const RUN_MAX_BYTES: u64 = 50_000_000;

/// A run file read: measured on the catalogue's questions and added, or refused whole.
pub(super) fn import_run(
    s: &mut State,
    file: &str,
    text: Result<String, String>,
) -> Result<String, String> {
    let text = text?;
    let ids: std::collections::HashSet<&str> =
        s.data.lab.fiches().iter().map(|f| f.id.as_str()).collect();
    let mut m = crate::measure::import::measure(&text, &s.data.questions, &ids, s.normalize_id)
        .map_err(|e| messages::run(&e, file))?
        .with_products(s.data.lab.products());
    let taken = |name: &str, data: &Dataset| data.measured().iter().any(|x| x.method == name);
    // A run exported by this page and imported back is named like its method: « mots (run) ».
    if taken(&m.method, &s.data) {
        m.method += " (run)";
    }
    if taken(&m.method, &s.data) {
        return Err(format!(
            "{file} : un run nommé « {} » est déjà mesuré : retirez les runs importés ou renommez celui-ci (6e colonne).",
            m.method
        ));
    }
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let said = format!(
        "Run « {} » ({file}, {} lignes) mesuré sur les {} questions : il est dans chaque tableau, la grille, la comparaison et les exports.",
        m.method,
        crate::fr::int(lines as u64),
        s.data.questions.len()
    );
    s.data.runs.push(m);
    Ok(said)
}

/// What a [`MeasureMsg`] changes.
pub(super) fn update(s: &mut State, msg: MeasureMsg, fx: &mut Vec<Effect>) {
    match msg {
        MeasureMsg::GridSorted(by) => s.data.ui.grid_sort = by,
        MeasureMsg::GridMore => s.data.ui.grid_limit += crate::page::dataset::GRID_PAGE,
        MeasureMsg::PairSide { first, name } => {
            if let Some((a, b)) = s.compared_pair() {
                s.data.ui.compare = Some(if first { (name, b) } else { (a, name) });
            }
        }
        MeasureMsg::RunFilesChosen(files) => run_files_chosen(s, files),
        MeasureMsg::RunsCleared => {
            s.data.runs.clear();
            s.data.ui.run_messages.clear();
        }
        MeasureMsg::ExportRequested(what) => {
            if let Some((name, text)) = export_file(s, &what) {
                fx.push(Effect::Download(name, text.into_bytes()));
            }
        }
    }
}
