//! The journal of unanswered questions (seed 003's « suivi des questions sans réponse »): each
//! question a learner typed that the catalogue seems not to answer — its best score under the
//! method's calibrated refusal threshold, or the model's « pas dans le catalogue ». It tells the
//! catalogue's owner what customers ask that the fiches do not cover. Kept in the browser only
//! (IndexedDB, one record per entry: see [`record_key`]); exported as JSONL or CSV; erased in one
//! click.

use serde::{Deserialize, Serialize};

/// The journal keeps at most this many entries, the oldest dropped first.
pub const MAX_ENTRIES: usize = 1_000;

/// A journaled question's length at most, in characters: a link's (see [`crate::link`]).
pub const MAX_QUESTION_CHARS: usize = crate::link::MAX_QUESTION_CHARS;

/// Why a question was judged unanswered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Its best score falls under the method's refusal threshold.
    UnderThreshold,
    /// The model, reading the fiches found, answered « pas dans le catalogue ».
    ModelRefused,
}

impl Verdict {
    /// As the page and the CSV say it.
    pub fn french(self) -> &'static str {
        match self {
            Verdict::UnderThreshold => "score sous le seuil",
            Verdict::ModelRefused => "le modèle : « pas dans le catalogue »",
        }
    }
}

/// One unanswered question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// When, as ISO 8601 (UTC).
    pub date: String,
    pub question: String,
    /// The method whose fiches were judged (`mots+`, `hybride`…).
    pub method: String,
    /// The best score of that method for the question.
    pub best: f64,
    /// The method's refusal threshold then, if it had one.
    pub threshold: Option<f64>,
    pub verdict: Verdict,
    /// The model that refused, for [`Verdict::ModelRefused`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Entry {
    /// Whether `other` records the same thing (same question, method and verdict): the journal
    /// keeps one entry for it, not one per time it was typed.
    pub fn same(&self, other: &Entry) -> bool {
        self.question == other.question
            && self.method == other.method
            && self.verdict == other.verdict
    }
}

/// What every stored entry's key starts with.
pub const RECORD_PREFIX: &str = "e|";

/// The key an entry is stored under: its date first (keys sort as the entries were recorded),
/// then the writing tab's random name and its count of entries written, so that two tabs never
/// write one key. A tab adds only its new entries, each as its own record: it never writes the
/// journal back over another tab's entries, nor back after another tab erased it.
pub fn record_key(entry: &Entry, writer: &str, n: u64) -> String {
    format!("{RECORD_PREFIX}{}|{writer}|{n:010}", entry.date)
}

/// The journal: entries oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Journal {
    pub entries: Vec<Entry>,
}

impl Journal {
    /// Adds `entry` unless the same is already there; `true` when added. Past [`MAX_ENTRIES`]
    /// the oldest entry goes. A question longer than [`MAX_QUESTION_CHARS`] is cut there (and
    /// marked « … »), as a link cuts it: the journal's size, its writes and its rendering stay
    /// bounded whatever is pasted (entries read back from storage are cut the same way).
    pub fn add(&mut self, mut entry: Entry) -> bool {
        if entry.question.chars().count() > MAX_QUESTION_CHARS {
            entry.question = entry.question.chars().take(MAX_QUESTION_CHARS).collect();
            entry.question.push('…');
        }
        if self.entries.iter().any(|e| e.same(&entry)) {
            return false;
        }
        self.entries.push(entry);
        if self.entries.len() > MAX_ENTRIES {
            let extra = self.entries.len() - MAX_ENTRIES;
            self.entries.drain(..extra);
        }
        true
    }

    /// One JSON object per line.
    pub fn to_jsonl(&self) -> String {
        self.entries
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .map(|l| l + "\n")
            .collect()
    }

