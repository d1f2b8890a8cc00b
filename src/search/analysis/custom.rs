//! An analysis the learner composes step by step in « Améliorer »: which characters make a word,
//! lowercasing, elisions, the stop-word list, Snowball stemming and accent folding, each on or
//! off. The two fixed analysers are two settings of these steps ([`Steps::seed`] and
//! [`Steps::french`]); [`Steps::analyzer`] gives back the fixed analyser itself for them, so that a
//! learner who has changed nothing measures exactly `mots` or `mots+`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::{
    each_run_cased, fold_accents, french_stemmer, is_seed_word_char, stem_cached,
    stem_unfolded_cached, Analyzer, ELISIONS, FRENCH_STOP_WORDS, SEED_STOP_WORDS,
};

/// Which characters a word is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WordChars {
    /// The seed's `[a-zà-öø-ÿ0-9]`: lowercase Latin letters and digits (uppercase letters split
    /// words when lowercasing is off, as the seed's expression would without `lower()`).
    Seed,
    /// Every letter and digit of any script.
    Unicode,
}

/// The steps of a keyword analysis, in the order they run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Steps {
    pub words: WordChars,
    pub lowercase: bool,
    /// `l'`, `d'`, `qu'`… dropped before an apostrophe.
    pub elisions: bool,
    /// Words dropped, as typed (lowercase); sorted, without repeats.
    pub stop_words: Vec<String>,
    /// Snowball French stemming.
    pub stem: bool,
    /// Accents removed (after stemming, which reads them); a stop word then also matches typed
    /// without its accents.
    pub fold: bool,
}

/// A word list from text: words separated by spaces, commas or new lines, lowercased, sorted,
/// without repeats.
pub fn word_list(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The seed's stop words, as a list.
pub fn seed_stop_list() -> Vec<String> {
    word_list(SEED_STOP_WORDS)
}

/// `mots+`'s stop words, as a list (the seed's without « sous », and the French list).
pub fn french_stop_list() -> Vec<String> {
    let mut words = word_list(&format!("{FRENCH_STOP_WORDS} {SEED_STOP_WORDS}"));
    words.retain(|w| w != "sous");
    words
}

/// The Snowball project's French stop list (snowballstem.org, `algorithms/french/stop.txt`, as
/// Lingua::StopWords ships it), alone: a starting point to edit.
pub const SNOWBALL_FRENCH_STOP_WORDS: &str = "au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me \
même mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre \
vous c d j l à m n s t y été étée étées étés étant étante étants étantes suis es est sommes êtes sont serai seras sera \
serons serez seront serais serait serions seriez seraient étais était étions étiez étaient fus fut fûmes fûtes furent \
sois soit soyons soyez soient fusse fusses fût fussions fussiez fussent ayant ayante ayantes ayants eu eue eues eus ai as \
avons avez ont aurai auras aura aurons aurez auront aurais aurait aurions auriez auraient avais avait avions aviez \
avaient eut eûmes eûtes eurent aie aies ait ayons ayez aient eusse eusses eût eussions eussiez eussent";

impl Steps {
    /// The steps of `mots`, the seed's analysis.
    pub fn seed() -> Steps {
        Steps {
            words: WordChars::Seed,
            lowercase: true,
            elisions: false,
            stop_words: seed_stop_list(),
            stem: false,
            fold: false,
        }
    }

    /// The steps of `mots+`.
    pub fn french() -> Steps {
        Steps {
            words: WordChars::Unicode,
            lowercase: true,
            elisions: true,
            stop_words: french_stop_list(),
            stem: true,
            fold: true,
        }
    }

    /// The analyser that runs these steps: `Seed` or `French` themselves when the steps are
    /// theirs, else one built once per distinct setting and kept for the page's life (a learner
    /// tries tens of settings; each costs its stop-word set).
    pub fn analyzer(&self) -> Analyzer {
        if *self == Steps::seed() {
            return Analyzer::Seed;
        }
        if *self == Steps::french() {
            return Analyzer::French;
        }
        static MADE: OnceLock<Mutex<HashMap<Steps, &'static Custom>>> = OnceLock::new();
        let mut made = MADE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let custom = *made
            .entry(self.clone())
            .or_insert_with(|| Box::leak(Box::new(Custom::new(self.clone()))));
        Analyzer::Custom(custom)
    }

    /// The steps, in words, as the page and `mesurer --explain` show them.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        parts.push(match (self.words, self.lowercase) {
            (WordChars::Seed, true) => "minuscules ; mots = suites de [a-zà-öø-ÿ0-9]",
            (WordChars::Seed, false) => "sans minuscules ; mots = suites de [a-zà-öø-ÿ0-9]",
            (WordChars::Unicode, true) => "minuscules ; mots = lettres et chiffres",
            (WordChars::Unicode, false) => "sans minuscules ; mots = lettres et chiffres",
        });
        if self.elisions {
            parts.push("élisions (l', d', qu'…) retirées");
        }
        let stops = format!("{} mots vides", self.stop_words.len());
        let mut out = parts.join(" ; ");
        out += " ; ";
        out += &stops;
        if self.stem {
            out += " ; racine Snowball";
        }
        if self.fold {
            out += " ; accents retirés";
        }
        out
    }
}

/// An analyser built from [`Steps`]: the steps and their stop-word set.
#[derive(Debug)]
pub struct Custom {
    pub steps: Steps,
    stop: FxHashSet<String>,
    description: String,
}

impl PartialEq for Custom {
    fn eq(&self, other: &Self) -> bool {
        self.steps == other.steps
    }
}

impl Eq for Custom {}

impl std::hash::Hash for Custom {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.steps.hash(state)
    }
}

impl Custom {
    pub(crate) fn new(steps: Steps) -> Custom {
        let mut stop = FxHashSet::default();
        for w in &steps.stop_words {
            stop.insert(w.clone());
            if steps.fold {
                stop.insert(fold_accents(w));
            }
        }
        let description = steps.describe();
        Custom {
            steps,
            stop,
            description,
        }
    }

    pub fn description(&'static self) -> &'static str {
        &self.description
    }

    pub(super) fn is_word(&self) -> fn(char) -> bool {
        match self.steps.words {
            WordChars::Seed => is_seed_word_char,
            WordChars::Unicode => char::is_alphanumeric,
        }
    }

    pub(super) fn each_term(&self, text: &str, mut f: impl FnMut(&str, usize, usize)) {
        let steps = &self.steps;
        let mut stem = String::new();
        each_run_cased(text, self.is_word(), steps.lowercase, |word, start, end| {
            if steps.elisions
                && (text[end..].starts_with('\'') || text[end..].starts_with('\u{2019}'))
                && ELISIONS.contains(&word)
            {
                return;
            }
            if self.stop.contains(word) {
                return;
            }
            match (steps.stem, steps.fold) {
                (true, true) => {
                    stem_cached(french_stemmer(), word, &mut stem);
                    f(&stem, start, end);
                }
                (true, false) => {
                    stem_unfolded_cached(french_stemmer(), word, &mut stem);
                    f(&stem, start, end);
                }
                (false, true) => f(&fold_accents(word), start, end),
                (false, false) => f(word, start, end),
            }
        });
    }
}
