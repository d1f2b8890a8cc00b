//! `vecteurs`: computes the vectors file once, for committing to `data/` (or for a deploy workflow
//! holding the key as a secret), so that learners pay only for the questions they type: the
//! fiches' vectors, and the exercise's questions' vectors in the same file (a second tensor).
//!
//! ```text
//! vecteurs [--embedder mistral|fake|local] [--fiches PATH] [--questions PATH|none] [--out PATH]
//! vecteurs --verifier
//! ```

use std::process::ExitCode;

use rag_fiches::cli::{read_text, Fail, TerminalEmbedder};
use rag_fiches::data::vectors::VectorSet;
use rag_fiches::data::{parse_fiches, parse_questions};
use rag_fiches::mistral;

const USAGE: &str =
    "usage: vecteurs [--embedder mistral|fake|local] [--fiches PATH] [--questions PATH|none] [--out PATH]
       vecteurs --verifier

  --embedder NAME   mistral (default; reads MISTRAL_API_KEY), fake (seed 001's, free, for tests)
                    or local (USE multilingual v3 from data/modele-local.safetensors, free;
                    default output data/vecteurs-local.safetensors)
  --fiches PATH     fiches in JSON lines (default: data/fiches.jsonl)
  --questions PATH  questions whose vectors ship in the same file, so that the page measures
                    sens and hybride with no key (default: data/questions.csv; none: fiches only)
  --out PATH        where to write the safetensors file (default: data/vecteurs.safetensors)
  --verifier        checks MISTRAL_API_KEY with one tiny call (about 2 tokens): prints the status,
                    the headers a browser would get (CORS, Retry-After, rate limits) and the
                    models the key reaches; exit 0 if the key is accepted, 1 if not";

fn verify() -> Result<ExitCode, Fail> {
    let report = rag_fiches::cli::verify_key()?;
    for line in &report.lines {
        rag_fiches::outln!("{line}");
    }
    Ok(if report.accepted {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run() -> Result<ExitCode, Fail> {
    let (mut embedder, mut fiches, mut questions, mut out) = (
        "mistral".to_owned(),
        "data/fiches.jsonl".to_owned(),
        "data/questions.csv".to_owned(),
        String::new(),
    );
    let mut args = rag_fiches::cli::args()?.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--embedder" => &mut embedder,
            "--fiches" => &mut fiches,
            "--questions" => &mut questions,
            "--out" => &mut out,
            "--verifier" => return verify(),
            "-h" | "--help" => return Err(Fail::Help),
            other => return Err(Fail::Usage(format!("unknown argument \"{other}\""))),
        };
        *slot = args
            .next()
            .ok_or(Fail::Usage(format!("{arg} needs a value")))?;
    }
    if out.is_empty() {
        out = match embedder.as_str() {
            "local" => "data/vecteurs-local.safetensors",
            _ => "data/vecteurs.safetensors",
        }
        .to_owned();
    }
    let text = read_text(&fiches)?;
    let fiches_list = parse_fiches(&text).map_err(|e| format!("{fiches}: {e}"))?;
    let question_texts: Vec<String> = if questions == "none" {
        Vec::new()
    } else {
        let text = read_text(&questions)?;
        let list = parse_questions(&text).map_err(|e| format!("{questions}: {e}"))?;
        list.into_iter().map(|q| q.text).collect()
    };
    let embedder = TerminalEmbedder::parse(&embedder)?;
    let texts: Vec<&str> = fiches_list.iter().map(|f| f.texte.as_str()).collect();
    let q_refs: Vec<&str> = question_texts.iter().map(String::as_str).collect();
    let estimate: usize = texts
        .iter()
        .chain(&q_refs)
        .map(|t| mistral::estimate_tokens(t))
        .sum();
    match embedder.is_free() {
        true => eprintln!(
            "{} fiches, {} questions, model {} (computed here: nothing is sent, nothing is paid)",
            texts.len(),
            q_refs.len(),
            embedder.model()
        ),
        false => eprintln!(
            "{} fiches, {} questions, at most {estimate} tokens (${:.4} at most), model {}",
            texts.len(),
            q_refs.len(),
            mistral::cost_usd(estimate as u64),
            embedder.model()
        ),
    }
    let rows = embedder.embed(&texts, |done, total| {
        if done % 50 == 0 || done == total {
            eprintln!("  {done}/{total} fiches embedded")
        }
    })?;
    let mut set =
        VectorSet::new(embedder.model(), &fiches_list, rows).map_err(|e| e.to_string())?;
    if !q_refs.is_empty() {
        let rows = embedder.embed(&q_refs, |done, total| {
            eprintln!("  {done}/{total} questions embedded")
        })?;
        set = set
            .with_questions(&q_refs, rows)
            .map_err(|e| e.to_string())?;
    }
    let bytes = set.to_safetensors();
    std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    // The page looks for the vectors file through the manifest beside it: name it there.
    let name = std::path::Path::new(&out)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("vecteurs.safetensors");
    // Only this model's field changes ("vecteurs" for mistral-embed's, "vecteurs_local" for the
    // local encoder's): the manifest's other fields are kept as they are.
    let field = if embedder.model() == rag_fiches::encoder::MODEL {
        "vecteurs_local"
    } else {
        "vecteurs"
    };
    // Vectors of other questions than the catalogue's beside it (« l'épreuve »'s) are read on
    // request, by name: the manifest keeps naming the catalogue's.
    let beside = std::path::Path::new(&out).with_file_name("questions.csv");
    let own_questions = questions == "none" || std::path::Path::new(&questions) == beside;
    if !own_questions {
        eprintln!(
            "manifeste.json left as it is: {out} holds the vectors of {questions}'s questions"
        );
    } else if std::path::Path::new(&out)
        .with_file_name("manifeste.json")
        .exists()
    {
        let mut fields = vec![(field, serde_json::Value::String(name.into()))];
        // The local vectors hold for exactly the model file they were computed with: the page
        // uses and caches only the model whose content hash the manifest names.
        if field == "vecteurs_local" {
            let model = std::fs::read(rag_fiches::encoder::identity::MODEL_FILE).map_err(|e| {
                format!(
                    "cannot read {}: {e}",
                    rag_fiches::encoder::identity::MODEL_FILE
                )
            })?;
            fields.push((
                "modele_local",
                serde_json::Value::String(rag_fiches::encoder::identity::content_hash(&model)),
            ));
        }
        if rag_fiches::cli::update_manifest(&out, "vectors", fields)? {
            eprintln!("manifeste.json updated: its {field} now names {name}");
        }
    }
    let paid = match embedder.is_free() {
        true => String::new(),
        false => {
            let tokens = embedder.tokens();
            format!(
                " ; {tokens} tokens counted by the API (${:.6})",
                mistral::cost_usd(tokens)
            )
        }
    };
    rag_fiches::outln!(
        "{out}: {} fiche vectors and {} question vectors of {} dims, {} bytes, {}{paid}",
        set.len(),
        set.questions.len(),
        set.dim,
        bytes.len(),
        set.fingerprint,
    );
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => rag_fiches::cli::finish("vecteurs", USAGE, Err(e)),
    }
}
