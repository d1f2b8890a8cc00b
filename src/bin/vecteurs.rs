//! `vecteurs`: computes the fiche vectors file once, for committing to `data/` (or for a deploy
//! workflow holding the key as a secret), so that learners pay only for their own questions.
//!
//! ```text
//! vecteurs [--embedder mistral|fake] [--fiches PATH] [--out PATH]
//! ```

use std::process::ExitCode;

use rag_fiches::cli::TerminalEmbedder;
use rag_fiches::data::parse_fiches;
use rag_fiches::data::vectors::VectorSet;
use rag_fiches::mistral;

const USAGE: &str = "usage: vecteurs [--embedder mistral|fake] [--fiches PATH] [--out PATH]

  --embedder NAME  mistral (default; reads MISTRAL_API_KEY) or fake (seed 001's, free, for tests)
  --fiches PATH    fiches in JSON lines (default: data/fiches.jsonl)
  --out PATH       where to write the safetensors file (default: data/vecteurs.safetensors)";

fn run() -> Result<(), String> {
    let (mut embedder, mut fiches, mut out) = (
        "mistral".to_owned(),
        "data/fiches.jsonl".to_owned(),
        "data/vecteurs.safetensors".to_owned(),
    );
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--embedder" => &mut embedder,
            "--fiches" => &mut fiches,
            "--out" => &mut out,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument \"{other}\"")),
        };
        *slot = args.next().ok_or(format!("{arg} needs a value"))?;
    }
    let text =
        std::fs::read_to_string(&fiches).map_err(|e| format!("cannot read {fiches}: {e}"))?;
    let fiches_list = parse_fiches(&text).map_err(|e| format!("{fiches}: {e}"))?;
    let embedder = TerminalEmbedder::parse(&embedder)?;
    let texts: Vec<&str> = fiches_list.iter().map(|f| f.texte.as_str()).collect();
    let estimate: usize = texts.iter().map(|t| mistral::estimate_tokens(t)).sum();
    eprintln!(
        "{} fiches, at most {estimate} tokens (${:.4} at most), model {}",
        texts.len(),
        mistral::cost_usd(estimate as u64),
        embedder.model()
    );
    let rows = embedder.embed(&texts, |done, total| {
        eprintln!("  {done}/{total} fiches embedded")
    })?;
    let set = VectorSet::new(embedder.model(), &fiches_list, rows).map_err(|e| e.to_string())?;
    let bytes = set.to_safetensors();
    std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    // The page looks for the vectors file through the manifest beside it: name it there.
    let out_path = std::path::Path::new(&out);
    let manifest = out_path.with_file_name("manifeste.json");
    if manifest.exists() {
        let name = out_path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("vecteurs.safetensors");
        let text = serde_json::json!({ "vecteurs": name }).to_string() + "\n";
        std::fs::write(&manifest, text)
            .map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
        eprintln!("{} now names {name}", manifest.display());
    }
    let tokens = embedder.tokens();
    println!(
        "{out}: {} vectors of {} dims, {} bytes, {} ; {tokens} tokens counted by the API (${:.6})",
        set.len(),
        set.dim,
        bytes.len(),
        set.fingerprint,
        mistral::cost_usd(tokens)
    );
    Ok(())
}

fn main() -> ExitCode {
    rag_fiches::cli::finish("vecteurs", USAGE, run())
}
