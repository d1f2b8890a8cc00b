//! `reponses`: computes once, with `MISTRAL_API_KEY`, the answer's lessons for a questions file —
//! each method's answers and their judgements, each first stage's top 20 reranked, the answers
//! written from the whole catalogue — and writes them in one fingerprinted file that the page
//! shows to learners without a key (`data/reponses.json`).
//!
//! ```text
//! reponses [--fiches PATH] [--questions PATH] [--out PATH] [--methodes LIST]
//!          [--modele M] [--juge M] [--reclasseur M] [--vectors PATH]
//!          [--vecteurs-local PATH] [--modele-local PATH]
//! reponses --a-jour [same options]
//! ```

use std::process::ExitCode;

use rag_fiches::cli::Fail;

const USAGE: &str =
    "usage: reponses [--fiches PATH] [--questions PATH] [--out PATH] [--methodes LIST]
                [--modele M] [--juge M] [--reclasseur M] [--vectors PATH]
                [--vecteurs-local PATH] [--modele-local PATH]
       reponses --a-jour [same options]

  Reads MISTRAL_API_KEY; requests go to MISTRAL_API_BASE (default https://api.mistral.ai; only
  a loopback address such as http://127.0.0.1:8788 is accepted besides, for a local mock).

  --methodes LIST   the methods answered and reranked, comma-separated (default: mots, mots+,
                    and every dense method whose vectors are here: sens, hybride, hybride+
                    with --vectors; sens-local, hybride-local with the local model)
  --modele M        the model that answers (default mistral-small-latest)
  --juge M          the model that judges each answer OUI or NON (default: the cheapest of
                    the price table)
  --reclasseur M    the model that marks each first stage's top 20 (default mistral-small-latest)
  --fiches PATH     default data/fiches.jsonl
  --questions PATH  default data/questions.csv
  --out PATH        default data/reponses.json; answers already in it for the same texts and
                    model are reused, not paid again
  --vectors PATH    mistral-embed's fiche vectors, with the questions' (default
                    data/vecteurs.safetensors)
  --vecteurs-local PATH, --modele-local PATH  the local encoder's vectors and model (defaults
                    data/vecteurs-local.safetensors, data/modele-local.safetensors)
  --a-jour          exit 0 if --out holds these fiches', questions', methods', models' and
                    prompts' answers, 1 if it must be computed again; nothing is sent";

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod native;

#[cfg(not(target_arch = "wasm32"))]
fn run() -> Result<ExitCode, Fail> {
    let args = args::parse_args(rag_fiches::cli::args()?.into_iter())?;
    native::run(args)
}

#[cfg(target_arch = "wasm32")]
fn run() -> Result<ExitCode, Fail> {
    Err(Fail::Run("reponses needs the native terminal".into()))
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => rag_fiches::cli::finish("reponses", USAGE, Err(e)),
    }
}
