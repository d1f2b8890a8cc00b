//! The question vectors a dense method needs: the file's own when it ships them, else embedded.

use rag_fiches::cli::TerminalEmbedder;
use rag_fiches::data::vectors::VectorSet;
use rag_fiches::lab::{Lab, QuestionVectors};
use rag_fiches::mistral;

use super::args::Args;

/// Whether the local vectors file ships a vector for each of `texts` (no model needed then).
pub fn local_covers(args: &Args, texts: &[&str]) -> bool {
    let Ok(bytes) = rag_fiches::cli::read_bytes(&args.local_vectors) else {
        return false;
    };
    VectorSet::from_safetensors(&bytes).is_ok_and(|set| {
        texts
            .iter()
            .all(|t| set.questions.iter().any(|(q, _)| q == t))
    })
}

/// Loads the local encoder's fiche vectors, and the vectors of `texts`: those the file ships
/// (`vecteurs --embedder local --questions`), the others embedded with the local model.
pub fn local_question_vectors(
    args: &Args,
    lab: &mut Lab,
    texts: &[&str],
) -> Result<QuestionVectors, String> {
    let bytes = rag_fiches::cli::read_bytes(&args.local_vectors).map_err(|e| {
        format!("{e} (make it with: cargo run --release --bin vecteurs -- --embedder local)")
    })?;
    let set =
        VectorSet::from_safetensors(&bytes).map_err(|e| format!("{}: {e}", args.local_vectors))?;
    let mut out: QuestionVectors = set
        .questions
        .iter()
        .filter(|(q, _)| texts.contains(&q.as_str()))
        .cloned()
        .collect();
    lab.set_local_vectors(set)
        .map_err(|e| format!("{}: {e}", args.local_vectors))?;
    let missing: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| !out.contains_key(*t))
        .collect();
    if !missing.is_empty() {
        let embedder = TerminalEmbedder::local(&args.model)?;
        let vectors = embedder.embed(&missing, |_, _| {})?;
        out.extend(missing.iter().map(|t| t.to_string()).zip(vectors));
    }
    Ok(out)
}

/// Loads the fiche vectors and embeds `texts` for a dense method; empty for keyword methods.
pub fn question_vectors(
    args: &Args,
    dense: bool,
    lab: &mut Lab,
    texts: &[&str],
) -> Result<QuestionVectors, String> {
    if !dense {
        return Ok(QuestionVectors::new());
    }
    let bytes = rag_fiches::cli::read_bytes(&args.vectors)
        .map_err(|e| format!("{e} (make it with: cargo run --release --bin vecteurs)"))?;
    let set = VectorSet::from_safetensors(&bytes).map_err(|e| format!("{}: {e}", args.vectors))?;
    let embedder = TerminalEmbedder::parse(&args.embedder)?;
    set.check_model(embedder.model(), embedder.dim())
        .map_err(|e| format!("{}: {e}", args.vectors))?;
    lab.set_vectors(set)
        .map_err(|e| format!("{}: {e}", args.vectors))?;
    let vectors = embedder.embed(texts, |_, _| {})?;
    if embedder.tokens() > 0 {
        eprintln!(
            "{} questions embedded: {} tokens, ${:.6}",
            texts.len(),
            embedder.tokens(),
            mistral::cost_usd(embedder.tokens())
        );
    }
    Ok(texts.iter().map(|t| t.to_string()).zip(vectors).collect())
}
