//! The page's model (`rag_fiches::page`), checked natively: each test drives [`update`] with the
//! messages a learner's gestures and the shell's tasks would send, and reads the state and the
//! effects.
//! Scenarios that the end-to-end tests pin in a browser (`controller.test.mjs`,
//! `hostile.test.mjs`) are named after them; the red team's breaks after their number.

// Helpers stop a test at its first failed expectation, as tests do (see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rag_fiches::data::nfc;
use rag_fiches::data::vectors::VectorsInfo;
use rag_fiches::encoder::protocol::Request;
use rag_fiches::lab::Method;
use rag_fiches::link::{QuestionSet, View, ViewState};
use rag_fiches::mistral::chat::Chat;
use rag_fiches::page::{
    AnswerMsg, CatalogueMsg, JournalMsg, KeyMsg, LocalMsg, MeasureMsg, NavMsg, SearchMsg,
    VectorsMsg,
};

use rag_fiches::page::*;

mod common;
use common::*;

/// A learner's catalogue (the exercise's texts under another label), as a file read yields it.
fn learner_dataset(label: &str) -> Dataset {
    let (f, q) = exercise();
    Dataset::new(0, f, q, Some(label.to_owned()))
}

/// The learner's files chosen and read: their catalogue installed; the effects of its arrival.
fn load_learner(s: &mut State) -> Vec<Effect> {
    let seq = choose(s, &["f.jsonl", "q.csv"]);
    send(
        s,
        Msg::Report(
            seq,
            Report::DatasetLoaded(Box::new(learner_dataset("vos données"))),
        ),
    )
}

fn info() -> VectorsInfo {
    VectorsInfo {
        model: rag_fiches::mistral::MODEL.into(),
        dim: rag_fiches::mistral::DIM,
        count: 200,
        memory_bytes: 0,
        stored_bytes: 0,
    }
}

/// The Mistral fiche vectors kept by the worker as `set` for the current catalogue.
fn with_vectors(s: &mut State, set: u64) -> Vec<Effect> {
    report_from(
        s,
        Subject::FindVectors,
        Report::VectorsAttached {
            set,
            info: info(),
            questions: Vec::new(),
            origin: "test".into(),
            bytes: None,
        },
    )
}

fn show(s: &mut State, m: Method) {
    send(s, Msg::Search(SearchMsg::MethodToggled(m, true)));
}

/// The embeddings of questions the model started among `fx`: their run and question.
fn embeds(fx: &[Effect]) -> Vec<(RunId, String)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Start {
                run,
                work: Work::EmbedQuestion { question, .. },
            } => Some((*run, question.clone())),
            _ => None,
        })
        .collect()
}

/// The runs the model stopped among `fx`.
fn stops(fx: &[Effect]) -> Vec<RunId> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Stop(r) => Some(*r),
            _ => None,
        })
        .collect()
}

/// The first run started among `fx` whose work is `which`.
fn started(fx: &[Effect], which: impl Fn(&Work) -> bool) -> Option<RunId> {
    fx.iter().find_map(|e| match e {
        Effect::Start { run, work } if which(work) => Some(*run),
        _ => None,
    })
}

/// The runs started among `fx` whose work is `which`.
fn count_started(fx: &[Effect], which: impl Fn(&Work) -> bool) -> usize {
    count(
        fx,
        |e| matches!(e, Effect::Start { work, .. } if which(work)),
    )
}

/// `fx`, and what follows when the pauses in typing started there end (the learner stopped
/// typing).
fn after_pause(s: &mut State, fx: Vec<Effect>) -> Vec<Effect> {
    let pauses: Vec<RunId> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Start {
                run,
                work: Work::Pause { .. },
            } => Some(*run),
            _ => None,
        })
        .collect();
    let mut all = fx;
    for run in pauses {
        all.extend(send(s, Msg::Report(run, Report::Paused)));
    }
    all
}

/// `text` typed, and a pause in typing after it.
fn typed(s: &mut State, text: &str) -> Vec<Effect> {
    let fx = send(s, Msg::Search(SearchMsg::Typed(text.into())));
    after_pause(s, fx)
}

/// The run of the job of `subject` over the current catalogue.
fn tracked(s: &State, subject: Subject) -> RunId {
    s.jobs.run_of(&s.job_key(subject)).expect("the job runs")
}

fn forgets(fx: &[Effect]) -> Vec<u64> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Worker(Request::Forget { set }) => Some(*set),
            _ => None,
        })
        .collect()
}

fn count(fx: &[Effect], f: impl Fn(&Effect) -> bool) -> usize {
    fx.iter().filter(|e| f(e)).count()
}

fn files(names: &[&str]) -> Vec<FileRef> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| FileRef {
            id: i as u64 + 1,
            name: (*n).into(),
            size: 1000,
        })
        .collect()
}

/// Chooses the files `names` in « Vos données »: the run reading them.
fn choose(s: &mut State, names: &[&str]) -> RunId {
    read_seq(&send(
        s,
        Msg::Catalogue(CatalogueMsg::FilesChosen(files(names))),
    ))
}

/// The run reading the files a `FilesChosen` started.
fn read_seq(fx: &[Effect]) -> RunId {
    fx.iter()
        .find_map(|e| match e {
            Effect::Start {
                run,
                work: Work::ReadFiles { .. },
            } => Some(*run),
            _ => None,
        })
        .expect("the files are read")
}

/// A state with a key, Mistral vectors and `sens` shown: a typed question gets embedded.
fn ready_for_sens() -> State {
    let mut s = state();
    with_key(&mut s);
    with_vectors(&mut s, 1);
    show(&mut s, Method::Sens);
    s
}

fn link(question: &str, methods: Vec<Method>) -> ViewState {
    ViewState {
        view: View::Chercher,
        question: Some(question.into()),
        methods,
        set: QuestionSet::Exercice,
        compare: None,
        settings: None,
        refused: Vec::new(),
    }
}

/// « Mesurer les réponses » started: its run.
fn evaluation_running(s: &mut State) -> RunId {
    send(s, Msg::Answer(AnswerMsg::EvalAsked));
    let fx = send(s, Msg::Answer(AnswerMsg::EvalConfirmed));
    started(&fx, |w| matches!(w, Work::Evaluate { .. })).expect("the evaluation starts")
}

// controller.test.mjs

#[test]
fn a_link_never_spends_the_key_its_question_is_embedded_only_on_a_click() {
    let mut s = ready_for_sens();
    let fx = send(
        &mut s,
        Msg::Nav(NavMsg::FragmentChanged(link(
            "Un mastic pour la salle de bains",
            vec![Method::Sens],
        ))),
    );
    let fx = after_pause(&mut s, fx);
    assert!(embeds(&fx).is_empty(), "a link spent the key");
    // Anything else happening meanwhile does not spend it either.
    let fx = send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Mesurer)));
    assert!(embeds(&after_pause(&mut s, fx)).is_empty());
    let fx = send(&mut s, Msg::Search(SearchMsg::EmbedRequested));
    let fx = after_pause(&mut s, fx);
    assert_eq!(embeds(&fx).len(), 1);
    assert_eq!(embeds(&fx)[0].1, "Un mastic pour la salle de bains");
}

#[test]
fn typing_a_key_makes_mesurer_les_reponses_offer_to_run_at_once() {
    let mut s = state();
    send(&mut s, Msg::Answer(AnswerMsg::EvalAsked));
    assert!(!s.data.evaluation.confirming, "no key: nothing to confirm");
    with_key(&mut s);
    send(&mut s, Msg::Answer(AnswerMsg::EvalAsked));
    assert!(s.data.evaluation.confirming);
}

#[test]
fn a_double_click_on_mesurer_les_reponses_does_not_confirm_the_run() {
    let mut s = state();
    with_key(&mut s);
    let mut fx = send(&mut s, Msg::Answer(AnswerMsg::EvalAsked));
    fx.extend(send(&mut s, Msg::Answer(AnswerMsg::EvalAsked)));
    let evaluate = |w: &Work| matches!(w, Work::Evaluate { .. });
    assert_eq!(count_started(&fx, evaluate), 0);
    assert!(s.data.evaluation.confirming);
    let fx = send(&mut s, Msg::Answer(AnswerMsg::EvalConfirmed));
    assert_eq!(count_started(&fx, evaluate), 1);
    let fx = send(&mut s, Msg::Answer(AnswerMsg::EvalConfirmed));
    assert_eq!(count_started(&fx, evaluate), 0);
}

#[test]
fn a_smaller_catalogue_loaded_during_mesurer_les_reponses_stops_the_run_in_french() {
    let mut s = state();
    with_key(&mut s);
    let call = evaluation_running(&mut s);
    let fx = send(
        &mut s,
        Msg::Catalogue(CatalogueMsg::FilesChosen(files(&["f.jsonl", "q.csv"]))),
    );
    let seq = read_seq(&fx);
    let fx = send(
        &mut s,
        Msg::Report(
            seq,
            Report::DatasetLoaded(Box::new(learner_dataset("vos données"))),
        ),
    );
    assert!(stops(&fx).contains(&call));
    assert!(!s.data.evaluation.phase.is_running());
    let said = s.data.evaluation.message.clone().unwrap();
    assert!(
        said.starts_with("Mesure arrêtée : un autre catalogue"),
        "{said}"
    );
    // The old run's last report changes nothing.
    send(
        &mut s,
        Msg::Report(
            call,
            Report::EvalEnded(Ok(EvalRun {
                source: rag_fiches::answer::Source::Method(Method::Sens),
                model: "m".into(),
                judge: "j".into(),
                outcomes: Vec::new(),
                verdicts: Vec::new(),
                sent: Vec::new(),
                tokens: Default::default(),
                judge_tokens: Default::default(),
            })),
        ),
    );
    assert!(s.data.evaluation.runs.is_empty());
    assert_eq!(s.data.evaluation.message.as_deref(), Some(said.as_str()));
}

#[test]
fn switching_catalogue_during_calculer_les_vecteurs_accepts_nothing_of_the_old_one() {
    let mut s = state();
    with_key(&mut s);
    let fx = send(&mut s, Msg::Vectors(VectorsMsg::ComputeRequested));
    let call = started(&fx, |w| matches!(w, Work::ComputeVectors { .. })).unwrap();
    let fx = load_learner(&mut s);
    assert!(stops(&fx).contains(&call));
    // The old catalogue's vectors, kept by the worker meanwhile, are dropped there too.
    let fx = send(
        &mut s,
        Msg::Report(
            call,
            Report::VectorsAttached {
                set: 9,
                info: info(),
                questions: Vec::new(),
                origin: "old".into(),
                bytes: Some(vec![1, 2, 3]),
            },
        ),
    );
    assert_eq!(forgets(&fx), vec![9]);
    assert_eq!(s.data.lab.vectors_away(), None);
    assert!(s.data.computed.is_none());
    send(
        &mut s,
        Msg::Report(call, Report::ComputeEnded("Vecteurs calculés".into())),
    );
    assert_ne!(s.vectors_message.as_deref(), Some("Vecteurs calculés"));
}

// hostile.test.mjs

#[test]
fn mesurer_sens_et_hybride_cannot_be_started_twice_a_key_edit_while_it_runs_does_not_re_enable_it()
{
    let mut s = state();
    with_key(&mut s);
    with_vectors(&mut s, 1);
    let mut fx = send(&mut s, Msg::Vectors(VectorsMsg::DenseMeasureRequested));
    fx.extend(send(&mut s, Msg::Key(KeyMsg::Typed(format!("{KEY}x")))));
    fx.extend(send(
        &mut s,
        Msg::Vectors(VectorsMsg::DenseMeasureRequested),
    ));
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::MeasureDense { .. })),
        1
    );
}

#[test]
fn oublier_la_cle_during_mesurer_les_reponses_stops_every_call() {
    let mut s = ready_for_sens();
    let eval = evaluation_running(&mut s);
    let search = embeds(&typed(&mut s, "Un isolant"))[0].0;
    let check = {
        let fx = send(&mut s, Msg::Key(KeyMsg::CheckRequested));
        started(&fx, |w| matches!(w, Work::CheckKey { .. })).unwrap()
    };
    let fx = send(&mut s, Msg::Key(KeyMsg::Forgotten));
    let cancelled = stops(&fx);
    for call in [eval, search, check] {
        assert!(cancelled.contains(&call), "{call:?} still runs");
    }
    assert!(fx.iter().any(|e| matches!(e, Effect::RememberKey(None))));
    assert!(s.key.is_none());
    assert_eq!(
        s.data.evaluation.message.as_deref(),
        Some("Mesure interrompue : la clé a été oubliée.")
    );
    // Nothing the model decides afterwards spends a key.
    let fx = typed(&mut s, "Un autre isolant");
    assert!(embeds(&fx).is_empty());
    assert!(fx.iter().all(|e| !matches!(e, Effect::Start { .. })));
    // The cancelled run's own report does not overwrite what was said.
    send(
        &mut s,
        Msg::Report(eval, Report::EvalEnded(Err("Annulé".into()))),
    );
    assert_eq!(
        s.data.evaluation.message.as_deref(),
        Some("Mesure interrompue : la clé a été oubliée.")
    );
}

