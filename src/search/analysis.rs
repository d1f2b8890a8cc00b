//! Text analysis: how a fiche or a question becomes the terms BM25 counts.
//!
//! Two analysers, chosen by the method:
//! - [`Analyzer::Seed`] (method `mots`) is the seed's `bm25.mots` to the letter: Python's
//!   `re.findall(r"[a-zà-öø-ÿ0-9]+", texte.lower())` minus the seed's 44 stop words. It must never
//!   change: the seed's reference output depends on it.
//! - [`Analyzer::French`] (method `mots+`) answers the seed's own diagnosis of its misses
//!   ("soufflant" is not "souffler", "bruit" is not "bruits", "peut" is noise): elisions split off,
//!   a fuller French stop list, Snowball French stemming, then accent folding.
//!
//! Every term keeps the byte span of the original text it came from, so the page can highlight the
//! words of a fiche that matched, and an explanation can show which question word became which term.

use rustc_hash::FxHashSet;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// One analysed term and where it stands in the original text (`text[start..end]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub term: String,
    pub start: usize,
    pub end: usize,
}

/// The analysers of the keyword methods. Both are deterministic and allocation-light.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Analyzer {
    /// The seed's tokenizer and stop words, exactly (method `mots`).
    Seed,
    /// French-aware: elisions, stop words, Snowball stemming, accent folding (method `mots+`).
    French,
    /// `French` with its stop-word list changed: an ablation (`mesurer mots+ --sans-mot-vide sous`),
    /// to see on every question what one stop-word decision does.
    FrenchWith(StopChange),
}

/// A change to `mots+`'s stop words: words it no longer drops, and words it drops too. Lowercase;
/// a word matches typed with or without its accents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StopChange {
    pub keep: &'static [String],
    pub drop: &'static [String],
}

impl StopChange {
    fn is_stop(&self, term: &str) -> bool {
        let listed = |words: &[String]| words.iter().any(|w| w == term || fold_accents(w) == term);
        if listed(self.drop) {
            return true;
        }
        french_stop_words().contains(term) && !listed(self.keep)
    }
}

impl Analyzer {
    /// The terms of `text`, in order, repetitions kept (BM25 counts them).
    pub fn analyze(self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.each_term(text, |term, start, end| {
            out.push(Token {
                term: term.to_owned(),
                start,
                end,
            })
        });
        out
    }

    /// Only the terms, for queries.
    pub fn terms(self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.each_term(text, |term, _, _| out.push(term.to_owned()));
        out
    }

    /// Calls `f(term, start, end)` for each term of [`Analyzer::analyze`], in order, without a
    /// `String` per term: the words are cut into one buffer, and a stem is copied out of the
    /// cache into another. An index build looks each term up as it comes and copies only the new
    /// ones. Building both indexes of 50,000 fiches in Chromium went from 1,730 to 1,290 ms
    /// (medians, BENCHMARKS.md, 12-03 midday); under a CPU profile of the page's first module,
    /// analysis had been 60 of its 180 ms, with malloc and free among its largest parts.
    pub fn each_term(self, text: &str, f: impl FnMut(&str, usize, usize)) {
        match self {
            Analyzer::Seed => seed_terms(text, f),
            Analyzer::French => french_terms(text, None, f),
            Analyzer::FrenchWith(change) => french_terms(text, Some(&change), f),
        }
    }

    /// The byte spans of the words the analyser cuts before it drops stop words and elisions:
    /// what the learner typed, word by word.
    pub fn raw_words(self, text: &str) -> Vec<(usize, usize)> {
        let words = match self {
            Analyzer::Seed => seed_words(text),
            Analyzer::French | Analyzer::FrenchWith(_) => runs(text, char::is_alphanumeric),
        };
        words.into_iter().map(|t| (t.start, t.end)).collect()
    }

