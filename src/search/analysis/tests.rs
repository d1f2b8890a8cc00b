use super::*;
use std::collections::HashSet;

/// `first_match` finds the first highlight of the whole text, however far in, within its limit.
#[test]
fn first_match_is_the_first_highlight_wherever_it_lies() {
    let terms = |a: Analyzer, q: &str| -> HashSet<String> { a.terms(q).into_iter().collect() };
    // A match after 20 kB of other words, past several pieces; an elision right at the term.
    let filler = "plaque de plâtre hydrofuge pour pièces humides ".repeat(450);
    let text = format!("{filler}Pour l'isolant en laine de roche, voir la fiche.");
    let at = filler.len() + "Pour l'".len();
    for analyzer in [Analyzer::Seed, Analyzer::French] {
        let q = terms(analyzer, "isolant incombustible");
        let whole = analyzer.highlight_spans(&text, &q, 1);
        assert_eq!(whole.first().map(|s| s.0), Some(at), "{analyzer:?}");
        assert_eq!(
            analyzer.first_match(&text, &q, 1 << 20),
            Some(at),
            "{analyzer:?}"
        );
        // Not looked for past the limit; nothing to look for without terms.
        assert_eq!(
            analyzer.first_match(&text, &q, 8 << 10),
            None,
            "{analyzer:?}"
        );
        assert_eq!(analyzer.first_match(&text, &HashSet::new(), 1 << 20), None);
        // A text without whitespace within the limit is not searched (its one word would
        // have to be analysed whole, however long).
        let word = format!("{}isolant", "x".repeat(100_000));
        assert_eq!(analyzer.first_match(&word, &q, 8 << 10), None);
    }
    // mots+ finds the stem under another form and accents; mots, the word as written.
    let q = terms(Analyzer::French, "isolants");
    assert_eq!(Analyzer::French.first_match(&text, &q, 1 << 20), Some(at));
    assert_eq!(
        Analyzer::Seed.first_match(&text, &terms(Analyzer::Seed, "isolants"), 1 << 20),
        None
    );
}

#[test]
fn a_window_shows_the_beginning_or_the_first_match_with_words_before_it() {
    let text = format!(
        "{}Pouzzolane en vrac. {}",
        "Vis à bois. ".repeat(500),
        "Clou. ".repeat(500)
    );
    let at = text.find("Pouzzolane").unwrap_or_default();
    // Whole when it fits; the beginning without a match, or with one inside it.
    assert_eq!(window("Vis.", Some(0), 10, 3), (0, 4));
    let begin = window(&text, None, 100, 30);
    assert_eq!(begin.0, 0);
    assert_eq!(text[..begin.1].chars().count(), 100);
    assert_eq!(window(&text, Some(12), 100, 30), begin);
    // Otherwise at a word's start, at most `before` characters ahead of the match.
    let (start, end) = window(&text, Some(at), 100, 30);
    let before = text[start..at].chars().count();
    assert!(before > 0 && before <= 30, "{before}");
    assert!(text[..start].ends_with(' '));
    assert_eq!(text[start..end].chars().count(), 100);
    assert!(text[start..end].contains("Pouzzolane en vrac."));
    // Near the end, the window stops at the end.
    let tail = text.rfind("Clou.").unwrap_or_default();
    assert_eq!(window(&text, Some(tail), 100, 30).1, text.len());
}

/// The terms of a text cut by `pieces` are the terms of the whole, for every analyser, at
/// every piece size, over the bundled fiches and a text of elisions, apostrophes and accents.
#[test]
fn terms_of_the_pieces_are_the_terms_of_the_whole() {
    let fiches =
        crate::data::parse_fiches(include_str!("../../../data/fiches.jsonl")).unwrap_or_default();
    let mut texts: Vec<String> = fiches.into_iter().map(|f| f.texte).collect();
    texts.push(
        "L'isolant d'été jusqu'au mur ; qu\u{2019}il\tsèche\nÉTÉ  plâtre-BA13 l' eau".repeat(50),
    );
    texts.push(String::new());
    for analyzer in [Analyzer::Seed, Analyzer::French] {
        for text in &texts {
            let whole = analyzer.terms(text);
            for size in [1, 7, 64, 4096] {
                let cut = pieces(text, size);
                assert_eq!(cut.concat(), *text);
                let joined: Vec<String> = cut.iter().flat_map(|p| analyzer.terms(p)).collect();
                assert_eq!(joined, whole, "{size}");
            }
        }
    }
}