#[test]
fn emptying_the_key_field_forgets_the_remembered_key_too() {
    let mut s = state();
    with_key(&mut s);
    let fx = send(&mut s, Msg::Key(KeyMsg::RememberToggled(true)));
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::RememberKey(Some(k)) if k == KEY)));
    let fx = send(&mut s, Msg::Key(KeyMsg::Typed(String::new())));
    assert!(fx.iter().any(|e| matches!(e, Effect::RememberKey(None))));
    assert!(!s.key_ui.remembered);
    assert!(s.key.is_none());
}

#[test]
fn a_key_a_header_cannot_carry_is_refused_at_entry_and_never_sent() {
    let mut s = state();
    with_vectors(&mut s, 1);
    show(&mut s, Method::Sens);
    let fx = send(&mut s, Msg::Key(KeyMsg::Typed("clé-à-accents".into())));
    assert!(s.key.is_none());
    let problem = s.key_ui.problem.clone().unwrap();
    assert!(
        !problem.contains("clé-à-accents"),
        "the key is shown: {problem}"
    );
    assert!(fx
        .iter()
        .all(|e| !matches!(e, Effect::RememberKey(Some(_)))));
    assert!(embeds(&typed(&mut s, "Un isolant")).is_empty());
}

#[test]
fn a_failed_batch_keeps_the_vectors_already_paid_for_the_re_run_asks_only_the_rest() {
    let mut s = state();
    with_key(&mut s);
    with_vectors(&mut s, 1);
    send(&mut s, Msg::Vectors(VectorsMsg::DenseMeasureRequested));
    let run = tracked(&s, Subject::MeasureDense);
    let paid: Vec<(String, Vec<f32>)> = s.data.questions[..10]
        .iter()
        .enumerate()
        .map(|(i, q)| (q.text.clone(), unit(i)))
        .collect();
    send(&mut s, Msg::Report(run, Report::DenseProgress(paid)));
    send(
        &mut s,
        Msg::Report(run, Report::DenseEnded(Some("Lot refusé".into()))),
    );
    let fx = send(&mut s, Msg::Vectors(VectorsMsg::DenseMeasureRequested));
    let asked = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                work: Work::MeasureDense { questions, .. },
                ..
            } => Some(questions.len()),
            _ => None,
        })
        .unwrap();
    assert_eq!(asked, s.data.questions.len() - 10);
}

#[test]
fn on_a_shared_origin_retenir_warns_before_it_stores_anything() {
    let mut s = state();
    s.shared_origin = true;
    with_key(&mut s);
    let fx = send(&mut s, Msg::Key(KeyMsg::RememberToggled(true)));
    assert!(fx.iter().all(|e| !matches!(e, Effect::RememberKey(_))));
    assert!(s.key_ui.remember_warning);
    assert!(!s.key_ui.remembered);
    let fx = send(&mut s, Msg::Key(KeyMsg::RememberConfirmed));
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::RememberKey(Some(k)) if k == KEY)));
    assert!(s.key_ui.remembered);
}

// Stale replies, one way each.

#[test]
fn a_newer_question_cancels_the_older_ones_call() {
    let mut s = ready_for_sens();
    let first = embeds(&typed(&mut s, "Un isolant"));
    let fx = typed(&mut s, "Un isolant phonique");
    assert!(stops(&fx).contains(&first[0].0));
    assert_eq!(embeds(&fx).len(), 1);
    assert_ne!(embeds(&fx)[0].0, first[0].0, "run ids are not reused");
    // The stopped run's vector, had it come, is dropped.
    send(
        &mut s,
        Msg::Report(first[0].0, Report::QuestionEmbedded(unit(3))),
    );
    assert!(!s.qvectors.contains_key("Un isolant"));
}

#[test]
fn typing_on_before_the_pause_ends_embeds_nothing() {
    let mut s = ready_for_sens();
    let mut fx = send(&mut s, Msg::Search(SearchMsg::Typed("Un is".into())));
    let pause = started(&fx, |w| matches!(w, Work::Pause { .. })).unwrap();
    fx.extend(send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant".into())),
    ));
    assert!(embeds(&fx).is_empty());
    assert_eq!(stops(&fx), vec![pause]);
    // The stopped pause's end starts nothing.
    assert!(send(&mut s, Msg::Report(pause, Report::Paused)).is_empty());
}

#[test]
fn a_key_typed_a_character_at_a_time_is_not_sent_before_the_learner_pauses() {
    let mut s = ready_for_sens();
    let run = embeds(&typed(&mut s, "Un isolant"))[0].0;
    send(
        &mut s,
        Msg::Report(run, Report::QuestionFailed("Clé refusée".into())),
    );
    let mut fx = Vec::new();
    for key in ["a", "ab", "abc"] {
        fx.extend(send(&mut s, Msg::Key(KeyMsg::Typed(key.into()))));
    }
    assert!(embeds(&fx).is_empty(), "a partial key was sent");
    // Each edit starts the pause again.
    assert_eq!(count_started(&fx, |w| matches!(w, Work::Pause { .. })), 3);
    let fx = after_pause(&mut s, fx);
    assert_eq!(embeds(&fx).len(), 1);
}

#[test]
fn enter_embeds_the_question_at_once_without_the_pause() {
    let mut s = ready_for_sens();
    let fx = send(&mut s, Msg::Search(SearchMsg::Typed("Un isolant".into())));
    let pause = started(&fx, |w| matches!(w, Work::Pause { .. })).unwrap();
    let fx = send(&mut s, Msg::Search(SearchMsg::Entered));
    assert_eq!(embeds(&fx).len(), 1);
    assert_eq!(stops(&fx), vec![pause]);
}

#[test]
fn a_committed_questions_call_goes_on_when_another_is_typed() {
    let mut s = ready_for_sens();
    let first = embeds(&typed(&mut s, "Un isolant"))[0].0;
    send(&mut s, Msg::Search(SearchMsg::Entered));
    let fx = typed(&mut s, "Un isolant phonique");
    assert!(!stops(&fx).contains(&first));
}

#[test]
fn a_question_is_embedded_once_whatever_else_happens() {
    let mut s = ready_for_sens();
    let mut fx = typed(&mut s, "Un isolant");
    let more = send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Mesurer)));
    fx.extend(after_pause(&mut s, more));
    let more = send(&mut s, Msg::Measure(MeasureMsg::GridMore));
    fx.extend(after_pause(&mut s, more));
    assert_eq!(embeds(&fx).len(), 1);
}

#[test]
fn an_older_questions_vector_is_kept_for_that_question_only() {
    let mut s = ready_for_sens();
    let first = embeds(&typed(&mut s, "Un isolant"))[0].0;
    send(&mut s, Msg::Search(SearchMsg::Entered));
    typed(&mut s, "Une colle");
    send(
        &mut s,
        Msg::Report(first, Report::QuestionEmbedded(unit(3))),
    );
    assert!(s.qvectors.contains_key("Un isolant"));
    assert!(s.question_vector().is_none());
    assert!(s
        .jobs
        .run_of(&JobKey {
            catalogue: s.data.epoch,
            subject: Subject::Embed("Une colle".into()),
        })
        .is_some());
}

#[test]
fn an_answer_to_a_question_typed_over_is_not_shown() {
    let mut s = state();
    with_key(&mut s);
    send(&mut s, Msg::Search(SearchMsg::Typed("Un isolant".into())));
    let fx = send(&mut s, Msg::Answer(AnswerMsg::Requested));
    let run = started(&fx, |w| matches!(w, Work::Answer { .. })).unwrap();
    send(&mut s, Msg::Search(SearchMsg::Typed("Une colle".into())));
    send(
        &mut s,
        Msg::Report(
            run,
            Report::AnswerShown(AnswerResult {
                question: "Un isolant".into(),
                model: "m".into(),
                sent: Vec::new(),
                outcome: Ok((
                    Chat {
                        content: "Voici [AR-0001].".into(),
                        prompt_tokens: 1,
                        completion_tokens: 1,
                        finish_reason: None,
                        obtained: None,
                    },
                    false,
                )),
            }),
        ),
    );
    assert!(s.data.answering.result.is_none());
    assert!(s.data.answering.pending.is_none());
}

#[test]
fn a_newer_measurement_of_a_method_supersedes_the_one_under_way_and_ends_once() {
    let mut s = state();
    with_vectors(&mut s, 1);
    let all: Vec<(String, Vec<f32>)> = s
        .data
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| (q.text.clone(), unit(i)))
        .collect();
    s.qvectors.extend(all);
    let first = send(&mut s, Msg::Vectors(VectorsMsg::DenseMeasureRequested));
    let second = send(&mut s, Msg::Vectors(VectorsMsg::DenseMeasureRequested));
    // The second measures the same methods: the first is gone, not left to end later.
    assert_eq!(s.data.ui.measuring.len(), 1);
    assert_eq!(s.data.ui.measuring[0].done, 0);
    // Its tops were asked once, by the first request.
    let asked = |fx: &[Effect]| {
        fx.iter()
            .filter_map(|e| match e {
                Effect::Start {
                    work: Work::DenseTops { vectors, .. },
                    ..
                } => Some(vectors.len()),
                _ => None,
            })
            .sum::<usize>()
    };
    assert_eq!(asked(&first), s.data.questions.len());
    assert_eq!(asked(&second), 0);
    // Without the worker's tops it waits, asking for no step.
    assert!(!first
        .iter()
        .chain(&second)
        .any(|e| matches!(e, Effect::Step)));
    let seen = settle(&mut s, first);
    assert!(s.data.ui.measuring.is_empty());
    assert!(seen.iter().any(|e| matches!(e, Effect::Step)));
    let sens: Vec<_> = s
        .data
        .measurements
        .iter()
        .filter(|m| m.method == "sens")
        .collect();
    assert_eq!(sens.len(), 1);
    assert_eq!(sens[0].questions.len(), s.data.questions.len());
}

#[test]
fn news_of_a_vectors_set_that_is_no_longer_the_catalogues_change_nothing() {
    let mut s = state();
    with_vectors(&mut s, 1);
    let q = "Un ciment blanc ?";
    s.qvectors.insert(q.into(), unit(0));
    let fx = send(&mut s, Msg::Search(SearchMsg::Typed(q.into())));
    let dense = |w: &Work| {
        matches!(
            w,
            Work::DenseTops {
                set: 1,
                in_box: true,
                ..
            }
        )
    };
    let old = started(&fx, dense).expect("the box's top is asked in set 1");
    // Vectors computed with the key replace set 1: its search stops, the top is asked in set 2.
    with_key(&mut s);
    let fx = send(&mut s, Msg::Vectors(VectorsMsg::ComputeRequested));
    let call = started(&fx, |w| matches!(w, Work::ComputeVectors { .. })).unwrap();
    let attached = Report::VectorsAttached {
        set: 2,
        info: info(),
        questions: Vec::new(),
        origin: "calculés".into(),
        bytes: None,
    };
    let fx = send(&mut s, Msg::Report(call, attached));
    assert!(stops(&fx).contains(&old));
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::DenseTops { set: 2, .. })),
        1
    );
    // What set 1's search says late changes nothing.
    send(
        &mut s,
        Msg::Report(old, Report::DenseLost("ailleurs".into())),
    );
    assert_eq!(s.data.lab.vectors_away(), Some(2));
    let late = Report::DenseFound {
        vectors: vec![unit(0)],
        tops: vec![vec![(0, 1.0)]],
    };
    send(&mut s, Msg::Report(old, late));
    assert!(!s.data.lab.knows_dense(
        rag_fiches::lab::Encoder::Mistral,
        &unit(0),
        rag_fiches::lab::Lab::dense_depth()
    ));
}

