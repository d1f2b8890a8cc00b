//! What `reponses` does: reads the inputs, computes or reuses each answer, writes the file and
//! reports it.

use std::collections::{HashMap, HashSet};
use std::time::{SystemTime, UNIX_EPOCH};

use rag_fiches::answer::shipped::{
    self, Answered, MethodAnswers, Models, Prompts, Reranked, RerankedList, ShippedAnswers, Tokens,
};
use rag_fiches::answer::{self, judge, rerank};
use rag_fiches::cli::{self, Fail, MistralClient};
use rag_fiches::data::vectors::VectorSet;
use rag_fiches::data::{check_expected, parse_questions, Fiche, Question};
use rag_fiches::lab::{Encoder, Lab, Method, QuestionVectors};
use rag_fiches::mistral::chat::{Chat, Message};
use rag_fiches::mistral::{cache, prices};

use super::args::Args;

/// The catalogue, the questions, and the methods with the question vectors they read.
struct Inputs {
    lab: Lab,
    questions: Vec<Question>,
    methods: Vec<Method>,
    vectors: QuestionVectors,
    local_vectors: QuestionVectors,
}

fn inputs(a: &Args) -> Result<Inputs, String> {
    let fiches = cli::read_fiches(&a.fiches)?;
    let text = cli::read_text(&a.questions)?;
    let questions = parse_questions(&text).map_err(|e| format!("{}: {e}", a.questions))?;
    check_expected(&fiches, &questions).map_err(|e| format!("{}: {e}", a.questions))?;
    let mut lab = Lab::new(fiches);
    let texts: Vec<&str> = questions.iter().map(|q| q.text.as_str()).collect();
    // Dense methods: named ones must load; by default, those whose files are here.
    let named = a.methods.clone();
    let wants = |e: Encoder| {
        named
            .as_ref()
            .is_none_or(|ms| ms.iter().any(|m| m.encoder() == Some(e)))
    };
    let mut vectors = QuestionVectors::new();
    let mut have_mistral = false;
    if wants(Encoder::Mistral) {
        match cli::read_bytes(&a.vectors) {
            Ok(bytes) => {
                let set = VectorSet::from_safetensors(&bytes)
                    .map_err(|e| format!("{}: {e}", a.vectors))?;
                set.check_model(rag_fiches::mistral::MODEL, rag_fiches::mistral::DIM)
                    .map_err(|e| format!("{}: {e}", a.vectors))?;
                let shipped: HashMap<&str, &Vec<f32>> =
                    set.questions.iter().map(|(t, v)| (t.as_str(), v)).collect();
                let missing: Vec<&str> = texts
                    .iter()
                    .copied()
                    .filter(|t| !shipped.contains_key(t))
                    .collect();
                vectors = texts
                    .iter()
                    .filter_map(|t| shipped.get(t).map(|v| (t.to_string(), (*v).clone())))
                    .collect();
                lab.set_vectors(set)
                    .map_err(|e| format!("{}: {e}", a.vectors))?;
                if !missing.is_empty() {
                    let client = MistralClient::from_env()?;
                    let embedded = client
                        .embed_all(&missing, |_, _| {})
                        .map_err(|e| e.to_string())?;
                    eprintln!(
                        "{} questions embedded with mistral-embed: {} tokens",
                        missing.len(),
                        client.tokens.get()
                    );
                    vectors.extend(missing.iter().map(|t| t.to_string()).zip(embedded));
                }
                have_mistral = true;
            }
            Err(e) if named.is_some() => return Err(e),
            Err(_) => eprintln!("no {}: sens, hybride and hybride+ are left out", a.vectors),
        }
    }
    let mut local_vectors = QuestionVectors::new();
    let mut have_local = false;
    if wants(Encoder::Local) {
        let loaded = cli::read_bytes(&a.local_vectors).and_then(|bytes| {
            let set = VectorSet::from_safetensors(&bytes)
                .map_err(|e| format!("{}: {e}", a.local_vectors))?;
            let embedder = cli::TerminalEmbedder::local(&a.local_model)?;
            Ok((set, embedder))
        });
        match loaded {
            Ok((set, embedder)) => {
                lab.set_local_vectors(set)
                    .map_err(|e| format!("{}: {e}", a.local_vectors))?;
                let v = embedder.embed(&texts, |_, _| {})?;
                local_vectors = texts.iter().map(|t| t.to_string()).zip(v).collect();
                have_local = true;
            }
            Err(e) if named.is_some() => return Err(e),
            Err(_) => eprintln!(
                "no local model or vectors ({}, {}): sens-local and hybride-local are left out",
                a.local_model, a.local_vectors
            ),
        }
    }
    let methods = named.unwrap_or_else(|| {
        Method::ALL
            .into_iter()
            .filter(|m| match m.encoder() {
                None => true,
                Some(Encoder::Mistral) => have_mistral,
                Some(Encoder::Local) => have_local,
            })
            .collect()
    });
    Ok(Inputs {
        lab,
        questions,
        methods,
        vectors,
        local_vectors,
    })
}

