//! `mesurer`'s command line: its usage text, its arguments and their checks.

use rag_fiches::cli::Fail;
use rag_fiches::lab::Method;

pub const USAGE: &str = "usage: mesurer [METHOD] [--fiches PATH] [--questions PATH] [--json]
                [--embedder mistral|fake] [--vectors PATH]
       mesurer --all [--trec DIR [--force]] [--json] [--embedder …] [--vectors PATH]
       mesurer [METHOD | --all] --run FILE[,FILE…] [--comparer METHOD]
       mesurer [METHOD | --all] --qrels FILE [--accord FILE]
       mesurer --qrels-derivees
       mesurer [METHOD] --question \"…\" [--explain]
       mesurer mots+ [--sans-mot-vide WORD[,WORD…]] [--mot-vide WORD[,WORD…]]
       mesurer [METHOD] [--k1 X] [--b Y] [--rrf-k K] [--enrichir FILE] [--reglages FILE.json]
                [--ratees] [--balayer k1b|rrf-k] [--json]

  METHOD           mots (default): the seed's BM25; mots+: French-aware BM25;
                   sens: cosine of embeddings; hybride: RRF of mots and sens;
                   hybride+: RRF of mots+ and sens; sens-local: cosine of the local
                   encoder's vectors (USE multilingual v3); hybride-local: RRF of mots+
                   and sens-local
  --embedder NAME  embeds the questions for sens/hybride: mistral (MISTRAL_API_KEY) or fake
                   (seed 001's hashed bag of words; needs vectors made by the fake embedder)
  --vectors PATH   the fiche vectors (default: data/vecteurs.safetensors)
  --vecteurs-local PATH  the local encoder's fiche vectors (default: data/vecteurs-local.safetensors)
  --modele PATH    the local encoder (default: data/modele-local.safetensors; see modele)
  --all            every method side by side (dense ones when the vectors file exists),
                   with refusal thresholds, fusion against the best single method, and
                   every pair of methods: MRR@10 gap, 95 % bootstrap interval, t-test
                   p corrected by Holm over the pairs, and which method leads
  --run FILES      TREC runs of any engine (qid Q0 docid rank score tag, qids q01, q02…
                   as --trec writes them), measured beside the methods, named by their tag
  --comparer METHOD  with --run: where each run's first 10 fiches differ from METHOD's,
                   question by question, fiches of equal score in any order
  --qrels FILE     graded judgments (TREC qrels: qid 0 fiche grade, grades 0 to 3): also
                   nDCG@10, recall@10 and Judged@10 of each method, on the questions judged
  --accord FILE    with --qrels: how a second judge's qrels agree with the first's on the
                   fiches both graded (same grades, Cohen's kappa with linear weights, the
                   confusion table): the page's hand judgments against a model's, or two people's
  --qrels-derivees print the exercise's graded qrels, derived from its expected fiches:
                   the expected fiche 3, the other variants of its product 2
  --trec DIR       also write qrels.txt and run-METHOD.txt for trec_eval or ranx
  --force          with --trec: overwrite files already there (else nothing is written)
  --fiches PATH    fiches in JSON lines (default: data/fiches.jsonl)
  --questions PATH questions in the seed's CSV format (default: data/questions.csv)
  --json           the whole measurement as JSON: every question's top 10 and rank; with
                   --all, {methods, statistics, pairs}: every pair's gap on MRR@10, hit@1
                   and hit@5 with interval, t and randomisation p, Holm, effect, detectable
  --question TEXT  search one question and print its top 5
  --explain        with --question: take each score apart, term by term
  --sans-mot-vide WORDS  mots+ with these words no longer stop words: both figures
                   side by side and every question whose rank moves (an ablation)
  --mot-vide WORDS mots+ with these words made stop words (same report)
  --k1 X, --b Y    BM25's parameters (defaults 1.5 and 0.75, the seed's)
  --rrf-k K        RRF's constant for a fusion (default 60)
  --enrichir FILE  words added to fiches, one line each: AR-0063;ne brûle pas
                   (AR-0063+;… adds them to every variant of the product)
  --exporter-fiches OUT  writes the catalogue with the settings' enrichments in its texts
                   (JSON lines, ready to index; the page's « Exporter le catalogue enrichi »)
  --reglages FILE  the settings exported by the page's « Améliorer » (JSON); the flags
                   above change them further
  --ratees         the questions missed (not in the top 5): the question words the
                   expected fiche lacks, and the words that lifted the first fiche
  --balayer GRID   from those settings, sweeps k1b (BM25's k1 × b, 35 settings) or rrf-k
                   (a fusion's RRF k, 8 settings): chosen on the questions of odd rank,
                   reported on the others (« Améliorer »'s « Régler sur une moitié »)";

/// What an unknown method's message lists.
const EXPECTED_METHODS: &str =
    "expected mots, mots+, sens, hybride, hybride+, sens-local or hybride-local";

pub struct Args {
    pub method: Method,
    pub fiches: String,
    pub questions: String,
    pub json: bool,
    pub question: Option<String>,
    pub explain: bool,
    pub embedder: String,
    pub vectors: String,
    pub local_vectors: String,
    pub model: String,
    /// Whether `--vectors` and `--vecteurs-local` were given: a path given must fit; a default
    /// that does not is skipped by `--all`, with a note.
    pub vectors_named: bool,
    pub local_vectors_named: bool,
    pub all: bool,
    pub trec: Option<String>,
    pub force: bool,
    /// `--sans-mot-vide` and `--mot-vide`: an ablation of mots+'s stop words.
    pub keep: Vec<String>,
    pub drop: Vec<String>,
    /// `--run`: TREC run files measured as methods.
    pub runs: Vec<String>,
    /// `--comparer`: the method each run is compared with, beyond ties.
    pub compare: Option<Method>,
    /// « Améliorer »'s settings: `--k1`, `--b`, `--rrf-k`, `--enrichir`, `--reglages`.
    pub k1: Option<f64>,
    pub b: Option<f64>,
    pub rrf_k: Option<f64>,
    pub enrich: Option<String>,
    /// `--exporter-fiches`: where the catalogue enriched by the settings is written.
    pub export_fiches: Option<String>,
    pub settings: Option<String>,
    pub missed: bool,
    /// `--balayer`: the grid swept from the settings.
    pub sweep: Option<rag_fiches::improve::sweep::Grid>,
    /// `--qrels`: graded judgments the methods are also measured against.
    pub qrels: Option<String>,
    /// `--qrels-derivees`: the derived graded qrels, printed.
    pub derive_qrels: bool,
    /// `--accord`: a second judge's qrels, compared with `--qrels`'.
    pub agreement: Option<String>,
    /// Whether METHOD was named on the command line (not the default).
    pub method_named: bool,
}

impl Args {
    pub fn tuned(&self) -> bool {
        self.k1.is_some()
            || self.b.is_some()
            || self.rrf_k.is_some()
            || self.enrich.is_some()
            || self.export_fiches.is_some()
            || self.settings.is_some()
            || self.missed
            || self.sweep.is_some()
    }
}

pub fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, Fail> {
    let mut out = Args {
        method: Method::MOTS,
        fiches: "data/fiches.jsonl".into(),
        questions: "data/questions.csv".into(),
        json: false,
        question: None,
        explain: false,
        embedder: "mistral".into(),
        vectors: "data/vecteurs.safetensors".into(),
        local_vectors: "data/vecteurs-local.safetensors".into(),
        model: "data/modele-local.safetensors".into(),
        vectors_named: false,
        local_vectors_named: false,
        all: false,
        trec: None,
        force: false,
        keep: Vec::new(),
        drop: Vec::new(),
        runs: Vec::new(),
        compare: None,
        k1: None,
        b: None,
        rrf_k: None,
        enrich: None,
        export_fiches: None,
        settings: None,
        missed: false,
        sweep: None,
        qrels: None,
        agreement: None,
        derive_qrels: false,
        method_named: false,
    };
    let mut method_seen = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or(Fail::Usage(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--fiches" => out.fiches = value("--fiches")?,
            "--questions" => out.questions = value("--questions")?,
            "--question" => out.question = Some(value("--question")?),
            "--json" => out.json = true,
            "--explain" => out.explain = true,
            "--embedder" => out.embedder = value("--embedder")?,
            "--vectors" => {
                out.vectors = value("--vectors")?;
                out.vectors_named = true;
            }
            "--vecteurs-local" => {
                out.local_vectors = value("--vecteurs-local")?;
                out.local_vectors_named = true;
            }
            "--modele" => out.model = value("--modele")?,
            "--all" => out.all = true,
            "--trec" => out.trec = Some(value("--trec")?),
            "--force" => out.force = true,
            "--sans-mot-vide" => out.keep.extend(words(&value("--sans-mot-vide")?)),
            "--mot-vide" => out.drop.extend(words(&value("--mot-vide")?)),
            "--run" => out.runs.extend(
                value("--run")?
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned),
            ),
            "--comparer" => {
                let m = value("--comparer")?;
                out.compare = Some(Method::parse(&m).ok_or(Fail::Usage(format!(
                    "--comparer: unknown method \"{m}\": {EXPECTED_METHODS}"
                )))?);
            }
            "--k1" => out.k1 = Some(number("--k1", &value("--k1")?)?),
            "--b" => out.b = Some(number("--b", &value("--b")?)?),
            "--rrf-k" => out.rrf_k = Some(number("--rrf-k", &value("--rrf-k")?)?),
            "--enrichir" => out.enrich = Some(value("--enrichir")?),
            "--exporter-fiches" => out.export_fiches = Some(value("--exporter-fiches")?),
            "--reglages" => out.settings = Some(value("--reglages")?),
            "--ratees" => out.missed = true,
            "--balayer" => {
                use rag_fiches::improve::sweep::Grid;
                out.sweep = Some(match value("--balayer")?.as_str() {
                    "k1b" => Grid::K1B,
                    "rrf-k" => Grid::RrfK,
                    other => {
                        return Err(Fail::Usage(format!(
                            "--balayer: unknown grid \"{other}\": expected k1b or rrf-k"
                        )))
                    }
                });
            }
            "--qrels" => out.qrels = Some(value("--qrels")?),
            "--qrels-derivees" => out.derive_qrels = true,
            "--accord" => out.agreement = Some(value("--accord")?),
            "-h" | "--help" => return Err(Fail::Help),
            m if !m.starts_with('-') && !method_seen => {
                out.method = Method::parse(m).ok_or(Fail::Usage(format!(
                    "unknown method \"{m}\": {EXPECTED_METHODS}"
                )))?;
                method_seen = true;
                out.method_named = true;
            }
            other => return Err(Fail::Usage(format!("unknown argument \"{other}\""))),
        }
    }
    if out.tuned() && (out.all || out.question.is_some() || !out.runs.is_empty()) {
        return Err(Fail::Usage(
            "--k1, --b, --rrf-k, --enrichir, --reglages, --ratees and --balayer measure one method: mesurer mots --b 0"
                .into(),
        ));
    }
    if out.sweep.is_some() && out.missed {
        return Err(Fail::Usage(
            "--balayer reports a sweep, --ratees one measurement: run them one at a time".into(),
        ));
    }
    if (!out.keep.is_empty() || !out.drop.is_empty())
        && (out.method != Method::MOTS_PLUS
            || out.all
            || out.question.is_some()
            || out.json
            || out.tuned())
    {
        return Err(Fail::Usage(
            "--sans-mot-vide and --mot-vide change mots+ alone, with no other setting: mesurer mots+ --sans-mot-vide WORD"
                .into(),
        ));
    }
    if out.compare.is_some() && (out.runs.is_empty() || out.json) {
        return Err(Fail::Usage(
            "--comparer compares runs with a method, in text: mesurer --run FILE --comparer mots+"
                .into(),
        ));
    }
    if out.qrels.is_some() && (out.json || out.tuned() || out.question.is_some()) {
        return Err(Fail::Usage(
            "--qrels adds graded figures to the text report: mesurer --all --qrels FILE".into(),
        ));
    }
    if out.agreement.is_some() && out.qrels.is_none() {
        return Err(Fail::Usage(
            "--accord compares a second judge's qrels with those of --qrels: mesurer --qrels A --accord B"
                .into(),
        ));
    }
    if out.explain && out.question.is_none() {
        return Err(Fail::Usage("--explain goes with --question".into()));
    }
    Ok(out)
}

/// `v` as a number, or a usage error naming the flag.
fn number(name: &str, v: &str) -> Result<f64, Fail> {
    v.parse()
        .map_err(|_| Fail::Usage(format!("{name} needs a number, not \"{v}\"")))
}

/// The words of a `--mot-vide` list: comma-separated, lowercased.
fn words(list: &str) -> Vec<String> {
    list.split(',')
        .map(|w| w.trim().to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}