fn seed(text: &str) -> Vec<String> {
    Analyzer::Seed.terms(text)
}
fn french(text: &str) -> Vec<String> {
    Analyzer::French.terms(text)
}

#[test]
fn seed_tokenizer_matches_python_findall() {
    // Python: [m for m in re.findall(r"[a-zà-öø-ÿ0-9]+", t.lower()) if m not in VIDES]
    assert_eq!(
        seed("Ciment gris CEM II/B-LL 32,5 R, sac de 25 kg."),
        ["ciment", "gris", "cem", "ii", "b", "ll", "32", "5", "r", "sac", "25", "kg"]
    );
    assert_eq!(
        seed("Quel est le prix d'une pompe à chaleur ?"),
        ["prix", "pompe", "chaleur"]
    );
    // × (U+00D7) and ÷ (U+00F7) sit inside à-ÿ but outside the two ranges: they split words.
    assert_eq!(seed("1,20×2,60 m³"), ["1", "20", "2", "60", "m"]);
    // œ is outside the seed's ranges: the seed splits « cœur ».
    assert_eq!(seed("cœur"), ["c", "ur"]);
}

#[test]
fn seed_spans_point_into_the_original_text() {
    let text = "Enduit À JOINT";
    let toks = Analyzer::Seed.analyze(text);
    assert_eq!(toks.len(), 2);
    assert_eq!(&text[toks[1].start..toks[1].end], "JOINT");
    assert_eq!(toks[1].term, "joint");
}

#[test]
fn french_splits_elisions_in_both_apostrophes() {
    assert_eq!(french("l'isolant"), french("isolant"));
    assert_eq!(french("d’une cave"), french("cave"));
    assert_eq!(french("qu'il"), Vec::<String>::new());
    assert_eq!(french("c'est"), Vec::<String>::new());
    assert_eq!(french("jusqu'au toit"), french("toit"));
}

/// Pairs of texts that `mots+` must analyse to the same terms.
fn same_terms(pairs: &[(&str, &str)]) {
    for (a, b) in pairs {
        assert_eq!(french(a), french(b), "{a} / {b}");
    }
}

#[test]
fn french_stems_the_seeds_missed_words_together() {
    same_terms(&[
        ("bruit", "bruits"),
        ("respirer", "respirants"),
        ("soufflée", "souffler"),
        ("allée", "allées"),
    ]);
}

#[test]
fn french_matches_words_typed_without_accents() {
    same_terms(&[
        ("electrique", "électrique"),
        ("platre", "plâtre"),
        ("facade", "façade"),
    ]);
    assert_eq!(french("a ou"), Vec::<String>::new());
}

#[test]
fn french_drops_the_noise_the_seed_diagnosed_keeps_sous_and_drops_sans() {
    assert_eq!(french("on ne peut pas"), Vec::<String>::new());
    assert_eq!(french("sans"), Vec::<String>::new());
    assert_eq!(
        french("sous-couche sous chape"),
        ["sous", "couch", "sous", "chap"]
    );
    assert_eq!(french("cœur"), ["coeur"]);
}

#[test]
fn golden_analyses_of_the_five_missed_questions() {
    assert_eq!(
        french("De quoi isoler des combles où on ne peut pas marcher, en soufflant ?"),
        ["isol", "combl", "march", "souffl"]
    );
    assert_eq!(
        french("Pour un enduit sur un vieux mur en pierre qui doit respirer"),
        ["enduit", "vieux", "mur", "pierr", "respir"]
    );
    assert_eq!(french("Un isolant qui ne brûle pas"), ["isol", "brul"]);
    assert_eq!(
        french("Allée où passent les voitures : quels pavés ?"),
        ["alle", "passent", "voitur", "pav"]
    );
    assert_eq!(
        french("Cloison contre le bruit du voisin de bureau"),
        ["cloison", "contr", "bruit", "voisin", "bureau"]
    );
}