/// Chat answers by [`cache::answer`] key: those of the previous file (for the same texts and
/// model), then each one obtained, so that nothing is paid twice.
struct Answers {
    client: Option<MistralClient>,
    known: HashMap<String, Chat>,
    calls: usize,
    reused: usize,
    /// `--a-jour`: a call that would be made is reported, never made.
    dry: bool,
}

/// What a dry run reports when a call would be needed.
const WOULD_CALL: &str = "a call would be made";

impl Answers {
    fn get(&mut self, model: &str, messages: &[Message]) -> Result<Chat, String> {
        let key = cache::answer(model, messages);
        if let Some(c) = self.known.get(&key) {
            self.reused += 1;
            return Ok(c.clone());
        }
        if self.dry {
            return Err(WOULD_CALL.into());
        }
        if self.client.is_none() {
            self.client = Some(MistralClient::from_env()?);
        }
        let client = self.client.as_ref().ok_or("no client")?;
        let chat = client
            .chat(model, messages)
            .map_err(|e| format!("{model}: {e}"))?;
        self.calls += 1;
        self.known.insert(key, chat.clone());
        Ok(chat)
    }

    fn remember(
        &mut self,
        model: &str,
        messages: &[Message],
        content: &str,
        tokens: Tokens,
        finish: Option<String>,
    ) {
        self.known.insert(
            cache::answer(model, messages),
            Chat {
                content: content.to_owned(),
                prompt_tokens: tokens.prompt,
                completion_tokens: tokens.completion,
                finish_reason: finish,
                obtained: None,
            },
        );
    }
}

fn fiches<'a>(lab: &'a Lab, ids: &[String]) -> Vec<&'a Fiche> {
    ids.iter()
        .filter_map(|id| lab.doc_of(id).and_then(|d| lab.fiches().get(d)))
        .collect()
}

/// The previous file's calls, where they were made with this build's prompts, as known
/// answers: an answer, its judgement and a reranking are reused when the same messages go to
/// the same model.
fn remember_previous(
    old: &ShippedAnswers,
    lab: &Lab,
    questions: &[Question],
    answers: &mut Answers,
) {
    if old.prompts != Prompts::current() {
        return;
    }
    let mut answered = |a: &Answered, q: &Question, messages: Vec<Message>| {
        answers.remember(
            &old.models.answer,
            &messages,
            &a.answer,
            a.tokens,
            a.finish_reason.clone(),
        );
        let sent = fiches(lab, &a.sent);
        let judged = judge::judge_prompt(&q.text, &sent, &a.answer);
        answers.remember(
            &old.models.judge,
            &judged,
            &a.judge,
            a.judge_tokens,
            Some("stop".into()),
        );
    };
    for m in &old.methods {
        for (a, q) in m.answers.iter().zip(questions) {
            answered(a, q, answer::prompt(&q.text, &fiches(lab, &a.sent)));
        }
    }
    for (a, q) in old.catalogue.iter().zip(questions) {
        answered(a, q, answer::catalogue_prompt(&q.text, lab.fiches()));
    }
    for r in &old.reranked {
        for (l, q) in r.lists.iter().zip(questions) {
            let messages = rerank::rerank_prompt(&q.text, &fiches(lab, &l.read));
            answers.remember(
                &old.models.rerank,
                &messages,
                &l.reply,
                l.tokens,
                Some("stop".into()),
            );
        }
    }
}