    /// The byte spans of `text` whose terms are among `query_terms`, in order, at most `cap` of
    /// them: what the page wraps in `<mark>`. The cap bounds the work and the DOM for a giant
    /// fiche that repeats a query word (one span per occurrence otherwise).
    pub fn highlight_spans(
        self,
        text: &str,
        query_terms: &std::collections::HashSet<String>,
        cap: usize,
    ) -> Vec<(usize, usize)> {
        if query_terms.is_empty() {
            return Vec::new();
        }
        self.analyze(text)
            .into_iter()
            .filter(|t| query_terms.contains(&t.term))
            .map(|t| (t.start, t.end))
            .take(cap)
            .collect()
    }

    /// The byte offset of the first term of `text` among `query_terms`, looked for in the first
    /// `limit` bytes only (cut after the last whitespace within them: a word is never cut, and a
    /// text without whitespace there is not searched): where a long fiche's excerpt should be
    /// taken from, so that the learner sees why it matched. The text is analysed piece by piece
    /// ([`pieces`]) and the search stops at the first piece that holds one.
    pub fn first_match(
        self,
        text: &str,
        query_terms: &std::collections::HashSet<String>,
        limit: usize,
    ) -> Option<usize> {
        if query_terms.is_empty() {
            return None;
        }
        let mut end = text.len();
        if end > limit {
            let mut at = limit;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let (i, c) = text[..at]
                .char_indices()
                .rev()
                .find(|(_, c)| c.is_whitespace())?;
            end = i + c.len_utf8();
        }
        let mut offset = 0;
        for piece in pieces(&text[..end], FIRST_MATCH_PIECE) {
            if let Some(&(start, _)) = self.highlight_spans(piece, query_terms, 1).first() {
                return Some(offset + start);
            }
            offset += piece.len();
        }
        None
    }

    /// A one-line description of the steps, shown beside an explanation.
    pub fn describe(self) -> &'static str {
        match self {
            Analyzer::Seed => "minuscules ; mots = suites de [a-zà-öø-ÿ0-9] ; 44 mots vides du sujet",
            Analyzer::French => {
                "minuscules ; élisions (l', d', qu'…) retirées ; mots vides français ; racine Snowball ; accents retirés"
            }
            Analyzer::FrenchWith(_) => {
                "minuscules ; élisions (l', d', qu'…) retirées ; mots vides français modifiés ; racine Snowball ; accents retirés"
            }
        }
    }
}

/// The seed's stop words (`bm25.VIDES`), verbatim.
pub const SEED_STOP_WORDS: &str =
    "le la les un une des de du d l à au aux et ou en pour par sur sous avec sans dans \
il elle on me mon ma mes vous nous quel quelle quels quelles que qui quoi comment \
est sont faut faire mettre avez avoir y a ne pas plus";

fn seed_stop_words() -> &'static FxHashSet<&'static str> {
    static SET: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| SEED_STOP_WORDS.split_whitespace().collect())
}

/// The seed's word characters after lowercasing: `[a-zà-öø-ÿ0-9]`.
fn is_seed_word_char(c: char) -> bool {
    matches!(c, 'a'..='z' | 'à'..='ö' | 'ø'..='ÿ' | '0'..='9')
}

/// Lowercases char by char (as `str.lower()` does for every script French text uses) and cuts
/// runs of characters accepted by `is_word`, remembering the original byte span of each run.
fn runs(text: &str, is_word: impl Fn(char) -> bool) -> Vec<Token> {
    let mut out = Vec::new();
    each_run(text, is_word, |term, start, end| {
        out.push(Token {
            term: term.to_owned(),
            start,
            end,
        })
    });
    out
}

/// [`runs`], each run given to `f(run, start, end)` from one reused buffer.
fn each_run(text: &str, is_word: impl Fn(char) -> bool, mut f: impl FnMut(&str, usize, usize)) {
    let mut cur = String::new();
    let (mut start, mut end) = (0, 0);
    for (pos, c) in text.char_indices() {
        // Most of a French catalogue is ASCII, whose lowercase is one character: the same result
        // as `to_lowercase`, without its iterator (a fifth of an index build, perf).
        if c.is_ascii() {
            let l = c.to_ascii_lowercase();
            if is_word(l) {
                if cur.is_empty() {
                    start = pos;
                }
                cur.push(l);
                end = pos + 1;
            } else if !cur.is_empty() {
                f(&cur, start, end);
                cur.clear();
            }
            continue;
        }
        for l in c.to_lowercase() {
            if is_word(l) {
                if cur.is_empty() {
                    start = pos;
                }
                cur.push(l);
                end = pos + c.len_utf8();
            } else if !cur.is_empty() {
                f(&cur, start, end);
                cur.clear();
            }
        }
    }
    if !cur.is_empty() {
        f(&cur, start, end);
    }
}

