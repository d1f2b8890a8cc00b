//! « Questions »' judging by hand, in the page's model: the pool of the measured methods' first
//! fiches, one pair at a time, kept on the device at each judgment, read back after a reload,
//! and the graded measures moved by it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rag_fiches::measure::graded;
use rag_fiches::page::*;

mod common;
use common::*;

/// The pair the view shows now.
fn next(s: &State) -> (usize, String) {
    let j = &s.data.judging;
    j.pool.next(&j.hand).cloned().expect("a pair to judge")
}

fn grade(s: &mut State, grade: u8) -> Vec<Effect> {
    let (question, fiche) = next(s);
    send(
        s,
        Msg::Judge(JudgeMsg::Graded {
            question,
            fiche,
            grade,
        }),
    )
}

fn kept(fx: &[Effect]) -> Option<(String, String)> {
    fx.iter().find_map(|e| match e {
        Effect::KeepJudgments { entry, text } => Some((entry.clone(), text.clone())),
        _ => None,
    })
}

/// A state whose kept judgments were read: `stored`.
fn read(stored: Option<String>) -> State {
    let mut s = state();
    report_from(
        &mut s,
        Subject::ReadJudgments,
        Report::JudgmentsRead(stored),
    );
    s
}

#[test]
fn the_pool_is_every_measured_methods_first_ten_without_the_expected_fiches_and_their_variants() {
    let s = read(None);
    let d = &s.data;
    let pool = &d.judging.pool;
    assert!(!pool.is_empty());
    // mots and mots+ are measured at load: every pair of their first ten is pooled, none twice,
    // and none the derived qrels already grade.
    let mut seen = std::collections::HashSet::new();
    for (q, f) in &pool.items {
        assert!(seen.insert((*q, f.clone())), "{q} {f} twice");
        assert!(d.qrels.of(*q).is_none_or(|g| !g.contains_key(f)));
    }
    for m in d.measured() {
        for (q, o) in m.questions.iter().enumerate() {
            for (id, _) in &o.top {
                let known = d.qrels.of(q).is_some_and(|g| g.contains_key(id));
                assert!(known || pool.contains(q, id), "{} q{q} {id}", m.method);
            }
        }
    }
}

#[test]
fn nothing_is_judged_before_the_kept_judgments_are_read_they_would_be_overwritten() {
    let mut s = state();
    send(&mut s, Msg::Step);
    assert!(!s.data.judging.read);
    let (question, fiche) = s.data.judging.pool.items[0].clone();
    let fx = send(
        &mut s,
        Msg::Judge(JudgeMsg::Graded {
            question,
            fiche,
            grade: 1,
        }),
    );
    assert!(kept(&fx).is_none());
    assert!(s.data.judging.hand.is_empty());
}

#[test]
fn each_judgment_is_kept_at_once_and_read_back_after_a_reload_undo_takes_back_the_last() {
    let mut s = read(None);
    let total = s.data.judging.pool.len();
    let first = next(&s);
    grade(&mut s, 0);
    let second = next(&s);
    assert_ne!(first, second);
    let fx = grade(&mut s, 2);
    let (entry, text) = kept(&fx).expect("kept");
    assert!(entry.starts_with(rag_fiches::page::judging::ENTRY_PREFIX));
    assert_eq!(s.data.judging.pool.done(&s.data.judging.hand), 2);
    // Undo: the second pair is shown again, and what is kept says so.
    let fx = send(&mut s, Msg::Judge(JudgeMsg::Undone));
    assert_eq!(next(&s), second);
    assert_eq!(kept(&fx).unwrap().1.lines().count(), 1);
    // A reload reads what was kept: the same progress, the same next pair.
    let again = read(Some(text));
    assert_eq!(again.data.judging.pool.done(&again.data.judging.hand), 2);
    assert_eq!(again.data.judging.pool.len(), total);
    assert_ne!(next(&again), first);
    assert_ne!(next(&again), second);
    // A pair that is not in the pool (a stale view) is not graded.
    let fx = send(
        &mut s,
        Msg::Judge(JudgeMsg::Graded {
            question: 0,
            fiche: "AR-9999".into(),
            grade: 3,
        }),
    );
    assert!(kept(&fx).is_none());
}

