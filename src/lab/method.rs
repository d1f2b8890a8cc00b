//! The methods both fronts offer, by name: the keyword side, the encoder, how a score is shown.

use serde::Serialize;

use crate::search::analysis::Analyzer;

/// The keyword side of a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Keyword {
    /// The seed's BM25 (`bm25.py`), unchanged.
    Mots,
    /// BM25 over French-analysed terms (elisions, stop words, Snowball stems, no accents).
    MotsPlus,
}

/// A retrieval method, by the name the learner sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Method {
    Keyword(Keyword),
    /// Cosine between the question's vector and each fiche's.
    Sens,
    /// RRF of a keyword method's top 50 and `sens`'s top 50.
    Hybride(Keyword),
    /// Cosine between vectors of the local encoder (USE multilingual v3, run in the page).
    SensLocal,
    /// RRF of `mots+`'s top 50 and `sens local`'s top 50.
    HybrideLocal,
}

/// Which vectors a dense method reads: mistral-embed's, or the local encoder's. Never mixed: each
/// has its own fiche vectors (model name and fingerprint checked) and its own question vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Encoder {
    Mistral,
    Local,
}

impl Method {
    pub const MOTS: Method = Method::Keyword(Keyword::Mots);
    pub const MOTS_PLUS: Method = Method::Keyword(Keyword::MotsPlus);
    pub const KEYWORD: [Method; 2] = [Method::MOTS, Method::MOTS_PLUS];
    /// Every method, in the order the page shows them.
    pub const ALL: [Method; 7] = [
        Method::MOTS,
        Method::MOTS_PLUS,
        Method::Sens,
        Method::Hybride(Keyword::Mots),
        Method::Hybride(Keyword::MotsPlus),
        Method::SensLocal,
        Method::HybrideLocal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::Keyword(Keyword::Mots) => "mots",
            Method::Keyword(Keyword::MotsPlus) => "mots+",
            Method::Sens => "sens",
            Method::Hybride(Keyword::Mots) => "hybride",
            Method::Hybride(Keyword::MotsPlus) => "hybride+",
            Method::SensLocal => "sens local",
            Method::HybrideLocal => "hybride local",
        }
    }

    /// A method by its name or its slug (`sens local` or `sens-local`).
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == name || m.slug() == name)
    }

    /// The encoder whose vectors a dense method reads (`None` for keyword methods).
    pub fn encoder(self) -> Option<Encoder> {
        match self {
            Method::Keyword(_) => None,
            Method::Sens | Method::Hybride(_) => Some(Encoder::Mistral),
            Method::SensLocal | Method::HybrideLocal => Some(Encoder::Local),
        }
    }

    /// The keyword side of a fusion.
    pub fn fused_keyword(self) -> Option<Keyword> {
        match self {
            Method::Hybride(k) => Some(k),
            Method::HybrideLocal => Some(Keyword::MotsPlus),
            _ => None,
        }
    }

    /// Decimals the seed shows this method's scores with: BM25 rounded to 2, cosines to 3, RRF
    /// points unrounded.
    pub fn score_decimals(self) -> Option<usize> {
        match self {
            Method::Keyword(_) => Some(2),
            Method::Sens | Method::SensLocal => Some(3),
            Method::Hybride(_) | Method::HybrideLocal => None,
        }
    }

    /// The name as it may appear in an element id or a file name (`mots+` → `mots-plus`).
    pub fn slug(self) -> &'static str {
        match self {
            Method::Keyword(Keyword::Mots) => "mots",
            Method::Keyword(Keyword::MotsPlus) => "mots-plus",
            Method::Sens => "sens",
            Method::Hybride(Keyword::Mots) => "hybride",
            Method::Hybride(Keyword::MotsPlus) => "hybride-plus",
            Method::SensLocal => "sens-local",
            Method::HybrideLocal => "hybride-local",
        }
    }

    /// Decimals the page shows this method's scores with: enough to tell neighbours apart
    /// (BM25 2, cosine 3, RRF points 4: two ranks 1/(60 + r) differ in the 4th decimal).
    pub fn display_decimals(self) -> usize {
        match self {
            Method::Keyword(_) => 2,
            Method::Sens | Method::SensLocal => 3,
            Method::Hybride(_) | Method::HybrideLocal => 4,
        }
    }

    /// Whether the method needs the question's vector (and the fiches').
    pub fn is_dense(self) -> bool {
        !matches!(self, Method::Keyword(_))
    }

    /// Whether the method reads mistral-embed's vectors (the question's is a paid call, or
    /// shipped): `sens`, `hybride`, `hybride+`, never the local model's methods.
    pub fn uses_mistral(self) -> bool {
        self.encoder() == Some(Encoder::Mistral)
    }
}

impl Keyword {
    pub fn analyzer(self) -> Analyzer {
        match self {
            Keyword::Mots => Analyzer::Seed,
            Keyword::MotsPlus => Analyzer::French,
        }
    }
}
