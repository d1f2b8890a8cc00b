//! What the learner changed, from which method.

use serde::{Deserialize, Serialize};

use crate::lab::{Keyword, Method};
use crate::search::analysis::custom::{word_list, Steps, WordChars};
use crate::search::bm25::Bm25Params;
use crate::search::fusion::{Fusion, Norm, RRF_DEPTH};

/// The settings in a link's fragment, both ways.
mod link;

/// Words added to a fiche's text, to be found by them (the seed's fix: « c'est la fiche qu'on
/// enrichit, pas la question »), optionally to every variant of its product.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enrichment {
    pub id: String,
    pub words: String,
    /// Also to the fiche's sibling variants.
    #[serde(default)]
    pub product: bool,
}

/// A starting method and every change made to it. The defaults of a method change nothing: its
/// measurement is the method's own, bit for bit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The starting method's name (`mots`, `mots+`, `sens local`, `hybride local`, …).
    pub method: String,
    /// The keyword side's analysis.
    pub analysis: Steps,
    pub k1: f64,
    pub b: f64,
    #[serde(default)]
    pub enrich: Vec<Enrichment>,
    /// How a fusion joins its keyword and dense lists.
    pub fusion: Fusion,
    /// How many results of each list are fused.
    pub depth: usize,
    /// The keyword list's weight, then the dense list's.
    pub weights: [f64; 2],
}

/// Why settings cannot be used.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingsError {
    UnknownMethod(String),
    /// A value out of its range: the setting's name and why.
    Value(&'static str, String),
    UnknownFiche(String),
    Json(String),
    /// A line of an `--enrichir` file that is not `ID;words`.
    Line(usize),
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingsError::UnknownMethod(m) => write!(
                f,
                "méthode inconnue « {m} » : mots, mots+, sens, hybride, hybride+, sens local ou hybride local"
            ),
            SettingsError::Value(name, why) => write!(f, "{name} : {why}"),
            SettingsError::UnknownFiche(id) => write!(f, "aucune fiche {id} dans le catalogue"),
            SettingsError::Json(e) => write!(f, "réglages illisibles : {e}"),
            SettingsError::Line(n) => {
                write!(f, "ligne {n} : attendu « AR-0063;mots ajoutés à la fiche »")
            }
        }
    }
}

impl std::error::Error for SettingsError {}

/// The stop words `now` has that `start` has not, and those it lost.
fn stop_changes<'a>(now: &'a Steps, start: &'a Steps) -> (Vec<&'a str>, Vec<&'a str>) {
    let missing = |from: &'a Steps, other: &Steps| -> Vec<&'a str> {
        from.stop_words
            .iter()
            .filter(|w| !other.stop_words.contains(w))
            .map(String::as_str)
            .collect()
    };
    (missing(now, start), missing(start, now))
}

/// The largest depth a fusion can read.
pub const MAX_DEPTH: usize = crate::search::fusion::MAX_FUSION_DEPTH;

impl Settings {
    /// `method` as it is, nothing changed.
    pub fn of(method: Method) -> Settings {
        let keyword = match method {
            Method::Keyword(k) => k,
            other => other.fused_keyword().unwrap_or(Keyword::MotsPlus),
        };
        let Bm25Params { k1, b } = Bm25Params::default();
        Settings {
            method: method.name().to_owned(),
            analysis: match keyword {
                Keyword::Mots => Steps::seed(),
                Keyword::MotsPlus => Steps::french(),
            },
            k1,
            b,
            enrich: Vec::new(),
            fusion: Fusion::SEED,
            depth: RRF_DEPTH,
            weights: [1.0, 1.0],
        }
    }

    /// The starting method.
    pub fn base(&self) -> Result<Method, SettingsError> {
        Method::parse(&self.method).ok_or_else(|| SettingsError::UnknownMethod(self.method.clone()))
    }