#[test]
fn new_vectors_replace_the_old_set_in_the_worker() {
    let mut s = state();
    with_vectors(&mut s, 1);
    // Vectors computed again with the key take their place.
    with_key(&mut s);
    let fx = send(&mut s, Msg::Vectors(VectorsMsg::ComputeRequested));
    let call = started(&fx, |w| matches!(w, Work::ComputeVectors { .. })).unwrap();
    let fx = send(
        &mut s,
        Msg::Report(
            call,
            Report::VectorsAttached {
                set: 2,
                info: info(),
                questions: Vec::new(),
                origin: "calculés".into(),
                bytes: None,
            },
        ),
    );
    assert_eq!(forgets(&fx), vec![1]);
    assert_eq!(s.data.lab.vectors_away(), Some(2));
}

// Calls and their waits.

#[test]
fn annuler_during_a_wait_stops_that_call_and_settles_the_answer() {
    let mut s = state();
    with_key(&mut s);
    send(&mut s, Msg::Search(SearchMsg::Typed("Un isolant".into())));
    let fx = send(&mut s, Msg::Answer(AnswerMsg::Requested));
    let call = started(&fx, |w| matches!(w, Work::Answer { .. })).unwrap();
    let wait = Wait {
        seconds: 5,
        reason: rag_fiches::mistral::WaitReason::RateLimited,
    };
    send(&mut s, Msg::Report(call, Report::Waiting(Some(wait))));
    let fx = send(&mut s, Msg::Key(KeyMsg::RetryNow));
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::SkipWait(c) if *c == call)));
    let fx = send(&mut s, Msg::Key(KeyMsg::WaitCancelled));
    assert_eq!(stops(&fx), vec![call]);
    assert!(s.data.answering.pending.is_none());
    assert!(s.waiting.is_none());
}

#[test]
fn the_end_of_another_calls_wait_does_not_hide_the_current_one() {
    let mut s = state();
    with_key(&mut s);
    send(&mut s, Msg::Search(SearchMsg::Typed("Un isolant".into())));
    let answer = started(&send(&mut s, Msg::Answer(AnswerMsg::Requested)), |w| {
        matches!(w, Work::Answer { .. })
    })
    .unwrap();
    let check = started(&send(&mut s, Msg::Key(KeyMsg::CheckRequested)), |w| {
        matches!(w, Work::CheckKey { .. })
    })
    .unwrap();
    let wait = Wait {
        seconds: 5,
        reason: rag_fiches::mistral::WaitReason::RateLimited,
    };
    send(&mut s, Msg::Report(answer, Report::Waiting(Some(wait))));
    send(&mut s, Msg::Report(check, Report::Waiting(None)));
    assert_eq!(s.waiting.map(|(_, c)| c), Some(answer));
    send(&mut s, Msg::Report(answer, Report::Waiting(None)));
    assert!(s.waiting.is_none());
}

#[test]
fn verifier_ma_cle_twice_sends_one_call_and_a_new_catalogue_does_not_stop_it() {
    let mut s = state();
    with_key(&mut s);
    let mut fx = send(&mut s, Msg::Key(KeyMsg::CheckRequested));
    fx.extend(send(&mut s, Msg::Key(KeyMsg::CheckRequested)));
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::CheckKey { .. })),
        1
    );
    let run = tracked(&s, Subject::CheckKey);
    // The check is of the key, not of the catalogue: loading another goes on beside it.
    let fx = load_learner(&mut s);
    assert!(!stops(&fx).contains(&run));
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::CheckKey { .. })),
        0
    );
    assert_eq!(s.key_ui.check, Some(None));
    send(
        &mut s,
        Msg::Report(run, Report::KeyChecked(Ok("Clé acceptée".into()))),
    );
    assert_eq!(s.key_ui.check, Some(Some(Ok("Clé acceptée".into()))));
}

// Files.

#[test]
fn files_the_page_cannot_use_are_refused_before_they_are_read() {
    let mut s = state();
    let fx = send(
        &mut s,
        Msg::Catalogue(CatalogueMsg::FilesChosen(files(&["photo.png", "q.csv"]))),
    );
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::ReadFiles { .. })),
        0
    );
    assert!(!s.data_errors.is_empty());
}

#[test]
fn a_run_file_over_the_limit_is_refused_unread() {
    let mut s = state();
    let mut big = files(&["run.txt"]);
    big[0].size = update::RUN_MAX_BYTES + 1;
    let fx = send(&mut s, Msg::Measure(MeasureMsg::RunFilesChosen(big)));
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::ReadRuns { .. })),
        0
    );
    assert!(
        matches!(s.data.ui.run_messages.as_slice(), [Err(m)] if m.starts_with("run.txt : plus de 50 Mo"))
    );
}

#[test]
fn run_files_are_read_by_a_job_whose_report_a_new_catalogue_drops() {
    let mut s = state();
    let fx = send(
        &mut s,
        Msg::Measure(MeasureMsg::RunFilesChosen(files(&["a.txt"]))),
    );
    let first = started(&fx, |w| matches!(w, Work::ReadRuns { .. })).unwrap();
    let unreadable = || {
        vec![(
            "a.txt".to_owned(),
            Err("a.txt : lecture impossible.".to_owned()),
        )]
    };
    send(&mut s, Msg::Report(first, Report::RunsRead(unreadable())));
    assert_eq!(s.data.ui.run_messages.len(), 1);
    assert!(
        s.data.ui.run_reads.is_empty(),
        "the job ends with its report"
    );
    let fx = send(
        &mut s,
        Msg::Measure(MeasureMsg::RunFilesChosen(files(&["a.txt"]))),
    );
    let second = started(&fx, |w| matches!(w, Work::ReadRuns { .. })).unwrap();
    let fx = load_learner(&mut s);
    assert!(stops(&fx).contains(&second));
    send(&mut s, Msg::Report(second, Report::RunsRead(unreadable())));
    assert!(s.data.ui.run_messages.is_empty());
}

// The red team's breaks (issue 45).

#[test]
fn b2_an_older_file_selection_never_overwrites_a_newer_one() {
    let mut s = state();
    let big = choose(&mut s, &["grand.jsonl", "q.csv"]);
    let small = choose(&mut s, &["petit.jsonl", "q.csv"]);
    send(
        &mut s,
        Msg::Report(
            small,
            Report::DatasetLoaded(Box::new(learner_dataset(
                "vos données (petit.jsonl, q.csv)",
            ))),
        ),
    );
    let mut late = learner_dataset("vos données (grand.jsonl, q.csv)");
    late.lab.set_vectors_away(5, info());
    let fx = send(
        &mut s,
        Msg::Report(big, Report::DatasetLoaded(Box::new(late))),
    );
    assert_eq!(
        s.data.label.as_deref(),
        Some("vos données (petit.jsonl, q.csv)")
    );
    // The superseded selection's vectors are dropped by the worker too.
    assert_eq!(forgets(&fx), vec![5]);
    // Its refusal, arriving late, is not shown either.
    send(
        &mut s,
        Msg::Report(
            big,
            Report::FilesRefused(vec!["grand.jsonl : trop tard".into()]),
        ),
    );
    assert!(s.data_errors.is_empty());
}

#[test]
fn b2_revenir_au_catalogue_de_lexercice_during_a_load_is_not_undone() {
    let mut s = state();
    let seq = choose(&mut s, &["grand.jsonl", "q.csv"]);
    send(&mut s, Msg::Catalogue(CatalogueMsg::BackToExercise));
    let epoch = s.data.epoch;
    send(
        &mut s,
        Msg::Report(
            seq,
            Report::DatasetLoaded(Box::new(learner_dataset(
                "vos données (grand.jsonl, q.csv)",
            ))),
        ),
    );
    assert_eq!(s.data.label, None);
    assert_eq!(s.data.epoch, epoch);
}

#[test]
fn b3_a_question_vector_of_the_wrong_size_fails_that_question_alone() {
    let mut s = ready_for_sens();
    let run = embeds(&typed(&mut s, "Joint époxy"))[0].0;
    let fx = send(
        &mut s,
        Msg::Report(run, Report::QuestionEmbedded(vec![0.1, 0.2, 0.3])),
    );
    assert!(!s.qvectors.contains_key("Joint époxy"));
    let (q, said) = s.search_error.clone().unwrap();
    assert_eq!(q, "Joint époxy");
    assert!(said.contains("3 dimensions"), "{said}");
    // The cached copy is deleted; the fiche vectors stay.
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::ForgetQuestionVector(q) if q == "Joint époxy")));
    assert_eq!(s.data.lab.vectors_away(), Some(1));
    assert!(s.data.vectors_origin.starts_with("test"));
}

#[test]
fn b3_a_zero_a_huge_or_a_nan_question_vector_is_refused() {
    let mut s = ready_for_sens();
    let zero = vec![0.0; rag_fiches::mistral::DIM];
    let huge = vec![1e30; rag_fiches::mistral::DIM];
    let mut nan = unit(0);
    nan[5] = f32::NAN;
    for (i, v) in [zero, huge, nan].into_iter().enumerate() {
        let q = format!("question {i}");
        let run = embeds(&typed(&mut s, &q))[0].0;
        send(&mut s, Msg::Report(run, Report::QuestionEmbedded(v)));
        assert!(!s.qvectors.contains_key(&q), "vector {i} accepted");
    }
    // And among the vectors embedded for « Mesurer ».
    send(&mut s, Msg::Vectors(VectorsMsg::DenseMeasureRequested));
    let run = tracked(&s, Subject::MeasureDense);
    let fx = send(
        &mut s,
        Msg::Report(
            run,
            Report::DenseProgress(vec![("a".into(), unit(1)), ("b".into(), vec![0.5; 4])]),
        ),
    );
    assert!(s.qvectors.contains_key("a"));
    assert!(!s.qvectors.contains_key("b"));
    assert_eq!(
        count(&fx, |e| matches!(e, Effect::ForgetQuestionVector(_))),
        1
    );
}

#[test]
fn b3_vectors_lost_is_said_with_one_full_stop() {
    let mut s = state();
    with_vectors(&mut s, 1);
    let q = "Un ciment blanc ?";
    s.qvectors.insert(q.into(), unit(0));
    let fx = send(&mut s, Msg::Search(SearchMsg::Typed(q.into())));
    let run = started(&fx, |w| matches!(w, Work::DenseTops { set: 1, .. })).unwrap();
    let lost = Report::DenseLost("le stockage a été vidé.".into());
    send(&mut s, Msg::Report(run, lost));
    assert_eq!(s.data.lab.vectors_away(), None);
    assert_eq!(
        s.data.vectors_origin,
        "Vecteurs perdus : le stockage a été vidé."
    );
}

// The journal and the clock.

#[test]
fn a_committed_question_under_the_threshold_is_journaled_with_the_shells_date() {
    let mut s = state();
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("zzzz qqqq wwww".into())),
    );
    let fx = send(&mut s, Msg::Search(SearchMsg::Committed));
    let entry = s.journal.entries.first().expect("journaled").clone();
    // The entries added (one per method shown) are written, and only they: never the whole
    // journal over another tab's (rt4 R1).
    let entries = |added: &[(String, rag_fiches::journal::Entry)]| {
        added.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>()
    };
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::JournalAppend(added) if entries(added) == s.journal.entries)));
    let before = s.journal.entries.len();
    send(&mut s, Msg::Search(SearchMsg::Typed("vvvv kkkk".into())));
    let fx = send(&mut s, Msg::Search(SearchMsg::Committed));
    assert!(fx.iter().any(
        |e| matches!(e, Effect::JournalAppend(added) if entries(added)[..] == s.journal.entries[before..])
    ));
    assert_eq!(entry.date, NOW);
    assert_eq!(entry.question, "zzzz qqqq wwww");
}

#[test]
fn an_exercise_question_is_not_journaled() {
    let mut s = state();
    send(&mut s, Msg::Search(SearchMsg::ExamplePicked(Some(0))));
    let fx = send(&mut s, Msg::Search(SearchMsg::Committed));
    assert!(fx.iter().all(|e| !matches!(e, Effect::JournalAppend(_))));
}

/// The journal changed in the store (another tab wrote to it): read back, and shown.
fn read_back(s: &mut State, stored: rag_fiches::journal::Journal) {
    send(s, Msg::Journal(JournalMsg::Changed));
    let n = s.journal_reads.0;
    report_from(
        s,
        Subject::ReadJournal(n),
        Report::JournalRead(Some(stored)),
    );
}

