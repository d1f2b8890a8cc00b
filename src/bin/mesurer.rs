//! `mesurer`: the terminal twin of the seed's `mesurer.py`, on the same core as the page.
//!
//! ```text
//! mesurer [METHOD] [--fiches PATH] [--questions PATH] [--json]
//! mesurer [METHOD] --question "…" [--explain]
//! ```
//! METHOD is `mots` (the default, the seed's BM25) or `mots+` (French-aware BM25).

use std::process::ExitCode;

use rag_fiches::bm25::{Explanation, FORMULA};
use rag_fiches::data::{check_expected, parse_fiches, parse_questions, Fiche};
use rag_fiches::lab::{Lab, Method};
use rag_fiches::pyfmt;

const USAGE: &str = "usage: mesurer [mots|mots+] [--fiches PATH] [--questions PATH] [--json]
       mesurer [mots|mots+] --question \"…\" [--explain]

  METHOD           mots (default): the seed's BM25; mots+: French-aware BM25
  --fiches PATH    fiches in JSON lines (default: data/fiches.jsonl)
  --questions PATH questions in the seed's CSV format (default: data/questions.csv)
  --json           the whole measurement as JSON: every question's top 10 and rank
  --question TEXT  search one question and print its top 5
  --explain        with --question: take each score apart, term by term";

struct Args {
    method: Method,
    fiches: String,
    questions: String,
    json: bool,
    question: Option<String>,
    explain: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        method: Method::Mots,
        fiches: "data/fiches.jsonl".into(),
        questions: "data/questions.csv".into(),
        json: false,
        question: None,
        explain: false,
    };
    let mut method_seen = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--fiches" => out.fiches = value("--fiches")?,
            "--questions" => out.questions = value("--questions")?,
            "--question" => out.question = Some(value("--question")?),
            "--json" => out.json = true,
            "--explain" => out.explain = true,
            "-h" | "--help" => return Err(String::new()),
            m if !m.starts_with('-') && !method_seen => {
                out.method = Method::parse(m)
                    .ok_or(format!("unknown method \"{m}\": expected mots or mots+"))?;
                method_seen = true;
            }
            other => return Err(format!("unknown argument \"{other}\"")),
        }
    }
    if out.explain && out.question.is_none() {
        return Err("--explain goes with --question".into());
    }
    Ok(out)
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn load_fiches(path: &str) -> Result<Vec<Fiche>, String> {
    parse_fiches(&read(path)?).map_err(|e| format!("{path}: {e}"))
}

fn print_explanation(e: &Explanation, fiche: &Fiche) {
    println!(
        "    {} (longueur {} termes, moyenne {:.2}, N = {})",
        fiche.id, e.doc_len, e.avg_len, e.n
    );
    println!(
        "    {:<16} {:<12} {:>4} {:>7} {:>3} {:>7} {:>9}",
        "mot", "terme", "df", "idf", "tf", "norme", "apport"
    );
    for t in &e.terms {
        println!(
            "    {:<16} {:<12} {:>4} {:>7.4} {:>3} {:>7.4} {:>9.4}",
            t.word, t.term, t.df, t.idf, t.tf, t.norm, t.contribution
        );
    }
    if !e.dropped.is_empty() {
        println!("    ignorés : {}", e.dropped.join(", "));
    }
    println!("    total = {:.4}", e.score);
}

fn run() -> Result<(), String> {
    let args = parse_args(std::env::args().skip(1))?;
    let lab = Lab::new(load_fiches(&args.fiches)?);
    if let Some(question) = &args.question {
        println!("Méthode : {}", args.method.name());
        println!("Question : {question}");
        if args.explain {
            println!("{FORMULA}");
            println!(
                "k1 = 1.5 ; b = 0.75 ; analyse : {}",
                args.method.analyzer().describe()
            );
        }
        for (i, r) in lab.search(args.method, question, 5).iter().enumerate() {
            let fiche = &lab.fiches()[r.doc];
            println!(
                "{:>2}. {}  {:>6}  {}",
                i + 1,
                fiche.id,
                pyfmt::repr(pyfmt::round(r.score, 2)),
                fiche.nom
            );
            if args.explain {
                print_explanation(&lab.explain(args.method, question, r.doc), fiche);
            }
        }
        return Ok(());
    }
    let questions =
        parse_questions(&read(&args.questions)?).map_err(|e| format!("{}: {e}", args.questions))?;
    check_expected(lab.fiches(), &questions).map_err(|e| format!("{}: {e}", args.questions))?;
    let m = lab.measure(args.method, &questions);
    if args.json {
        let text = serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print!("{}", m.seed_report());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mesurer: {e}");
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