#[test]
fn a_hand_grade_moves_the_graded_measures_and_the_export_is_the_qrels_in_force() {
    let mut s = read(None);
    let mots = s.data.measurements[0].clone();
    let before = graded::measure(&mots, &s.data.judging.qrels).all;
    // Every pair of mots' first ten judged « en rapport »: Judged@10 reaches 1.
    while let Some((question, fiche)) = {
        let j = &s.data.judging;
        j.pool
            .items
            .iter()
            .find(|(q, f)| {
                j.hand.grade(*q, f).is_none()
                    && mots.questions[*q].top.iter().any(|(id, _)| id == f)
            })
            .cloned()
    } {
        send(
            &mut s,
            Msg::Judge(JudgeMsg::Graded {
                question,
                fiche,
                grade: 1,
            }),
        );
    }
    let after = graded::measure(&mots, &s.data.judging.qrels).all;
    assert!(before.judged10 < 0.5, "{}", before.judged10);
    assert!((after.judged10 - 1.0).abs() < 1e-12, "{}", after.judged10);
    assert_ne!(before.ndcg10, after.ndcg10);
    let fx = send(&mut s, Msg::Judge(JudgeMsg::Exported));
    let Some(Effect::Download(name, bytes)) = fx.iter().find(|e| matches!(e, Effect::Download(..)))
    else {
        panic!("no download");
    };
    assert_eq!(name, "qrels-graduees.txt");
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        s.data.judging.qrels.to_trec()
    );
}

#[test]
fn kept_judgments_that_no_longer_fit_the_catalogue_are_set_aside_with_a_word() {
    let s = read(Some("q01 0 AR-9999 2\n".into()));
    assert!(s.data.judging.hand.is_empty());
    let message = s.data.judging.message.clone().expect("a message");
    assert!(message.contains("ne se lisent plus"), "{message}");
    assert!(message.contains("ligne 1"), "{message}");
}

#[test]
fn a_storage_that_refuses_the_judgments_is_said_so_the_learner_exports_them() {
    let mut s = read(None);
    grade(&mut s, 1);
    send(&mut s, Msg::Judge(JudgeMsg::Kept(false)));
    assert!(s
        .data
        .judging
        .message
        .as_deref()
        .unwrap()
        .contains("exportez-les"));
    send(&mut s, Msg::Judge(JudgeMsg::Kept(true)));
    assert!(s.data.judging.message.is_none());
}

#[test]
fn the_questions_view_goes_into_a_link_and_comes_back_from_it() {
    use rag_fiches::link::{View, ViewState};
    let mut s = state();
    send(&mut s, Msg::Nav(NavMsg::ViewChosen(View::Questions)));
    let fragment = s.link_state().to_fragment();
    assert!(fragment.starts_with("vue=questions"), "{fragment}");
    assert_eq!(
        ViewState::from_fragment(&format!("#{fragment}")).view,
        View::Questions
    );
}

/// Another judge's file chosen, read by its job: `text` as its content.
fn import(s: &mut State, name: &str, text: &str) -> Vec<Effect> {
    let file = FileRef {
        id: 7,
        name: name.into(),
        size: text.len() as u64,
    };
    let fx = send(s, Msg::Judge(JudgeMsg::FilesChosen(vec![file])));
    let run = fx
        .iter()
        .find_map(|e| match e {
            Effect::Start {
                run,
                work: Work::ReadRuns { .. },
            } => Some(*run),
            _ => None,
        })
        .expect("the file is read");
    send(
        s,
        Msg::Report(run, Report::RunsRead(vec![(name.into(), Ok(text.into()))])),
    )
}

#[test]
fn another_judges_file_is_compared_with_the_hand_and_its_grades_taken_where_none_was_given() {
    let mut s = read(None);
    // Two pairs judged by hand; the other judge agrees on the first, not on the second, and
    // grades a third pair.
    let a = next(&s);
    grade(&mut s, 3);
    let b = next(&s);
    grade(&mut s, 0);
    let c = next(&s);
    let line = |(q, f): &(usize, String), g: u8| format!("q{:02} 0 {f} {g}\n", q + 1);
    let theirs = line(&a, 3) + &line(&b, 2) + &line(&c, 1);
    import(&mut s, "collegue.txt", &theirs);
    let (name, other) = s.data.judging.other.clone().expect("imported");
    assert_eq!(name, "collegue.txt");
    let mine = s.data.judging.hand.over(&Default::default());
    let agree = rag_fiches::measure::judging::Agreement::between(&mine, &other);
    assert_eq!(agree.pairs, 2);
    assert_eq!((agree.confusion[3][3], agree.confusion[0][2]), (1, 1));
    // « Reprendre »: only the pair left ungraded is taken, and kept.
    let fx = send(&mut s, Msg::Judge(JudgeMsg::Adopted));
    assert_eq!(kept(&fx).unwrap().1.lines().count(), 3);
    assert_eq!(
        s.data.judging.hand.grade(b.0, &b.1),
        Some(0),
        "the hand's grade stays"
    );
    assert_eq!(s.data.judging.hand.grade(c.0, &c.1), Some(1));
    // A wrong file is refused whole with its line; the judge imported before stays.
    import(&mut s, "faux.txt", &(line(&a, 3) + "q02 0 AR-9999 1\n"));
    let refused = s.data.judging.refused.clone().expect("refused");
    assert!(refused.starts_with("faux.txt, ligne 2"), "{refused}");
    assert_eq!(s.data.judging.other.as_ref().unwrap().0, "collegue.txt");
}
