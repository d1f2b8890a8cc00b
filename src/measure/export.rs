//! Exports of measurements: a CSV of every question under every method, JSON, and TREC runs and
//! qrels that `trec_eval` or `ranx` read, so that anyone can check our numbers with their tools.

use crate::measure::Measurement;

/// The query id of the `i`-th question (from 0) in TREC files: `q01`, `q02`…
pub fn qid(i: usize) -> String {
    format!("q{:02}", i + 1)
}

/// TREC qrels: `qid 0 docid 1` for each answerable question's expected fiche. Absente questions
/// have no line (no fiche is relevant): trec_eval and ranx then leave them out.
pub fn qrels(m: &Measurement) -> String {
    let mut out = String::new();
    for (i, q) in m.questions.iter().enumerate() {
        if let Some(id) = &q.expected {
            out += &format!("{} 0 {id} 1\n", qid(i));
        }
    }
    out
}

/// A TREC run: `qid Q0 docid rank score run`, the first ten of every question.
pub fn trec_run(m: &Measurement) -> String {
    let run = m.method.replace('+', "-plus");
    let mut out = String::new();
    for (i, q) in m.questions.iter().enumerate() {
        for (rank, (id, score)) in q.top.iter().enumerate() {
            out += &format!("{} Q0 {id} {} {score} {run}\n", qid(i), rank + 1);
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([';', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// One row per question and method: `methode;type;question;fiche_attendue;rang;premiere;score`
/// (`;`-separated like the seed's questions.csv; rank empty when not in the first ten).
pub fn csv(measurements: &[Measurement]) -> String {
    let mut out = String::from("methode;type;question;fiche_attendue;rang;premiere;score\n");
    for m in measurements {
        for q in &m.questions {
            let (first, score) = q.top.first().map_or((String::new(), String::new()), |t| {
                (t.0.clone(), t.1.to_string())
            });
            out += &format!(
                "{};{};{};{};{};{};{}\n",
                csv_field(&m.method),
                q.kind.as_str(),
                csv_field(&q.question),
                q.expected.as_deref().unwrap_or(""),
                q.rank.map(|r| r.to_string()).unwrap_or_default(),
                csv_field(&first),
                score
            );
        }
    }
    out
}

/// All measurements as JSON (the same structure as `mesurer --json`, in a list).
pub fn json(measurements: &[Measurement]) -> String {
    serde_json::to_string_pretty(measurements).unwrap_or_else(|_| "[]".into())
}

/// Mean reciprocal rank over the questions that have qrels, read back from TREC text, as
/// `trec_eval -m recip_rank` computes it (a query whose relevant fiche is not in the run counts 0).
pub fn mrr_from_trec(qrels: &str, run: &str) -> Option<f64> {
    use std::collections::HashMap;
    let mut relevant: HashMap<&str, &str> = HashMap::new();
    for line in qrels.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 4 {
            return None;
        }
        relevant.insert(f[0], f[2]);
    }
    let mut best: HashMap<&str, usize> = HashMap::new();
    for line in run.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 6 {
            return None;
        }
        let rank: usize = f[3].parse().ok()?;
        if relevant.get(f[0]) == Some(&f[2]) {
            let e = best.entry(f[0]).or_insert(rank);
            *e = (*e).min(rank);
        }
    }
    if relevant.is_empty() {
        return None;
    }
    let sum: f64 = relevant
        .keys()
        .map(|q| best.get(q).map_or(0.0, |&r| 1.0 / r as f64))
        .sum();
    Some(sum / relevant.len() as f64)
}
