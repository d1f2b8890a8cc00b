//! « Améliorer »: the learner changes the search one thing at a time and every question is
//! measured again at once, against the method they started from.
//!
//! - [`Settings`]: a starting method and what was changed (analysis steps, BM25's k1 and b, words
//!   added to fiches, the fusion); in a link, in a JSON file, and on `mesurer`'s command line.
//! - [`Tuned`]: the index those settings need, prepared once and kept while only k1, b or the
//!   fusion move; it measures the questions as [`crate::lab::Lab::measure`] does.
//! - [`batch`]: several settings measured in bounded steps (the page's thread is never held).
//! - [`diff`]: what a change did (figures, questions up and down, paired tests in words).
//! - [`sweep`]: a grid tuned on one half of the questions and checked on the other.
//! - [`checklist`]: the exercise's success criteria for any measurement.
//! - [`missed`]: « les ratées », the question words missing from the expected fiche.
//! - [`borrowed`]: enrichments whose words come from the questions they are measured on.
//! - [`why`]: why a question moved under a fusion (its expected fiche in each list fused).

pub mod batch;
pub mod borrowed;
pub mod checklist;
pub mod diff;
pub mod missed;
mod settings;
pub mod sweep;
mod tuned;
pub mod why;

pub use settings::{Enrichment, Settings, SettingsError};
pub use tuned::{dense_tops, enriched_jsonl, DenseTops, Tuned, DENSE_TOP};

/// Why settings could not be measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    Settings(SettingsError),
    Search(crate::lab::SearchError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Settings(e) => e.fmt(f),
            Error::Search(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<SettingsError> for Error {
    fn from(e: SettingsError) -> Error {
        Error::Settings(e)
    }
}

impl From<crate::lab::SearchError> for Error {
    fn from(e: crate::lab::SearchError) -> Error {
        Error::Search(e)
    }
}

#[cfg(test)]
mod tests;
