//! Text analysis: how a fiche or a question becomes the terms BM25 counts.
//!
//! Two analysers, chosen by the method:
//! - [`Analyzer::Seed`] (method `mots`) is the seed's `bm25.mots` to the letter: Python's
//!   `re.findall(r"[a-zà-öø-ÿ0-9]+", texte.lower())` minus the seed's 52 stop words. It must never
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

/// Analyses the learner composes in « Améliorer ».
pub mod custom;

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
    /// Steps the learner composed in « Améliorer » ([`custom::Steps`]).
    Custom(&'static custom::Custom),
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
    /// ones: under a CPU profile of the page's first module, analysis had been a third of its
    /// time, with malloc and free among its largest parts (docs/benchmarks-history.md).
    pub fn each_term(self, text: &str, f: impl FnMut(&str, usize, usize)) {
        match self {
            Analyzer::Seed => seed_terms(text, f),
            Analyzer::French => french_terms(text, None, f),
            Analyzer::FrenchWith(change) => french_terms(text, Some(&change), f),
            Analyzer::Custom(c) => c.each_term(text, f),
        }
    }

    /// The byte spans of the words the analyser cuts before it drops stop words and elisions:
    /// what the learner typed, word by word.
    pub fn raw_words(self, text: &str) -> Vec<(usize, usize)> {
        let words = match self {
            Analyzer::Seed => seed_words(text),
            Analyzer::French | Analyzer::FrenchWith(_) => runs(text, char::is_alphanumeric),
            Analyzer::Custom(c) => {
                let mut out = Vec::new();
                each_run_cased(text, c.is_word(), c.steps.lowercase, |_, start, end| {
                    out.push(Token {
                        term: String::new(),
                        start,
                        end,
                    })
                });
                out
            }
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
            Analyzer::Seed => "minuscules ; mots = suites de [a-zà-öø-ÿ0-9] ; 52 mots vides du sujet",
            Analyzer::French => {
                "minuscules ; élisions (l', d', qu'…) retirées ; mots vides français ; racine Snowball ; accents retirés"
            }
            Analyzer::FrenchWith(_) => {
                "minuscules ; élisions (l', d', qu'…) retirées ; mots vides français modifiés ; racine Snowball ; accents retirés"
            }
            Analyzer::Custom(c) => c.description(),
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
fn each_run(text: &str, is_word: impl Fn(char) -> bool, f: impl FnMut(&str, usize, usize)) {
    each_run_cased(text, is_word, true, f)
}

/// [`each_run`], lowercasing only when `lower` (« Améliorer » can turn it off).
fn each_run_cased(
    text: &str,
    is_word: impl Fn(char) -> bool,
    lower: bool,
    mut f: impl FnMut(&str, usize, usize),
) {
    let mut cur = String::new();
    let (mut start, mut end) = (0, 0);
    for (pos, c) in text.char_indices() {
        // Most of a French catalogue is ASCII, whose lowercase is one character: the same result
        // as `to_lowercase`, without its iterator (a fifth of an index build, perf).
        if c.is_ascii() || !lower {
            let l = if lower { c.to_ascii_lowercase() } else { c };
            if is_word(l) {
                if cur.is_empty() {
                    start = pos;
                }
                cur.push(l);
                end = pos + l.len_utf8();
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
/// thousand words, and Snowball was most of the index build's time (docs/benchmarks-history.md).
/// The cache is cleared past `STEM_CACHE_MAX` entries to bound its memory. The stem is copied out rather than lent, so that no borrow of the cache outlives this
/// call.
fn stem_cached(stemmer: &Stemmer, word: &str, out: &mut String) {
    thread_local! {
        static CACHE: std::cell::RefCell<rustc_hash::FxHashMap<String, String>> =
            std::cell::RefCell::new(rustc_hash::FxHashMap::default());
    }
    cached(&CACHE, word, out, |w| fold_accents(&stemmer.stem(w)))
}

/// [`stem_cached`] without the folding (« Améliorer » can keep the accents).
fn stem_unfolded_cached(stemmer: &Stemmer, word: &str, out: &mut String) {
    thread_local! {
        static CACHE: std::cell::RefCell<rustc_hash::FxHashMap<String, String>> =
            std::cell::RefCell::new(rustc_hash::FxHashMap::default());
    }
    cached(&CACHE, word, out, |w| stemmer.stem(w).into_owned())
}

/// `make(word)` into `out`, remembered in `cache` (cleared past `STEM_CACHE_MAX` entries).
fn cached(
    cache: &'static std::thread::LocalKey<
        std::cell::RefCell<rustc_hash::FxHashMap<String, String>>,
    >,
    word: &str,
    out: &mut String,
    make: impl FnOnce(&str) -> String,
) {
    const STEM_CACHE_MAX: usize = 200_000;
    out.clear();
    cache.with(|c| {
        if let Some(s) = c.borrow().get(word) {
            out.push_str(s);
            return;
        }
        let stem = make(word);
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
mod tests;
