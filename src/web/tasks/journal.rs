//! The journal's storage, shared by the tabs of one browser profile. Each entry a tab adds is
//! stored as its own record ([`crate::journal::record_key`]), in one transaction per addition;
//! « Effacer » empties the store. After either, the tab tells the others on a
//! `BroadcastChannel`, and every tab shows the journal as stored, read again. So two tabs that
//! type at once lose nothing, and no tab writes back what another erased: a tab only ever writes
//! the entries it adds, never its copy of the journal.

use crate::page::JournalMsg;
use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::super::runtime::{spawn, Shared};
use super::super::store;
use crate::journal::{record_key, Entry, Journal, MAX_ENTRIES, RECORD_PREFIX};
use crate::page::Msg;

/// The channel the tabs of this site tell each other on that the journal changed.
const CHANNEL: &str = "rag-fiches-journal";

type Listener = Closure<dyn FnMut(web_sys::MessageEvent)>;

thread_local! {
    /// This tab's name in the keys it writes: random, so that two tabs never write one key.
    static WRITER: String = format!("{:08x}", (js_sys::Math::random() * 4_294_967_296.0) as u64);
    /// How many entries this tab wrote: the last part of its keys.
    static WRITTEN: Cell<u64> = const { Cell::new(0) };
    static TALK: RefCell<Option<(web_sys::BroadcastChannel, Listener)>> = const { RefCell::new(None) };
    /// Reads of the store started, and the latest whose journal was shown: an older read that
    /// finishes later is not shown over a newer one.
    static READS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Listens to the other tabs, moves an earlier version's journal (one record of JSON lines) into
/// records, and shows the stored journal.
pub async fn start(app: Shared) {
    if let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) {
        let listener = app.clone();
        let heard = Listener::new(move |_| spawn(show_stored(listener.clone())));
        channel.set_onmessage(Some(heard.as_ref().unchecked_ref()));
        TALK.with(|t| *t.borrow_mut() = Some((channel, heard)));
    }
    migrate().await;
    show_stored(app).await;
}

/// Stores `entries` (a tab's new ones), tells the other tabs, and shows the stored journal.
/// Storage that refuses (a private window, a full disk) leaves the page's journal as it is.
pub async fn append(app: Shared, entries: Vec<Entry>) {
    let records: Vec<(String, JsValue)> = entries
        .iter()
        .filter_map(|e| {
            let n = WRITTEN.with(|w| w.replace(w.get() + 1));
            let key = WRITER.with(|writer| record_key(e, writer, n));
            Some((key, JsValue::from_str(&serde_json::to_string(e).ok()?)))
        })
        .collect();
    if store::put_all(store::JOURNAL, &records).await {
        tell();
        show_stored(app).await;
    }
}

/// Erases every stored entry, tells the other tabs, and shows what is stored (what another tab
/// added since, if anything).
pub async fn erase(app: Shared) {
    if store::clear(store::JOURNAL).await {
        tell();
        show_stored(app).await;
    }
}

fn tell() {
    TALK.with(|t| {
        if let Some((channel, _)) = &*t.borrow() {
            channel.post_message(&JsValue::from_str("journal")).ok();
        }
    });
}

/// Reads the stored journal and shows it, unless a newer read was shown first. Past
/// [`MAX_ENTRIES`] records, the oldest are deleted.
async fn show_stored(app: Shared) {
    let ticket = READS.with(|r| {
        let (started, shown) = r.get();
        r.set((started + 1, shown));
        started + 1
    });
    let Some(records) = store::get_all(store::JOURNAL).await else {
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
    let journal = Journal::from_jsonl(&lines.join("\n"));
    let newest = READS.with(|r| {
        let (started, shown) = r.get();
        let newest = ticket > shown;
        if newest {
            r.set((started, ticket));
        }
        newest
    });
    if newest {
        app.dispatch(Msg::Journal(JournalMsg::Loaded(journal)));
    }
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
