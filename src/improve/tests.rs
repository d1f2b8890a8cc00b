use super::checklist::{checklist, Status, THREE};
use super::diff::diff;
use super::missed::missed;
use super::sweep::{sweep, Grid};
use super::*;
use crate::data::{parse_fiches, parse_questions, Question};
use crate::lab::{Keyword, Lab, Method, Ranked};
use crate::measure::stats::randomisation_test;
use crate::search::fusion::{Fusion, Norm};

fn exercise() -> (Lab, Vec<Question>) {
    let fiches = parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
    let questions = parse_questions(include_str!("../../data/questions.csv")).unwrap();
    (Lab::new(fiches), questions)
}

fn measure(lab: &Lab, qs: &[Question], s: Settings) -> crate::measure::Measurement {
    Tuned::new(lab, s, None)
        .unwrap()
        .measure(lab, qs, &DenseTops::new())
        .unwrap()
}

#[test]
fn a_method_unchanged_measures_as_the_method_itself() {
    let (lab, qs) = exercise();
    for k in [Keyword::Mots, Keyword::MotsPlus] {
        let m = measure(&lab, &qs, Settings::of(Method::Keyword(k)));
        assert_eq!(m, lab.measure_keyword(k, &qs));
    }
    let m = measure(&lab, &qs, Settings::of(Method::MOTS));
    let reference = include_str!("../../tests/golden/mesurer-mots.out");
    assert_eq!(m.seed_report(), reference);
}

#[test]
fn composed_analysis_equal_to_the_methods_measures_the_same() {
    // Turning stemming off and on again, or re-typing the same stop words, changes nothing.
    let (lab, qs) = exercise();
    let mut s = Settings::of(Method::MOTS_PLUS);
    s.analysis.stop_words =
        crate::search::analysis::custom::word_list(&s.analysis.stop_words.join(" "));
    assert!(!s.rebuilds());
    assert_eq!(
        measure(&lab, &qs, s).kinds,
        lab.measure_keyword(Keyword::MotsPlus, &qs).kinds
    );
}

#[test]
fn the_seeds_synonym_brings_rock_wool_back() {
    let (lab, qs) = exercise();
    let mut s = Settings::of(Method::MOTS);
    let before = measure(&lab, &qs, s.clone());
    s.enrich = Settings::enrichments("AR-0063;ne brûle pas").unwrap();
    let after = measure(&lab, &qs, s.clone());
    let q = |m: &crate::measure::Measurement| {
        m.questions
            .iter()
            .find(|o| o.question == "Un isolant qui ne brûle pas")
            .unwrap()
            .rank
    };
    assert!(q(&before).is_none_or(|r| r > 5));
    assert!(q(&after).is_some_and(|r| r <= 5), "{:?}", q(&after));
    let d = diff(&before, &after);
    assert!(d
        .up
        .iter()
        .any(|m| m.question == "Un isolant qui ne brûle pas"));
    assert_eq!(s.name(), "mots (AR-0063 + « ne brûle pas »)");
    // Unknown fiche: said, not ignored.
    s.enrich[0].id = "AR-9999".into();
    assert!(matches!(
        Tuned::new(&lab, s, None),
        Err(SettingsError::UnknownFiche(_))
    ));
}

#[test]
fn moving_b_keeps_the_index_and_changes_the_ranking() {
    let (lab, qs) = exercise();
    let start = Tuned::new(&lab, Settings::of(Method::MOTS), None).unwrap();
    let s = Settings {
        b: 0.0,
        ..Settings::of(Method::MOTS)
    };
    let moved = Tuned::new(&lab, s.clone(), Some(start)).unwrap();
    let m = moved.measure(&lab, &qs, &DenseTops::new()).unwrap();
    assert_eq!(m.method, "mots (b = 0)");
    assert_ne!(
        m.questions,
        lab.measure_keyword(Keyword::Mots, &qs).questions
    );
}