#[test]
fn a_newer_read_of_the_journal_wins_over_an_older_one_that_ends_later() {
    let mut s = state();
    send(&mut s, Msg::Journal(JournalMsg::Changed));
    let older = run_for(&mut s, Subject::ReadJournal(1));
    let fx = send(&mut s, Msg::Journal(JournalMsg::Changed));
    assert!(stops(&fx).contains(&older));
    let newer = run_for(&mut s, Subject::ReadJournal(2));
    let mut stored = rag_fiches::journal::Journal::default();
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("zzzz qqqq wwww".into())),
    );
    send(&mut s, Msg::Search(SearchMsg::Committed));
    stored.add(s.journal.entries[0].clone());
    send(
        &mut s,
        Msg::Report(newer, Report::JournalRead(Some(stored.clone()))),
    );
    send(
        &mut s,
        Msg::Report(older, Report::JournalRead(Some(Default::default()))),
    );
    assert_eq!(s.journal, stored);
    // Read: no read is wanted until the store changes again.
    assert!(s
        .jobs
        .run_of(&JobKey {
            catalogue: 0,
            subject: Subject::ReadJournal(2)
        })
        .is_none());
}

#[test]
fn each_record_a_tab_writes_has_a_key_of_its_own() {
    let mut s = state();
    s.journal_writer.0 = "onglet-a".into();
    let mut keys = Vec::new();
    for q in ["zzzz qqqq wwww", "vvvv kkkk"] {
        send(&mut s, Msg::Search(SearchMsg::Typed(q.into())));
        for e in send(&mut s, Msg::Search(SearchMsg::Committed)) {
            if let Effect::JournalAppend(added) = e {
                keys.extend(added.into_iter().map(|(k, _)| k));
            }
        }
    }
    assert!(keys.len() >= 2, "{keys:?}");
    assert!(keys.iter().all(|k| k.contains("|onglet-a|")), "{keys:?}");
    let distinct: std::collections::HashSet<&String> = keys.iter().collect();
    assert_eq!(distinct.len(), keys.len());
}

/// rt4 R1: another tab's entries, read back from the store, replace the journal shown; this
/// tab's next question writes only its own entry, never its copy of the journal.
#[test]
fn rt4_r1_the_stored_journal_is_shown_and_a_tab_writes_only_what_it_adds() {
    let mut s = state();
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("zzzz qqqq wwww".into())),
    );
    send(&mut s, Msg::Search(SearchMsg::Committed));
    let mine = s.journal.clone();
    let mut stored = mine.clone();
    let mut other = mine.entries[0].clone();
    other.question = "une question de l'autre onglet".into();
    stored.add(other.clone());
    read_back(&mut s, stored.clone());
    assert_eq!(s.journal, stored, "the other tab's entry is listed here");
    send(&mut s, Msg::Search(SearchMsg::Typed("vvvv kkkk".into())));
    let fx = send(&mut s, Msg::Search(SearchMsg::Committed));
    let written: Vec<&str> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::JournalAppend(added) => Some(added),
            _ => None,
        })
        .flatten()
        .map(|(_, e)| e.question.as_str())
        .collect();
    assert!(
        !written.is_empty() && written.iter().all(|q| *q == "vvvv kkkk"),
        "{written:?}"
    );
}

/// rt4 R2: « Effacer » erases the store (not a write of an empty copy), and a journal read back
/// after another tab erased it replaces this tab's: the erased entries are not shown, and the
/// next question writes only itself.
#[test]
fn rt4_r2_an_erased_journal_is_never_written_back() {
    let mut s = state();
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("mon code de carte bleue 4973".into())),
    );
    send(&mut s, Msg::Search(SearchMsg::Committed));
    assert!(!s.journal.entries.is_empty());
    let fx = send(&mut s, Msg::Journal(JournalMsg::Erased));
    assert!(fx.iter().any(|e| matches!(e, Effect::JournalErase)));
    assert!(s.journal.entries.is_empty());
    // The same, told by another tab: this tab still held the entry.
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("mon code de carte bleue 4973".into())),
    );
    send(&mut s, Msg::Search(SearchMsg::Committed));
    read_back(&mut s, Default::default());
    assert!(s.journal.entries.is_empty());
    send(&mut s, Msg::Search(SearchMsg::Typed("vvvv kkkk".into())));
    let fx = send(&mut s, Msg::Search(SearchMsg::Committed));
    for e in &fx {
        if let Effect::JournalAppend(added) = e {
            assert!(added
                .iter()
                .all(|(_, e)| !e.question.contains("carte bleue")));
        }
    }
    assert!(s
        .journal
        .entries
        .iter()
        .all(|e| !e.question.contains("carte bleue")));
}

// The catalogue.

#[test]
fn a_new_catalogue_resets_what_belonged_to_the_old_one() {
    let mut s = state();
    send(&mut s, Msg::Search(SearchMsg::ExamplePicked(Some(3))));
    send(&mut s, Msg::Measure(MeasureMsg::GridMore));
    send(
        &mut s,
        Msg::Measure(MeasureMsg::GridSorted(Some("mots".into()))),
    );
    let fx = load_learner(&mut s);
    assert_eq!(s.data.ui.example, None);
    assert!(s.question.is_empty());
    assert_eq!(s.data.ui.grid_limit, GRID_PAGE);
    assert_eq!(s.data.ui.grid_sort, None);
    assert_eq!(s.data.label.as_deref(), Some("vos données"));
    // Its Mistral vectors are looked for at once, in this browser's cache alone.
    assert!(started(&fx, |w| matches!(
        w,
        Work::FindVectors { shipped: None, .. }
    ))
    .is_some());
}

/// The run of the local model's download.
fn model_run(s: &State) -> RunId {
    s.jobs
        .run_of(&JobKey {
            catalogue: 0,
            subject: Subject::LocalModel,
        })
        .expect("the model is downloaded")
}

/// `sens local` shown and « Un isolant » typed: the local model's download asked for, once.
fn downloading_local_model() -> State {
    let mut s = state();
    with_local_vectors(&mut s);
    show(&mut s, Method::SensLocal);
    let fx = send(&mut s, Msg::Search(SearchMsg::Typed("Un isolant".into())));
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
    s
}

/// The exercise's local fiche vectors, as the page loads them at start-up.
fn with_local_vectors(s: &mut State) {
    let rows = (0..s.data.lab.fiches().len())
        .map(|i| {
            let mut v = vec![0.0; rag_fiches::encoder::DIM];
            v[i % rag_fiches::encoder::DIM] = 1.0;
            v
        })
        .collect();
    let set = rag_fiches::data::vectors::VectorSet::new(
        rag_fiches::encoder::MODEL,
        s.data.lab.fiches(),
        rows,
    )
    .unwrap();
    report_from(
        s,
        Subject::LocalVectors,
        Report::LocalVectors(Some(Box::new(set))),
    );
}

#[test]
fn b8_a_link_with_a_local_method_downloads_no_model_before_a_gesture() {
    let mut s = state();
    with_local_vectors(&mut s);
    let fx = send(
        &mut s,
        Msg::Nav(NavMsg::FragmentChanged(link(
            "Un enduit pour reboucher une fissure",
            vec![
                Method::Keyword(rag_fiches::lab::Keyword::Mots),
                Method::SensLocal,
            ],
        ))),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 0);
    assert!(s.local_waits_for_gesture());
    // Anything else meanwhile downloads nothing either.
    assert_eq!(
        count_started(
            &send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Mesurer))),
            |w| { matches!(w, Work::LoadLocalModel) }
        ),
        0
    );
    let fx = send(&mut s, Msg::Local(LocalMsg::Requested));
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
}

#[test]
fn b4_a_cached_model_the_worker_refuses_is_fetched_again_once() {
    let mut s = downloading_local_model();
    // Read from the cache, handed to the worker…
    let run = model_run(&s);
    send(&mut s, Msg::Report(run, Report::LocalModelFetched));
    assert!(matches!(s.local, LocalModel::Preparing(0)));
    // …which refused it (and the shell deleted it): fetched again.
    let fx = send(&mut s, Msg::Local(LocalMsg::Evicted("empreinte".into())));
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Worker(Request::Question { text }) if text == "Un isolant")));
    // The download refused in turn is final.
    send(&mut s, Msg::Local(LocalMsg::Failed("refusé".into())));
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant phonique".into())),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 0);
    assert!(matches!(s.local, LocalModel::Unavailable(_)));
}

#[test]
fn b7_unticking_or_cancelling_aborts_the_download_and_a_question_fetches_it_again() {
    let mut s = downloading_local_model();
    // « Annuler le téléchargement »: its request aborted, said.
    let run = model_run(&s);
    let fx = send(&mut s, Msg::Local(LocalMsg::Cancelled));
    assert_eq!(stops(&fx), vec![run]);
    assert!(matches!(&s.local, LocalModel::Unavailable(why) if why.contains("annulé")));
    // Nothing more by itself; the next question fetches it again.
    assert_eq!(
        count_started(
            &send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Mesurer))),
            |w| { matches!(w, Work::LoadLocalModel) }
        ),
        0
    );
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant phonique".into())),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
    // The local methods unticked while it comes: aborted too.
    let run = model_run(&s);
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::MethodToggled(Method::SensLocal, false)),
    );
    assert_eq!(stops(&fx), vec![run]);
    assert!(matches!(s.local, LocalModel::Idle));
    // A cancel that comes late (the model is there) changes nothing.
    send(&mut s, Msg::Local(LocalMsg::Ready));
    let fx = send(&mut s, Msg::Local(LocalMsg::Cancelled));
    assert!(stops(&fx).is_empty());
    assert!(matches!(s.local, LocalModel::Ready));
}

#[test]
fn b9_a_model_not_kept_is_said() {
    let mut s = state();
    send(&mut s, Msg::Local(LocalMsg::Ready));
    assert!(!s.local_not_kept);
    send(&mut s, Msg::Local(LocalMsg::NotKept));
    assert!(s.local_not_kept);
}

#[test]
fn the_local_model_is_asked_for_once_while_it_comes() {
    let mut s = state();
    with_local_vectors(&mut s);
    let mut fx = send(&mut s, Msg::Search(SearchMsg::LocalMethodsChosen));
    fx.extend(send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant".into())),
    ));
    fx.extend(send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant phonique".into())),
    ));
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
    // Each new question goes to the worker once.
    let asked = count(&fx, |e| {
        matches!(e, Effect::Worker(Request::Question { .. }))
    });
    assert_eq!(asked, 2);
}

/// The learner's catalogue loaded, the local model ready, `sens local` ticked: the effects of
/// the tick (its fiches and questions are to be embedded).
fn learner_with_local_model(s: &mut State) -> Vec<Effect> {
    load_learner(s);
    send(s, Msg::Local(LocalMsg::Ready));
    send(
        s,
        Msg::Search(SearchMsg::MethodToggled(Method::SensLocal, true)),
    )
}

#[test]
fn b14_unticking_the_local_methods_stops_embedding_the_learners_fiches() {
    let mut s = state();
    let fx = learner_with_local_model(&mut s);
    let embedding = |w: &Work| matches!(w, Work::EmbedLocalTexts { .. });
    let first = started(&fx, embedding).expect("the learner's texts are embedded");
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::MethodToggled(Method::SensLocal, false)),
    );
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Stop(r) if *r == first)));
    assert!(s.data.ui.local_texts.is_none());
    // Ticked again: computed again from the start, as a new run.
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::MethodToggled(Method::SensLocal, true)),
    );
    let again = started(&fx, embedding).expect("embedded again");
    assert_ne!(again, first);
    // The stopped run's vectors, arriving late, are dropped.
    let d = rag_fiches::encoder::DIM;
    let late = Report::LocalTextsEmbedded {
        questions: Vec::new(),
        vectors: vec![vec![1.0; d]; 200],
    };
    send(&mut s, Msg::Report(first, late));
    assert!(s.data.lab.local_vectors().is_none());
}