    /// Settings read from JSON (the page's export, `mesurer --reglages`), checked.
    /// A misspelled key is refused (its setting would be lost without a word); a UTF-8 BOM, as
    /// Windows' Notepad writes it, is skipped.
    pub fn from_json(text: &str) -> Result<Settings, SettingsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let s: Settings =
            serde_json::from_str(text).map_err(|e| SettingsError::Json(e.to_string()))?;
        s.check()?;
        Ok(s)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The values in their ranges, the method known.
    pub fn check(&self) -> Result<(), SettingsError> {
        self.base()?;
        let finite = |name: &'static str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && v >= lo && v <= hi {
                Ok(())
            } else {
                // 1e308 is said as such, not as 309 digits.
                let shown = if v.abs() >= 1e6 {
                    format!("{v:e}")
                } else {
                    v.to_string()
                };
                Err(SettingsError::Value(
                    name,
                    format!("{shown} hors de [{lo}, {hi}]"),
                ))
            }
        };
        finite("k1", self.k1, 0.0, 10.0)?;
        finite("b", self.b, 0.0, 1.0)?;
        if let Fusion::Rrf { k } = self.fusion {
            finite("k de RRF", k, 0.0, 1000.0)?;
        }
        finite("poids des mots", self.weights[0], 0.0, 10.0)?;
        finite("poids du sens", self.weights[1], 0.0, 10.0)?;
        if self.depth == 0 || self.depth > MAX_DEPTH {
            return Err(SettingsError::Value(
                "profondeur",
                format!("{} hors de [1, {MAX_DEPTH}]", self.depth),
            ));
        }
        Ok(())
    }

    /// Enrichments from an `--enrichir` file: one `ID;words` per line (blank lines and lines
    /// starting with `#` skipped, a UTF-8 BOM too); `ID+;words` adds them to every variant of the
    /// product.
    pub fn enrichments(text: &str) -> Result<Vec<Enrichment>, SettingsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (id, words) = line.split_once(';').ok_or(SettingsError::Line(i + 1))?;
            let (id, product) = match id.trim().strip_suffix('+') {
                Some(id) => (id, true),
                None => (id.trim(), false),
            };
            if id.is_empty() || words.trim().is_empty() {
                return Err(SettingsError::Line(i + 1));
            }
            out.push(Enrichment {
                id: id.to_owned(),
                words: words.trim().to_owned(),
                product,
            });
        }
        Ok(out)
    }

    /// `enrich` in the format [`Settings::enrichments`] reads (`AR-0063;ne brûle pas`, `+` after
    /// the id for a whole product): the difference the enriched catalogue makes, one line each.
    pub fn enrichments_text(enrich: &[Enrichment]) -> String {
        enrich
            .iter()
            .map(|e| format!("{}{};{}\n", e.id, if e.product { "+" } else { "" }, e.words))
            .collect()
    }

    /// The keyword side in use (`None` for a dense method alone).
    pub fn keyword(&self) -> Option<Keyword> {
        match self.base().ok()? {
            Method::Keyword(k) => Some(k),
            m => m.fused_keyword(),
        }
    }

    /// Whether the keyword side's index must be built again (its analysis or its text changed),
    /// not merely re-weighted.
    pub fn rebuilds(&self) -> bool {
        let Ok(base) = self.base() else { return false };
        !self.enrich.is_empty() || self.analysis != Settings::of(base).analysis
    }

    /// The changes from the starting method, in words: `b = 0 ; racine Snowball retirée`.
    pub fn changes(&self) -> Vec<String> {
        let Ok(base) = self.base() else {
            return Vec::new();
        };
        let start = Settings::of(base);
        let mut out = Vec::new();
        let uses_keyword = self.keyword().is_some();
        let fused = base.fused_keyword().is_some();
        if uses_keyword {
            let (a, s) = (&self.analysis, &start.analysis);
            let onoff = |on: bool| if on { "ajoutée" } else { "retirée" };
            if a.words != s.words {
                out.push(match a.words {
                    WordChars::Seed => "mots = [a-zà-öø-ÿ0-9]".to_owned(),
                    WordChars::Unicode => "mots = lettres et chiffres".to_owned(),
                });
            }
            if a.lowercase != s.lowercase {
                out.push(format!(
                    "minuscules {}",
                    if a.lowercase {
                        "ajoutées"
                    } else {
                        "retirées"
                    }
                ));
            }
            if a.elisions != s.elisions {
                out.push(format!(
                    "élisions {}",
                    if a.elisions { "retirées" } else { "gardées" }
                ));
            }
            if a.stem != s.stem {
                out.push(format!("racine Snowball {}", onoff(a.stem)));
            }
            if a.fold != s.fold {
                out.push(format!(
                    "accents {}",
                    if a.fold { "retirés" } else { "gardés" }
                ));
            }
            let (added, removed) = stop_changes(a, s);
            let list = |words: &[&str]| {
                if words.len() > 6 {
                    format!("{} mots", words.len())
                } else {
                    words
                        .iter()
                        .map(|w| format!("« {w} »"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            if !added.is_empty() {
                out.push(format!("mots vides + {}", list(&added)));
            }
            if !removed.is_empty() {
                out.push(format!("mots vides − {}", list(&removed)));
            }
            if self.k1 != start.k1 {
                out.push(format!("k1 = {}", crate::fr::numbers::plain(self.k1)));
            }
            if self.b != start.b {
                out.push(format!("b = {}", crate::fr::numbers::plain(self.b)));
            }
            for e in &self.enrich {
                let whole = if e.product { " (et ses variantes)" } else { "" };
                out.push(format!("{}{whole} + « {} »", e.id, e.words));
            }
        }
        if fused {
            if self.fusion != start.fusion {
                out.push(self.fusion.label());
            }
            if self.depth != start.depth {
                out.push(format!("profondeur {}", self.depth));
            }
            if self.weights != start.weights {
                out.push(format!(
                    "poids {} / {}",
                    crate::fr::numbers::plain(self.weights[0]),
                    crate::fr::numbers::plain(self.weights[1])
                ));
            }
        }
        out
    }

    /// The name the measurement carries: the method's, and its changes in brackets.
    pub fn name(&self) -> String {
        let changes = self.changes();
        if changes.is_empty() {
            self.method.clone()
        } else {
            format!("{} ({})", self.method, changes.join(" ; "))
        }
    }
}
