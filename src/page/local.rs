//! The local encoder as the page sees it: where its model stands, in the words a learner reads.

/// The local encoder in the page: fetched only when a typed question needs it, then kept.
#[derive(Default)]
pub enum LocalModel {
    #[default]
    Idle,
    /// Bytes received, of how many (when the server says).
    Fetching { done: u64, total: Option<u64> },
    /// Read from the browser's cache or the network, being prepared.
    /// Being prepared: the percentage done.
    Preparing(u8),
    /// Ready in its Web Worker ([`super::encoder`]).
    Ready,
    /// Why it cannot be used here (not built for this site, network, damaged file, its worker
    /// stopped).
    Unavailable(String),
}

impl LocalModel {
    /// What the learner reads while a local method waits for the model.
    pub fn status(&self) -> Option<String> {
        match self {
            LocalModel::Idle | LocalModel::Ready => None,
            LocalModel::Fetching { done, total } => Some(match total {
                Some(t) => format!(
                    "Chargement du modèle local (une seule fois, gardé ensuite dans ce navigateur) : {} Mo sur {} Mo…",
                    crate::fr::decimal(*done as f64 / 1e6, 1),
                    crate::fr::decimal(*t as f64 / 1e6, 1)
                ),
                None => format!(
                    "Chargement du modèle local (une seule fois) : {} Mo…",
                    crate::fr::decimal(*done as f64 / 1e6, 1)
                ),
            }),
            LocalModel::Preparing(p) => Some(format!("Préparation du modèle local : {p} %…")),
            LocalModel::Unavailable(why) => Some(why.clone()),
        }
    }

    /// A hashable summary, for the panels' memos.
    pub fn key(&self) -> (u8, u64) {
        match self {
            LocalModel::Idle => (0, 0),
            LocalModel::Fetching { done, .. } => (1, *done),
            LocalModel::Preparing(p) => (2, u64::from(*p)),
            LocalModel::Ready => (3, 0),
            LocalModel::Unavailable(_) => (4, 0),
        }
    }
}
