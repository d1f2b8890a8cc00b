//! « Questions sans réponse »: committed questions whose best score is under a method's refusal
//! threshold, and answers the model refused, kept with the date the shell gave.

use crate::journal::{Entry, Verdict};
use crate::lab::{Method, SearchError};

use super::super::effect::Effect;
use super::super::jobs::Subject;
use super::super::msg::JournalMsg;
use super::super::state::State;

/// « Exporter » the journal: `csv`, else JSON lines.
pub(super) fn export(s: &State, what: &str, fx: &mut Vec<Effect>) {
    let (name, text) = match what {
        "csv" => ("questions-sans-reponse.csv", s.journal.to_csv()),
        _ => ("questions-sans-reponse.jsonl", s.journal.to_jsonl()),
    };
    fx.push(Effect::Download(name.into(), text.into_bytes()));
}

/// The journal entry for `question` under `method`: its best score and the method's refusal
/// threshold (calibrated as « Mesurer » shows it, on the questions of even rank).
pub(super) fn unanswered(
    s: &State,
    question: &str,
    method: Method,
    verdict: Verdict,
    model: Option<String>,
    now: &str,
) -> Result<Entry, SearchError> {
    let vector = s.vector_for(method, question);
    let best = s
        .data
        .lab
        .search(method, question, vector, 1)?
        .first()
        .map_or(0.0, |r| r.score);
    let threshold = s
        .data
        .measured()
        .into_iter()
        .find(|m| m.method == method.name())
        .and_then(crate::measure::compare::calibrate_split)
        .map(|c| c.calibration.threshold);
    Ok(Entry {
        date: now.to_owned(),
        question: question.to_owned(),
        method: method.name().to_owned(),
        best,
        threshold,
        verdict,
        model,
    })
}

/// A question committed in the box: for each method shown that can rank it and has a threshold,
/// a best score under that threshold goes into the journal. Exercise questions are not typed
/// questions: they are measured in « Mesurer ».
///
/// A dense method that cannot rank it yet (its vector or its dense top is on the way, or the
/// fiche vectors are still loading) waits in `journal_waiting` and is tried again when one of
/// those arrives ([`retry_unanswered`]): pressing Enter before the embedding came back does not
/// lose its verdict.
pub(super) fn note_unanswered(s: &mut State, now: &str, fx: &mut Vec<Effect>) {
    let q = s.question.trim().to_owned();
    if q.is_empty() || s.data.questions.iter().any(|x| x.text == s.question) {
        return;
    }
    let question = s.question.clone();
    let mut added = Vec::new();
    for &method in &s.shown.clone() {
        added.extend(journal_one(s, &question, method, now));
    }
    append(s, added, fx);
}

/// Stores `added`, each under its own record key (this tab's name and count).
pub(super) fn append(s: &mut State, added: Vec<Entry>, fx: &mut Vec<Effect>) {
    if added.is_empty() {
        return;
    }
    let records = added
        .into_iter()
        .map(|e| {
            let (writer, written) = &mut s.journal_writer;
            *written += 1;
            (crate::journal::record_key(&e, writer, *written), e)
        })
        .collect();
    fx.push(Effect::JournalAppend(records));
}

/// The stored journal, read while a newer read is wanted.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    let (asked, shown) = s.journal_reads;
    if asked > shown {
        want(Subject::ReadJournal(asked));
    }
}

/// Journals `question` under `method` if its best score is under the threshold (the entry added,
/// if the journal changed); if the method cannot rank it yet, puts it in the waiting list instead.
fn journal_one(s: &mut State, question: &str, method: Method, now: &str) -> Option<Entry> {
    match unanswered(s, question, method, Verdict::UnderThreshold, None, now) {
        Ok(e) => (e.threshold.is_some_and(|t| e.best < t) && s.journal.add(e.clone())).then_some(e),
        Err(
            SearchError::Pending | SearchError::NoQuestionVector { .. } | SearchError::NoVectors,
        ) => {
            let item = (question.to_owned(), method);
            if !s.data.ui.journal_waiting.contains(&item) {
                if s.data.ui.journal_waiting.len() >= JOURNAL_WAITING_MAX {
                    s.data.ui.journal_waiting.remove(0);
                }
                s.data.ui.journal_waiting.push(item);
            }
            None
        }
        Err(SearchError::Dense(_)) => None,
    }
}

/// Committed questions whose dense methods wait, at most: the oldest is dropped past it (a
/// question whose vector never comes, without a key say, must not grow the list for ever).
const JOURNAL_WAITING_MAX: usize = 16;

/// The waiting committed questions tried again, after something they may wait for arrived.
pub(super) fn retry_unanswered(s: &mut State, now: &str, fx: &mut Vec<Effect>) {
    let waiting = std::mem::take(&mut s.data.ui.journal_waiting);
    let mut added = Vec::new();
    for (question, method) in waiting {
        added.extend(journal_one(s, &question, method, now));
    }
    append(s, added, fx);
}

/// What a [`JournalMsg`] changes.
pub(super) fn update(s: &mut State, msg: JournalMsg, fx: &mut Vec<Effect>) {
    match msg {
        JournalMsg::Changed => s.journal_reads.0 += 1,
        JournalMsg::Exported(what) => export(s, &what, fx),
        JournalMsg::Erased => {
            s.journal = crate::journal::Journal::default();
            fx.push(Effect::JournalErase);
        }
    }
}