/// The byte range of at most `chars` characters of `text` to show or send: all of it when it
/// fits; its beginning when `first` (a match's byte offset, from [`Analyzer::first_match`]) is
/// `None` or lies inside the beginning with room for its word; otherwise from a word's start
/// about `before` characters ahead of that match.
pub fn window(text: &str, first: Option<usize>, chars: usize, before: usize) -> (usize, usize) {
    let Some((cut, _)) = text.char_indices().nth(chars) else {
        return (0, text.len());
    };
    let at = match first {
        Some(at) if at + 40 > cut && at < text.len() => at,
        _ => return (0, cut),
    };
    let back = text[..at]
        .char_indices()
        .rev()
        .nth(before.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let start = text[back..at]
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
        .map_or(back, |(i, c)| back + i + c.len_utf8());
    let end = text[start..]
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| start + i);
    (start, end)
}

/// Bytes analysed at a time by [`Analyzer::first_match`].
const FIRST_MATCH_PIECE: usize = 4 << 10;

/// `text` cut into pieces of about `bytes` (more when a word is longer), each ending just after
/// a whitespace character: no analyser's word spans whitespace, and each piece carries the
/// character after its last word (an elision's apostrophe is never cut off). So the terms of the
/// pieces, one after the other, are the terms of `text` (their byte spans are each piece's own).
pub fn pieces(text: &str, bytes: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > bytes.max(1) {
        let mut at = bytes.max(1);
        while !rest.is_char_boundary(at) {
            at += 1;
        }
        match rest[at..].char_indices().find(|(_, c)| c.is_whitespace()) {
            Some((i, c)) => {
                let end = at + i + c.len_utf8();
                out.push(&rest[..end]);
                rest = &rest[end..];
            }
            None => break,
        }
    }
    if !rest.is_empty() || out.is_empty() {
        out.push(rest);
    }
    out
}

fn seed_words(text: &str) -> Vec<Token> {
    runs(text, is_seed_word_char)
}

fn seed_terms(text: &str, mut f: impl FnMut(&str, usize, usize)) {
    let stop = seed_stop_words();
    each_run(text, is_seed_word_char, |word, start, end| {
        if !stop.contains(word) {
            f(word, start, end);
        }
    });
}

/// Articles and pronouns that French elides before a vowel: `l'isolant`, `qu'il`, `jusqu'au`.
const ELISIONS: [&str; 13] = [
    "l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu",
];

/// The stop words of `mots+`: the seed's list, the Snowball project's French list (forms of
/// « être » and « avoir », pronouns, articles), and the verbs of asking that the seed found to be
/// noise (« peut » ranked the mastic first). Two decisions were measured word by word on the 40
/// questions (`mesurer mots+ --sans-mot-vide sous`, `--mot-vide sans`; README « mots+, mot à mot »):
/// - « sous » is **not** a stop word, unlike in the seed's list: in this trade it names things
///   (« sous-couche », « sous carrelage », « sous chape », 15 fiches); one question gains, none loses.
/// - « sans » **is** one, as in the seed's list: it occurs in 2 fiches of 200, so its idf made a
///   question's function word (« sans s'épuiser », « sans préparer ») outweigh product words; three
///   questions gain, none loses (« peinture sans odeur » put a mortar first).
///
/// « été » is kept out (« confort d'été »).
pub const FRENCH_STOP_WORDS: &str = "au aux avec ce ces dans de des du elle en et eux il ils je la le les leur lui ma mais \
me même mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une \
vos votre vous c d j l à m n s t y étée étées étant étante étants étantes suis es est sommes êtes sont serai seras \
sera serons serez seront serais serait serions seriez seraient étais était étions étiez étaient fus fut fûmes fûtes \
furent sois soit soyons soyez soient fusse fusses fût fussions fussiez fussent ayant ayante ayantes ayants eu eue eues \
eus ai as avons avez ont aurai auras aura aurons aurez auront aurais aurait aurions auriez auraient avais avait avions \
aviez avaient eut eûmes eûtes eurent aie aies ait ayons ayez aient eusse eusses eût eussions eussiez eussent \
quel quelle quels quelles quoi comment faut faire mettre avoir a plus sans \
peut peux peuvent pouvez pouvons doit dois doivent devez veux voudrais cela ça cette cet";

