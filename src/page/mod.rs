//! The page's program as plain data: its [`State`], the [`Msg`]s that change it, the pure
//! [`update`] that applies one and returns [`Effect`]s, and the smaller parts the panels draw from.
//!
//! Nothing here touches a browser, so it builds natively and `cargo test` checks its decisions
//! (which reply is stale, which gesture may spend the key, what a new catalogue stops:
//! `tests/page.rs`). The shell
//! (`web::app`) owns every handle — abort controllers, files, the worker, timers, the clock — names
//! them to the model by ids ([`RunId`], [`FileRef`]), and runs the effects.
//!
//! Staleness is decided here and only here. Long work is keyed jobs ([`jobs`]): what each feature
//! wants now is compared with what runs, a vanished key stops its run, and a report of a run no
//! longer tracked is dropped. The other replies carry the id they were started under (the
//! catalogue's epoch, the measurement's number, the worker's vectors set), and `update` drops them
//! when that id is no longer the state's.

pub mod dataset;
pub mod effect;
pub mod estimate;
pub mod improve;
pub mod jobs;
pub mod judging;
pub mod local;
pub mod msg;
pub mod parts;
pub mod state;
pub mod update;

pub use dataset::{CatalogueUi, Dataset, Measuring, GRID_PAGE};
pub use effect::{Effect, EvalItem, FileRef, Focus, RerankItem, Wait};
pub use jobs::{Control, JobKey, Report, RunId, Subject, Work};
pub use local::LocalModel;
pub use msg::{
    AnswerMsg, CatalogueMsg, JournalMsg, JudgeMsg, KeyMsg, LocalMsg, MeasureMsg, Msg, NavMsg,
    SearchMsg, VectorsMsg,
};
pub use parts::{
    embed_estimate, judge_or_default, model_or_default, AnswerAsk, AnswerResult, Answering,
    ChatAsk, ChatDesk, Choices, Costs, EvalAsk, EvalRun, Evaluation, Phase, RerankAsk, RerankRun,
};
pub use state::{Chats, KeyUi, ShippedFiles, State};
pub use update::update;
