//! The third red team's breaks (`../shared/reports/red-team-2026-12-05/`), one test each, named
//! `rt3_b<N>_…` after the break it pins. The page's model is driven as `tests/page.rs` drives it;
//! the terminal's breaks run the built binaries.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rag_fiches::answer::Source;
use rag_fiches::data::vectors::VectorsInfo;
use rag_fiches::lab::{Lab, Method};
use rag_fiches::link::{View, ViewState};
use rag_fiches::mistral::chat::{self, Chat};
use rag_fiches::page::*;
use rag_fiches::page::{AnswerMsg, CatalogueMsg, NavMsg, SearchMsg};

mod common;
use common::*;

/// Mistral fiche vectors kept by the worker as `set`, with every question's vector beside them
/// (a teacher's deploy that computed them once).
fn with_shipped_question_vectors(s: &mut State, set: u64) -> Vec<Effect> {
    let questions = s
        .data
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| (q.text.clone(), unit(i)))
        .collect();
    report_from(
        s,
        Subject::FindVectors,
        Report::VectorsAttached {
            set,
            info: VectorsInfo {
                model: rag_fiches::mistral::MODEL.into(),
                dim: rag_fiches::mistral::DIM,
                count: 200,
                memory_bytes: 0,
                stored_bytes: 0,
            },
            questions,
            origin: "livrés avec la page".into(),
            bytes: None,
        },
    )
}

/// A dense top as the page's worker computes it: [`Lab::dense_depth`] fiches (`worker/sets.rs`).
fn worker_top() -> Vec<(u32, f64)> {
    (0..Lab::dense_depth() as u32)
        .map(|d| (d, 1.0 - f64::from(d) / 1000.0))
        .collect()
}

/// The page's worker as it answers: each dense tops job gets tops of exactly
/// [`Lab::dense_depth`] fiches (`worker/sets.rs`), until the model asks nothing more. Returns
/// how many vectors were searched.
fn answer_dense_requests(s: &mut State, mut fx: Vec<Effect>) -> usize {
    let mut searched = 0;
    for _ in 0..100 {
        let asked: Vec<(RunId, Vec<Vec<f32>>)> = fx
            .iter()
            .filter_map(|e| match e {
                Effect::Start {
                    run,
                    work: Work::DenseTops { vectors, .. },
                } => Some((*run, vectors.clone())),
                _ => None,
            })
            .collect();
        if asked.is_empty() {
            return searched;
        }
        fx = Vec::new();
        for (run, vectors) in asked {
            searched += vectors.len();
            let tops = vectors.iter().map(|_| worker_top()).collect();
            fx.extend(send(
                s,
                Msg::Report(run, Report::DenseFound { vectors, tops }),
            ));
        }
    }
    panic!("the model keeps asking for dense tops");
}

/// The exercise's keyword measurement renamed as a local method's (what the page has when the
/// shipped local vectors were measured first, without a key).
fn local_measured(s: &mut State) {
    let mut m = s.data.measurements[0].clone();
    m.method = Method::SensLocal.name().into();
    s.data.measurements.push(m);
}

#[test]
fn rt3_b1_after_annuler_confirmer_shows_the_estimate_of_the_run_it_confirms() {
    let mut s = state();
    with_key(&mut s);
    send(&mut s, Msg::Answer(AnswerMsg::EvalAsked));
    let fx = send(&mut s, Msg::Answer(AnswerMsg::EvalConfirmed));
    assert!(fx.iter().any(|e| matches!(
        e,
        Effect::Start {
            work: Work::Evaluate { .. },
            ..
        }
    )));
    send(&mut s, Msg::Answer(AnswerMsg::EvalCancelled));
    assert!(estimate::eval_status(&s).starts_with("Mesure annulée"));
    // A dearer run chosen, then asked: « Confirmer » comes with that run's estimate.
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalSourceChosen(Source::Catalogue)),
    );
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalModelChosen("mistral-medium-latest".into())),
    );
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalJudgeChosen("mistral-large-latest".into())),
    );
    send(&mut s, Msg::Answer(AnswerMsg::EvalAsked));
    assert!(s.data.evaluation.confirming);
    let shown = estimate::eval_status(&s);
    assert_eq!(
        shown,
        estimate::eval_estimate(
            &s,
            Source::Catalogue,
            "mistral-medium-latest",
            "mistral-large-latest"
        )
    );
    assert!(
        shown.contains("mistral-medium-latest") && shown.contains("mistral-large-latest"),
        "{shown}"
    );
    assert!(shown.contains('$'), "{shown}");

    // The reranking: the same after its own « Annuler ».
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalSourceChosen(Source::Method(Method::MOTS))),
    );
    send(&mut s, Msg::Answer(AnswerMsg::RerankAsked));
    send(&mut s, Msg::Answer(AnswerMsg::RerankConfirmed));
    send(&mut s, Msg::Answer(AnswerMsg::RerankCancelled));
    assert!(estimate::rerank_status(&s).starts_with("Reclassement annulé"));
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalModelChosen("mistral-large-latest".into())),
    );
    send(&mut s, Msg::Answer(AnswerMsg::RerankAsked));
    let shown = estimate::rerank_status(&s);
    assert_eq!(
        shown,
        estimate::rerank_estimate(&s, Method::MOTS, "mistral-large-latest")
    );
    assert!(shown.contains("tokens envoyés"), "{shown}");
}

