//! What the page model's tests share: the exercise's catalogue, a state over it, a key, and a
//! shipped answers file made for it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rag_fiches::data::{nfc, parse_fiches_with, parse_questions};
use rag_fiches::page::KeyMsg;
use rag_fiches::page::*;

pub const NOW: &str = "2026-12-04T08:00:00.000Z";
pub const KEY: &str = "cle-de-test-0123456789";

pub fn exercise() -> (
    Vec<rag_fiches::data::Fiche>,
    Vec<rag_fiches::data::Question>,
) {
    let fiches = parse_fiches_with(include_str!("../../data/fiches.jsonl"), nfc).unwrap();
    let questions = parse_questions(include_str!("../../data/questions.csv")).unwrap();
    (fiches, questions)
}

/// The page over the exercise, as deployed: its manifest names its Mistral vectors, its local
/// vectors and its answers.
pub fn state() -> State {
    let (f, q) = exercise();
    let mut s = State::new(Dataset::new(0, f.clone(), q.clone(), None), (f, q), nfc);
    s.shipped_files = Some(ShippedFiles {
        vectors: Some("vecteurs.safetensors".into()),
        local_vectors: Some("vecteurs-local.safetensors".into()),
        answers: Some("reponses.json".into()),
    });
    s
}

/// The run of the job on `subject` over the catalogue shown (started by a message first if
/// no message was sent yet).
pub fn run_for(s: &mut State, subject: Subject) -> RunId {
    let key = s.job_key(subject);
    if s.jobs.run_of(&key).is_none() {
        send(s, Msg::Step);
    }
    s.jobs
        .run_of(&key)
        .unwrap_or_else(|| panic!("no job for {:?}", key.subject))
}

/// `report` from the job on `subject`.
pub fn report_from(s: &mut State, subject: Subject, report: Report) -> Vec<Effect> {
    let run = run_for(s, subject);
    send(s, Msg::Report(run, report))
}

pub fn send(s: &mut State, msg: Msg) -> Vec<Effect> {
    update(s, msg, NOW)
}

pub fn with_key(s: &mut State) {
    send(s, Msg::Key(KeyMsg::Typed(KEY.into())));
}

/// A unit vector of mistral-embed's dimension.
pub fn unit(i: usize) -> Vec<f32> {
    let mut v = vec![0.0; rag_fiches::mistral::DIM];
    v[i % rag_fiches::mistral::DIM] = 1.0;
    v
}

/// A shipped answers file for the exercise: mots+'s answers, each judged OUI but the second
/// (NON), and mots+'s top 20 reranked with the expected fiche marked 10.
pub fn shipped_file(s: &State) -> rag_fiches::answer::shipped::ShippedAnswers {
    use rag_fiches::answer::shipped::*;
    let lab = &s.data.lab;
    let questions = &s.data.questions;
    let top = |q: &rag_fiches::data::Question, k| -> Vec<String> {
        lab.keyword_search(rag_fiches::lab::Keyword::MotsPlus, &q.text, k)
            .iter()
            .map(|r| lab.fiches()[r.doc].id.clone())
            .collect()
    };
    let answers = questions
        .iter()
        .enumerate()
        .map(|(i, q)| Answered {
            sent: top(q, 5),
            answer: "pas dans le catalogue".into(),
            finish_reason: Some("stop".into()),
            tokens: Tokens {
                prompt: 500,
                completion: 5,
            },
            judge: if i == 1 { "NON" } else { "OUI" }.into(),
            judge_tokens: Tokens {
                prompt: 600,
                completion: 1,
            },
        })
        .collect();
    let lists = questions
        .iter()
        .map(|q| {
            let read = top(q, 20);
            let reply = read
                .iter()
                .map(|id| {
                    format!(
                        "{id} : {}",
                        if Some(id) == q.expected.as_ref() {
                            10
                        } else {
                            1
                        }
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            RerankedList {
                read,
                reply,
                tokens: Tokens::default(),
            }
        })
        .collect();
    ShippedAnswers {
        format: FORMAT.into(),
        version: VERSION,
        computed: NOW.into(),
        api: MISTRAL_ORIGIN.into(),
        fiches: lab.fingerprint().to_owned(),
        questions: questions_fingerprint(questions),
        models: Models {
            answer: "mistral-small-latest".into(),
            judge: "mistral-small-latest".into(),
            rerank: "mistral-small-latest".into(),
        },
        prompts: Prompts::current(),
        methods: vec![MethodAnswers {
            method: "mots+".into(),
            answers,
        }],
        reranked: vec![Reranked {
            stage: "mots+".into(),
            lists,
        }],
        catalogue: Vec::new(),
    }
}

/// Plays the shell and the page's worker after `fx`: each dense tops job is answered with a
/// top of every fiche (the vector's own index first), each `Step` with its turn, until the model
/// asks for neither. Returns every effect seen.
pub fn settle(s: &mut State, fx: Vec<Effect>) -> Vec<Effect> {
    let fiches = s.data.lab.fiches().len() as u32;
    let mut seen = Vec::new();
    let mut queue: std::collections::VecDeque<Effect> = fx.into();
    let mut turns = 0;
    while let Some(effect) = queue.pop_front() {
        turns += 1;
        assert!(turns < 100_000, "the model never stops asking");
        let msg = match &effect {
            Effect::Start {
                run,
                work: Work::DenseTops { vectors, .. },
            } => Some(Msg::Report(
                *run,
                Report::DenseFound {
                    vectors: vectors.clone(),
                    tops: vectors
                        .iter()
                        .map(|v| {
                            let own = v.iter().position(|x| *x == 1.0).unwrap_or(0) as u32 % fiches;
                            std::iter::once(own)
                                .chain((0..fiches).filter(|d| *d != own))
                                .enumerate()
                                .map(|(rank, d)| (d, 1.0 - rank as f64 / 1000.0))
                                .collect()
                        })
                        .collect(),
                },
            )),
            Effect::Step => Some(Msg::Step),
            _ => None,
        };
        seen.push(effect);
        if let Some(msg) = msg {
            queue.extend(send(s, msg));
        }
    }
    seen
}