#[test]
fn a_fusion_unchanged_is_the_seeds_rrf_and_its_settings_move_it() {
    let (lab, qs) = exercise();
    // Dense tops stood in by mots+'s own lists reversed: any two lists do.
    let dense: DenseTops = qs
        .iter()
        .map(|q| {
            let mut l = lab.keyword_search(Keyword::MotsPlus, &q.text, 100);
            l.reverse();
            (q.text.clone(), l)
        })
        .collect();
    let s = Settings::of(Method::HybrideLocal);
    let t = Tuned::new(&lab, s.clone(), None).unwrap();
    for q in &qs {
        let words: Vec<usize> = lab
            .keyword_search(Keyword::MotsPlus, &q.text, 50)
            .iter()
            .map(|r| r.doc)
            .collect();
        let sens: Vec<usize> = dense[&q.text].iter().take(50).map(|r| r.doc).collect();
        let seed: Vec<Ranked> = crate::search::fusion::rrf(&[&words, &sens], 60.0, 50)
            .into_iter()
            .take(11)
            .map(|(doc, score)| Ranked { doc, score })
            .collect();
        assert_eq!(t.search(&q.text, Some(&dense[&q.text]), 11).unwrap(), seed);
    }
    let base = t.measure(&lab, &qs, &dense).unwrap();
    let other = Settings {
        fusion: Fusion::CombMnz { norm: Norm::ZScore },
        weights: [2.0, 1.0],
        ..s
    };
    let m = measure_with(&lab, &qs, other, &dense);
    assert_eq!(m.method, "hybride local (CombMNZ (z-score) ; poids 2 / 1)");
    assert_ne!(m.questions, base.questions);
}

fn measure_with(
    lab: &Lab,
    qs: &[Question],
    s: Settings,
    dense: &DenseTops,
) -> crate::measure::Measurement {
    Tuned::new(lab, s, None)
        .unwrap()
        .measure(lab, qs, dense)
        .unwrap()
}

#[test]
fn randomisation_test_matches_hand_enumeration() {
    // d = [1, 1, 1]: of 8 sign patterns, |sum| ≥ 3 for +++ and −−−: p = 2/8.
    assert_eq!(randomisation_test(&[1.0, 1.0, 1.0]), (0.25, true));
    // d = [1, 0.5]: sums ±1.5, ±0.5; |s| ≥ 1.5 for 2 of 4.
    assert_eq!(randomisation_test(&[1.0, 0.5, 0.0]), (0.5, true));
    // d = [1, -1]: observed 0, every pattern is at least as far.
    assert_eq!(randomisation_test(&[1.0, -1.0]), (1.0, true));
    assert_eq!(randomisation_test(&[]), (1.0, true));
    // 30 wins of 1: drawn, and tiny; the same p every time.
    let (p, exact) = randomisation_test(&[1.0; 30]);
    assert!(!exact && p < 0.001);
    assert_eq!(randomisation_test(&[1.0; 30]).0, p);
}

#[test]
fn few_differing_questions_are_said_to_decide_nothing() {
    let (lab, qs) = exercise();
    let a = lab.measure_keyword(Keyword::Mots, &qs);
    let mut s = Settings::of(Method::MOTS);
    s.enrich = Settings::enrichments("AR-0063;ne brûle pas").unwrap();
    let b = measure(&lab, &qs, s);
    let d = diff(&a, &b);
    assert!(d.wins + d.losses < 6);
    assert!(
        d.verdict.contains("on ne peut pas conclure"),
        "{}",
        d.verdict
    );
    // mots → mots+: many questions differ; the words say whether the difference holds.
    let d = diff(&a, &lab.measure_keyword(Keyword::MotsPlus, &qs));
    assert!(d.wins + d.losses >= 6, "{d:?}");
    assert!(d.verdict.contains("test du signe p ="), "{}", d.verdict);
}