#[test]
fn rt3_b2_shipped_mistral_vectors_are_measured_when_the_local_methods_were_first() {
    let mut s = state();
    local_measured(&mut s);
    let fx = with_shipped_question_vectors(&mut s, 1);
    let measuring: Vec<Method> = s
        .data
        .ui
        .measuring
        .iter()
        .flat_map(|m| m.methods.clone())
        .collect();
    assert!(
        measuring.contains(&Method::Sens)
            && measuring.contains(&Method::Hybride(rag_fiches::lab::Keyword::Mots)),
        "{measuring:?}"
    );
    assert!(!s.data.has_mistral_measurements());
    // The worker is asked for the questions' tops, and the measurement ends once they are known.
    assert!(fx.iter().any(|e| matches!(
        e,
        Effect::Start { work: Work::DenseTops { vectors, in_box: false, .. }, .. }
            if vectors.len() == s.data.questions.len()
    )));
    settle(&mut s, fx);
    assert!(s.data.has_mistral_measurements());
    assert!(s.data.ui.measuring.is_empty());
}

#[test]
fn rt3_b2_a_local_method_alone_never_spends_the_key_on_mistral() {
    let mut s = state();
    with_key(&mut s);
    with_shipped_question_vectors(&mut s, 1);
    for m in Method::ALL {
        send(
            &mut s,
            Msg::Search(SearchMsg::MethodToggled(m, m == Method::SensLocal)),
        );
    }
    assert_eq!(s.shown, vec![Method::SensLocal]);
    let mut fx = send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Une colle pour du carrelage".into())),
    );
    fx.extend(send(&mut s, Msg::Search(SearchMsg::Committed)));
    // The pause in typing, then the embedding: either is the way to a paid call.
    let embeds = |e: &Effect| {
        matches!(
            e,
            Effect::Start {
                work: Work::Pause { .. } | Work::EmbedQuestion { .. },
                ..
            }
        )
    };
    assert!(!fx.iter().any(embeds), "a paid call for a local method");
    // `sens` shown beside it: now the question is embedded.
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::MethodToggled(Method::Sens, true)),
    );
    assert!(fx.iter().any(embeds));
}

#[test]
fn rt3_b3_ameliorer_from_sens_measures_with_the_workers_dense_tops() {
    let mut s = state();
    let fx = with_shipped_question_vectors(&mut s, 1);
    // « Mesurer » asks the worker for every question's dense top: it answers at its depth.
    assert_eq!(answer_dense_requests(&mut s, fx), s.data.questions.len());
    for start in [
        Method::Sens,
        Method::Hybride(rag_fiches::lab::Keyword::Mots),
        Method::Hybride(rag_fiches::lab::Keyword::MotsPlus),
    ] {
        let fx = send(
            &mut s,
            Msg::Nav(NavMsg::FragmentChanged(ViewState::from_fragment(&format!(
                "#vue=ameliorer&rm={}",
                start.slug()
            )))),
        );
        answer_dense_requests(&mut s, fx);
        assert_eq!(s.view, View::Ameliorer);
        assert_eq!(s.data.improve.error, None, "{start:?}");
        let after = s.data.improve.after.as_ref().expect("measured");
        assert_eq!(after.questions.len(), 40);
    }
}