fn french_stop_words() -> &'static FxHashSet<String> {
    static SET: OnceLock<FxHashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = FxHashSet::default();
        for w in FRENCH_STOP_WORDS
            .split_whitespace()
            .chain(SEED_STOP_WORDS.split_whitespace())
        {
            // The seed's list has « sous »; mots+ keeps it (see above).
            if w == "sous" {
                continue;
            }
            set.insert(w.to_owned());
            // Also the form typed without accents (« a » for « à », « ou » for « où »).
            set.insert(fold_accents(w));
        }
        set
    })
}

fn french_stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::French))
}

/// Removes French diacritics (é → e, ç → c, œ → oe). Applied after stemming, because the Snowball
/// algorithm reads accents (it expects « é » in suffixes), and so that `electrique` typed without
/// accents meets `électrique`.
pub fn fold_accents(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => out.push('a'),
            'ç' => out.push('c'),
            'è' | 'é' | 'ê' | 'ë' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' => out.push('i'),
            'ñ' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'œ' => out.push_str("oe"),
            'æ' => out.push_str("ae"),
            _ => out.push(c),
        }
    }
    out
}

/// Stems (then folds) `word` into `out`, remembering the result: a catalogue repeats the same few
/// thousand words, and Snowball was most of the index build's time (measured: 1.25 s → see
/// BENCHMARKS.md at 50k fiches). The cache is cleared past `STEM_CACHE_MAX` entries to bound its
/// memory. The stem is copied out rather than lent, so that no borrow of the cache outlives this
/// call.
fn stem_cached(stemmer: &Stemmer, word: &str, out: &mut String) {
    const STEM_CACHE_MAX: usize = 200_000;
    thread_local! {
        static CACHE: std::cell::RefCell<rustc_hash::FxHashMap<String, String>> =
            std::cell::RefCell::new(rustc_hash::FxHashMap::default());
    }
    out.clear();
    CACHE.with(|c| {
        if let Some(s) = c.borrow().get(word) {
            out.push_str(s);
            return;
        }
        let stem = fold_accents(&stemmer.stem(word));
        out.push_str(&stem);
        let mut c = c.borrow_mut();
        if c.len() >= STEM_CACHE_MAX {
            c.clear();
        }
        c.insert(word.to_owned(), stem);
    })
}

fn french_terms(text: &str, change: Option<&StopChange>, mut f: impl FnMut(&str, usize, usize)) {
    let stop = french_stop_words();
    let stemmer = french_stemmer();
    let mut stem = String::new();
    each_run(text, char::is_alphanumeric, |word, start, end| {
        let followed_by_apostrophe =
            text[end..].starts_with('\'') || text[end..].starts_with('\u{2019}');
        if followed_by_apostrophe && ELISIONS.contains(&word) {
            return;
        }
        let is_stop = match change {
            None => stop.contains(word),
            Some(c) => c.is_stop(word),
        };
        if is_stop {
            return;
        }
        stem_cached(stemmer, word, &mut stem);
        f(&stem, start, end);
    });
}

#[cfg(test)]
mod tests {
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
            crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap_or_default();
        let mut texts: Vec<String> = fiches.into_iter().map(|f| f.texte).collect();
        texts.push(
            "L'isolant d'été jusqu'au mur ; qu\u{2019}il\tsèche\nÉTÉ  plâtre-BA13 l' eau"
                .repeat(50),
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
}