#[test]
fn b14b_the_learners_fiches_and_questions_embedded_locally_are_measured_and_a_new_catalogue_stops_them(
) {
    let mut s = state();
    let fx = learner_with_local_model(&mut s);
    let Some(Work::EmbedLocalTexts { texts, questions }) = fx.iter().find_map(|e| match e {
        Effect::Start { work, .. } => Some(work),
        _ => None,
    }) else {
        panic!("the learner's texts are embedded");
    };
    // Its fiches, then its 40 questions, in order.
    assert_eq!((texts.len(), questions.len()), (240, 40));
    assert_eq!(texts[200], questions[0]);
    assert_eq!(s.data.ui.local_texts, Some((0, 240)));
    report_from(&mut s, Subject::LocalTexts, Report::LocalTextsProgress(120));
    assert_eq!(s.data.ui.local_texts, Some((120, 240)));
    let d = rag_fiches::encoder::DIM;
    let vectors: Vec<Vec<f32>> = (0..240)
        .map(|i| {
            let mut v = vec![0.0; d];
            v[i % d] = 1.0;
            v
        })
        .collect();
    let questions = questions.clone();
    let fx = report_from(
        &mut s,
        Subject::LocalTexts,
        Report::LocalTextsEmbedded {
            questions: questions.clone(),
            vectors,
        },
    );
    assert!(s.data.ui.local_texts.is_none());
    assert!(s.data.lab.local_vectors().is_some());
    assert!(questions.iter().all(|q| s.local_qvectors.contains_key(q)));
    // Its run is no longer wanted: it stops.
    assert_eq!(count(&fx, |e| matches!(e, Effect::Stop(_))), 1);
    // Another catalogue while its texts are embedded: the run stops, and the new one's start.
    let mut s = state();
    let fx = learner_with_local_model(&mut s);
    let first = started(&fx, |w| matches!(w, Work::EmbedLocalTexts { .. })).unwrap();
    let fx = load_learner(&mut s);
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::Stop(r) if *r == first)));
    assert_eq!(
        count_started(&fx, |w| matches!(w, Work::EmbedLocalTexts { .. })),
        1
    );
}

#[test]
fn b11_a_vos_donnees_link_opened_without_those_files_says_so_where_the_learner_looks() {
    let mut s = state();
    let mut opened = link("Un isolant", vec![]);
    opened.set = QuestionSet::VosDonnees;
    send(&mut s, Msg::Nav(NavMsg::FragmentChanged(opened)));
    let note = s.link_note.clone().expect("the note is shown");
    assert!(note.contains("catalogue de l'exercice"), "{note}");
    // The learner's files loaded: the note has nothing left to say.
    load_learner(&mut s);
    assert_eq!(s.link_note, None);
}

#[test]
fn b7_a_failed_download_is_tried_again_by_the_next_gesture_not_before() {
    let mut s = downloading_local_model();
    let run = model_run(&s);
    send(
        &mut s,
        Msg::Report(run, Report::LocalModelDownloadFailed("503".into())),
    );
    assert!(matches!(s.local, LocalModel::Unavailable(_)));
    // Nothing else retries by itself.
    let fx = send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Mesurer)));
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 0);
    // The learner's next question does.
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant phonique".into())),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
    // A refusal of the model itself stays final.
    send(&mut s, Msg::Local(LocalMsg::Failed("refusé".into())));
    let fx = send(&mut s, Msg::Search(SearchMsg::Typed("Une colle".into())));
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 0);
}

#[test]
fn b7_unticking_the_local_methods_stops_the_download() {
    let mut s = downloading_local_model();
    let run = model_run(&s);
    let progress = |done| {
        Msg::Report(
            run,
            Report::LocalModelProgress {
                done,
                total: Some(81_098_920),
            },
        )
    };
    send(&mut s, progress(4_500_000));
    assert!(matches!(s.local, LocalModel::Fetching { .. }));
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::MethodToggled(Method::SensLocal, false)),
    );
    // Its job stops: the shell aborts the request.
    assert_eq!(stops(&fx), vec![run]);
    assert!(matches!(s.local, LocalModel::Idle));
    // A chunk's news arriving meanwhile does not bring it back.
    send(&mut s, progress(5_500_000));
    assert!(matches!(s.local, LocalModel::Idle));
    // Ticked again: fetched again.
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::MethodToggled(Method::SensLocal, true)),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
}

// « Améliorer »: every change re-measures all the questions, against the starting method.

fn improve(s: &mut State, c: rag_fiches::page::improve::Change) {
    send(s, Msg::Improve(c));
}

#[test]
fn ameliorer_opens_on_mots_and_each_change_remeasures_every_question() {
    use rag_fiches::page::improve::Change;
    let mut s = state();
    assert!(s.data.improve.after.is_none());
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    let after = s.data.improve.after.clone().unwrap();
    assert_eq!(after.method, "mots");
    assert_eq!(after.questions.len(), 40);
    assert_eq!(s.data.improve.history.len(), 1);
    // The seed's synonym: question 26 comes back, said in the diff.
    improve(
        &mut s,
        Change::Enrich(rag_fiches::improve::Enrichment {
            id: "AR-0063".into(),
            words: "ne brûle pas".into(),
            product: false,
        }),
    );
    let d = s.data.improve.diff.clone().unwrap();
    assert!(
        d.up.iter()
            .any(|m| m.question == "Un isolant qui ne brûle pas"),
        "{d:?}"
    );
    assert!(
        d.verdict.contains("on ne peut pas conclure"),
        "{}",
        d.verdict
    );
    // One change at a time, each in the history; « Annuler » goes back.
    improve(&mut s, Change::B(0.0));
    assert_eq!(
        s.data.improve.after.as_ref().unwrap().method,
        "mots (b = 0 ; AR-0063 + « ne brûle pas »)"
    );
    assert_eq!(s.data.improve.history.len(), 3);
    improve(&mut s, Change::Undo);
    assert_eq!(s.data.improve.settings.as_ref().unwrap().b, 0.75);
    // The link carries the settings, and opens them elsewhere.
    let link = s.link_state();
    let fragment = link.to_fragment();
    assert!(
        fragment.contains("vue=ameliorer") && fragment.contains("ren="),
        "{fragment}"
    );
    let mut other = state();
    send(
        &mut other,
        Msg::Nav(NavMsg::FragmentChanged(ViewState::from_fragment(&fragment))),
    );
    assert_eq!(
        other.data.improve.after.as_ref().unwrap(),
        s.data.improve.after.as_ref().unwrap()
    );
    // An unknown fiche is said, and changes nothing.
    improve(
        &mut s,
        Change::Enrich(rag_fiches::improve::Enrichment {
            id: "AR-9999".into(),
            words: "x".into(),
            product: false,
        }),
    );
    assert!(s.data.improve.error.as_deref().unwrap().contains("AR-9999"));
    assert_eq!(s.data.improve.settings.as_ref().unwrap().enrich.len(), 1);
}

/// Each question's rank as `mesurer ARGS MORE --json` gives it, from the repository's root.
fn terminal_ranks(args: &[&str], more: &[&str]) -> Vec<Option<usize>> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mesurer"))
        .args(args)
        .args(more)
        .arg("--json")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["rank"].as_u64().map(|r| r as usize))
        .collect()
}

/// Each question's rank in `m`.
fn ranks_of(m: &rag_fiches::measure::Measurement) -> Vec<Option<usize>> {
    m.questions.iter().map(|q| q.rank).collect()
}

#[test]
fn l_epreuve_is_read_only_when_asked_and_measures_the_settings_as_the_terminal_does() {
    use rag_fiches::page::improve::Change;
    let root = env!("CARGO_MANIFEST_DIR");
    let mut s = state();
    let mut fx = send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    fx.extend(send(&mut s, Msg::Improve(Change::Start(Method::MOTS_PLUS))));
    fx.extend(send(&mut s, Msg::Improve(Change::K1(1.2))));
    // Kept apart: nothing reads it before the learner asks.
    let reads = |w: &Work| matches!(w, Work::FetchQuestions { name, .. } if name == "epreuve.csv");
    assert_eq!(count_started(&fx, reads), 0);
    let fx = send(&mut s, Msg::Improve(Change::PassEpreuve));
    let run = started(&fx, reads).expect("its questions are read");
    let text = std::fs::read_to_string(format!("{root}/data/epreuve.csv")).unwrap();
    let questions = rag_fiches::data::parse_questions(&text).unwrap();
    send(
        &mut s,
        Msg::Report(run, Report::EpreuveRead(Ok(questions), Default::default())),
    );
    let e = &s.data.improve.epreuve;
    assert!(!e.asked);
    assert_eq!(e.passes, 1);
    let pass = e.pass.clone().unwrap().unwrap();
    assert_eq!(pass.before.method, "mots+");
    assert_eq!(pass.after.questions.len(), 45);
    // The terminal, given the same settings, ranks every question of it the same.
    let settings = std::env::temp_dir().join(format!("epreuve-{}.json", std::process::id()));
    std::fs::write(&settings, pass.settings.to_json()).unwrap();
    let terminal = |args: &[&str]| terminal_ranks(args, &["--questions", "data/epreuve.csv"]);
    assert_eq!(
        ranks_of(&pass.after),
        terminal(&["--reglages", settings.to_str().unwrap()])
    );
    assert_eq!(ranks_of(&pass.before), terminal(&["mots+"]));
    std::fs::remove_file(&settings).ok();
    // Passed again after another change: counted, and its figures are the new settings'.
    improve(&mut s, Change::K1(1.5));
    send(&mut s, Msg::Improve(Change::PassEpreuve));
    let e = &s.data.improve.epreuve;
    assert_eq!(e.passes, 2);
    assert_eq!(e.pass.as_ref().unwrap().as_ref().unwrap().settings.k1, 1.5);
    // Its file could not be read: said, and no pass is counted.
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    let fx = send(&mut s, Msg::Improve(Change::PassEpreuve));
    let run = started(&fx, reads).unwrap();
    send(
        &mut s,
        Msg::Report(
            run,
            Report::EpreuveRead(Err("réseau".into()), Default::default()),
        ),
    );
    assert_eq!(
        s.data.improve.epreuve.pass.clone().unwrap().unwrap_err(),
        "réseau"
    );
    assert_eq!(s.data.improve.epreuve.passes, 0);
    // Asked again: read again, not the failure kept.
    let fx = send(&mut s, Msg::Improve(Change::PassEpreuve));
    assert!(
        started(&fx, reads).is_some(),
        "a failed read is tried again"
    );
}

#[test]
fn l_epreuve_of_a_fusion_over_the_local_encoder_reads_its_shipped_vectors_as_the_terminal_does() {
    use rag_fiches::page::improve::Change;
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |name: &str| std::fs::read(format!("{root}/data/{name}")).unwrap();
    let set =
        |name: &str| rag_fiches::data::vectors::VectorSet::from_safetensors(&read(name)).unwrap();
    let mut s = state();
    report_from(
        &mut s,
        Subject::LocalVectors,
        Report::LocalVectors(Some(Box::new(set("vecteurs-local.safetensors")))),
    );
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    improve(&mut s, Change::Start(Method::HybrideLocal));
    improve(&mut s, Change::RrfK(5.0));
    assert!(s.data.improve.error.is_none(), "{:?}", s.data.improve.error);
    let fx = send(&mut s, Msg::Improve(Change::PassEpreuve));
    let run = started(&fx, |w| {
        matches!(w, Work::FetchQuestions { vectors, .. } if vectors == "epreuve-local.safetensors")
    })
    .expect("its questions and their vectors are read");
    let text = String::from_utf8(read("epreuve.csv")).unwrap();
    let questions = rag_fiches::data::parse_questions(&text).unwrap();
    // Without its questions' vectors, a fusion over the local encoder cannot pass it: said.
    send(
        &mut s,
        Msg::Report(
            run,
            Report::EpreuveRead(Ok(questions.clone()), Default::default()),
        ),
    );
    let why = s.data.improve.epreuve.pass.clone().unwrap().unwrap_err();
    assert!(why.contains("hybride local"), "{why}");
    let fx = send(&mut s, Msg::Improve(Change::PassEpreuve));
    let run = started(&fx, |w| matches!(w, Work::FetchQuestions { .. })).unwrap();
    let vectors = set("epreuve-local.safetensors")
        .questions
        .into_iter()
        .collect();
    send(
        &mut s,
        Msg::Report(run, Report::EpreuveRead(Ok(questions), vectors)),
    );
    let pass = s.data.improve.epreuve.pass.clone().unwrap().unwrap();
    assert_eq!(pass.before.method, "hybride local");
    // The terminal, on the same questions and vectors, ranks every question the same.
    let terminal = |args: &[&str]| {
        terminal_ranks(
            args,
            &[
                "--questions",
                "data/epreuve.csv",
                "--vecteurs-local",
                "data/epreuve-local.safetensors",
                "--modele",
                "nowhere",
            ],
        )
    };
    assert_eq!(ranks_of(&pass.before), terminal(&["hybride local"]));
    assert_eq!(
        ranks_of(&pass.after),
        terminal(&["hybride local", "--rrf-k", "5"])
    );
}