#[test]
fn rt3_b13_demander_au_juge_shows_its_estimate_before_the_call() {
    let mut s = state();
    with_key(&mut s);
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalJudgeChosen("mistral-large-latest".into())),
    );
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un ciment blanc ?".into())),
    );
    assert_eq!(estimate::judge_estimate(&s), None);
    let (f, _) = exercise();
    let fx = send(&mut s, Msg::Answer(AnswerMsg::Requested));
    let run = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                run,
                work: Work::Answer { .. },
            } => Some(*run),
            _ => None,
        })
        .unwrap();
    send(
        &mut s,
        Msg::Report(
            run,
            Report::AnswerShown(AnswerResult {
                question: "Un ciment blanc ?".into(),
                model: "mistral-small-latest".into(),
                sent: f[..5].to_vec(),
                outcome: Ok((
                    Chat {
                        content: "Le ciment [AR-0003].".into(),
                        prompt_tokens: 10,
                        completion_tokens: 5,
                        finish_reason: Some("stop".into()),
                        obtained: None,
                    },
                    false,
                )),
            }),
        ),
    );
    let shown = estimate::judge_estimate(&s).expect("an answer to judge");
    let fx = send(&mut s, Msg::Answer(AnswerMsg::JudgeRequested));
    let messages = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                work: Work::Chat { messages, .. },
                ..
            } => Some(messages.clone()),
            _ => None,
        })
        .unwrap();
    let tokens = chat::estimate_tokens(&messages);
    assert!(
        shown.contains(&rag_fiches::fr::int(tokens as u64)),
        "{shown} / {tokens}"
    );
    assert!(
        shown.contains("mistral-large-latest") && shown.contains('$'),
        "{shown}"
    );
}

/// The exercise with every fiche id rewritten by `f` (in the fiches and the questions' expected
/// fiche), as a learner's own files.
fn renamed(f: impl Fn(&str) -> String) -> Dataset {
    let (mut fiches, mut questions) = exercise();
    for fiche in &mut fiches {
        fiche.id = f(&fiche.id);
    }
    for q in &mut questions {
        if let Some(id) = &q.expected {
            q.expected = Some(f(id));
        }
    }
    Dataset::new(0, fiches, questions, Some("vos données".into()))
}

fn load(s: &mut State, data: Dataset) {
    let fx = send(
        s,
        Msg::Catalogue(CatalogueMsg::FilesChosen(vec![
            FileRef {
                id: 1,
                name: "f.jsonl".into(),
                size: 10,
            },
            FileRef {
                id: 2,
                name: "q.csv".into(),
                size: 10,
            },
        ])),
    );
    let seq = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                run,
                work: Work::ReadFiles { .. },
            } => Some(*run),
            _ => None,
        })
        .unwrap();
    send(s, Msg::Report(seq, Report::DatasetLoaded(Box::new(data))));
}

fn enrich(s: &mut State, id: &str, words: &str) {
    send(
        s,
        Msg::Improve(improve::Change::Enrich(rag_fiches::improve::Enrichment {
            id: id.into(),
            words: words.into(),
            product: false,
        })),
    );
}

/// What a learner opening `s`'s own link sees: the same catalogue, the link's fragment.
fn receiver(s: &State, data: Option<Dataset>) -> State {
    let fragment = s.link_state().to_fragment();
    let mut other = state();
    if let Some(d) = data {
        load(&mut other, d);
    }
    send(
        &mut other,
        Msg::Nav(NavMsg::FragmentChanged(ViewState::from_fragment(&fragment))),
    );
    other
}

#[test]
fn rt3_b5_the_pages_link_carries_separators_in_words_and_ids() {
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    enrich(
        &mut s,
        "AR-0063",
        "ininflammable | ne brûle pas : 100 %, +a\\b",
    );
    let sent = s.data.improve.after.clone().unwrap();
    let got = receiver(&s, None);
    assert_eq!(got.data.improve.settings, s.data.improve.settings);
    assert_eq!(got.data.improve.after.as_ref(), Some(&sent));
    assert!(got.data.improve.refused.is_empty());
    // Ids holding the separators, in a learner's own catalogue.
    let own = |id: &str| {
        id.replace("AR-0063", "AR:0063")
            .replace("AR-0040", "AR|0040+")
    };
    let mut s = state();
    load(&mut s, renamed(own));
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    enrich(&mut s, "AR:0063", "ne brûle pas");
    enrich(&mut s, "AR|0040+", "humide");
    assert_eq!(s.data.improve.error, None);
    assert_eq!(s.data.improve.settings.as_ref().unwrap().enrich.len(), 2);
    let got = receiver(&s, Some(renamed(own)));
    assert_eq!(got.data.improve.error, None);
    assert_eq!(got.data.improve.settings, s.data.improve.settings);
    assert_eq!(got.data.improve.after, s.data.improve.after);
}

