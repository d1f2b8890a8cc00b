//! French for the learner: numbers written the French way, the labels of methods and question
//! types, and the French message of every error a learner can meet. The page and its tests read
//! them from here, so that wording and typography are checked natively, in one place.
//!
//! [`numbers`] is a leaf: it imports nothing from the crate, so that every module may write a
//! number the French way; the rest of `fr` reads the core's types (`tests/shape.rs` checks both).

/// The labels of methods, question types and measurements.
pub mod labels;
/// One French sentence per error variant, by exhaustive match: a new variant does not compile
/// until it has its sentence.
pub mod messages;
/// Numbers and dates written the French way, for every module of the crate.
pub mod numbers;
/// The no-break spaces of French punctuation, checked on every sentence the page writes.
pub mod typography;

pub use numbers::*;