#[test]
fn the_seeds_five_missed_questions_and_its_correction_table() {
    let (lab, qs) = exercise();
    let m = lab.measure_keyword(Keyword::Mots, &qs);
    let r = missed(&lab, lab.bm25(Keyword::Mots), &m);
    let questions: Vec<&str> = r.iter().map(|x| x.question.as_str()).collect();
    assert_eq!(
        questions,
        [
            "De quoi isoler des combles où on ne peut pas marcher, en soufflant ?",
            "Pour un enduit sur un vieux mur en pierre qui doit respirer",
            "Un isolant qui ne brûle pas",
            "Allée où passent les voitures : quels pavés ?",
            "Cloison contre le bruit du voisin de bureau",
        ]
    );
    let name = |id: &Option<String>| {
        lab.fiches()[lab.doc_of(id.as_deref().unwrap()).unwrap()]
            .nom
            .clone()
    };
    let words = |l: &[(String, f64)]| l.iter().map(|w| w.0.clone()).collect::<Vec<_>>();
    // « peut » lifts the mastic; « soufflant » is not « souffler », « isoler » not « isolant ».
    assert!(name(&r[0].first).starts_with("Mastic polyuréthane"));
    assert!(words(&r[0].lifted).contains(&"peut".to_owned()));
    assert!(r[0].absent.contains(&"soufflant".to_owned()));
    assert!(r[0].absent.contains(&"isoler".to_owned()));
    // « respirer »: the hydrofuge says « respirer », the lime says « respirants ».
    assert!(name(&r[1].first).starts_with("Hydrofuge de surface"));
    assert!(words(&r[1].lifted).contains(&"respirer".to_owned()));
    assert!(r[1].absent.contains(&"respirer".to_owned()));
    // « brûle » is in no fiche: rock wool says « incombustible ».
    assert!(name(&r[2].first).starts_with("Polystyrène expansé"));
    assert!(r[2].absent.contains(&"brûle".to_owned()));
    // « pavés » lifts the sand (« joints de pavés »).
    assert!(name(&r[3].first).starts_with("Sable 0/2"));
    assert_eq!(r[3].lifted[0].0, "pavés");
    // « bruit »: rock wool says « contre le bruit », the acoustic plate « contre les bruits ».
    assert!(name(&r[4].first).starts_with("Laine de roche"));
    assert!(words(&r[4].lifted).contains(&"bruit".to_owned()));
    assert!(r[4].absent.contains(&"bruit".to_owned()));
}

#[test]
fn the_checklist_on_mots_and_on_a_fusion() {
    let (lab, qs) = exercise();
    let m = lab.measure_keyword(Keyword::Mots, &qs);
    let c = &checklist(&m, None, false, &["mots"])[1..];
    assert_eq!(c[0].status, Status::Met); // 15 of 15 exactes first
    assert_eq!(c[1].status, Status::NotMet); // 15 of 20 courantes in the top 5, 18 needed
    assert_eq!(c[1].detail, "15 sur 20 (il en faut 18)");
    assert_eq!(c[2].status, Status::NotApplicable);
    assert!(c[3..].iter().all(|x| x.status == Status::NeedsKey));
    // A « fusion » that loses exactes: mots+ reversed, against mots.
    let mut worse = m.clone();
    worse.questions[0].rank = Some(2);
    let c = &checklist(&worse, Some(&m), true, &["mots"])[1..];
    assert_eq!(c[2].status, Status::NotMet);
    assert!(c[2].detail.contains(&m.questions[0].question));
    assert_eq!(c[3].status, Status::ToMeasure);
}

