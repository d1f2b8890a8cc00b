//! « Améliorer »'s settings in a link's fragment: written compact, read back value by value.

use super::*;
use crate::fr::numbers::plain as fr_number;

impl Settings {
    /// The settings in a link's fragment, compact: only what differs from the starting method.
    /// `m` the method, then `k1`, `b`, `an` (analysis flags: w words u/s, l, e, r stem, a fold,
    /// each 0/1), `mv` (stop words added `+w` and removed `-w`, comma separated), `en`
    /// (`ID:words`, `ID+:words` for the product, `|` between), `fu` (`rrf60`, `sum-mm`,
    /// `mnz-z`…), `pr` depth, `po` weights. Inside `mv` and `en`, an id's or a word's own `\`,
    /// `|`, `:`, `,` and `+` are escaped with `\`: they carry what the JSON carries.
    pub fn to_link(&self) -> Vec<(&'static str, String)> {
        let Ok(base) = self.base() else {
            return Vec::new();
        };
        let start = Settings::of(base);
        let mut out = vec![("m", base.slug().to_owned())];
        if self.k1 != start.k1 {
            out.push(("k1", self.k1.to_string()));
        }
        if self.b != start.b {
            out.push(("b", self.b.to_string()));
        }
        let (a, s) = (&self.analysis, &start.analysis);
        if (a.words, a.lowercase, a.elisions, a.stem, a.fold)
            != (s.words, s.lowercase, s.elisions, s.stem, s.fold)
        {
            let bit = |b: bool| if b { '1' } else { '0' };
            let w = if a.words == WordChars::Unicode {
                'u'
            } else {
                's'
            };
            out.push((
                "an",
                [
                    w,
                    bit(a.lowercase),
                    bit(a.elisions),
                    bit(a.stem),
                    bit(a.fold),
                ]
                .iter()
                .collect(),
            ));
        }
        let (added, removed) = stop_changes(a, s);
        let changes: Vec<String> = added
            .iter()
            .map(|w| format!("+{}", link_escape(w)))
            .chain(removed.iter().map(|w| format!("-{}", link_escape(w))))
            .collect();
        if !changes.is_empty() {
            out.push(("mv", changes.join(",")));
        }
        if !self.enrich.is_empty() {
            let parts: Vec<String> = self
                .enrich
                .iter()
                .map(|e| {
                    format!(
                        "{}{}:{}",
                        link_escape(&e.id),
                        if e.product { "+" } else { "" },
                        link_escape(&e.words)
                    )
                })
                .collect();
            out.push(("en", parts.join("|")));
        }
        if self.fusion != start.fusion {
            let norm = |n: Norm| match n {
                Norm::MinMax => "mm",
                Norm::ZScore => "z",
            };
            out.push((
                "fu",
                match self.fusion {
                    Fusion::Rrf { k } => format!("rrf{k}"),
                    Fusion::CombSum { norm: n } => format!("sum-{}", norm(n)),
                    Fusion::CombMnz { norm: n } => format!("mnz-{}", norm(n)),
                },
            ));
        }
        if self.depth != start.depth {
            out.push(("pr", self.depth.to_string()));
        }
        if self.weights != start.weights {
            out.push(("po", format!("{},{}", self.weights[0], self.weights[1])));
        }
        out
    }

    /// Settings from a link's pairs (see [`Settings::to_link`]); `None` without a known `m`.
    pub fn from_link(pairs: &[(String, String)]) -> Option<Settings> {
        Settings::from_link_said(pairs).map(|(s, _)| s)
    }