fn read_previous(a: &Args, lab: &Lab, questions: &[Question]) -> Option<ShippedAnswers> {
    let bytes = std::fs::read(&a.out).ok()?;
    let ids: HashSet<&str> = lab.fiches().iter().map(|f| f.id.as_str()).collect();
    match ShippedAnswers::parse(&bytes, lab.fingerprint(), &ids, questions) {
        Ok(f) => Some(f),
        Err(e) => {
            eprintln!("{}: {e}; computed again", a.out);
            None
        }
    }
}

/// One answer and its judgement.
fn answered(
    answers: &mut Answers,
    a: &Args,
    q: &Question,
    sent: &[&Fiche],
    messages: &[Message],
) -> Result<Answered, String> {
    let chat = answers.get(&a.model, messages)?;
    let judged = answers.get(&a.judge, &judge::judge_prompt(&q.text, sent, &chat.content))?;
    Ok(Answered {
        sent: sent.iter().map(|f| f.id.clone()).collect(),
        answer: chat.content.clone(),
        finish_reason: chat.finish_reason.clone(),
        tokens: Tokens::of(&chat),
        judge: judged.content.clone(),
        judge_tokens: Tokens::of(&judged),
    })
}

fn compute(a: &Args, inp: &Inputs, answers: &mut Answers) -> Result<ShippedAnswers, String> {
    let Inputs {
        lab,
        questions,
        methods,
        vectors,
        local_vectors,
    } = inp;
    let search = |m: Method, q: &Question, k: usize| -> Result<Vec<String>, String> {
        let v = match m.encoder() {
            Some(Encoder::Local) => local_vectors.get(&q.text),
            _ => vectors.get(&q.text),
        };
        Ok(lab
            .search(m, &q.text, v.map(Vec::as_slice), k)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|r| lab.fiches()[r.doc].id.clone())
            .collect())
    };
    let total = questions.len() * (2 * methods.len() + 2);
    let mut done = 0;
    // Progress on a terminal only: a log (a workflow's) gets the summary, not 400 lines.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut tick = |what: &str| {
        done += 1;
        if terminal {
            eprint!("\r  {done}/{total} ({what})          ");
        }
    };
    let mut by_method = Vec::new();
    let mut reranked = Vec::new();
    for &m in methods {
        let mut list = Vec::new();
        let mut lists = Vec::new();
        for q in questions {
            let read = search(m, q, rerank::READ)?;
            let sent = fiches(lab, &read[..read.len().min(answer::FICHES_SENT)]);
            list.push(answered(
                answers,
                a,
                q,
                &sent,
                &answer::prompt(&q.text, &sent),
            )?);
            tick(m.name());
            let chat = answers.get(
                &a.reranker,
                &rerank::rerank_prompt(&q.text, &fiches(lab, &read)),
            )?;
            lists.push(RerankedList {
                read,
                reply: chat.content.clone(),
                tokens: Tokens::of(&chat),
            });
            tick(m.name());
        }
        by_method.push(MethodAnswers {
            method: m.name().into(),
            answers: list,
        });
        reranked.push(Reranked {
            stage: m.name().into(),
            lists,
        });
    }
    let all: Vec<&Fiche> = lab.fiches().iter().collect();
    let mut catalogue = Vec::new();
    for q in questions {
        catalogue.push(answered(
            answers,
            a,
            q,
            &all,
            &answer::catalogue_prompt(&q.text, lab.fiches()),
        )?);
        tick("tout le catalogue");
        tick("tout le catalogue");
    }
    if terminal {
        eprintln!();
    }
    Ok(ShippedAnswers {
        format: shipped::FORMAT.into(),
        version: shipped::VERSION,
        computed: cli::iso_utc(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        ),
        api: cli::api_base(),
        fiches: lab.fingerprint().to_owned(),
        questions: shipped::questions_fingerprint(questions),
        models: Models {
            answer: a.model.clone(),
            judge: a.judge.clone(),
            rerank: a.reranker.clone(),
        },
        prompts: Prompts::current(),
        methods: by_method,
        reranked,
        catalogue,
    })
}

fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.0} %", x * 100.0))
}