#[test]
fn the_first_criterion_asks_for_words_sense_and_their_fusion_measured() {
    let (lab, qs) = exercise();
    let m = lab.measure_keyword(Keyword::Mots, &qs);
    let three = |names: &[&str]| checklist(&m, None, false, names).remove(0);
    let c = three(&["mots", "mots+ (racine Snowball ajoutée)"]);
    assert_eq!(c.label, THREE);
    assert_eq!(c.status, Status::NotMet);
    assert_eq!(
        c.detail,
        "mesurées\u{a0}: mots, mots+\u{202f}; il manque la recherche par le sens et leur fusion, à mesurer dans «\u{202f}Mesurer\u{202f}»"
    );
    let c = three(&["mots (k1 = 1,2)", "sens local", "hybride local", "mots"]);
    assert_eq!(c.status, Status::Met);
    assert_eq!(c.detail, "mesurées\u{a0}: mots, sens local, hybride local");
    // A name that is no method (an imported run) counts for nothing.
    assert_eq!(three(&["bm25-lucene"]).detail.as_str(), "aucune méthode mesurée\u{202f}; il manque la recherche par les mots, la recherche par le sens et leur fusion, à mesurer dans «\u{202f}Mesurer\u{202f}»");
}

#[test]
fn a_sweep_chooses_on_one_half_and_reports_on_the_other() {
    let (lab, qs) = exercise();
    let s = sweep(
        &lab,
        &qs,
        &DenseTops::new(),
        &Settings::of(Method::MOTS),
        Grid::K1B,
    )
    .unwrap();
    assert_eq!(s.points.len(), 35);
    // The start is on the grid (k1 1.5, b 0.75) and measured the same.
    let seed_point = s
        .points
        .iter()
        .find(|p| p.label == "k1 = 1,5 ; b = 0,75")
        .unwrap();
    assert_eq!(seed_point.all, s.start.all);
    let c = &s.points[s.best_calibration];
    assert!(s.points.iter().all(|p| p.calibration <= c.calibration));
    let a = &s.points[s.best_all];
    assert!(s.points.iter().all(|p| p.all <= a.all));
    assert!(s.verdict.contains("moitié de calibrage"), "{}", s.verdict);
    // On a tie with the start, the start is kept: a tie is no reason to change.
    let t = sweep(
        &lab,
        &qs,
        &DenseTops::new(),
        &Settings::of(Method::MOTS_PLUS),
        Grid::K1B,
    )
    .unwrap();
    let chosen = &t.points[t.best_calibration];
    assert!(
        chosen.calibration > t.start.calibration
            || chosen.settings == Settings::of(Method::MOTS_PLUS)
    );
    // The halves are the threshold's: 20 rows each, 35 answerable questions between them.
    let halves = (0..qs.len()).filter(|i| i % 2 == 0).count();
    assert_eq!(halves, 20);
}

#[test]
fn settings_travel_in_a_link_and_in_json() {
    let mut s = Settings::of(Method::HybrideLocal);
    s.k1 = 1.2;
    s.b = 0.0;
    s.analysis.stem = false;
    s.analysis.stop_words.retain(|w| w != "sous");
    s.analysis.stop_words.push("peut".into());
    s.analysis.stop_words.retain(|w| w != "peut");
    s.analysis.stop_words.push("bureau".into());
    s.analysis.stop_words.sort();
    s.enrich = Settings::enrichments("AR-0063;ne brûle pas\nAR-0039+;salle de bains").unwrap();
    s.fusion = Fusion::CombSum { norm: Norm::MinMax };
    s.depth = 30;
    s.weights = [1.0, 0.5];
    let pairs: Vec<(String, String)> = s
        .to_link()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    assert_eq!(Settings::from_link(&pairs), Some(s.clone()));
    assert_eq!(Settings::from_json(&s.to_json()), Ok(s.clone()));
    // Only what differs travels.
    let plain = Settings::of(Method::MOTS).to_link();
    assert_eq!(plain, vec![("m", "mots".to_owned())]);
    // A value out of range opens the method unchanged.
    let bad = vec![
        ("m".to_owned(), "mots".to_owned()),
        ("b".to_owned(), "7".to_owned()),
    ];
    assert_eq!(Settings::from_link(&bad), Some(Settings::of(Method::MOTS)));
    assert!(Settings::from_json("{}").is_err());
}

