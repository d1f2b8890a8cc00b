//! The page's asynchronous work: fetching data, calling Mistral, reading files, the caches. A task
//! is given everything it needs when it starts (texts, fiches, the key, its call), reports by
//! messages, and after every `.await` checks that its catalogue (epoch) is still the page's before
//! it reads the state again. It never indexes the catalogue after an await.

mod files;
mod journal;
mod local;
mod measure;
mod mistral;
mod vectors;

pub use files::{read_files, read_runs};
pub use journal::{append as append_journal, erase as erase_journal, start as start_journal};
pub use local::{abort_download as abort_model_download, load_local_model};
pub use measure::measure;
pub use mistral::{
    answer, check_key, compute_vectors, embed_question, evaluate, judge_answer, measure_dense,
    rerank,
};
pub use vectors::{attach_vectors, dense, dense_question, load_vectors, Attached};

use super::runtime::Shared;
use crate::page::Msg;

/// Copies the shared link to the clipboard, and says whether it worked.
pub async fn copy_link(app: Shared, link: String) {
    let Some(w) = web_sys::window() else { return };
    let promise = w.navigator().clipboard().write_text(&link);
    let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
    app.dispatch(Msg::LinkCopied(copied));
}