    /// Settings from a link's pairs, and each value refused, in French: a value that cannot be
    /// read or is out of its range is left at the method's own and said; the others are kept.
    pub fn from_link_said(pairs: &[(String, String)]) -> Option<(Settings, Vec<String>)> {
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let base = Method::parse(get("m")?)?;
        let mut s = Settings::of(base);
        let mut refused: Vec<String> = Vec::new();
        let mut refuse = |key: &str, value: &str, why: &str| {
            let shown: String = value.chars().take(40).collect();
            let cut = if shown.len() < value.len() { "…" } else { "" };
            refused.push(format!(
                "«\u{202f}r{key}={shown}{cut}\u{202f}» refusé\u{a0}: {why}"
            ));
        };
        let number = |key: &str, lo: f64, hi: f64, refuse: &mut dyn FnMut(&str, &str, &str)| {
            let v = get(key)?;
            match v.trim().replace(',', ".").parse::<f64>() {
                Ok(x) if x.is_finite() && x >= lo && x <= hi => Some(x),
                _ => {
                    refuse(
                        key,
                        v,
                        &format!("attendu un nombre de {} à {}", fr_number(lo), fr_number(hi)),
                    );
                    None
                }
            }
        };
        if let Some(v) = number("k1", 0.0, 10.0, &mut refuse) {
            s.k1 = v;
        }
        if let Some(v) = number("b", 0.0, 1.0, &mut refuse) {
            s.b = v;
        }
        if let Some(an) = get("an") {
            let c: Vec<char> = an.chars().collect();
            let flag = |c: char| c == '0' || c == '1';
            if c.len() == 5 && (c[0] == 'u' || c[0] == 's') && c[1..].iter().all(|&x| flag(x)) {
                s.analysis.words = if c[0] == 'u' {
                    WordChars::Unicode
                } else {
                    WordChars::Seed
                };
                s.analysis.lowercase = c[1] == '1';
                s.analysis.elisions = c[2] == '1';
                s.analysis.stem = c[3] == '1';
                s.analysis.fold = c[4] == '1';
            } else {
                refuse("an", an, "attendu u ou s puis quatre chiffres 0 ou 1");
            }
        }
        if let Some(mv) = get("mv") {
            let mut words = s.analysis.stop_words.clone();
            let chars = link_chars(mv);
            for change in link_split(&chars, ',') {
                match change.split_first() {
                    Some((('+', false), rest)) => words.extend(word_list(&link_text(rest))),
                    Some((('-', false), rest)) => {
                        let gone = word_list(&link_text(rest));
                        words.retain(|x| !gone.contains(x));
                    }
                    None => {}
                    Some(_) => refuse("mv", &link_text(change), "attendu +mot ou -mot"),
                }
            }
            words.sort();
            words.dedup();
            s.analysis.stop_words = words;
        }
        if let Some(en) = get("en") {
            let chars = link_chars(en);
            for part in link_split(&chars, '|') {
                let parsed = part
                    .iter()
                    .position(|&(c, escaped)| c == ':' && !escaped)
                    .map(|at| (&part[..at], &part[at + 1..]));
                let Some((id, words)) = parsed else {
                    refuse("en", &link_text(part), "attendu IDENTIFIANT:mots");
                    continue;
                };
                let (id, product) = match id.split_last() {
                    Some((('+', false), id)) => (id, true),
                    _ => (id, false),
                };
                let (id, words) = (link_text(id), link_text(words));
                if id.is_empty() || words.trim().is_empty() {
                    refuse("en", &link_text(part), "attendu IDENTIFIANT:mots");
                    continue;
                }
                s.enrich.push(Enrichment {
                    id,
                    words: words.trim().to_owned(),
                    product,
                });
            }
        }
        if let Some(fu) = get("fu") {
            let norm = |n: &str| match n {
                "z" => Some(Norm::ZScore),
                "mm" => Some(Norm::MinMax),
                _ => None,
            };
            let parsed = if let Some(k) = fu.strip_prefix("rrf") {
                k.replace(',', ".")
                    .parse::<f64>()
                    .ok()
                    .filter(|k| k.is_finite() && (0.0..=1000.0).contains(k))
                    .map(|k| Fusion::Rrf { k })
            } else if let Some(n) = fu.strip_prefix("sum-") {
                norm(n).map(|norm| Fusion::CombSum { norm })
            } else if let Some(n) = fu.strip_prefix("mnz-") {
                norm(n).map(|norm| Fusion::CombMnz { norm })
            } else {
                None
            };
            match parsed {
                Some(f) => s.fusion = f,
                None => refuse(
                    "fu",
                    fu,
                    "attendu rrf suivi d'un k de 0 à 1000, sum-mm, sum-z, mnz-mm ou mnz-z",
                ),
            }
        }
        if let Some(v) = get("pr") {
            match v.trim().parse::<usize>() {
                Ok(d) if (1..=MAX_DEPTH).contains(&d) => s.depth = d,
                _ => refuse(
                    "pr",
                    v,
                    &format!("attendu un nombre entier de 1 à {MAX_DEPTH}"),
                ),
            }
        }
        if let Some(v) = get("po") {
            let weight = |x: &str| {
                x.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|w| w.is_finite() && (0.0..=10.0).contains(w))
            };
            match v.split_once(',').map(|(a, b)| (weight(a), weight(b))) {
                Some((Some(a), Some(b))) => s.weights = [a, b],
                _ => refuse(
                    "po",
                    v,
                    "attendu deux poids de 0 à 10, séparés par une virgule",
                ),
            }
        }
        // Each value was checked on its own: what is left is in range.
        match s.check() {
            Ok(()) => Some((s, refused)),
            Err(e) => {
                refused.push(e.to_string());
                Some((Settings::of(base), refused))
            }
        }
    }
}

/// The characters a link's lists use as separators, escaped with `\` inside a value.
const LINK_SEPARATORS: &[char] = &['\\', '|', ':', ',', '+'];

/// `value` with the link's separators escaped: an id or words holding « | », « : », « , » or
/// « + » come back as they were.
fn link_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if LINK_SEPARATORS.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A link's value read as characters, each with whether it was escaped.
fn link_chars(value: &str) -> Vec<(char, bool)> {
    let mut out = Vec::with_capacity(value.len());
    let mut it = value.chars();
    while let Some(c) = it.next() {
        match (c, c == '\\') {
            (_, true) => out.push((it.next().unwrap_or('\\'), true)),
            (c, false) => out.push((c, false)),
        }
    }
    out
}

/// `chars` cut at each separator `sep` that is not escaped.
fn link_split(chars: &[(char, bool)], sep: char) -> Vec<&[(char, bool)]> {
    chars.split(|&(c, escaped)| c == sep && !escaped).collect()
}

fn link_text(chars: &[(char, bool)]) -> String {
    chars.iter().map(|&(c, _)| c).collect()
}
