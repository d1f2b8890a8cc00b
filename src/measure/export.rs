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

/// A TREC run: `qid Q0 docid rank score run`, the first ten of every question (and the eleventh
/// when it ties with the tenth, so that the pessimistic figures read back the same). Scores are
/// written in full (Rust's shortest round-trip form): equal scores stay equal, distinct ones
/// distinct. The run's name is the method's in one word (`mots-plus`, `sens-local`): a TREC
/// line's fields are separated by white space.
pub fn trec_run(m: &Measurement) -> String {
    let run = run_name(&m.method);
    let mut out = String::new();
    for (i, q) in m.questions.iter().enumerate() {
        for (rank, (id, score)) in q.top.iter().chain(&q.tied_beyond).enumerate() {
            out += &format!("{} Q0 {id} {} {score} {run}\n", qid(i), rank + 1);
        }
    }
    out
}

/// A method's or run's name as a run's tag and in its file name, in the page and the terminal:
/// `+` as `-plus`, white space as `-`, anything else but letters, digits, `-` and `_` as `_`
/// (`mots+` → `mots-plus`, `sens local` → `sens-local`).
pub fn run_name(name: &str) -> String {
    name.replace('+', "-plus")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One CSV field, as RFC 4180 quotes it (with `;` as the separator): quoted when it holds the
/// separator, a quote or a line break, quotes doubled. A text that a spreadsheet would read as a
/// formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's list) gets a
/// leading `'`, so that opening the export never runs a formula from a question or an id.
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    if s.contains([';', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// One row per question and method:
/// `methode;type;question;fiche_attendue;rang;premiere;score;rang_produit` (`;`-separated like the
/// seed's questions.csv; a rank empty when not in the first ten; `rang_produit` the first rank of
/// any variant of the expected product, empty too when products are not known). Every text field
/// goes through [`csv_field`]: quoted per RFC 4180, formulas neutralised.
pub fn csv(measurements: &[Measurement]) -> String {
    let mut out =
        String::from("methode;type;question;fiche_attendue;rang;premiere;score;rang_produit\n");
    for m in measurements {
        for q in &m.questions {
            let (first, score) = q.top.first().map_or((String::new(), String::new()), |t| {
                (t.0.clone(), t.1.to_string())
            });
            out += &format!(
                "{};{};{};{};{};{};{};{}\n",
                csv_field(&m.method),
                q.kind.as_str(),
                csv_field(&q.question),
                csv_field(q.expected.as_deref().unwrap_or("")),
                q.rank.map(|r| r.to_string()).unwrap_or_default(),
                csv_field(&first),
                score,
                q.product_rank.map(|r| r.to_string()).unwrap_or_default(),
            );
        }
    }
    out
}

/// All measurements as JSON: `methods` (each as `mesurer --json` prints one), `statistics` (how
/// the pairs were compared) and `pairs` (every pair of methods, [`crate::measure::pairs`]).
pub fn json(measurements: &[Measurement]) -> String {
    #[derive(serde::Serialize)]
    struct Export<'a> {
        methods: &'a [Measurement],
        statistics: crate::measure::pairs::Settings,
        pairs: Vec<crate::measure::pairs::Pair>,
    }
    let export = Export {
        methods: measurements,
        statistics: crate::measure::pairs::settings(),
        pairs: crate::measure::pairs::all(measurements),
    };
    serde_json::to_string_pretty(&export).unwrap_or_else(|_| "{}".into())
}

/// Mean reciprocal rank over the questions that have qrels, read back from TREC text, as
/// `trec_eval -M 10 -m recip_rank` computes it: the first ten lines of each query (a run may hold
/// an eleventh, tied with the tenth); a query whose relevant fiche is not there counts 0.
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
        if rank > crate::measure::DEPTH {
            continue;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{parse_fiches, parse_questions};
    use crate::lab::{Keyword, Lab};

    #[test]
    fn a_method_named_in_two_words_writes_a_run_of_six_fields() {
        assert_eq!(run_name("hybride local"), "hybride-local");
        assert_eq!(run_name("mots+"), "mots-plus");
        assert_eq!(run_name("hybride+"), "hybride-plus");
        assert_eq!(run_name("mots (run)"), "mots-_run_");
        let fiches = parse_fiches(
            r#"{"id":"AR-0001","famille":"f","nom":"Colle","texte":"colle carrelage"}"#,
        )
        .unwrap();
        let questions =
            parse_questions("type;question;fiche_attendue\ncourante;colle;AR-0001\n").unwrap();
        let mut m = Lab::new(fiches).measure_keyword(Keyword::Mots, &questions);
        m.method = "sens local".into();
        let run = trec_run(&m);
        assert_eq!(
            run,
            format!("q01 Q0 AR-0001 1 {} sens-local\n", m.questions[0].top[0].1)
        );
    }

    #[test]
    fn the_csv_survives_hostile_ids_and_questions_and_runs_no_formula() {
        let fiches = parse_fiches(concat!(
            r#"{"id":"AR;0006","famille":"f","nom":"Colle","texte":"colle carrelage"}"#,
            "\n",
            r#"{"id":"=HYPERLINK(1)","famille":"f","nom":"Joint","texte":"joint silicone"}"#,
            "\n"
        ))
        .unwrap();
        let questions = parse_questions(concat!(
            "type;question;fiche_attendue\n",
            "exacte;\"=1+1 colle\";AR;0006\n",
        ));
        // The seed's CSV has no quoting of ids: an id with `;` cannot even be written there. The
        // export must still hold whatever a catalogue loaded from JSON lines carries.
        assert!(questions.is_err());
        let questions = parse_questions(concat!(
            "type;question;fiche_attendue\n",
            "exacte;\"=1+1 colle \"\"carrelage\"\"\nsur deux lignes\";\"AR;0006\"\n",
            "courante;@SUM(A1) joint;=HYPERLINK(1)\n",
            "absente;+cmd|' /C calc'!A0;\n",
        ))
        .unwrap();
        let lab = Lab::new(fiches);
        let m = lab.measure_keyword(Keyword::MotsPlus, &questions);
        let text = csv(&[m]);
        let mut reader = ::csv::ReaderBuilder::new()
            .delimiter(b';')
            .from_reader(text.as_bytes());
        let rows: Vec<::csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), 3, "one row per question, none split: {text}");
        for r in &rows {
            assert_eq!(r.len(), 8, "no column shifted: {r:?}");
            for field in r.iter() {
                assert!(
                    !field.starts_with(['=', '+', '-', '@']),
                    "a formula reaches the spreadsheet: {field:?}"
                );
            }
        }
        assert_eq!(&rows[0][2], "'=1+1 colle \"carrelage\"\nsur deux lignes");
        assert_eq!(&rows[0][3], "AR;0006");
        assert_eq!(&rows[1][3], "'=HYPERLINK(1)");
        assert_eq!(&rows[2][2], "'+cmd|' /C calc'!A0");
    }
}
