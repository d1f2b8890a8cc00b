//! Measurements in steps (a newer one of the same methods supersedes the older), the imported
//! TREC runs, and the files « Exporter » offers.

use crate::fr::messages;
use crate::lab::{Encoder, Method, QuestionVectors};
use crate::measure::{export, Measurement};

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

/// Starts measuring `methods` in steps (see [`Measuring`]); a measurement of the
/// same methods under way is superseded.
pub(super) fn request_measure(
    s: &mut State,
    fx: &mut Vec<Effect>,
    methods: Vec<Method>,
    vectors: QuestionVectors,
) {
    s.measure_seq += 1;
    let seq = s.measure_seq;
    s.data
        .ui
        .measuring
        .retain(|m| !m.methods.iter().any(|x| methods.contains(x)));
    for m in &methods {
        s.data.ui.measure_latest.insert(m.name(), seq);
    }
    s.data.ui.measuring.push(Measuring {
        seq,
        epoch: s.data.epoch,
        methods: methods.clone(),
        done: 0,
        total: s.data.questions.len(),
    });
    fx.push(Effect::Measure {
        seq,
        epoch: s.data.epoch,
        methods,
        vectors,
    });
}

/// A stepped measurement ended: each method's measurement replaces the one before, unless a
/// newer measurement of that method was asked for meanwhile.
pub(super) fn measured(s: &mut State, seq: u64, result: Result<Vec<Measurement>, String>) {
    let dense = s
        .data
        .ui
        .measuring
        .iter()
        .find(|m| m.seq == seq)
        .is_some_and(|m| {
            m.methods
                .iter()
                .any(|x| x.encoder() == Some(Encoder::Mistral))
        });
    s.data.ui.measuring.retain(|m| m.seq != seq);
    match result {
        Ok(ms) => {
            for m in ms {
                if s.data.ui.measure_latest.get(m.method.as_str()) != Some(&seq) {
                    continue;
                }
                s.data.measurements.retain(|x| x.method != m.method);
                s.data.measurements.push(m);
                s.data.measure_version += 1;
            }
        }
        Err(message) if dense => {
            s.data.ui.dense_message = Some(format!("Mesure impossible : {message}"))
        }
        Err(_) => {}
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
        MeasureMsg::Progress { seq, done } => {
            if let Some(m) = s.data.ui.measuring.iter_mut().find(|m| m.seq == seq) {
                m.done = done;
            }
        }
        MeasureMsg::Measured { seq, epoch, result } if epoch == s.data.epoch => {
            measured(s, seq, result)
        }
        // A result from another catalogue's task: dropped.
        _ => {}
    }
}
