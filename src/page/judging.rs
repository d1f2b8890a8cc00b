//! « Questions »' part of a catalogue: the pool of the measured methods' first fiches, the
//! judgments given by hand (kept on this device, under the catalogue's fingerprint and its
//! questions), and the qrels in force — the catalogue's own with the hand's over them.

use sha2::{Digest, Sha256};

use crate::data::Question;
use crate::measure::graded::Qrels;
use crate::measure::judging::{Judgments, Pool};
use crate::measure::Measurement;

/// Where this device keeps the judgments of a catalogue (localStorage), before its key.
pub const ENTRY_PREFIX: &str = "rag-fiches.jugements.";

/// A catalogue's judging, replaced with it.
#[derive(Debug, Clone, Default)]
pub struct Judging {
    /// The judgments given by hand, in order (« Annuler » takes back the last).
    pub hand: Judgments,
    /// Whether the judgments this device keeps for the catalogue were read: until then, their
    /// read is wanted, and no judgment is given.
    pub read: bool,
    /// What the read found wrong (the stored text does not fit this catalogue): said in the view.
    pub message: Option<String>,
    /// The pairs to judge, and what they were pooled from (see [`Judging::pool_inputs`]).
    pub pool: Pool,
    pub pooled_from: Option<(u64, Vec<String>)>,
    /// The catalogue's own qrels with the hand judgments over them: what the graded measures read.
    pub qrels: Qrels,
    /// Counts every change of `qrels` (what the graded table shows is rebuilt on it).
    pub version: u64,
    /// Another judge's qrels, imported: its file's name and grades (compared with the hand's).
    pub other: Option<(String, Qrels)>,
    /// A qrels file being read, by its import's number.
    pub reading: Option<(u64, Vec<super::effect::FileRef>)>,
    /// Why the last imported file was refused (in French), nothing of it kept.
    pub refused: Option<String>,
}

impl Judging {
    /// What the pool is made from: the measurements' version and the methods and runs measured.
    pub fn pool_inputs(version: u64, measured: &[&Measurement]) -> (u64, Vec<String>) {
        (version, measured.iter().map(|m| m.method.clone()).collect())
    }

    /// The qrels in force again, after the hand judgments changed.
    pub fn refresh(&mut self, known: &Qrels) {
        self.qrels = self.hand.over(known);
        self.version += 1;
    }
}

/// The localStorage entry of a catalogue's judgments: its fiches' `fingerprint` and a digest of
/// its questions (a judgment is of a question by its number: other questions, other judgments).
pub fn entry(fingerprint: &str, questions: &[Question]) -> String {
    let mut h = Sha256::new();
    for q in questions {
        h.update(q.text.as_bytes());
        h.update([0]);
    }
    let digest: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{ENTRY_PREFIX}{fingerprint}.{digest}")
}