#[test]
fn a_fiche_in_a_fusion_stands_where_the_settings_search_puts_it() {
    use super::why::fused_side;
    let (lab, qs) = exercise();
    let q = qs
        .iter()
        .find(|q| q.text == "Un isolant qui ne brûle pas")
        .unwrap();
    let doc = lab.doc_of(q.expected.as_deref().unwrap()).unwrap();
    // A dense top of the fiche third, behind two others.
    let dense: Vec<Ranked> = [3, 7, doc, 11]
        .iter()
        .enumerate()
        .map(|(i, &d)| Ranked {
            doc: d,
            score: 0.9 - i as f64 / 10.0,
        })
        .collect();
    let mut settings = Settings::of(Method::HybrideLocal);
    for (fusion, weights) in [
        (Fusion::SEED, [1.0, 1.0]),
        (Fusion::Rrf { k: 5.0 }, [1.0, 0.5]),
        (Fusion::CombSum { norm: Norm::MinMax }, [0.3, 1.0]),
    ] {
        settings.fusion = fusion;
        settings.weights = weights;
        let tuned = Tuned::new(&lab, settings.clone(), None).unwrap();
        let side = fused_side(tuned.index().unwrap(), &settings, &q.text, &dense, doc);
        let found = tuned.search(&q.text, Some(&dense), settings.depth).unwrap();
        let at = found.iter().position(|r| r.doc == doc).unwrap();
        assert_eq!(side.fused, Some((at + 1, found[at].score)), "{fusion:?}");
        assert_eq!(side.dense, Some(3));
        let words = tuned.index().unwrap().search(&q.text, settings.depth);
        assert_eq!(
            side.keyword,
            words.iter().position(|h| h.doc == doc).map(|i| i + 1)
        );
    }
}

#[test]
fn enrichments_made_of_the_measured_questions_words_are_found_and_said() {
    use super::borrowed::{borrowed, warning};
    let (lab, qs) = exercise();
    let row = qs
        .iter()
        .position(|q| q.text == "Un isolant qui ne brûle pas")
        .unwrap();
    let enrich = |id: &str, words: &str, product: bool| Enrichment {
        id: id.into(),
        words: words.into(),
        product,
    };
    // The seed's own fix: « ne » and « pas » are its stop words, « brûle » is the question's.
    let mut s = Settings::of(Method::MOTS);
    s.enrich = vec![
        enrich("AR-0063", "ne brûle pas", false),
        enrich("AR-0063", "incombustible", false),
        enrich("AR-0010", "brûle", false),
    ];
    let found = borrowed(&lab, &s, &qs);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (
            found[0].enrichment,
            found[0].words.clone(),
            found[0].rows.clone()
        ),
        (0, vec!["brûle".to_owned()], vec![row])
    );
    assert_eq!(
        warning(&found, "Passez l'épreuve."),
        "Attention\u{a0}: des mots ajoutés viennent des questions mesurées (AR-0063 + «\u{202f}brûle\u{202f}»\u{a0}: 1 question). Le gain est mesuré sur les questions mêmes qui les ont inspirés\u{a0}: il ne dit pas ce que l'enrichissement vaut pour d'autres. Passez l'épreuve."
    );
    // A sibling variant, only when the whole product is enriched.
    s.enrich = vec![enrich("AR-0061", "brûle", false)];
    assert!(borrowed(&lab, &s, &qs).is_empty());
    s.enrich = vec![enrich("AR-0061", "brûle", true)];
    assert_eq!(borrowed(&lab, &s, &qs)[0].rows, vec![row]);
    // Compared as the analysis sees them: stemmed, « brûler » is « brûle ».
    s.enrich = vec![enrich("AR-0063", "brûler", false)];
    assert!(borrowed(&lab, &s, &qs).is_empty());
    let mut stemmed = Settings::of(Method::MOTS_PLUS);
    stemmed.enrich = s.enrich.clone();
    assert_eq!(borrowed(&lab, &stemmed, &qs)[0].words, vec!["brûler"]);
    assert_eq!(warning(&[], "Passez l'épreuve."), "");
}
