//! `mesurer`: the terminal twin of the seed's `mesurer.py`, on the same core as the page.
//!
//! ```text
//! mesurer [METHOD] [--fiches PATH] [--questions PATH] [--json]
//!         [--embedder mistral|fake] [--vectors PATH]
//! mesurer --all [--trec DIR] [--json]
//! mesurer [METHOD] --question "…" [--explain]
//! ```
//! METHOD is `mots` (the default, the seed's BM25), `mots+` (French-aware BM25), `sens`
//! (cosine over embeddings), `hybride` (RRF of mots and sens), `hybride+` (RRF of mots+ and sens),
//! `sens-local` (cosine over the local encoder's vectors) or `hybride-local` (RRF of mots+ and
//! sens-local).

use std::process::ExitCode;

use rag_fiches::cli::{read_qrels, Fail};
use rag_fiches::data::{check_expected, parse_questions, Fiche, QuestionKind};
use rag_fiches::lab::{Encoder, Lab, Method, QuestionVectors};
use rag_fiches::measure::compare;
use rag_fiches::measure::graded::{self, Qrels};
use rag_fiches::measure::{export, import, parity};
use rag_fiches::measure::{show_score, Measurement};
use rag_fiches::search::bm25::{Explanation, FORMULA};

mod args;
mod balayer;
mod report;
mod vectors;

use args::{parse_args, Args, USAGE};
use vectors::{available, local_question_vectors, question_vectors};

fn read(path: &str) -> Result<String, String> {
    rag_fiches::cli::read_text(path)
}

fn load_fiches(path: &str) -> Result<Vec<Fiche>, String> {
    rag_fiches::cli::read_fiches(path)
}

fn print_explanation(e: &Explanation, fiche: &Fiche) {
    rag_fiches::outln!(
        "    {} (longueur {} termes, moyenne {:.2}, N = {})",
        fiche.id,
        e.doc_len,
        e.avg_len,
        e.n
    );
    rag_fiches::outln!(
        "    {:<16} {:<12} {:>4} {:>7} {:>3} {:>7} {:>9}",
        "mot",
        "terme",
        "df",
        "idf",
        "tf",
        "norme",
        "apport"
    );
    for t in &e.terms {
        rag_fiches::outln!(
            "    {:<16} {:<12} {:>4} {:>7.4} {:>3} {:>7.4} {:>9.4}",
            t.word,
            t.term,
            t.df,
            t.idf,
            t.tf,
            t.norm,
            t.contribution
        );
    }
    if !e.dropped.is_empty() {
        rag_fiches::outln!("    ignorés : {}", e.dropped.join(", "));
    }
    rag_fiches::outln!("    total = {:.4}", e.score);
}

