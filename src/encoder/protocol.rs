//! The messages between the page and the local encoder's Web Worker, and the worker's queue.
//!
//! The worker (`src/bin/encodeur.rs`, [`crate::worker`]) owns the model: 81 MB read, prepared and
//! run off the page's thread. Requests and replies are these serde types, carried by
//! `postMessage` (`serde-wasm-bindgen`); the model file itself travels beside a `Prepare`
//! request as a `Blob`. What can go wrong comes back as a reply ([`Reply::Refused`]), never as a
//! dead worker; a worker that dies anyway (its module not loaded, a panic) is reported by the
//! page from the worker's `error` event.
//!
//! [`Queue`] is what the worker does next, kept free of the browser so it is tested natively: a
//! newer question supersedes an older one not yet embedded, questions are served between two
//! fiches of a catalogue, and a newer catalogue (or a [`Request::Stop`]) abandons an older one.

use serde::{Deserialize, Serialize};

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Request {
    /// Prepare the model from the file sent beside this message (a `Blob`).
    Prepare,
    /// Embed one question. A newer question supersedes this one if it has not started.
    Question { text: String },
    /// Embed a catalogue's texts (its fiches, then its questions), for the catalogue `epoch`.
    /// A newer catalogue abandons this one.
    Texts { epoch: u64, texts: Vec<String> },
    /// Abandon the texts of every catalogue older than `epoch` (the page moved on).
    Stop { epoch: u64 },
}

/// What the worker answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Reply {
    /// The worker listens: requests sent before this were queued by the page.
    Started,
    /// The model is being prepared: the percentage done.
    Preparing { percent: u8 },
    /// The model is ready: questions and texts can be embedded.
    Ready,
    /// The model file was refused, and why (in French: `fr::messages::model`).
    Refused { reason: String },
    /// A question's vector.
    Question { text: String, vector: Vec<f32> },
    /// How many of catalogue `epoch`'s texts are embedded so far.
    Progress { epoch: u64, done: usize },
    /// Every text of catalogue `epoch`, embedded, in the order sent. Between the worker and the
    /// page the vectors travel as one transferred `Float32Array` beside the message (`flat`,
    /// `dim`), not through serde.
    Texts { epoch: u64, vectors: Vec<Vec<f32>> },
}

/// One piece of work: embed this text.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    Question(String),
    /// Text `index` of catalogue `epoch`.
    Text {
        epoch: u64,
        index: usize,
        text: String,
    },
}

/// A catalogue's texts under way.
#[derive(Debug)]
struct Batch {
    epoch: u64,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

/// The worker's pending work, in the order it is served.
#[derive(Debug, Default)]
pub struct Queue {
    question: Option<String>,
    batch: Option<Batch>,
    /// The newest catalogue the page spoke of: texts of older ones are dropped.
    newest: u64,
}

impl Queue {
    pub fn new() -> Queue {
        Queue::default()
    }

    /// Takes a request in, and answers at once when there is nothing to embed (a catalogue of
    /// no texts). `Prepare` is not queued work: the worker handles it itself.
    pub fn push(&mut self, request: Request) -> Option<Reply> {
        match request {
            Request::Prepare => {}
            Request::Question { text } => self.question = Some(text),
            Request::Texts { epoch, texts } if epoch >= self.newest => {
                self.newest = epoch;
                self.batch = None;
                if texts.is_empty() {
                    return Some(Reply::Texts {
                        epoch,
                        vectors: Vec::new(),
                    });
                }
                self.batch = Some(Batch {
                    epoch,
                    vectors: Vec::with_capacity(texts.len()),
                    texts,
                });
            }
            Request::Texts { .. } => {}
            Request::Stop { epoch } => {
                self.newest = self.newest.max(epoch);
                if self.batch.as_ref().is_some_and(|b| b.epoch < epoch) {
                    self.batch = None;
                }
            }
        }
        None
    }

    /// The next piece of work: the latest question first, then the next text of the catalogue.
    pub fn take_next(&mut self) -> Option<Work> {
        if let Some(text) = self.question.take() {
            return Some(Work::Question(text));
        }
        let batch = self.batch.as_ref()?;
        let index = batch.vectors.len();
        Some(Work::Text {
            epoch: batch.epoch,
            index,
            text: batch.texts.get(index)?.clone(),
        })
    }

