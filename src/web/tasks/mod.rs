//! The page's asynchronous work: fetching data, calling Mistral, reading files, the caches, asking
//! the page's worker. A task is given everything it needs when it starts (texts, fiches, the key,
//! its run), and reports by its run ([`Run::report`]): it never reads the page's state, and a
//! report of a run the page stopped is dropped before the page sees it.

mod files;
mod journal;
mod local;
mod mistral;
mod vectors;

pub use journal::{append as append_journal, erase as erase_journal, start as start_journal};

pub use vectors::{attach_vectors, Attached};

use super::runtime::{Run, Shared};
use crate::page::NavMsg;
use crate::page::{Msg, Work};

/// Runs the work of a keyed job's run (see [`crate::page::jobs`]); `files`: the browser's files
/// its work names, taken when it started.
pub async fn run(app: Shared, run: Run, work: Work, files: Vec<web_sys::File>) {
    match work {
        Work::ReadFiles { selection, .. } => files::read_files(app, run, files, selection).await,
        Work::ReadRuns { .. } => files::read_runs(run, files).await,
        Work::LoadLocalModel => local::load_local_model(app, run).await,
        Work::EmbedLocalTexts { texts, questions } => {
            local::embed_texts(app, run, texts, questions).await
        }
        Work::FindVectors {
            shipped,
            cache_key,
            ids,
            fingerprint,
        } => vectors::find_vectors(app, run, shipped, cache_key, ids, fingerprint).await,
        Work::FetchLocalVectors { name } => vectors::fetch_local_vectors(run, name).await,
        Work::ReadJournal => journal::read(run).await,
        Work::ReadJudgments { entry } => run.report(crate::page::Report::JudgmentsRead(
            super::frame::stored(&entry),
        )),
        Work::FetchQuestions { name, vectors } => files::fetch_questions(run, name, vectors).await,
        Work::DenseTops {
            set,
            vectors,
            in_box,
        } => vectors::dense_tops(app, run, set, vectors, in_box).await,
        Work::FetchAnswers {
            name,
            fingerprint,
            ids,
            questions,
        } => vectors::fetch_answers(run, name, fingerprint, ids, questions).await,
        Work::CheckKey { key } => mistral::check_key(app, run, key).await,
        Work::Pause { ms } => mistral::pause(run, ms).await,
        Work::EmbedQuestion { key, question } => {
            mistral::embed_question(app, run, key, question).await
        }
        Work::ComputeVectors { key, fiches } => {
            mistral::compute_vectors(app, run, key, fiches).await
        }
        Work::MeasureDense { key, questions } => {
            mistral::measure_dense(app, run, key, questions).await
        }
        Work::Answer {
            key,
            model,
            question,
            sent,
            cached,
        } => mistral::answer(app, run, &cached, key, model, question, sent).await,
        Work::Chat {
            key,
            model,
            messages,
            cached,
        } => mistral::chat(app, run, &cached, key, model, messages).await,
        Work::Evaluate {
            key,
            model,
            judge,
            source,
            items,
            cached,
        } => mistral::evaluate(app, run, &cached, key, model, judge, (source, items)).await,
        Work::Rerank {
            key,
            model,
            method,
            items,
            cached,
        } => mistral::rerank(app, run, &cached, key, model, method, items).await,
    }
}

/// Copies the shared link to the clipboard, and says whether it worked.
pub async fn copy_link(app: Shared, link: String) {
    let Some(w) = web_sys::window() else { return };
    let promise = w.navigator().clipboard().write_text(&link);
    let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
    app.dispatch(Msg::Nav(NavMsg::LinkCopied(copied)));
}