    /// Reads JSON lines back; a line that is not an entry (a storage written by another version,
    /// a damaged value) is skipped: the journal is a convenience, never a reason to fail.
    pub fn from_jsonl(text: &str) -> Journal {
        let mut journal = Journal::default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Ok(e) = serde_json::from_str::<Entry>(line) {
                journal.add(e);
            }
        }
        journal
    }

    /// `date;question;methode;meilleur_score;seuil;verdict;modele`, `;`-separated like the seed's
    /// questions.csv, every text field quoted and neutralised as the measurement export does.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("date;question;methode;meilleur_score;seuil;verdict;modele\n");
        for e in &self.entries {
            out += &format!(
                "{};{};{};{};{};{};{}\n",
                crate::measure::export::csv_field(&e.date),
                crate::measure::export::csv_field(&e.question),
                crate::measure::export::csv_field(&e.method),
                e.best,
                e.threshold.map(|t| t.to_string()).unwrap_or_default(),
                crate::measure::export::csv_field(e.verdict.french()),
                crate::measure::export::csv_field(e.model.as_deref().unwrap_or("")),
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(q: &str, verdict: Verdict) -> Entry {
        Entry {
            date: "2026-11-30T06:00:00.000Z".into(),
            question: q.into(),
            method: "mots+".into(),
            best: 2.5,
            threshold: Some(5.98),
            verdict,
            model: (verdict == Verdict::ModelRefused).then(|| "mistral-small-latest".into()),
        }
    }

    #[test]
    fn keeps_one_entry_per_question_method_and_verdict_and_reads_back() {
        let mut j = Journal::default();
        assert!(j.add(entry("Des panneaux solaires ?", Verdict::UnderThreshold)));
        assert!(!j.add(entry("Des panneaux solaires ?", Verdict::UnderThreshold)));
        assert!(j.add(entry("Des panneaux solaires ?", Verdict::ModelRefused)));
        assert!(j.add(entry(
            "=cmd|' /C calc'!A0 ; \"x\"\nsuite",
            Verdict::UnderThreshold
        )));
        let text = j.to_jsonl();
        assert_eq!(text.lines().count(), 3);
        assert_eq!(Journal::from_jsonl(&text), j);
        assert_eq!(
            Journal::from_jsonl(&format!("pas du JSON\n{text}{{}}\n")),
            j
        );
        let csv = j.to_csv();
        let mut reader = ::csv::ReaderBuilder::new()
            .delimiter(b';')
            .from_reader(csv.as_bytes());
        let rows: Vec<::csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(&rows[1][5], "le modèle : « pas dans le catalogue »");
        assert_eq!(&rows[1][6], "mistral-small-latest");
        assert_eq!(&rows[2][1], "'=cmd|' /C calc'!A0 ; \"x\"\nsuite");
        assert_eq!((&rows[0][3], &rows[0][4]), ("2.5", "5.98"));
    }

    #[test]
    fn record_keys_sort_by_date_and_never_collide_between_writers() {
        let mut a = entry("a", Verdict::UnderThreshold);
        a.date = "2026-12-06T05:00:00.000Z".into();
        let mut b = a.clone();
        b.date = "2026-12-06T05:00:01.000Z".into();
        assert!(record_key(&a, "zz", 9) < record_key(&b, "aa", 0));
        assert_ne!(record_key(&a, "t1", 0), record_key(&a, "t2", 0));
        assert_ne!(record_key(&a, "t1", 0), record_key(&a, "t1", 1));
        assert!(record_key(&a, "t1", 0).starts_with(RECORD_PREFIX));
    }

    #[test]
    fn stays_bounded() {
        let mut j = Journal::default();
        for i in 0..MAX_ENTRIES + 5 {
            j.add(entry(&format!("question {i}"), Verdict::UnderThreshold));
        }
        assert_eq!(j.entries.len(), MAX_ENTRIES);
        assert_eq!(j.entries[0].question, "question 5");
    }

    #[test]
    fn b6_a_pasted_100_kb_question_is_journaled_cut_to_a_links_length() {
        let mut j = Journal::default();
        let long = "isolant ".repeat(12_500);
        assert!(j.add(entry(&long, Verdict::UnderThreshold)));
        let kept = &j.entries[0].question;
        assert_eq!(kept.chars().count(), MAX_QUESTION_CHARS + 1);
        assert!(kept.ends_with('…'));
        // 300 such entries read back from storage stay a few hundred kB, not 30 MB.
        let mut many = String::new();
        for i in 0..300 {
            let e = entry(&format!("{i} {long}"), Verdict::UnderThreshold);
            many.push_str(&serde_json::to_string(&e).unwrap());
            many.push('\n');
        }
        let back = Journal::from_jsonl(&many);
        assert_eq!(back.entries.len(), 300);
        assert!(
            back.to_jsonl().len() < 300 * 1_000,
            "{}",
            back.to_jsonl().len()
        );
    }
}