#[test]
fn ameliorer_starting_again_from_mots_plus_and_a_sweep() {
    use rag_fiches::improve::sweep::Grid;
    use rag_fiches::page::improve::Change;
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    improve(&mut s, Change::Start(Method::MOTS_PLUS));
    assert_eq!(s.data.improve.before.as_ref().unwrap().method, "mots+");
    assert!(s.data.improve.diff.as_ref().unwrap().up.is_empty());
    improve(&mut s, Change::Stem(false));
    let d = s.data.improve.diff.clone().unwrap();
    assert!(!d.down.is_empty(), "stemming off loses questions: {d:?}");
    improve(&mut s, Change::Sweep(Grid::K1B));
    let sweep = s.data.improve.sweep.clone().unwrap();
    assert_eq!(sweep.points.len(), 35);
    improve(&mut s, Change::KeepSwept);
    assert_eq!(
        s.data.improve.settings.as_ref().unwrap().k1,
        sweep.points[sweep.best_calibration].settings.k1
    );
    // A dense method without its vectors says what is missing.
    improve(&mut s, Change::Start(Method::SensLocal));
    assert!(s
        .data
        .improve
        .error
        .as_deref()
        .unwrap()
        .contains("sens local"));
    assert!(s.data.improve.after.is_none());
}

#[test]
fn ameliorer_a_link_naming_an_unknown_fiche_is_said_then_another_link_measures() {
    let mut s = state();
    let bad = ViewState::from_fragment("#vue=ameliorer&rm=mots&ren=AR-9999:x");
    send(&mut s, Msg::Nav(NavMsg::FragmentChanged(bad)));
    assert!(s.data.improve.error.as_deref().unwrap().contains("AR-9999"));
    assert!(s.data.improve.after.is_none());
    // Said once: other messages do not measure it again, and do not clear it.
    send(&mut s, Msg::Search(SearchMsg::Typed("colle".into())));
    assert!(s.data.improve.error.is_some() && s.data.improve.after.is_none());
    let good = ViewState::from_fragment("#vue=ameliorer&rm=mots&rb=0");
    send(&mut s, Msg::Nav(NavMsg::FragmentChanged(good)));
    assert!(s.data.improve.error.is_none());
    assert_eq!(
        s.data.improve.after.as_ref().unwrap().method,
        "mots (b = 0)"
    );
}

#[test]
fn ameliorer_starts_a_new_session_for_a_new_catalogue() {
    use rag_fiches::page::improve::Change;
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    improve(&mut s, Change::K1(0.9));
    assert_eq!(s.data.improve.history.len(), 2);
    load_learner(&mut s);
    // The settings stay; the history was of the other catalogue.
    assert_eq!(s.data.improve.settings.as_ref().unwrap().k1, 0.9);
    assert_eq!(s.data.improve.history.len(), 1);
}

#[test]
fn shipped_reranked_lists_are_measured_like_methods_and_gone_with_the_catalogue() {
    let mut s = state();
    let file = shipped_file(&s);
    let run = run_for(&mut s, Subject::ShippedAnswers);
    send(
        &mut s,
        Msg::Report(run, Report::AnswersShipped(Ok(Box::new(file)))),
    );
    let names: Vec<String> = s.data.measured().iter().map(|m| m.method.clone()).collect();
    assert!(names.contains(&"mots+ reclassé".to_owned()), "{names:?}");
    let reranked = s
        .data
        .measured()
        .into_iter()
        .find(|m| m.method == "mots+ reclassé")
        .unwrap();
    let first_stage = s
        .data
        .measured()
        .into_iter()
        .find(|m| m.method == "mots+")
        .unwrap();
    // Marked 10 when read: first wherever mots+ had it in its top 20.
    for (r, f) in reranked.questions.iter().zip(&first_stage.questions) {
        if f.rank.is_some_and(|k| k <= 10) {
            assert_eq!(r.rank, Some(1), "{}", r.question);
        }
    }
    assert!(matches!(s.data.shipped, Some(Ok(_))));
    // A file for a catalogue since replaced is dropped.
    let stale = shipped_file(&s);
    load_learner(&mut s);
    send(
        &mut s,
        Msg::Report(run, Report::AnswersShipped(Ok(Box::new(stale)))),
    );
    assert!(s.data.shipped.is_none());
    assert!(s
        .data
        .measured()
        .iter()
        .all(|m| !m.method.ends_with("reclassé")));
}

#[test]
fn a_deploy_that_publishes_no_answers_is_known_as_such() {
    let mut s = state();
    assert!(!s.shipped_none(), "its manifest names answers");
    s.shipped_files = None;
    assert!(!s.shipped_none(), "not known before the manifest is read");
    s.shipped_files = Some(ShippedFiles::default());
    let fx = send(&mut s, Msg::Step);
    assert!(s.shipped_none());
    assert!(s.data.shipped.is_none());
    // Nothing is fetched for them.
    assert!(started(&fx, |w| matches!(w, Work::FetchAnswers { .. })).is_none());
    assert!(s
        .jobs
        .run_of(&JobKey {
            catalogue: s.data.epoch,
            subject: Subject::ShippedAnswers
        })
        .is_none());
    // Another catalogue: its own answers are not the exercise's.
    load_learner(&mut s);
    assert!(!s.shipped_none());
}

#[test]
fn the_copied_link_says_it_keeps_the_settings_of_ameliorer_when_it_does() {
    let mut s = state();
    let said = s.share_note(true);
    assert!(said.starts_with("Lien copié"), "{said}");
    assert!(!said.contains("réglages"), "{said}");
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    let said = s.share_note(false);
    assert!(said.starts_with("Copiez ce lien"), "{said}");
    assert!(
        said.contains("les réglages d'«\u{202f}Améliorer\u{202f}»"),
        "{said}"
    );
    assert!(said.ends_with("jamais la clé."), "{said}");
}

#[test]
fn a_refused_shipped_file_shows_why_and_nothing_of_it() {
    let mut s = state();
    report_from(
        &mut s,
        Subject::ShippedAnswers,
        Report::AnswersShipped(Err("refusé".into())),
    );
    assert_eq!(
        s.data
            .shipped
            .as_ref()
            .unwrap()
            .as_ref()
            .err()
            .map(String::as_str),
        Some("refusé")
    );
    assert!(s.data.reranked.is_empty());
}

#[test]
fn mesurer_les_reponses_offers_the_whole_catalogue_and_judges_with_the_cheapest_model() {
    use rag_fiches::answer::Source;
    let mut s = state();
    with_key(&mut s);
    assert!(s.evaluation_sources().contains(&Source::Catalogue));
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalSourceChosen(Source::Catalogue)),
    );
    send(&mut s, Msg::Answer(AnswerMsg::EvalAsked));
    let fx = send(&mut s, Msg::Answer(AnswerMsg::EvalConfirmed));
    let (judge, source, items) = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                work:
                    Work::Evaluate {
                        judge,
                        source,
                        items,
                        ..
                    },
                ..
            } => Some((judge.clone(), *source, items)),
            _ => None,
        })
        .expect("the run starts");
    assert_eq!(source, Source::Catalogue);
    assert_eq!(judge, rag_fiches::mistral::chat::cheapest());
    assert_eq!(items.len(), 40);
    assert_eq!(items[0].ids.len(), 200);
    // Every fiche is in the prompt, the question last.
    assert!(items[0].messages[1].content.contains("[AR-0200]"));
    assert!(items[0].messages[1]
        .content
        .ends_with(&format!("Question : {}", s.data.questions[0].text)));
}

#[test]
fn a_catalogue_too_large_for_one_prompt_is_not_offered_whole() {
    use rag_fiches::answer::Source;
    let (mut f, q) = exercise();
    for fiche in &mut f {
        fiche.texte = fiche.texte.repeat(12);
    }
    let s = State::new(Dataset::new(0, f.clone(), q.clone(), None), (f, q), nfc);
    assert!(!s.evaluation_sources().contains(&Source::Catalogue));
}

#[test]
fn reclasser_asks_before_paying_once_and_measures_its_lists_like_a_method() {
    let mut s = state();
    send(&mut s, Msg::Answer(AnswerMsg::RerankAsked));
    assert!(
        !s.data.evaluation.rerank_confirming,
        "no key: nothing to confirm"
    );
    with_key(&mut s);
    let mut fx = send(&mut s, Msg::Answer(AnswerMsg::RerankAsked));
    fx.extend(send(&mut s, Msg::Answer(AnswerMsg::RerankAsked)));
    let rerank = |w: &Work| matches!(w, Work::Rerank { .. });
    assert_eq!(count_started(&fx, rerank), 0);
    let fx = send(&mut s, Msg::Answer(AnswerMsg::RerankConfirmed));
    let again = send(&mut s, Msg::Answer(AnswerMsg::RerankConfirmed));
    assert_eq!(count_started(&again, rerank), 0);
    let (run, method, items) = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                run,
                work: Work::Rerank { method, items, .. },
            } => Some((*run, *method, items)),
            _ => None,
        })
        .expect("the reranking starts");
    assert_eq!(Some(method), s.rerank_method());
    assert_eq!(items.len(), 40);
    assert!(items.iter().all(|i| i.read.len() == 20));
    // The model marks each list's last fiche 10: it comes first.
    let lists = items
        .iter()
        .map(|i| rag_fiches::answer::shipped::RerankedList {
            read: i.read.clone(),
            reply: format!("{} : 10", i.read[19]),
            tokens: Default::default(),
        })
        .collect();
    send(
        &mut s,
        Msg::Report(
            run,
            Report::RerankEnded(Ok(RerankRun {
                model: "mistral-small-latest".into(),
                reranked: rag_fiches::answer::shipped::Reranked {
                    stage: method.name().into(),
                    lists,
                },
            })),
        ),
    );
    assert!(!s.data.evaluation.rerank_phase.is_running());
    let name = format!("{} reclassé", method.name());
    let m = s
        .data
        .measured()
        .into_iter()
        .find(|m| m.method == name)
        .expect("measured like a method");
    assert_eq!(m.questions[0].top[0].0, items[0].read[19]);
    assert_eq!(s.data.evaluation.reranks.len(), 1);
    // In the exports too: the CSV's rows, and a TREC run of its own.
    let downloads = |fx: &[Effect]| -> Vec<(String, String)> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::Download(name, bytes) => {
                    Some((name.clone(), String::from_utf8_lossy(bytes).into_owned()))
                }
                _ => None,
            })
            .collect()
    };
    let csv = downloads(&send(
        &mut s,
        Msg::Measure(MeasureMsg::ExportRequested("csv".into())),
    ));
    assert!(csv[0].1.contains(&name), "{}", &csv[0].1[..200]);
    let run = downloads(&send(
        &mut s,
        Msg::Measure(MeasureMsg::ExportRequested(format!("run:{name}"))),
    ));
    assert_eq!(run.len(), 1);
    assert!(run[0].0.starts_with("run-") && run[0].1.contains(&items[0].read[19]));
}

#[test]
fn forgetting_the_key_stops_a_reranking_and_says_so() {
    let mut s = state();
    with_key(&mut s);
    send(&mut s, Msg::Answer(AnswerMsg::RerankAsked));
    let fx = send(&mut s, Msg::Answer(AnswerMsg::RerankConfirmed));
    let call = started(&fx, |w| matches!(w, Work::Rerank { .. })).unwrap();
    let fx = send(&mut s, Msg::Key(KeyMsg::Forgotten));
    assert!(stops(&fx).contains(&call));
    assert!(!s.data.evaluation.rerank_phase.is_running());
    assert!(s
        .data
        .evaluation
        .rerank_message
        .as_deref()
        .unwrap()
        .starts_with("Reclassement interrompu"));
}

/// The judge's reply about the answer shown, as « La réponse » shows it.
fn verdict(s: &State) -> Option<Result<String, String>> {
    let r = s.data.answering.result.as_ref()?;
    let Ok((chat, _)) = &r.outcome else {
        return None;
    };
    s.data
        .chats
        .reply(
            Control::Judge,
            update::judged_about(&chat.content, &judge_or_default(&s.choices.judge)),
        )
        .cloned()
}