#[test]
fn highlights_are_capped_however_often_a_word_occurs() {
    // A 19.5 MB fiche with a query word on every line froze the tab: one <mark> each.
    let text = "colle carrelage. ".repeat(10_000);
    let terms: std::collections::HashSet<String> =
        Analyzer::French.terms("colle").into_iter().collect();
    let spans = Analyzer::French.highlight_spans(&text, &terms, 200);
    assert_eq!(spans.len(), 200);
    assert_eq!(&text[spans[0].0..spans[0].1], "colle");
}

#[test]
fn queries_that_analyse_to_nothing_give_no_terms() {
    for q in ["", "   ", "?!…", "le la les", "\u{200b}\u{a0}", "🙂🙂"] {
        assert!(seed(q).is_empty(), "{q:?}");
        assert!(french(q).is_empty(), "{q:?}");
    }
}

/// The steps of `mots` and `mots+`, run by the composable analyser itself (not short-cut to the
/// fixed ones), give the same terms and spans on every fiche and question of the exercise.
#[test]
fn composed_steps_of_mots_and_mots_plus_give_their_terms_exactly() {
    use super::custom::{Custom, Steps};
    let fiches = crate::data::parse_fiches(include_str!("../../../data/fiches.jsonl")).unwrap();
    let questions =
        crate::data::parse_questions(include_str!("../../../data/questions.csv")).unwrap();
    let texts: Vec<&str> = fiches
        .iter()
        .map(|f| f.texte.as_str())
        .chain(questions.iter().map(|q| q.text.as_str()))
        .chain(["L'isolant qu'il faut : ÉCRAN d'été, œuvre"])
        .collect();
    for (steps, fixed) in [
        (Steps::seed(), Analyzer::Seed),
        (Steps::french(), Analyzer::French),
    ] {
        assert_eq!(steps.analyzer(), fixed);
        let composed = Analyzer::Custom(Box::leak(Box::new(Custom::new(steps))));
        for t in &texts {
            assert_eq!(composed.analyze(t), fixed.analyze(t), "{t}");
            assert_eq!(composed.raw_words(t), fixed.raw_words(t), "{t}");
        }
    }
}

#[test]
fn each_step_can_be_turned_off() {
    use super::custom::{word_list, Steps};
    let q = "L'isolant qui ne brûle pas, en Soufflant";
    let terms = |s: Steps| s.analyzer().terms(q);
    let mut s = Steps::french();
    assert_eq!(terms(s.clone()), ["isol", "brul", "souffl"]);
    s.stem = false;
    assert_eq!(terms(s.clone()), ["isolant", "brule", "soufflant"]);
    s.fold = false;
    assert_eq!(terms(s.clone()), ["isolant", "brûle", "soufflant"]);
    // Without elisions, « l » is still dropped: it is a stop word too.
    s.elisions = false;
    assert_eq!(terms(s.clone()), ["isolant", "brûle", "soufflant"]);
    s.lowercase = false;
    assert_eq!(terms(s.clone()), ["L", "isolant", "brûle", "Soufflant"]);
    s.stop_words = word_list("isolant, brûle");
    assert_eq!(
        terms(s.clone()),
        ["L", "qui", "ne", "pas", "en", "Soufflant"]
    );
    // The seed's characters without lowercasing: « Soufflant » loses its capital.
    let mut seed = Steps::seed();
    seed.lowercase = false;
    assert_eq!(seed.analyzer().terms("Soufflant"), ["oufflant"]);
    // Equal steps make one analyser, kept.
    assert_eq!(s.analyzer(), s.clone().analyzer());
}
