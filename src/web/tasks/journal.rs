//! The journal's storage, shared by the tabs of one browser profile. Each entry a tab adds is
//! stored as its own record ([`crate::journal::record_key`]), in one transaction per addition;
//! « Effacer » empties the store. After either, the tab tells the others on a
//! `BroadcastChannel`, and every tab shows the journal as stored, read again (a keyed job: a newer
//! read replaces an older one). So two tabs that
//! type at once lose nothing, and no tab writes back what another erased: a tab only ever writes
//! the entries it adds, never its copy of the journal.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::super::runtime::{Run, Shared};
use super::super::store;
use crate::journal::{record_key, Entry, Journal, MAX_ENTRIES, RECORD_PREFIX};
use crate::page::{JournalMsg, Msg, Report};

/// The channel the tabs of this site tell each other on that the journal changed.
const CHANNEL: &str = "rag-fiches-journal";

/// Listens to the other tabs, moves an earlier version's journal (one record of JSON lines) into
/// records, and has the page read the stored journal.
pub async fn start(app: Shared) {
    if let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) {
        let listener = app.clone();
        let heard = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |_| {
            listener.dispatch(Msg::Journal(JournalMsg::Changed))
        });
        channel.set_onmessage(Some(heard.as_ref().unchecked_ref()));
        heard.forget();
        app.keep_journal_channel(channel);
    }
    migrate().await;
    app.dispatch(Msg::Journal(JournalMsg::Changed));
}

/// Stores `records` (a tab's new entries, each under its key), tells the other tabs and the
/// page. Storage that refuses (a private window, a full disk) leaves the page's journal as it is.
pub async fn append(app: Shared, records: Vec<(String, Entry)>) {
    let records: Vec<(String, JsValue)> = records
        .into_iter()
        .filter_map(|(key, e)| Some((key, JsValue::from_str(&serde_json::to_string(&e).ok()?))))
        .collect();
    if store::put_all(store::JOURNAL, &records).await {
        changed(&app);
    }
}

/// Erases every stored entry, tells the other tabs and the page (which shows what is stored:
/// what another tab added since, if anything).
pub async fn erase(app: Shared) {
    if store::clear(store::JOURNAL).await {
        changed(&app);
    }
}

fn changed(app: &Shared) {
    app.tell_journal_channel(&JsValue::from_str("journal"));
    app.dispatch(Msg::Journal(JournalMsg::Changed));
}

/// Reads the stored journal for the page. Past [`MAX_ENTRIES`] records, the oldest are deleted.
pub(super) async fn read(run: Run) {
    let Some(records) = store::get_all(store::JOURNAL).await else {
        run.report(Report::JournalRead(None));
        return;
    };
    let entries: Vec<(String, String)> = records
        .into_iter()
        .filter(|(k, _)| k.starts_with(RECORD_PREFIX))
        .filter_map(|(k, v)| Some((k, v.as_string()?)))
        .collect();
    let extra = entries.len().saturating_sub(MAX_ENTRIES);
    if extra > 0 {
        store::delete_all(store::JOURNAL, Some(&entries[extra - 1].0), &[]).await;
    }
    let lines: Vec<&str> = entries[extra..].iter().map(|(_, v)| v.as_str()).collect();
    run.report(Report::JournalRead(Some(Journal::from_jsonl(
        &lines.join("\n"),
    ))));
}

/// An earlier version's journal, one text of JSON lines under [`store::JOURNAL_KEY`], moved into
/// records and deleted. Its keys are the same in every tab (writer « avant », its line number):
/// two tabs moving it at once write the same records.
async fn migrate() {
    let Some(text) = store::get_text(store::JOURNAL, store::JOURNAL_KEY).await else {
        return;
    };
    let records: Vec<(String, JsValue)> = Journal::from_jsonl(&text)
        .entries
        .iter()
        .zip(0u64..)
        .filter_map(|(e, n)| {
            let json = serde_json::to_string(e).ok()?;
            Some((record_key(e, "avant", n), JsValue::from_str(&json)))
        })
        .collect();
    if store::put_all(store::JOURNAL, &records).await {
        store::delete_all(store::JOURNAL, None, &[store::JOURNAL_KEY.to_owned()]).await;
    }
}