    /// Records the vector of `work` (a text), and returns what to tell the page: the catalogue's
    /// vectors when it is complete, else its progress. A text of a catalogue abandoned meanwhile
    /// is dropped (`None`).
    pub fn done(&mut self, work: Work, vector: Vec<f32>) -> Option<Reply> {
        match work {
            Work::Question(text) => Some(Reply::Question { text, vector }),
            Work::Text { epoch, index, .. } => {
                let batch = self.batch.as_mut().filter(|b| b.epoch == epoch)?;
                if batch.vectors.len() != index {
                    return None;
                }
                batch.vectors.push(vector);
                if batch.vectors.len() < batch.texts.len() {
                    return Some(Reply::Progress {
                        epoch,
                        done: batch.vectors.len(),
                    });
                }
                let batch = self.batch.take()?;
                Some(Reply::Texts {
                    epoch,
                    vectors: batch.vectors,
                })
            }
        }
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.question.is_none() && self.batch.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves the queue to the end with a fake embedder (the text's length), returning every
    /// reply in order.
    fn drain(q: &mut Queue) -> Vec<Reply> {
        let mut replies = Vec::new();
        while let Some(work) = q.take_next() {
            let len = match &work {
                Work::Question(t) | Work::Text { text: t, .. } => t.len() as f32,
            };
            replies.extend(q.done(work, vec![len]));
        }
        replies
    }

    fn texts(epoch: u64, texts: &[&str]) -> Request {
        Request::Texts {
            epoch,
            texts: texts.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    #[test]
    fn a_newer_question_supersedes_an_older_one_not_yet_embedded() {
        let mut q = Queue::new();
        let _ = q.push(Request::Question { text: "a".into() });
        let _ = q.push(Request::Question { text: "bb".into() });
        assert_eq!(
            drain(&mut q),
            vec![Reply::Question {
                text: "bb".into(),
                vector: vec![2.0]
            }]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn a_question_is_served_between_two_texts_of_a_catalogue() {
        let mut q = Queue::new();
        let _ = q.push(texts(1, &["x", "yy", "zzz"]));
        let first = q.take_next().unwrap();
        assert_eq!(
            q.done(first, vec![1.0]),
            Some(Reply::Progress { epoch: 1, done: 1 })
        );
        let _ = q.push(Request::Question { text: "q".into() });
        assert_eq!(q.take_next(), Some(Work::Question("q".into())));
        let _ = q.push(Request::Question {
            text: "later".into(),
        });
        let replies = drain(&mut q);
        assert_eq!(
            replies.first(),
            Some(&Reply::Question {
                text: "later".into(),
                vector: vec![5.0]
            })
        );
        assert_eq!(
            replies.last(),
            Some(&Reply::Texts {
                epoch: 1,
                vectors: vec![vec![1.0], vec![2.0], vec![3.0]]
            })
        );
    }

    #[test]
    fn a_newer_catalogue_abandons_an_older_one_and_its_late_text_is_dropped() {
        let mut q = Queue::new();
        let _ = q.push(texts(1, &["old", "older"]));
        let in_flight = q.take_next().unwrap();
        let _ = q.push(texts(2, &["n"]));
        assert_eq!(q.done(in_flight, vec![0.0]), None, "epoch 1 was abandoned");
        // An older catalogue arriving late does not replace the newer one.
        let _ = q.push(texts(1, &["stale"]));
        assert_eq!(
            drain(&mut q),
            vec![Reply::Texts {
                epoch: 2,
                vectors: vec![vec![1.0]]
            }]
        );
    }

    #[test]
    fn stop_abandons_older_catalogues_only() {
        let mut q = Queue::new();
        let _ = q.push(texts(3, &["a"]));
        let _ = q.push(Request::Stop { epoch: 3 });
        assert!(!q.is_empty(), "Stop(3) keeps catalogue 3");
        let _ = q.push(Request::Stop { epoch: 4 });
        assert!(q.is_empty());
        let _ = q.push(texts(3, &["late"]));
        assert!(
            q.is_empty(),
            "catalogue 3 is older than what the page spoke of"
        );
    }

    #[test]
    fn an_empty_catalogue_answers_at_once_with_no_vectors() {
        let mut q = Queue::new();
        let _ = q.push(texts(1, &["a"]));
        assert_eq!(
            q.push(texts(2, &[])),
            Some(Reply::Texts {
                epoch: 2,
                vectors: vec![]
            })
        );
        assert!(q.is_empty(), "and catalogue 1 is abandoned");
    }

    #[test]
    fn requests_and_replies_keep_their_shape_through_json() {
        let r = Request::Texts {
            epoch: 7,
            texts: vec!["é".into()],
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"kind":"Texts","epoch":7,"texts":["é"]}"#);
        assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), r);
        let reply = Reply::Refused {
            reason: "en-tête".into(),
        };
        let json = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply>(&json).unwrap(), reply);
    }
}