#[test]
fn rt3_b6_lowercase_ids_are_enriched_as_typed() {
    let mut s = state();
    load(&mut s, renamed(|id| id.to_lowercase()));
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    enrich(&mut s, " ar-0063 ", "ne brûle pas");
    assert_eq!(s.data.improve.error, None);
    assert_eq!(
        s.data.improve.settings.as_ref().unwrap().enrich[0].id,
        "ar-0063"
    );
    // Another case is not the same id: said, with the id the catalogue has.
    enrich(&mut s, "AR-0040", "humide");
    let said = s.data.improve.error.clone().unwrap();
    assert!(
        said.contains("AR-0040") && said.contains("ar-0040"),
        "{said}"
    );
}

#[test]
fn rt3_b7_a_link_with_a_refused_value_keeps_the_rest_and_says_which() {
    for (fragment, refused, kept) in [
        (
            "#vue=ameliorer&rm=mots&rk1=NaN&rb=0",
            "rk1=NaN",
            "mots (b = 0)",
        ),
        (
            "#vue=ameliorer&rm=mots&rk1=1e308&rb=0",
            "rk1=1e308",
            "mots (b = 0)",
        ),
        (
            "#vue=ameliorer&rm=mots&rb=-1&ren=AR-0063:ne%20br%C3%BBle%20pas",
            "rb=-1",
            "mots (AR-0063 + « ne brûle pas »)",
        ),
        (
            "#vue=ameliorer&rm=hybride-local&rpr=0&rfu=rrf1001",
            "rpr=0",
            "hybride local",
        ),
    ] {
        let mut s = state();
        send(
            &mut s,
            Msg::Nav(NavMsg::FragmentChanged(ViewState::from_fragment(fragment))),
        );
        let said = s.data.improve.refused.join(" / ");
        assert!(said.contains(refused), "{fragment}: {said}");
        assert_eq!(
            s.data
                .improve
                .settings
                .as_ref()
                .unwrap()
                .name()
                .replace('\u{202f}', " "),
            kept,
            "{fragment}"
        );
        // The page's link keeps what was valid.
        let back = ViewState::from_fragment(&s.link_state().to_fragment());
        assert_eq!(back.settings, s.data.improve.settings, "{fragment}");
        assert!(back.refused.is_empty());
    }
    // A French decimal comma is read as the decimal point it means.
    let link = ViewState::from_fragment("#vue=ameliorer&rm=mots&rb=0,5&rk1=1,2");
    let settings = link.settings.unwrap();
    assert_eq!((settings.k1, settings.b), (1.2, 0.5));
    assert!(link.refused.is_empty());
}

// The terminal.

fn mesurer(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mesurer"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("mesurer runs")
}