fn run() -> Result<(), Fail> {
    let args = parse_args(rag_fiches::cli::args()?.into_iter())?;
    let mut lab = Lab::new(load_fiches(&args.fiches)?);
    if let Some(question) = &args.question {
        let qv = if args.method.encoder() == Some(Encoder::Local) {
            local_question_vectors(&args, &mut lab, &[question.as_str()])?
        } else {
            question_vectors(
                &args,
                args.method.is_dense(),
                &mut lab,
                &[question.as_str()],
            )?
        };
        let vector = qv.get(question.as_str()).map(Vec::as_slice);
        rag_fiches::outln!("Méthode : {}", args.method.name());
        rag_fiches::outln!("Question : {question}");
        let keyword = match args.method {
            Method::Keyword(k) => Some(k),
            _ => None,
        };
        if let (true, Some(k)) = (args.explain, keyword) {
            rag_fiches::outln!("{FORMULA}");
            rag_fiches::outln!(
                "k1 = 1.5 ; b = 0.75 ; analyse : {}",
                k.analyzer().describe()
            );
        }
        let hits = lab
            .search(args.method, question, vector, 5)
            .map_err(|e| e.to_string())?;
        for (i, r) in hits.iter().enumerate() {
            let fiche = &lab.fiches()[r.doc];
            // Fusion points have no fixed scale: five decimals tell ranks apart.
            let score = match args.method.score_decimals() {
                Some(d) => show_score(r.score, Some(d)),
                None => format!("{:.5}", r.score),
            };
            rag_fiches::outln!("{:>2}. {}  {score:>8}  {}", i + 1, fiche.id, fiche.nom);
            if !args.explain {
                continue;
            }
            match args.method {
                Method::Keyword(k) => print_explanation(&lab.explain(k, question, r.doc), fiche),
                Method::Sens | Method::SensLocal => {
                    rag_fiches::outln!("    cosinus des deux vecteurs : {:.4}", r.score)
                }
                Method::Hybride(_) | Method::HybrideLocal => {
                    let e = lab
                        .explain_fusion(args.method, question, vector, r.doc)
                        .map_err(|e| e.to_string())?;
                    let k = args
                        .method
                        .fused_keyword()
                        .unwrap_or(rag_fiches::lab::Keyword::MotsPlus);
                    let dense = if args.method == Method::HybrideLocal {
                        "sens local"
                    } else {
                        "sens"
                    };
                    let part = |rank: Option<usize>| {
                        rank.map_or("absente des 50 premières : 0".to_owned(), |r| {
                            format!("rang {r} : 1/(60 + {r}) = {:.5}", 1.0 / (60.0 + r as f64))
                        })
                    };
                    rag_fiches::outln!("    {} : {}", k_name(k), part(e.keyword_rank));
                    rag_fiches::outln!("    {dense} : {}", part(e.dense_rank));
                    rag_fiches::outln!("    total = {:.5}", e.points);
                }
            }
        }
        return Ok(());
    }
    let questions =
        parse_questions(&read(&args.questions)?).map_err(|e| format!("{}: {e}", args.questions))?;
    check_expected(lab.fiches(), &questions).map_err(|e| format!("{}: {e}", args.questions))?;
    if args.derive_qrels {
        rag_fiches::out!(
            "{}",
            Qrels::derived(&questions, lab.fiches(), lab.products()).to_trec()
        );
        return Ok(());
    }
    // Every measure counts where the expected fiche ranks: absentes alone measure nothing.
    if !questions.iter().any(|q| q.expected.is_some()) {
        return Err(Fail::Run(format!(
            "{}: no question names its expected fiche (absentes only): nothing to measure; add exacte or courante questions (type;question;fiche_attendue), or search one question with --question",
            args.questions
        )));
    }
    // Read before anything is measured: a bad line refuses the run, nothing printed.
    let qrels = match &args.qrels {
        Some(p) => Some((p, read_qrels(p, &questions, lab.fiches())?)),
        None => None,
    };
    let agreement = match &args.agreement {
        Some(p) => Some((p, read_qrels(p, &questions, lab.fiches())?)),
        None => None,
    };
    if !args.keep.is_empty() || !args.drop.is_empty() {
        rag_fiches::out!("{}", ablation(&lab, &questions, &args.keep, &args.drop));
        return Ok(());
    }
    let texts: Vec<&str> = questions.iter().map(|q| q.text.as_str()).collect();
    if args.tuned() {
        return tuned(&args, &mut lab, &questions, &texts);
    }
    // --all: every keyword method, and the dense ones whose vectors fit this catalogue.
    let found = available(&args, &lab, &texts)?;
    let usable = |m: &Method| match m.encoder() {
        None => true,
        Some(Encoder::Mistral) => found.mistral,
        Some(Encoder::Local) => found.local,
    };
    let mut methods: Vec<Method> = if args.all {
        Method::ALL.into_iter().filter(usable).collect()
    } else {
        vec![args.method]
    };
    if let Some(m) = args.compare {
        if !methods.contains(&m) {
            methods.push(m);
        }
    }
    // What --all could not measure, said in the report itself.
    let skipped = if args.all {
        found.skipped
    } else {
        String::new()
    };
    let qv = question_vectors(
        &args,
        methods
            .iter()
            .any(|m| m.encoder() == Some(Encoder::Mistral)),
        &mut lab,
        &texts,
    )?;
    let lqv = if methods.iter().any(|m| m.encoder() == Some(Encoder::Local)) {
        local_question_vectors(&args, &mut lab, &texts)?
    } else {
        QuestionVectors::new()
    };
    let mut measurements = methods
        .iter()
        .map(|&m| {
            let vectors = if m.encoder() == Some(Encoder::Local) {
                &lqv
            } else {
                &qv
            };
            lab.measure(m, &questions, vectors)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let ids: std::collections::HashSet<&str> = lab.fiches().iter().map(|f| f.id.as_str()).collect();
    let run = |text: &str| {
        import::measure(text, &questions, &ids, rag_fiches::data::nfc)
            .map(|m| m.with_products(lab.products()))
    };
    for path in &args.runs {
        let mut m = run(&read(path)?).map_err(|e| format!("{path}: {e}: nothing measured"))?;
        // A run re-imported from our own export is named like the method: « mots (run) ».
        if measurements.iter().any(|x| x.method == m.method) {
            m.method += " (run)";
        }
        if measurements.iter().any(|x| x.method == m.method) {
            return Err(format!("{path}: a run named {:?} is already measured", m.method).into());
        }
        measurements.push(m);
    }
    let compared = args.all || !args.runs.is_empty();
    if let Some(dir) = &args.trec {
        write_trec(dir, &measurements, args.force)?;
    }
    if args.json {
        let text = if compared {
            export::json(&measurements)
        } else {
            serde_json::to_string_pretty(&measurements[0]).map_err(|e| e.to_string())?
        };
        rag_fiches::outln!("{text}");
    } else if compared {
        rag_fiches::out!("{}{skipped}", report::comparison(&measurements));
        if let Some(m) = args.compare {
            let ours = measurements
                .iter()
                .find(|x| x.method == m.name())
                .ok_or_else(|| format!("{} was not measured", m.name()))?;
            for theirs in &measurements[measurements.len() - args.runs.len()..] {
                rag_fiches::out!("\n{}", parity::compare(ours, theirs).report());
            }
        }
    } else {
        rag_fiches::out!("{}", measurements[0].seed_report());
    }
    if let Some((path, qrels)) = &qrels {
        rag_fiches::out!("\n{}", graded::table(&measurements, qrels, path));
        if let Some((second, theirs)) = &agreement {
            let agree = rag_fiches::measure::judging::Agreement::between(qrels, theirs);
            rag_fiches::out!("\n{}", agree.report(path, second));
        }
    }
    Ok(())
}

/// One method measured under « Améliorer »'s settings: the seed's report (or JSON), and with
/// `--ratees` the missed questions read word by word.
fn tuned(
    args: &Args,
    lab: &mut Lab,
    questions: &[rag_fiches::data::Question],
    texts: &[&str],
) -> Result<(), Fail> {
    use rag_fiches::improve::{dense_tops, missed::missed, DenseTops, Settings, Tuned};
    let mut settings = match &args.settings {
        Some(path) => {
            let s = Settings::from_json(&read(path)?).map_err(|e| format!("{path}: {e}"))?;
            if args.method_named && s.method != args.method.name() {
                return Err(Fail::Usage(format!(
                    "{path} sets the method {}, the command names {}: name one",
                    s.method,
                    args.method.name()
                )));
            }
            s
        }
        None => Settings::of(args.method),
    };
    if let Some(k1) = args.k1 {
        settings.k1 = k1;
    }
    if let Some(b) = args.b {
        settings.b = b;
    }
    if let Some(k) = args.rrf_k {
        settings.fusion = rag_fiches::search::fusion::Fusion::Rrf { k };
    }
    if let Some(path) = &args.enrich {
        settings
            .enrich
            .extend(Settings::enrichments(&read(path)?).map_err(|e| format!("{path}: {e}"))?);
    }
    settings.check().map_err(|e| e.to_string())?;
    if let Some(out) = &args.export_fiches {
        let text = rag_fiches::improve::enriched_jsonl(lab, &settings.enrich)
            .map_err(|e| e.to_string())?;
        std::fs::write(out, text).map_err(|e| format!("cannot write {out}: {e}"))?;
        eprintln!(
            "{out}: {} fiches, {} enrichments",
            lab.fiches().len(),
            settings.enrich.len()
        );
    }
    let method = settings.base().map_err(|e| e.to_string())?;
    let dense = match method.encoder() {
        None => DenseTops::new(),
        Some(Encoder::Local) => {
            let qv = local_question_vectors(args, lab, texts)?;
            dense_tops(lab, Encoder::Local, questions, &qv).map_err(|e| e.to_string())?
        }
        Some(Encoder::Mistral) => {
            let qv = question_vectors(args, true, lab, texts)?;
            dense_tops(lab, Encoder::Mistral, questions, &qv).map_err(|e| e.to_string())?
        }
    };
    if let Some(grid) = args.sweep {
        return balayer::run(lab, questions, &dense, &settings, grid, args.json);
    }
    let borrowed = rag_fiches::improve::borrowed::borrowed(lab, &settings, questions);
    let t = Tuned::new(lab, settings, None).map_err(|e| e.to_string())?;
    let m = t
        .measure(lab, questions, &dense)
        .map_err(|e| e.to_string())?;
    if args.json {
        rag_fiches::outln!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        );
    } else {
        rag_fiches::out!("{}", m.seed_report());
    }
    if !borrowed.is_empty() {
        eprintln!("{}", rag_fiches::improve::borrowed::warning(&borrowed, "Pour le vérifier, mesurez-le sur des questions gardées à part, écrites sans regarder celles-ci\u{a0}: --questions AUTRES.csv (sur l'exercice, data/epreuve.csv)."));
    }
    if args.missed {
        let index = match t.index() {
            Some(i) => i.clone(),
            None => lab.bm25(rag_fiches::lab::Keyword::MotsPlus).clone(),
        };
        rag_fiches::outln!(
            "\nLes ratées (mots lus avec l'analyse de {}) :",
            index.analyzer().describe()
        );
        for r in missed(lab, &index, &m) {
            let rank = r
                .rank
                .map_or("hors des 10 premières".to_owned(), |r| format!("rang {r}"));
            rag_fiches::outln!("- {} ({}, {rank})", r.question, r.expected);
            rag_fiches::outln!("    absents de la fiche : {}", r.absent.join(", "));
            if let Some(first) = &r.first {
                let lifted: Vec<String> = r
                    .lifted
                    .iter()
                    .map(|(w, c)| format!("{w} ({c:.2})"))
                    .collect();
                rag_fiches::outln!("    en tête {first} par : {}", lifted.join(", "));
            }
        }
    }
    Ok(())
}

/// Writes `qrels.txt` and one `run-METHOD.txt` per method into `dir`.
/// Existing files are kept unless `force`: nothing is written if any would be overwritten.
fn write_trec(dir: &str, measurements: &[Measurement], force: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    let mut files = vec![("qrels.txt".to_owned(), export::qrels(&measurements[0]))];
    for m in measurements {
        files.push((
            format!("run-{}.txt", export::run_name(&m.method)),
            export::trec_run(m),
        ));
    }
    let path = |name: &str| std::path::Path::new(dir).join(name);
    let existing: Vec<&str> = files
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| path(n).exists())
        .collect();
    if !force && !existing.is_empty() {
        return Err(format!(
            "{dir} already holds {}: nothing written (add --force to overwrite)",
            existing.join(", ")
        ));
    }
    for (name, text) in files {
        let p = path(&name);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    eprintln!(
        "TREC files written to {dir}: qrels.txt and {} runs",
        measurements.len()
    );
    Ok(())
}

/// `mesurer mots+ --sans-mot-vide WORDS --mot-vide WORDS`: mots+ as it is against mots+ with its
/// stop words changed, on every question; then each question whose pessimistic rank moves.
fn ablation(
    lab: &Lab,
    questions: &[rag_fiches::data::Question],
    keep: &[String],
    drop: &[String],
) -> String {
    use rag_fiches::measure::DEPTH;
    use rag_fiches::search::analysis::{Analyzer, StopChange};
    use rag_fiches::search::bm25::{Bm25Index, Bm25Params};
    // A terminal run builds one index: leaking two short lists is its whole cost.
    let change = StopChange {
        keep: Box::leak(keep.to_vec().into_boxed_slice()),
        drop: Box::leak(drop.to_vec().into_boxed_slice()),
    };
    let index = Bm25Index::build(
        lab.fiches(),
        Analyzer::FrenchWith(change),
        Bm25Params::default(),
    );
    let quoted = |ws: &[String]| {
        ws.iter()
            .map(|w| format!("« {w} »"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut label = Vec::new();
    if !keep.is_empty() {
        label.push(format!("{} plus mot vide", quoted(keep)));
    }
    if !drop.is_empty() {
        label.push(format!("{} mot vide", quoted(drop)));
    }
    let base = lab.measure_keyword(rag_fiches::lab::Keyword::MotsPlus, questions);
    let changed = Measurement::run("mots+ mod.", Some(2), questions, |q| {
        index
            .search(q, DEPTH + 1)
            .into_iter()
            .map(|h| (lab.fiches()[h.doc].id.clone(), h.score))
            .collect()
    });
    let mut out = format!("Ablation de mots+ : {}\n\n", label.join(" ; "));
    out += &rag_fiches::measure::text_tables(&[base.clone(), changed.clone()]);
    out += "\nQuestions dont le rang change (pessimiste ; — : hors des 10 premières) :\n";
    let show = |r: Option<usize>| r.map_or("—".to_owned(), |r| r.to_string());
    let (mut better, mut worse) = (0, 0);
    for (a, b) in base.questions.iter().zip(&changed.questions) {
        if a.kind == QuestionKind::Absente {
            let (sa, sb) = (
                a.top.first().map_or(0.0, |t| t.1),
                b.top.first().map_or(0.0, |t| t.1),
            );
            if (sa - sb).abs() > 1e-9 {
                out += &format!(
                    "  absente, meilleur score {sa:.3} → {sb:.3}  {}\n",
                    a.question
                );
            }
            continue;
        }
        let (ra, rb) = (a.worst_rank(), b.worst_rank());
        if ra == rb {
            continue;
        }
        let gain = rb.unwrap_or(DEPTH + 1) < ra.unwrap_or(DEPTH + 1);
        if gain {
            better += 1;
        } else {
            worse += 1;
        }
        out += &format!(
            "  {:>2} → {:<2} {}  {}  ({})\n",
            show(ra),
            show(rb),
            if gain { "mieux" } else { "moins" },
            a.question,
            a.kind.as_str()
        );
    }
    out += &format!(
        "\nBilan sur les {} questions avec réponse : {better} mieux, {worse} moins bien ; test du signe p = {:.3}\n",
        base.questions.iter().filter(|q| q.kind != QuestionKind::Absente).count(),
        compare::sign_test(better, worse)
    );
    out
}

fn k_name(k: rag_fiches::lab::Keyword) -> &'static str {
    Method::Keyword(k).name()
}

fn main() -> ExitCode {
    rag_fiches::cli::finish("mesurer", USAGE, run())
}
