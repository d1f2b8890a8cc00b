use super::*;

/// The rehearsal goes through what a first search does: both files parse, and both keyword
/// methods score the fiches, the first one first, with words `mots+` changes.
#[test]
fn the_rehearsal_takes_every_step_of_a_first_search() {
    let fiches = crate::data::parse_fiches(rehearsal::FICHES).unwrap();
    assert_eq!(fiches.len(), 2);
    let questions = crate::data::parse_questions(rehearsal::QUESTIONS).unwrap();
    assert_eq!(questions[0].expected.as_deref(), Some("R-0001"));
    let lab = Lab::new(fiches);
    for k in [Keyword::Mots, Keyword::MotsPlus] {
        let hits = lab.keyword_search(k, rehearsal::QUESTION, DEPTH);
        assert_eq!(hits.len(), 2, "{k:?}");
        assert_eq!(hits[0].doc, 0, "{k:?}");
        assert!(hits[1].score > 0.0, "{k:?}: the second fiche matches too");
    }
    let changes = lab.keyword_changes(rehearsal::QUESTION);
    assert!(changes.iter().any(|c| c.differs()));
    assert!(changes
        .iter()
        .any(|c| c.mots.is_some() && c.mots_plus.is_none()));
}

fn ranked(scores: &[f64]) -> Vec<Ranked> {
    scores
        .iter()
        .enumerate()
        .map(|(doc, &score)| Ranked { doc, score })
        .collect()
}

#[test]
fn tied_scores_share_a_span_of_ranks() {
    let hits = ranked(&[5.0, 3.18, 3.18, 3.18, 3.18, 2.0]);
    assert_eq!(tie_span(&hits, 0), (0, 0));
    assert_eq!(tie_span(&hits, 2), (1, 4));
    assert_eq!(tie_span(&hits, 4), (1, 4));
    assert_eq!(tie_span(&hits, 5), (5, 5));
    assert_eq!(tie_span(&ranked(&[1.0, 1.0]), 1), (0, 1));
    assert_eq!(tie_span(&hits, 9), (9, 9));
}

#[test]
fn says_which_words_mots_plus_finds_and_drops() {
    let lab = Lab::new(crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap());
    let changes = lab.keyword_changes("Isoler des combles en soufflant, ça peut ?");
    let of = |w: &str| changes.iter().find(|c| c.word == w).unwrap();
    let souffl = of("soufflant");
    assert_eq!(souffl.mots, Some(("soufflant".into(), false)));
    assert!(souffl.mots_plus.as_ref().is_some_and(|(_, found)| *found));
    assert!(souffl.differs());
    assert_eq!(of("peut").mots_plus, None);
    assert!(!of("combles").differs());
}

/// The lookups built in steps are those built on first use: every id at its position, the
/// exercise's 83 products, the pauses increasing.
#[test]
fn lookups_built_in_steps_equal_those_built_on_first_use() {
    let fiches = crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
    let stepped = Lab::new(fiches.clone());
    let mut pauses = Vec::new();
    crate::steps::run_ready(stepped.lookups_pausing(|i| {
        pauses.push(i);
        std::future::ready(())
    }));
    assert!(!pauses.is_empty());
    let lazy = Lab::new(fiches.clone());
    for (i, f) in fiches.iter().enumerate() {
        assert_eq!(stepped.doc_of(&f.id), Some(i));
        assert_eq!(lazy.doc_of(&f.id), Some(i));
    }
    assert_eq!(stepped.doc_of("AR-9999"), None);
    assert_eq!(stepped.products(), lazy.products());
    assert_eq!(stepped.products().len(), 83);
}
