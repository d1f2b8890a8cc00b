//! `catalogue`: writes a deterministic synthetic catalogue in the seed's formats, to measure scale
//! or to try « Vos données » on a large catalogue.
//!
//! ```text
//! catalogue --fiches N [--questions M] [--seed S] --out DIR    → DIR/fiches.jsonl, DIR/questions.csv
//! ```

use std::process::ExitCode;

use rag_fiches::cli::Fail;

const USAGE: &str = "usage: catalogue --fiches N [--questions M] [--seed S] --out DIR
  N from 1 to 1,000,000 fiches, M from 1 to 100,000 questions";

fn run() -> Result<(), Fail> {
    let (mut n, mut m, mut seed, mut out) = (1000usize, 40usize, 1u64, None::<String>);
    let mut args = rag_fiches::cli::args()?.into_iter();
    let count = |v: String, name: &str, max: usize| -> Result<usize, Fail> {
        match v.parse::<usize>() {
            Ok(x) if (1..=max).contains(&x) => Ok(x),
            _ => Err(Fail::Usage(format!(
                "{name} takes a number from 1 to {max}, not \"{v}\""
            ))),
        }
    };
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(Fail::Usage(format!("{a} needs a value")));
        match a.as_str() {
            "--fiches" => n = count(value()?, "--fiches", 1_000_000)?,
            "--questions" => m = count(value()?, "--questions", 100_000)?,
            "--seed" => {
                seed = value()?
                    .parse()
                    .map_err(|_| Fail::Usage("--seed takes a number".into()))?
            }
            "--out" => out = Some(value()?),
            "-h" | "--help" => return Err(Fail::Help),
            other => return Err(Fail::Usage(format!("unknown argument \"{other}\""))),
        }
    }
    let out = out.ok_or(Fail::Usage("--out DIR is required".into()))?;
    let bundled = rag_fiches::data::parse_fiches(include_str!("../../data/fiches.jsonl"))
        .map_err(|e| e.to_string())?;
    let (fiches, questions) = rag_fiches::data::synth::catalogue(&bundled, n, m, seed);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {out}: {e}"))?;
    let dir = std::path::Path::new(&out);
    std::fs::write(
        dir.join("fiches.jsonl"),
        rag_fiches::data::synth::to_jsonl(&fiches),
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("questions.csv"),
        rag_fiches::data::synth::to_csv(&questions),
    )
    .map_err(|e| e.to_string())?;
    rag_fiches::outln!("{out}: {n} fiches, {m} questions (seed {seed})");
    Ok(())
}

fn main() -> ExitCode {
    rag_fiches::cli::finish("catalogue", USAGE, run())
}