#[test]
fn the_judge_of_an_answer_is_asked_on_a_click_and_its_verdict_kept_only_for_that_answer() {
    let mut s = state();
    with_key(&mut s);
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un ciment blanc ?".into())),
    );
    let (f, _) = exercise();
    let chat = |content: &str| Chat {
        content: content.into(),
        prompt_tokens: 10,
        completion_tokens: 5,
        finish_reason: Some("stop".into()),
        obtained: None,
    };
    // An answer asked for, and shown.
    let shown = |s: &mut State, content: &str| {
        let fx = send(s, Msg::Answer(AnswerMsg::Requested));
        let run = started(&fx, |w| matches!(w, Work::Answer { .. })).unwrap();
        let result = AnswerResult {
            question: "Un ciment blanc ?".into(),
            model: "mistral-small-latest".into(),
            sent: f[..5].to_vec(),
            outcome: Ok((chat(content), false)),
        };
        send(s, Msg::Report(run, Report::AnswerShown(result)))
    };
    shown(&mut s, "Le ciment [AR-0003].");
    let fx = send(&mut s, Msg::Answer(AnswerMsg::JudgeRequested));
    let (run, model, messages) = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                run,
                work: Work::Chat {
                    model, messages, ..
                },
            } => Some((*run, model.clone(), messages.clone())),
            _ => None,
        })
        .expect("the judge is asked");
    assert_eq!(model, rag_fiches::mistral::chat::cheapest());
    assert!(messages[1]
        .content
        .ends_with("Question : Un ciment blanc ?\n\nRéponse : Le ciment [AR-0003]."));
    assert!(s.data.chats.asking(Control::Judge));
    // A second click while it runs asks nothing more.
    let again = send(&mut s, Msg::Answer(AnswerMsg::JudgeRequested));
    assert_eq!(count_started(&again, |w| matches!(w, Work::Chat { .. })), 0);
    send(&mut s, Msg::Report(run, Report::Chatted(Ok("OUI".into()))));
    assert_eq!(verdict(&s), Some(Ok("OUI".into())));
    // Another judge chosen: the verdict is not shown under its name; the first one back, it is.
    let first_judge = judge_or_default(&s.choices.judge);
    send(
        &mut s,
        Msg::Answer(AnswerMsg::EvalJudgeChosen("mistral-large-latest".into())),
    );
    assert_eq!(verdict(&s), None);
    send(&mut s, Msg::Answer(AnswerMsg::EvalJudgeChosen(first_judge)));
    assert_eq!(verdict(&s), Some(Ok("OUI".into())));
    // The judge asked again, then another answer asked for: that judge stops, the old verdict
    // goes, and a late verdict for the old answer is dropped.
    send(&mut s, Msg::Report(run, Report::Chatted(Ok("NON".into()))));
    assert_eq!(verdict(&s), Some(Ok("OUI".into())));
    let fx = send(&mut s, Msg::Answer(AnswerMsg::JudgeRequested));
    let second = started(&fx, |w| matches!(w, Work::Chat { .. })).unwrap();
    assert_ne!(second, run);
    shown(&mut s, "Le ciment gris [AR-0001].");
    assert!(
        s.jobs.key_of(second).is_none(),
        "the old answer's judge still runs"
    );
    assert_eq!(verdict(&s), None);
    send(
        &mut s,
        Msg::Report(second, Report::Chatted(Ok("NON".into()))),
    );
    assert_eq!(verdict(&s), None);
}

/// rt4 R4: a worker that could not start (its module not fetched, offline) is said, and the next
/// typed question starts again (the model handed to a new worker), never « until a reload »; a
/// worker that died after starting still is final.
#[test]
fn rt4_r4_a_worker_that_could_not_start_is_started_again_at_the_next_question() {
    let mut s = downloading_local_model();
    send(
        &mut s,
        Msg::Local(LocalMsg::WorkerNotStarted(
            "son module n'a pas pu être chargé".into(),
        )),
    );
    assert!(
        matches!(&s.local, LocalModel::Unavailable(why) if why.contains("réessayer") && !why.contains("rechargement"))
    );
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant phonique".into())),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 1);
    send(&mut s, Msg::Local(LocalMsg::WorkerDied("crash".into())));
    let fx = send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant thermique".into())),
    );
    assert_eq!(count_started(&fx, |w| matches!(w, Work::LoadLocalModel)), 0);
}

#[test]
fn the_effect_of_a_change_is_summed_up_in_three_lines() {
    use rag_fiches::page::improve::{summary, Change};
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    let first = summary(&s.data, false).expect("the start is measured");
    assert!(
        first.figures.starts_with(
            "Courantes\u{a0}: en tête 8/20 → 8/20, dans les 5 premières 15/20 → 15/20"
        ),
        "{}",
        first.figures
    );
    assert_eq!(first.moved, "Aucune question n'a changé de rang.");
    improve(&mut s, Change::Stem(true));
    let after = summary(&s.data, false).unwrap();
    let d = s.data.improve.diff.as_ref().unwrap();
    assert!(!d.up.is_empty(), "stemming lifts some");
    assert!(
        after.moved.starts_with(&rag_fiches::fr::count(
            d.up.len() as u64,
            "question",
            "questions"
        )),
        "{}",
        after.moved
    );
    assert!(after.moved.contains(&d.up[0].question), "{}", after.moved);
    assert!(
        after.criteria.starts_with("Critères de recherche\u{a0}: "),
        "{}",
        after.criteria
    );
    // Its figures are the table's: the courantes' hit@5 after the change.
    let hit5 = s
        .data
        .improve
        .after
        .as_ref()
        .unwrap()
        .kinds
        .iter()
        .find(|k| k.kind == rag_fiches::data::QuestionKind::Courante)
        .unwrap()
        .hit5;
    assert!(
        after.figures.contains(&format!("15/20 → {hit5}/20")),
        "{}",
        after.figures
    );
}

#[test]
fn the_criteria_say_which_change_met_them_and_ask_for_the_three_measurements() {
    use rag_fiches::improve::checklist::{Status, COURANTES, EXACTES, THREE};
    use rag_fiches::page::improve::{criteria, met_by, summary, Change, MetBy};
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    assert_eq!(met_by(&s.data.improve, EXACTES), Some(MetBy::Start));
    assert_eq!(met_by(&s.data.improve, COURANTES), None);
    improve(&mut s, Change::K1(1.2));
    improve(&mut s, Change::Stem(true));
    improve(&mut s, Change::B(0.7));
    // The courantes' criterion holds since stemming, not since the last change nor the first.
    let since = MetBy::Change("racine Snowball ajoutée".into());
    assert_eq!(met_by(&s.data.improve, COURANTES), Some(since.clone()));
    assert_eq!(met_by(&s.data.improve, EXACTES), Some(MetBy::Start));
    let list = criteria(&s.data, false).unwrap();
    let status = |label: &str| list.iter().find(|c| c.label == label).unwrap().status;
    assert_eq!(status(COURANTES), Status::Met);
    assert_eq!(status(EXACTES), Status::Met);
    // Stemming alone does not meet the first three: the sense and the fusion are not measured.
    assert_eq!(status(THREE), Status::NotMet);
    let line = summary(&s.data, false).unwrap().criteria;
    assert!(
        line.contains("(atteints par «\u{202f}racine Snowball ajoutée\u{202f}»)")
            && line.contains("pas encore\u{a0}: trois mesures"),
        "{line}"
    );
    // Undone back past stemming, the criterion no longer holds.
    improve(&mut s, Change::Undo);
    improve(&mut s, Change::Undo);
    assert_eq!(met_by(&s.data.improve, COURANTES), None);
    // « Reprendre » the row with stemming: it holds since stemming again.
    let row = s
        .data
        .improve
        .history
        .iter()
        .position(|t| t.settings.analysis.stem && t.settings.b == 0.75)
        .unwrap();
    improve(&mut s, Change::Replay(row));
    assert_eq!(met_by(&s.data.improve, COURANTES), Some(since));
    // Another starting method that meets it: from its start, not since a change of another one.
    improve(&mut s, Change::Start(Method::MOTS_PLUS));
    assert_eq!(met_by(&s.data.improve, COURANTES), Some(MetBy::Start));
    // Settings opened by a link are the history's first row: the exactes held before them.
    let mut s = state();
    let link = ViewState::from_fragment("#vue=ameliorer&rm=mots&rk1=1.2");
    send(&mut s, Msg::Nav(NavMsg::FragmentChanged(link)));
    assert_eq!(
        s.data.improve.history.len(),
        1,
        "the link's settings, not the start"
    );
    assert_eq!(met_by(&s.data.improve, EXACTES), Some(MetBy::Start));
}

#[test]
fn a_slider_dragged_is_one_change_in_the_history_and_one_undo_which_appends_nothing() {
    use rag_fiches::page::improve::Change;
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    assert_eq!(s.data.improve.history.len(), 1);
    // k1 dragged from 1,5 to 0,2: thirteen values, the figures following each.
    for i in 1..=13 {
        let k1 = (15 - i) as f64 / 10.0;
        improve(&mut s, Change::K1(k1));
        assert_eq!(s.data.improve.settings.as_ref().unwrap().k1, k1);
        assert!(s.data.improve.after.as_ref().unwrap().method.contains("k1"));
    }
    assert_eq!(s.data.improve.history.len(), 2, "one row for the drag");
    assert_eq!(
        s.data.improve.history[1].settings.k1, 0.2,
        "the row holds where the drag ended"
    );
    // Another control ends the gesture: its own row.
    improve(&mut s, Change::B(0.5));
    assert_eq!(s.data.improve.history.len(), 3);
    // « Annuler » twice: b back, then k1 back to where the drag began; no row added.
    improve(&mut s, Change::Undo);
    assert_eq!(s.data.improve.settings.as_ref().unwrap().b, 0.75);
    assert_eq!(s.data.improve.settings.as_ref().unwrap().k1, 0.2);
    improve(&mut s, Change::Undo);
    assert_eq!(s.data.improve.settings.as_ref().unwrap().k1, 1.5);
    assert_eq!(
        s.data.improve.history.len(),
        3,
        "« Annuler » goes back to rows, it adds none"
    );
    // « Reprendre » a row adds none either, and each settings has one row.
    improve(&mut s, Change::Replay(2));
    assert_eq!(s.data.improve.settings.as_ref().unwrap().b, 0.5);
    assert_eq!(s.data.improve.history.len(), 3);
    let rows: Vec<_> = s.data.improve.history.iter().map(|t| &t.settings).collect();
    for (i, a) in rows.iter().enumerate() {
        assert!(rows[i + 1..].iter().all(|b| b != a), "twice: {a:?}");
    }
    // A drag that comes back to where it began leaves no row of its own.
    improve(&mut s, Change::K1(0.3));
    assert_eq!(s.data.improve.history.len(), 4);
    improve(&mut s, Change::K1(0.2));
    assert_eq!(s.data.improve.settings.as_ref().unwrap().k1, 0.2);
    assert_eq!(s.data.improve.history.len(), 3);
}

#[test]
fn an_enrichment_without_words_twice_or_of_stop_words_only_is_said_and_changes_nothing() {
    use rag_fiches::improve::Enrichment;
    use rag_fiches::page::improve::Change;
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    let enrich = |id: &str, words: &str| {
        Change::Enrich(Enrichment {
            id: id.into(),
            words: words.into(),
            product: false,
        })
    };
    improve(&mut s, enrich("AR-9999", "x"));
    assert_eq!(
        s.data.improve.error.as_deref(),
        Some("Aucune fiche AR-9999 dans ce catalogue.")
    );
    // A later attempt with no words replaces that error with its own.
    improve(&mut s, enrich("AR-0063", "  "));
    assert_eq!(
        s.data.improve.error.as_deref(),
        Some("Écrivez les mots à ajouter à la fiche AR-0063.")
    );
    improve(&mut s, enrich("AR-0063", "ne brûle pas"));
    assert_eq!(s.data.improve.error, None);
    assert_eq!(s.data.improve.settings.as_ref().unwrap().enrich.len(), 1);
    let rows = s.data.improve.history.len();
    // The same words again: said, not counted twice.
    improve(&mut s, enrich("AR-0063", "ne brûle pas "));
    assert!(s
        .data
        .improve
        .error
        .as_deref()
        .unwrap()
        .contains("a déjà ces mots"));
    assert_eq!(s.data.improve.settings.as_ref().unwrap().enrich.len(), 1);
    // Stop words only (the seed's list has « pas » and « de »): said, nothing added.
    improve(&mut s, enrich("AR-0063", "pas de"));
    let said = s.data.improve.error.clone().unwrap();
    assert!(said.contains("ne compte pour rien"), "{said}");
    assert_eq!(s.data.improve.settings.as_ref().unwrap().enrich.len(), 1);
    assert_eq!(s.data.improve.history.len(), rows);
}

