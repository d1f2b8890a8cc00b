//! The question vectors a dense method needs: the file's own when it ships them, else embedded.

use rag_fiches::cli::TerminalEmbedder;
use rag_fiches::data::vectors::VectorSet;
use rag_fiches::lab::{Encoder, Lab, Method, QuestionVectors};
use rag_fiches::mistral;

use super::args::Args;

/// Which encoders `--all` measures, and what its report says of those it skips.
pub struct Available {
    pub mistral: bool,
    pub local: bool,
    /// The report's « Non mesurées » lines.
    pub skipped: String,
}

/// The vectors file at `path` read and checked against `lab`'s fiches: `Ok(None)` when missing;
/// why not, for the command line (English) and for the report (French).
fn read_fitting(path: &str, lab: &Lab) -> Result<Option<VectorSet>, (String, String)> {
    if !std::path::Path::new(path).exists() {
        return Ok(None);
    }
    let bytes = rag_fiches::cli::read_bytes(path).map_err(|e| (e.clone(), e))?;
    let said = |e: rag_fiches::data::vectors::VectorsError| {
        (
            format!("{path}: {e}"),
            rag_fiches::fr::messages::vectors(&e),
        )
    };
    let set = VectorSet::from_safetensors(&bytes).map_err(said)?;
    set.check_fiches_with(lab.fiches(), lab.fingerprint())
        .map_err(said)?;
    Ok(Some(set))
}

/// What `--all` can measure with the vectors at hand. A file given on the command line must be
/// there and fit the catalogue (`none` asks for no file); a default one that is missing or made
/// for another catalogue is skipped, and the report says why. The local methods also need the model, unless the file
/// ships every question's vector.
pub fn available(args: &Args, lab: &Lab, texts: &[&str]) -> Result<Available, String> {
    let names = |e: Encoder| -> String {
        Method::ALL
            .iter()
            .filter(|m| m.encoder() == Some(e))
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut skipped = String::new();
    let mut check =
        |path: &str, named: bool, e: Encoder, how: &str| -> Result<Option<VectorSet>, String> {
            if !args.all {
                return Ok(None);
            }
            // `none`: measured without these vectors, on purpose.
            let named = named && path != "none";
            let why = match read_fitting(path, lab) {
                Ok(Some(set)) => return Ok(Some(set)),
                Ok(None) if named => return Err(format!("{path}: no such file")),
                Err((e, _)) if named => return Err(e),
                Ok(None) => format!("pas de fichier de vecteurs ({path}) ; voir {how}"),
                Err((_, why)) => format!(
                    "{path} ne convient pas : {} ; voir {how} --fiches",
                    why.trim_end_matches('.')
                ),
            };
            skipped += &format!("\nNon mesurées : {} : {why}.\n", names(e));
            Ok(None)
        };
    let mistral = check(
        &args.vectors,
        args.vectors_named,
        Encoder::Mistral,
        "vecteurs",
    )?
    .is_some();
    let local_set = check(
        &args.local_vectors,
        args.local_vectors_named,
        Encoder::Local,
        "vecteurs --embedder local",
    )?;
    let covered = |set: &VectorSet| {
        texts
            .iter()
            .all(|t| set.questions.iter().any(|(q, _)| q == t))
    };
    let local = match local_set {
        Some(set) if std::path::Path::new(&args.model).exists() || covered(&set) => true,
        Some(_) => {
            skipped += &format!(
                "\nNon mesurées : {} : pas de modèle local ({}) pour les questions dont {} n'a pas les vecteurs ; voir scripts/modele.sh.\n",
                names(Encoder::Local),
                args.model,
                args.local_vectors
            );
            false
        }
        None => false,
    };
    Ok(Available {
        mistral,
        local,
        skipped,
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
