//! `catalogue`: writes a deterministic synthetic catalogue in the seed's formats, to measure scale
//! or to try « Vos données » on a large catalogue.
//!
//! ```text
//! catalogue --fiches N [--questions M] [--seed S] --out DIR    → DIR/fiches.jsonl, DIR/questions.csv
//! ```

use std::process::ExitCode;

fn run() -> Result<(), String> {
    let (mut n, mut m, mut seed, mut out) = (1000usize, 40usize, 1u64, None::<String>);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--fiches" => n = value()?.parse().map_err(|_| "--fiches takes a number")?,
            "--questions" => m = value()?.parse().map_err(|_| "--questions takes a number")?,
            "--seed" => seed = value()?.parse().map_err(|_| "--seed takes a number")?,
            "--out" => out = Some(value()?),
            other => return Err(format!("unknown argument \"{other}\"")),
        }
    }
    let out = out.ok_or("--out DIR is required")?;
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
    println!("{out}: {n} fiches, {m} questions (seed {seed})");
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("catalogue: {e}");
            eprintln!("usage: catalogue --fiches N [--questions M] [--seed S] --out DIR");
            ExitCode::from(2)
        }
    }
}