fn report(f: &ShippedAnswers, questions: &[Question]) {
    use rag_fiches::outln;
    outln!(
        "answers by {}, judged by {}, reranked by {}, {} ({})",
        f.models.answer,
        f.models.judge,
        f.models.rerank,
        f.computed,
        if f.from_mistral() {
            "Mistral's API".to_owned()
        } else {
            format!("NOT Mistral: {}", f.api)
        }
    );
    outln!();
    outln!(
        "{:<22} {:>9} {:>9} {:>9} {:>9} {:>12}",
        "answers from",
        "right",
        "refusals",
        "false ref",
        "faithful",
        "tokens/q"
    );
    let line = |name: &str, answers: &[Answered]| {
        let m = shipped::measure(answers, questions);
        let e = &m.evaluation;
        outln!(
            "{:<22} {:>9} {:>9} {:>9} {:>9} {:>12}",
            name,
            format!("{}/{}", e.cite_expected, e.answerable),
            format!("{}/{}", e.correct_refusals, e.absent),
            e.false_refusals,
            percent(m.faithfulness.share),
            (m.tokens.prompt + m.tokens.completion) / questions.len().max(1) as u64
        );
    };
    for m in &f.methods {
        line(&m.method, &m.answers);
    }
    if !f.catalogue.is_empty() {
        line("tout le catalogue", &f.catalogue);
    }
    outln!();
    outln!(
        "{:<22} {:>14} {:>14} {:>9}",
        "reranked top 20",
        "first (b > a)",
        "top 5 (b > a)",
        "ceiling"
    );
    for r in &f.reranked {
        let m = shipped::measure_reranked(r, questions);
        outln!(
            "{:<22} {:>14} {:>14} {:>9}",
            r.stage,
            format!("{} > {}", m.first_before, m.first_after),
            format!("{} > {}", m.kept_before, m.kept_after),
            percent(m.ceiling)
        );
    }
    outln!();
    for (model, t) in f.tokens() {
        let cost = prices::cost_usd(&model, t.prompt, t.completion)
            .map_or("price unknown".into(), |c| format!("${c:.4}"));
        outln!(
            "{model}: {} tokens in, {} out, {cost}",
            t.prompt,
            t.completion
        );
    }
}

/// Names the file in the manifest beside it (field `reponses`), where the page looks for it.
fn name_in_manifest(out: &str) -> Result<(), String> {
    let name = std::path::Path::new(out)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("reponses.json");
    cli::update_manifest(
        out,
        "answers",
        vec![("reponses", serde_json::Value::String(name.into()))],
    )
    .map(|_| ())
}

pub fn run(a: Args) -> Result<std::process::ExitCode, Fail> {
    cli::check_api_base(&cli::api_base())?;
    let inp = inputs(&a)?;
    // Answers from another origin (a mock's) are never reused as this one's.
    let previous =
        read_previous(&a, &inp.lab, &inp.questions).filter(|old| old.api == cli::api_base());
    let mut answers = Answers {
        client: None,
        known: HashMap::new(),
        calls: 0,
        reused: 0,
        dry: a.up_to_date,
    };
    if let Some(old) = &previous {
        remember_previous(old, &inp.lab, &inp.questions, &mut answers);
    }
    if a.up_to_date {
        // Up to date when computing again would make no call: the same methods, rankings,
        // prompts and models as the file's, from the same origin.
        let same_methods = previous.as_ref().is_some_and(|old| {
            old.methods
                .iter()
                .map(|m| m.method.as_str())
                .eq(inp.methods.iter().map(|m| m.name()))
        });
        let current = same_methods
            && match compute(&a, &inp, &mut answers) {
                Ok(_) => true,
                Err(e) if e == WOULD_CALL => false,
                Err(e) => return Err(e.into()),
            };
        eprintln!(
            "{}: {}",
            a.out,
            if current {
                "up to date"
            } else {
                "to be computed"
            }
        );
        return Ok(if current {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::from(1)
        });
    }
    let file = compute(&a, &inp, &mut answers)?;
    let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
    std::fs::write(&a.out, text + "\n").map_err(|e| format!("{}: {e}", a.out))?;
    name_in_manifest(&a.out)?;
    eprintln!(
        "{}: written ({} calls made, {} reused)",
        a.out, answers.calls, answers.reused
    );
    report(&file, &inp.questions);
    Ok(std::process::ExitCode::SUCCESS)
}