#[test]
fn the_page_is_ready_once_its_reads_are_done_and_the_exercises_vectors_looked_for() {
    let mut s = state();
    let fx = send(&mut s, Msg::Step);
    // The shipped files are looked for at once, each by its own job.
    let find = started(&fx, |w| {
        matches!(
            w,
            Work::FindVectors {
                shipped: Some(_),
                ..
            }
        )
    });
    let local = started(&fx, |w| matches!(w, Work::FetchLocalVectors { .. }));
    assert!(find.is_some() && local.is_some());
    assert!(started(&fx, |w| matches!(w, Work::FetchAnswers { .. })).is_some());
    let ready = |fx: &[Effect]| fx.iter().filter(|e| matches!(e, Effect::Ready)).count();
    assert_eq!(ready(&send(&mut s, Msg::Settled)), 0);
    assert_eq!(
        ready(&report_from(
            &mut s,
            Subject::LocalVectors,
            Report::LocalVectors(None)
        )),
        0
    );
    // The shipped file refused: said, and this browser's cache looked in before the page is
    // ready.
    let fx = report_from(
        &mut s,
        Subject::FindVectors,
        Report::VectorsRefused("Le fichier livré est refusé".into()),
    );
    assert_eq!(ready(&fx), 0);
    assert!(s.data.vectors_origin.contains("refusé"));
    let fx = report_from(&mut s, Subject::FindVectors, Report::VectorsSought);
    assert_eq!(ready(&fx), 1);
    assert!(s.ready);
    // Said once: a later catalogue's search for its vectors does not make the page « ready »
    // again.
    let fx = load_learner(&mut s);
    assert_eq!(ready(&fx), 0);
    assert!(s.ready);
}

#[test]
fn vectors_found_for_a_catalogue_since_replaced_are_let_go_by_the_worker() {
    let mut s = state();
    let run = run_for(&mut s, Subject::FindVectors);
    load_learner(&mut s);
    let fx = send(
        &mut s,
        Msg::Report(
            run,
            Report::VectorsAttached {
                set: 7,
                info: info(),
                questions: Vec::new(),
                origin: "livrés".into(),
                bytes: None,
            },
        ),
    );
    assert_eq!(forgets(&fx), vec![7]);
    assert_eq!(s.data.lab.vectors_away(), None);
}

#[test]
fn a_chat_asked_without_a_key_is_dropped_and_a_key_typed_later_pays_nothing() {
    let mut s = state();
    s.data
        .chats
        .ask(Control::Judge, "mistral-small-latest".into(), Vec::new(), 1);
    send(&mut s, Msg::Step);
    assert!(!s.data.chats.asking(Control::Judge));
    with_key(&mut s);
    let fx = send(&mut s, Msg::Step);
    assert_eq!(count_started(&fx, |w| matches!(w, Work::Chat { .. })), 0);
}

/// Without storage (a private window, IndexedDB refused), the journal's read says so, and the
/// page is ready all the same, the journal shown kept.
#[test]
fn a_journal_that_cannot_be_read_keeps_the_one_shown_and_the_page_gets_ready() {
    let mut s = state();
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("zzzz qqqq wwww".into())),
    );
    send(&mut s, Msg::Search(SearchMsg::Committed));
    let shown = s.journal.clone();
    assert!(!shown.entries.is_empty());
    send(&mut s, Msg::Journal(JournalMsg::Changed));
    send(&mut s, Msg::Settled);
    report_from(&mut s, Subject::FindVectors, Report::VectorsSought);
    report_from(&mut s, Subject::LocalVectors, Report::LocalVectors(None));
    assert!(!s.ready, "the journal's read is still under way");
    let fx = report_from(&mut s, Subject::ReadJournal(1), Report::JournalRead(None));
    assert!(fx.iter().any(|e| matches!(e, Effect::Ready)));
    assert_eq!(s.journal, shown);
}

#[test]
fn la_reponse_offers_only_the_methods_shown_whose_fiche_vectors_are_there() {
    let mut s = state();
    assert!(
        s.shown.contains(&Method::Sens)
            && s.shown
                .contains(&Method::Hybride(rag_fiches::lab::Keyword::Mots))
    );
    // No Mistral vectors yet: « sens » and « hybride » find nothing to send.
    let offered = s.answer_methods();
    assert!(offered.iter().all(|m| !m.uses_mistral()), "{offered:?}");
    assert_eq!(s.answer_method(), Some(Method::MOTS_PLUS));
    // Their vectors there, the fusion is offered first.
    with_vectors(&mut s, 1);
    assert!(s.answer_methods().contains(&Method::Sens));
    assert_eq!(
        s.answer_method(),
        Some(Method::Hybride(rag_fiches::lab::Keyword::Mots))
    );
}

#[test]
fn a_catalogue_alone_is_read_searched_and_not_measured() {
    use rag_fiches::page::improve::Change;
    let mut s = state();
    // Fiches alone are read: no refusal for want of questions.
    let fx = send(
        &mut s,
        Msg::Catalogue(CatalogueMsg::FilesChosen(files(&["f.jsonl"]))),
    );
    let seq = read_seq(&fx);
    assert!(s.data_errors.is_empty(), "{:?}", s.data_errors);
    let (f, _) = exercise();
    let alone = Dataset::new(0, f, Vec::new(), Some("vos données (f.jsonl)".into()));
    send(
        &mut s,
        Msg::Report(seq, Report::DatasetLoaded(Box::new(alone))),
    );
    assert_eq!(s.data.label.as_deref(), Some("vos données (f.jsonl)"));
    assert!(!s.data.measurable());
    // Searched with every keyless method.
    send(
        &mut s,
        Msg::Search(SearchMsg::Typed("Un isolant qui ne brûle pas".into())),
    );
    let top = s
        .data
        .lab
        .keyword_search(rag_fiches::lab::Keyword::MotsPlus, &s.question, 5);
    assert!(!top.is_empty());
    // « Améliorer » has nothing to measure: no job, no figures, a change does nothing.
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    assert!(s.data.improve.job.is_none() && s.data.improve.after.is_none());
    improve(&mut s, Change::Stem(true));
    assert!(s.data.improve.after.is_none());
}

#[test]
fn a_change_says_its_gap_with_its_interval_and_the_questions_it_would_take() {
    use rag_fiches::page::improve::Change;
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    improve(&mut s, Change::Stem(true));
    let im = &s.data.improve;
    let d = im.diff.as_ref().unwrap();
    // The gap is MRR@10's over the answerable questions, before → after.
    let mrr = |m: &rag_fiches::measure::Measurement| rag_fiches::improve::sweep::mrr(m, |_| true);
    let (before, after) = (im.before.as_ref().unwrap(), im.after.as_ref().unwrap());
    assert!((d.gap.delta - (mrr(after) - mrr(before))).abs() < 1e-12);
    assert_eq!(d.gap.n, 35);
    assert!(d.gap.ci.0 <= d.gap.delta && d.gap.delta <= d.gap.ci.1);
    assert!(
        d.gap_said.starts_with("Écart de MRR@10\u{a0}: +0,")
            && d.gap_said.contains("intervalle à 95\u{a0}% ["),
        "{}",
        d.gap_said
    );
    // Undone, nothing moves: nothing to say.
    improve(&mut s, Change::Undo);
    assert_eq!(s.data.improve.diff.as_ref().unwrap().gap_said, "");
}

#[test]
fn the_enriched_catalogue_leaves_the_lab_as_the_terminal_writes_it() {
    use rag_fiches::page::improve::Change;
    let root = env!("CARGO_MANIFEST_DIR");
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)));
    let download = |s: &mut State, what: &str| -> Option<(String, Vec<u8>)> {
        send(s, Msg::Measure(MeasureMsg::ExportRequested(what.into())))
            .into_iter()
            .find_map(|e| match e {
                Effect::Download(name, bytes) => Some((name, bytes)),
                _ => None,
            })
    };
    // Nothing enriched: nothing to export.
    assert!(download(&mut s, "fiches-enrichies").is_none());
    for (id, words, product) in [
        ("AR-0063", "ne brûle pas", false),
        ("AR-0016", "pour soufflage", true),
    ] {
        improve(
            &mut s,
            Change::Enrich(rag_fiches::improve::Enrichment {
                id: id.into(),
                words: words.into(),
                product,
            }),
        );
    }
    let (name, added) = download(&mut s, "enrichissements").unwrap();
    assert_eq!(name, "enrichissements.txt");
    assert_eq!(
        String::from_utf8(added.clone()).unwrap(),
        "AR-0063;ne brûle pas\nAR-0016+;pour soufflage\n"
    );
    let (name, page) = download(&mut s, "fiches-enrichies").unwrap();
    assert_eq!(name, "fiches-enrichies.jsonl");
    // The terminal, given the page's additions, writes the same bytes.
    let dir = std::env::temp_dir().join(format!("enrichi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (list, out) = (dir.join("enrichissements.txt"), dir.join("fiches.jsonl"));
    std::fs::write(&list, &added).unwrap();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_mesurer"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let enriched = run(&[
        "--enrichir",
        list.to_str().unwrap(),
        "--exporter-fiches",
        out.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read(&out).unwrap(), page);
    // Re-measured as a catalogue, it gives the enriched figures; only its enriched lines differ.
    let again = run(&["--fiches", out.to_str().unwrap()]);
    let courantes = |t: &str| t.lines().nth(2).unwrap().to_owned();
    assert_eq!(courantes(&again), courantes(&enriched));
    let original = std::fs::read_to_string(format!("{root}/data/fiches.jsonl")).unwrap();
    let page = String::from_utf8(page).unwrap();
    let changed: Vec<&str> = original
        .lines()
        .zip(page.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| &a[8..15])
        .collect();
    // AR-0063, and AR-0016 with every variant of its product.
    assert!(
        changed.contains(&"AR-0063") && changed.contains(&"AR-0016"),
        "{changed:?}"
    );
    assert!(changed.len() > 2, "{changed:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_catalogue_read_without_its_refused_vectors_says_so_and_keeps_its_local_question_vectors() {
    let mut s = state();
    let seq = choose(&mut s, &["f.jsonl", "q.csv", "v.safetensors"]);
    let mut data = learner_dataset("vos données");
    data.intake_note = Some(
        "v.safetensors : refusé. Vos fiches et vos questions sont chargées sans ce fichier.".into(),
    );
    data.shipped_local_questions = vec![("Une question".into(), unit(3))];
    send(
        &mut s,
        Msg::Report(seq, Report::DatasetLoaded(Box::new(data))),
    );
    assert_eq!(s.data.label.as_deref(), Some("vos données"));
    assert_eq!(
        s.data_errors,
        vec![
            "v.safetensors : refusé. Vos fiches et vos questions sont chargées sans ce fichier."
                .to_owned()
        ]
    );
    assert_eq!(s.local_qvectors.get("Une question"), Some(&unit(3)));
    assert!(s.data.intake_note.is_none() && s.data.shipped_local_questions.is_empty());
}

#[test]
fn the_local_vectors_of_a_learners_catalogue_from_its_file_are_measured_at_once() {
    let mut s = state();
    let seq = choose(&mut s, &["f.jsonl", "q.csv", "v.safetensors"]);
    let mut data = learner_dataset("vos données");
    let dim = rag_fiches::encoder::DIM;
    let one = |i: usize| {
        let mut v = vec![0.0; dim];
        v[i % dim] = 1.0;
        v
    };
    let rows = (0..data.lab.fiches().len()).map(one).collect();
    let set = rag_fiches::data::vectors::VectorSet::new(
        rag_fiches::encoder::MODEL,
        data.lab.fiches(),
        rows,
    )
    .unwrap();
    data.lab.set_local_vectors(set).unwrap();
    data.shipped_local_questions = data
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| (q.text.clone(), one(i)))
        .collect();
    let fx = send(
        &mut s,
        Msg::Report(seq, Report::DatasetLoaded(Box::new(data))),
    );
    settle(&mut s, fx);
    let measured: Vec<&str> = s
        .data
        .measurements
        .iter()
        .map(|m| m.method.as_str())
        .collect();
    assert!(
        measured.contains(&"sens local") && measured.contains(&"hybride local"),
        "{measured:?}"
    );
}