/// A file of `text` in a directory of this test's own.
fn file(name: &str, text: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("rag-fiches-rt3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn rt3_b10_mesurer_refuses_what_it_cannot_honour() {
    let settings = rag_fiches::improve::Settings {
        k1: 0.9,
        ..rag_fiches::improve::Settings::of(Method::MOTS)
    };
    let json = file("b10-reglages.json", settings.to_json().as_bytes());
    for args in [
        vec!["mots+", "--mot-vide", "sans", "--k1", "0.1"],
        vec![
            "mots+",
            "--sans-mot-vide",
            "pour",
            "--reglages",
            json.as_str(),
        ],
        vec!["mots+", "--reglages", json.as_str()],
    ] {
        let out = mesurer(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // The file's method, unnamed on the command line, is measured and said.
    let out = mesurer(&["--reglages", json.as_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Méthode : mots (k1 = 0,9)"));
    // A misspelled key is refused, not skipped with its setting.
    let text = settings.to_json().replace("\"enrich\"", "\"enrichments\"");
    let misspelled = file("b10-faute.json", text.as_bytes());
    let out = mesurer(&["--reglages", misspelled.as_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("enrichments"), "{}", stderr(&out));
}

#[test]
fn rt3_b11_a_bom_is_read_as_notepad_writes_it() {
    let plain = mesurer(&[
        "mots",
        "--enrichir",
        &file("b11-sans.txt", "AR-0063;ne brûle pas\n".as_bytes()),
    ]);
    assert!(plain.status.success());
    let bom = mesurer(&[
        "mots",
        "--enrichir",
        &file("b11-bom.txt", "\u{feff}AR-0063;ne brûle pas\r\n".as_bytes()),
    ]);
    assert!(bom.status.success(), "{}", stderr(&bom));
    assert_eq!(bom.stdout, plain.stdout);
    let settings = rag_fiches::improve::Settings {
        b: 0.0,
        ..rag_fiches::improve::Settings::of(Method::MOTS)
    };
    let with_bom = format!("\u{feff}{}", settings.to_json());
    let out = mesurer(&["--reglages", &file("b11-bom.json", with_bom.as_bytes())]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn rt3_b15_a_huge_k1_is_said_in_a_few_characters() {
    let settings = rag_fiches::improve::Settings {
        k1: 1e308,
        ..rag_fiches::improve::Settings::of(Method::MOTS)
    };
    let out = mesurer(&[
        "--reglages",
        &file("b15.json", settings.to_json().as_bytes()),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("1e308") && said.len() < 200, "{said}");
}

#[test]
fn rt3_b14_lucenes_topics_keep_one_question_per_line_and_one_tab() {
    // Anserini's TsvString reader: one topic per line, the id then a tab then the query.
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import commun, json, sys\n\
             q = json.loads(sys.argv[1])\n\
             sys.stdout.write(commun.topic_line('q07', q))",
            "\"Une colle\\tpour du carrelage\\nd'une douche\\r\\n ?\"",
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/engines"))
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let line = String::from_utf8(out.stdout).unwrap();
    assert_eq!(line.matches('\n').count(), 1, "{line:?}");
    assert!(line.ends_with('\n'));
    let fields: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
    assert_eq!(
        fields,
        ["q07", "Une colle pour du carrelage d'une douche   ?"],
        "{line:?}"
    );
    // Every topics file of the Lucene recipe is written through it.
    let recipe = include_str!("../engines/lucene.py");
    let tsv_writes: Vec<&str> = recipe
        .lines()
        .filter(|l| l.contains(".tsv\"), ["))
        .collect();
    assert_eq!(tsv_writes.len(), 2, "{tsv_writes:?}");
    assert!(tsv_writes.iter().all(|l| l.contains("commun.topic_line(")));
}

/// The page's check of a shipped answers file, as the shell runs it when the file arrives.
fn shipped_outcome(s: &mut State, file: &rag_fiches::answer::shipped::ShippedAnswers) -> Msg {
    let bytes = serde_json::to_vec(file).unwrap();
    let lab = &s.data.lab;
    let ids: Vec<String> = lab.fiches().iter().map(|f| f.id.clone()).collect();
    let outcome = update::read_shipped(&bytes, lab.fingerprint(), &ids, &s.data.questions);
    Msg::Report(
        run_for(s, Subject::ShippedAnswers),
        Report::AnswersShipped(outcome),
    )
}

#[test]
fn rt3_b12_a_shipped_answers_file_is_checked_in_full() {
    use rag_fiches::answer::shipped::Tokens;
    let good = shipped_file(&state());
    let mut s = state();
    let msg = shipped_outcome(&mut s, &good);
    send(&mut s, msg);
    assert!(matches!(s.data.shipped, Some(Ok(_))));
    type Forge = fn(&mut rag_fiches::answer::shipped::ShippedAnswers);
    let forged: [(&str, Forge); 7] = [
        ("2^63 tokens", |f| {
            for a in &mut f.methods[0].answers {
                a.tokens = Tokens {
                    prompt: 1 << 63,
                    completion: 0,
                };
            }
        }),
        ("u64::MAX tokens", |f| {
            f.methods[0].answers[0].judge_tokens.completion = u64::MAX
        }),
        ("a stage twice", |f| {
            let again = f.reranked[0].clone();
            f.reranked.push(again);
        }),
        ("a method twice", |f| {
            let again = f.methods[0].clone();
            f.methods.push(again);
        }),
        (
            "a read list in another order (stale, or forged to favour a fiche)",
            |f| {
                f.reranked[0].lists[20].read.swap(0, 3);
            },
        ),
        ("5,000 ids read", |f| {
            let ids: Vec<String> = (0..5000)
                .map(|i| format!("AR-{:04}", 1 + i % 200))
                .collect();
            f.reranked[0].lists[0].read = ids;
        }),
        ("an unknown id in the catalogue's answers", |f| {
            let mut a = f.methods[0].answers[0].clone();
            a.sent = vec!["ZZ-0000".into()];
            f.catalogue = vec![a; 40];
        }),
    ];
    for (what, forge) in forged {
        let mut file = good.clone();
        forge(&mut file);
        let mut s = state();
        let msg = shipped_outcome(&mut s, &file);
        send(&mut s, msg);
        match &s.data.shipped {
            Some(Err(said)) => assert!(
                said.starts_with("Les réponses calculées d'avance ne sont pas montrées"),
                "{what}: {said}"
            ),
            _ => panic!("{what}: accepted"),
        }
        assert!(s.data.reranked.is_empty(), "{what}");
    }
    // Sums of many calls never wrap.
    let big = Tokens {
        prompt: u64::MAX - 1,
        completion: 1,
    };
    assert_eq!((big + big).prompt, u64::MAX);
}

#[test]
fn rt3_b9_annuler_is_bounded_and_keeps_no_copy_of_what_a_change_left_alone() {
    use rag_fiches::page::improve::{Change, HISTORY_MAX};
    let mut s = state();
    let words: String = (0..20_000).map(|i| format!("mot{i} ")).collect();
    let fragment = format!(
        "#vue=ameliorer&rm=mots&rmv=%2B{}",
        words.trim().replace(' ', "%20")
    );
    send(
        &mut s,
        Msg::Nav(NavMsg::FragmentChanged(ViewState::from_fragment(&fragment))),
    );
    let stops = s
        .data
        .improve
        .settings
        .as_ref()
        .unwrap()
        .analysis
        .stop_words
        .len();
    assert!(stops > 20_000, "{stops}");
    // 200 changes, k1 and b in turn (each move of one slider continuing its gesture is one
    // change): the stack holds the last 50, and none of them a copy of the stop words.
    for i in 0..200 {
        let change = if i % 2 == 0 {
            Change::K1(0.5 + f64::from(i % 20) / 10.0 + 0.05)
        } else {
            Change::B(f64::from(i % 10) / 10.0 + 0.05)
        };
        send(&mut s, Msg::Improve(change));
    }
    assert_eq!(s.data.improve.undo.len(), HISTORY_MAX);
    assert_eq!(s.data.improve.undo.held_bytes(), 0);
    // A stop word removed, then a k1 move: « Annuler » twice brings back the whole list.
    let before = s.data.improve.settings.clone().unwrap();
    send(
        &mut s,
        Msg::Improve(Change::StopWords(before.analysis.stop_words[1..].join(" "))),
    );
    send(&mut s, Msg::Improve(Change::K1(0.25)));
    send(&mut s, Msg::Improve(Change::Undo));
    send(&mut s, Msg::Improve(Change::Undo));
    assert_eq!(s.data.improve.settings.as_ref(), Some(&before));
}

/// One message to the model and every step it asks for, as the page runs them: the steps taken,
/// and whether the progress was said while the work was under way.
fn stepped(s: &mut State, msg: Msg) -> (usize, bool) {
    let mut fx = send(s, msg);
    let mut steps = 1;
    let mut said = true;
    while fx.iter().any(|e| matches!(e, Effect::Step)) {
        let shown = improve::progress(&s.data.improve, &s.data.lab, s.data.questions.len());
        said &= shown.is_some_and(|p| p.ends_with('…'));
        fx = send(s, Msg::Step);
        steps += 1;
    }
    assert!(s.data.improve.job.is_none());
    (steps, said)
}

#[test]
fn rt3_b8_ameliorer_works_in_bounded_steps_on_a_large_catalogue() {
    use rag_fiches::improve::batch::{INDEX_BYTE_WORK, WORK_PER_STEP};
    use rag_fiches::improve::sweep::{sweep, Grid};
    use rag_fiches::improve::{DenseTops, Tuned};
    use rag_fiches::page::improve::Change;
    let n = 20_000;
    let (fiches, questions) = rag_fiches::data::synth::catalogue(&exercise().0, n, 40, 1);
    let mut s = State::new(
        Dataset::new(0, fiches.clone(), questions.clone(), Some("grand".into())),
        (fiches.clone(), questions.clone()),
        rag_fiches::data::nfc,
    );
    let search = questions.len() * n;
    let one_go = |s: &State| {
        let settings = s.data.improve.settings.clone().unwrap();
        Tuned::new(&s.data.lab, settings, None)
            .unwrap()
            .measure(&s.data.lab, &s.data.questions, &DenseTops::new())
            .unwrap()
    };
    // Each change takes at least as many steps as its work needs at WORK_PER_STEP a step, and
    // at most one more per setting measured: no step does much more than its share.
    let bounded = |steps: usize, work: usize, settings: usize| {
        let least = work.div_ceil(WORK_PER_STEP);
        assert!(
            steps >= least && steps <= least + settings + 1,
            "{steps} steps for {work} units of work"
        );
    };
    // Opening: mots measured (it is also the starting method: once).
    let (steps, said) = stepped(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    assert!(said);
    bounded(steps, 2 * search, 2);
    // A k1 move: one measurement.
    let (steps, said) = stepped(&mut s, Msg::Improve(Change::K1(0.9)));
    assert!(said);
    bounded(steps, search, 1);
    assert_eq!(s.data.improve.after.as_ref(), Some(&one_go(&s)));
    // A stop word: the index rebuilt in steps, then the measurement.
    let mut words = s.data.improve.settings.clone().unwrap().analysis.stop_words;
    words.push("beton".into());
    let (steps, said) = stepped(&mut s, Msg::Improve(Change::StopWords(words.join(" "))));
    assert!(said);
    let bytes: usize = fiches.iter().map(|f| f.texte.len()).sum();
    bounded(steps, bytes * INDEX_BYTE_WORK + search, 1);
    assert_eq!(s.data.improve.after.as_ref(), Some(&one_go(&s)));
    // The k1 × b sweep: the start and 35 settings.
    let (steps, said) = stepped(&mut s, Msg::Improve(Change::Sweep(Grid::K1B)));
    assert!(said);
    bounded(steps, 36 * search, 36);
    let settings = s.data.improve.settings.clone().unwrap();
    let expected = sweep(
        &s.data.lab,
        &s.data.questions,
        &DenseTops::new(),
        &settings,
        Grid::K1B,
    )
    .unwrap();
    assert_eq!(s.data.improve.sweep.as_ref(), Some(&expected));
    // A change while a sweep is under way drops it and measures the change (the step the
    // sweep asked for comes back after the change).
    let fx = send(&mut s, Msg::Improve(Change::Sweep(Grid::K1B)));
    assert!(fx.iter().any(|e| matches!(e, Effect::Step)));
    assert!(send(&mut s, Msg::Improve(Change::B(0.5))).is_empty());
    stepped(&mut s, Msg::Step);
    assert!(s.data.improve.sweep.is_none());
    assert_eq!(s.data.improve.settings.as_ref().unwrap().b, 0.5);
    assert_eq!(s.data.improve.after.as_ref(), Some(&one_go(&s)));
}

/// A loopback API address that answers every request with a 302 to another host: the terminal
/// follows no redirect, and says which address redirected where (the red team saw the other
/// host's answer reported as the loopback's).
#[test]
fn rt3_b15_a_redirect_is_said_and_not_followed() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = std::thread::spawn(move || {
        let mut seen = 0;
        // The embeddings call and the models call, each answered with a redirect.
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf).unwrap();
            seen += 1;
            stream
                .write_all(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.2:9/v1/embeddings\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .unwrap();
        }
        seen
    });
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vecteurs"))
        .arg("--verifier")
        .env("MISTRAL_API_KEY", "cle-de-test-0123456789")
        .env("MISTRAL_API_BASE", format!("http://127.0.0.1:{port}"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(served.join().unwrap(), 2, "{said}");
    assert!(
        said.contains("HTTP 302 redirect to http://127.0.0.2:9/v1/embeddings, not followed"),
        "{said}"
    );
    assert!(!said.contains("key accepted"), "{said}");
}
