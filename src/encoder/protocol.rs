//! The messages between the page and its Web Worker, and the worker's queues.
//!
//! The worker (`src/bin/encodeur.rs`, [`crate::worker`]) owns the local encoder's model (81 MB
//! read, prepared and run off the page's thread) and the catalogue's Mistral fiche vectors with
//! their dense search ([`DenseQueue`]). Requests and replies are these serde types, carried by
//! `postMessage` (`serde-wasm-bindgen`); the model file itself travels beside a `Prepare`
//! request as a `Blob`. What can go wrong comes back as a reply ([`Reply::Refused`]), never as a
//! dead worker; a worker that dies anyway (its module not loaded, a panic) is reported by the
//! page from the worker's `error` event.
//!
//! [`Queue`] is what the worker does next, kept free of the browser so it is tested natively: a
//! newer question supersedes an older one not yet embedded, questions are served between two
//! fiches of a catalogue, and a newer request of texts (or a [`Request::Stop`]) abandons an older one.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::data::vectors::VectorsInfo;

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Request {
    /// Prepare the model from the file sent beside this message (a `Blob`), if its content hash
    /// is `sha256` (when the page knows it: see [`super::identity`]).
    Prepare { sha256: Option<String> },
    /// Embed one question. A newer question supersedes this one if it has not started.
    Question { text: String },
    /// Embed a catalogue's texts (its fiches, then its questions), as the page's request `job`
    /// (a number that only grows). A newer request abandons this one.
    Texts { job: u64, texts: Vec<String> },
    /// Abandon the texts of request `job` and of every older one (the page stopped wanting them).
    Stop { job: u64 },
    /// Read the Mistral fiche vectors file sent beside this message (a `Blob`) as `set`, and keep
    /// it if it was made for exactly the fiches whose ids are `ids_json` (one JSON array of
    /// strings, in order) and whose fingerprint is `fingerprint`. `npy`: the file is a bare `.npy`
    /// matrix (rows in the fiches' order), not our safetensors. The ids travel as one string: as
    /// an array, 50,000 of them cost the page's thread a long task to hand over.
    Vectors {
        set: u64,
        ids_json: String,
        fingerprint: String,
        npy: bool,
    },
    /// The dense tops ([`crate::lab::Lab::dense_depth`] fiches) of `vectors` in `set`. A
    /// `question` (one vector: the one in the question box) supersedes an older question not yet
    /// searched, and goes ahead of a measurement's vectors.
    Dense {
        set: u64,
        ticket: u64,
        vectors: Vec<Vec<f32>>,
        question: bool,
    },
    /// Drop `set` (the page moved on to other fiches or vectors).
    Forget { set: u64 },
}

/// The directory of the origin-private file system where workers keep a vectors set's exact
/// values; a file no live worker holds (its tab was closed or reloaded) is removed by the next
/// page or worker that starts.
pub const ROWS_DIRECTORY: &str = "rag-fiches-vecteurs";

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
    /// The text being embedded needs rows of the table not fetched yet: `done` of `total`
    /// blocks arrived, `bytes` of them from the network ([`super::blocks`]).
    Rows { done: u32, total: u32, bytes: u64 },
    /// Blocks of rows could not be fetched, after retries, and why (in French): the text in
    /// hand is dropped, and the worker waits for the page.
    RowsFailed { reason: String },
    /// How many of request `job`'s texts are embedded so far.
    Progress { job: u64, done: usize },
    /// Every text of request `job`, embedded, in the order sent. Between the worker and the
    /// page the vectors travel as one transferred `Float32Array` beside the message (`flat`,
    /// `dim`), not through serde.
    Texts { job: u64, vectors: Vec<Vec<f32>> },
    /// Vectors `set` read, checked and kept, with the question vectors the file carried.
    Vectors {
        set: u64,
        info: VectorsInfo,
        questions: Vec<(String, Vec<f32>)>,
    },
    /// Vectors `set` refused, and why (in French).
    VectorsRefused { set: u64, reason: String },
    /// The dense tops of request `ticket`, one per vector sent, each `(fiche, score)` best first.
    Dense {
        set: u64,
        ticket: u64,
        tops: Vec<Vec<(u32, f64)>>,
    },
    /// Request `ticket` was superseded by a newer question before it was searched.
    Superseded { ticket: u64 },
    /// Request `ticket` could not be served, and why (in French).
    DenseFailed { ticket: u64, reason: String },
}

/// One piece of work: embed this text.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    Question(String),
    /// Text `index` of request `job`.
    Text {
        job: u64,
        index: usize,
        text: String,
    },
}

/// A catalogue's texts under way.
#[derive(Debug)]
struct Batch {
    job: u64,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

/// The worker's pending work, in the order it is served.
#[derive(Debug, Default)]
pub struct Queue {
    question: Option<String>,
    batch: Option<Batch>,
    /// The newest request the page spoke of: texts of older ones are dropped.
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
            Request::Prepare { .. }
            | Request::Vectors { .. }
            | Request::Dense { .. }
            | Request::Forget { .. } => {}
            Request::Question { text } => self.question = Some(text),
            Request::Texts { job, texts } if job >= self.newest => {
                self.newest = job;
                self.batch = None;
                if texts.is_empty() {
                    return Some(Reply::Texts {
                        job,
                        vectors: Vec::new(),
                    });
                }
                self.batch = Some(Batch {
                    job,
                    vectors: Vec::with_capacity(texts.len()),
                    texts,
                });
            }
            Request::Texts { .. } => {}
            Request::Stop { job } => {
                self.newest = self.newest.max(job.saturating_add(1));
                if self.batch.as_ref().is_some_and(|b| b.job <= job) {
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
            job: batch.job,
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
            Work::Text { job, index, .. } => {
                let batch = self.batch.as_mut().filter(|b| b.job == job)?;
                if batch.vectors.len() != index {
                    return None;
                }
                batch.vectors.push(vector);
                if batch.vectors.len() < batch.texts.len() {
                    return Some(Reply::Progress {
                        job,
                        done: batch.vectors.len(),
                    });
                }
                let batch = self.batch.take()?;
                Some(Reply::Texts {
                    job,
                    vectors: batch.vectors,
                })
            }
        }
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.question.is_none() && self.batch.is_none()
    }

    /// The catalogue's texts after the one [`Queue::take_next`] gave, at most `n`: what the
    /// worker fetches the model's rows for in one go, rather than text by text.
    pub fn upcoming(&self, n: usize) -> &[String] {
        match &self.batch {
            Some(b) => {
                let from = (b.vectors.len() + 1).min(b.texts.len());
                &b.texts[from..(from + n).min(b.texts.len())]
            }
            None => &[],
        }
    }
}

/// One dense request under way: its vectors, and the tops found so far.
#[derive(Debug)]
struct DenseJob {
    set: u64,
    ticket: u64,
    vectors: Vec<Vec<f32>>,
    question: bool,
    tops: Vec<Vec<(u32, f64)>>,
}

/// The worker's dense searches, one vector per turn of its event loop: the question in the box
/// first (a newer one supersedes an older one not yet searched), then the vectors of
/// measurements, in order: a question waits at most one vector of a measurement.
#[derive(Debug, Default)]
pub struct DenseQueue {
    jobs: VecDeque<DenseJob>,
}

impl DenseQueue {
    /// Takes a request in; returns the replies of requests it supersedes.
    pub fn push(
        &mut self,
        set: u64,
        ticket: u64,
        vectors: Vec<Vec<f32>>,
        question: bool,
    ) -> Vec<Reply> {
        let mut replies = Vec::new();
        if vectors.is_empty() {
            replies.push(Reply::Dense {
                set,
                ticket,
                tops: Vec::new(),
            });
            return replies;
        }
        if question {
            self.jobs.retain(|j| {
                let older = j.question && j.tops.is_empty();
                if older {
                    replies.push(Reply::Superseded { ticket: j.ticket });
                }
                !older
            });
        }
        let job = DenseJob {
            set,
            ticket,
            tops: Vec::with_capacity(vectors.len()),
            vectors,
            question,
        };
        if question {
            self.jobs.push_front(job);
        } else {
            self.jobs.push_back(job);
        }
        replies
    }

    /// The next vector to search, and its set.
    pub fn next(&self) -> Option<(u64, &[f32])> {
        let job = self.jobs.front()?;
        Some((job.set, job.vectors.get(job.tops.len())?.as_slice()))
    }

    /// Records the top of the vector [`DenseQueue::next`] gave (or why it failed); returns the
    /// reply of a request now complete.
    pub fn done(&mut self, top: Result<Vec<(u32, f64)>, String>) -> Option<Reply> {
        match top {
            Ok(top) => {
                self.jobs.front_mut()?.tops.push(top);
                self.finished().pop()
            }
            Err(reason) => {
                let job = self.jobs.pop_front()?;
                Some(Reply::DenseFailed {
                    ticket: job.ticket,
                    reason,
                })
            }
        }
    }

    /// Fails every request of `set` (it was forgotten).
    pub fn forget(&mut self, set: u64) -> Vec<Reply> {
        let mut replies = Vec::new();
        self.jobs.retain(|j| {
            if j.set == set {
                replies.push(Reply::DenseFailed {
                    ticket: j.ticket,
                    reason: "ces vecteurs ont été remplacés".to_owned(),
                });
            }
            j.set != set
        });
        replies
    }

    /// The reply of the front request if it is complete (taken off the queue).
    fn finished(&mut self) -> Vec<Reply> {
        match self.jobs.front() {
            Some(j) if j.tops.len() == j.vectors.len() => {
                let job = self.jobs.pop_front();
                job.map(|j| Reply::Dense {
                    set: j.set,
                    ticket: j.ticket,
                    tops: j.tops,
                })
                .into_iter()
                .collect()
            }
            _ => Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
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

    #[test]
    fn the_texts_after_the_one_in_hand_are_known_ahead() {
        let mut q = Queue::new();
        assert!(q.upcoming(3).is_empty());
        q.push(texts(1, &["a", "b", "c", "d"]));
        let first = q.take_next().unwrap();
        assert_eq!(q.upcoming(2), ["b", "c"]);
        q.done(first, vec![1.0]);
        q.take_next();
        assert_eq!(q.upcoming(5), ["c", "d"]);
        drain(&mut q);
        assert!(q.upcoming(5).is_empty());
    }

    fn texts(job: u64, texts: &[&str]) -> Request {
        Request::Texts {
            job,
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
            Some(Reply::Progress { job: 1, done: 1 })
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
                job: 1,
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
        assert_eq!(q.done(in_flight, vec![0.0]), None, "job 1 was abandoned");
        // An older catalogue arriving late does not replace the newer one.
        let _ = q.push(texts(1, &["stale"]));
        assert_eq!(
            drain(&mut q),
            vec![Reply::Texts {
                job: 2,
                vectors: vec![vec![1.0]]
            }]
        );
    }

    #[test]
    fn stop_abandons_that_request_and_older_ones_only() {
        let mut q = Queue::new();
        let _ = q.push(texts(3, &["a"]));
        let _ = q.push(Request::Stop { job: 2 });
        assert!(!q.is_empty(), "Stop(2) keeps request 3");
        let _ = q.push(Request::Stop { job: 3 });
        assert!(q.is_empty());
        let _ = q.push(texts(3, &["late"]));
        assert!(q.is_empty(), "request 3 was stopped: it does not come back");
        let _ = q.push(texts(4, &["b"]));
        assert!(!q.is_empty(), "a newer request is served");
    }

    #[test]
    fn an_empty_catalogue_answers_at_once_with_no_vectors() {
        let mut q = Queue::new();
        let _ = q.push(texts(1, &["a"]));
        assert_eq!(
            q.push(texts(2, &[])),
            Some(Reply::Texts {
                job: 2,
                vectors: vec![]
            })
        );
        assert!(q.is_empty(), "and catalogue 1 is abandoned");
    }

    #[test]
    fn requests_and_replies_keep_their_shape_through_json() {
        let r = Request::Texts {
            job: 7,
            texts: vec!["é".into()],
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, r#"{"kind":"Texts","job":7,"texts":["é"]}"#);
        assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), r);
        let reply = Reply::Refused {
            reason: "en-tête".into(),
        };
        let json = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply>(&json).unwrap(), reply);
    }

    /// Serves the dense queue to the end, each vector's "top" being its first value.
    fn serve(q: &mut DenseQueue) -> Vec<Reply> {
        let mut replies = Vec::new();
        while let Some((_, v)) = q.next() {
            let top = vec![(v[0] as u32, f64::from(v[0]))];
            replies.extend(q.done(Ok(top)));
        }
        replies
    }

    fn dense(ticket: u64, tops: &[f32]) -> Reply {
        Reply::Dense {
            set: 1,
            ticket,
            tops: tops
                .iter()
                .map(|&x| vec![(x as u32, f64::from(x))])
                .collect(),
        }
    }

    #[test]
    fn dense_questions_supersede_older_ones_and_go_between_two_vectors_of_a_measurement() {
        let mut q = DenseQueue::default();
        assert!(q
            .push(1, 1, vec![vec![1.0], vec![2.0], vec![3.0]], false)
            .is_empty());
        // One vector of the measurement searched, then two questions arrive.
        let (_, v) = q.next().unwrap();
        assert_eq!(v, &[1.0]);
        assert_eq!(q.done(Ok(vec![(1, 1.0)])), None);
        assert!(q.push(1, 2, vec![vec![7.0]], true).is_empty());
        assert_eq!(
            q.push(1, 3, vec![vec![8.0]], true),
            vec![Reply::Superseded { ticket: 2 }]
        );
        assert_eq!(
            serve(&mut q),
            vec![dense(3, &[8.0]), dense(1, &[1.0, 2.0, 3.0])]
        );
        assert!(q.is_empty());
        // Nothing to search: answered at once.
        assert_eq!(q.push(1, 4, Vec::new(), false), vec![dense(4, &[])]);
    }

    #[test]
    fn a_failed_or_forgotten_dense_request_comes_back_as_a_reply() {
        let mut q = DenseQueue::default();
        let _ = q.push(1, 1, vec![vec![1.0], vec![2.0]], false);
        let _ = q.push(2, 2, vec![vec![3.0]], false);
        let _ = q.push(1, 3, vec![vec![4.0]], false);
        assert_eq!(
            q.done(Err("non".into())),
            Some(Reply::DenseFailed {
                ticket: 1,
                reason: "non".into()
            })
        );
        let forgotten = q.forget(1);
        assert!(matches!(
            forgotten.as_slice(),
            [Reply::DenseFailed { ticket: 3, .. }]
        ));
        assert_eq!(
            serve(&mut q),
            vec![Reply::Dense {
                set: 2,
                ticket: 2,
                tops: vec![vec![(3, 3.0)]]
            }]
        );
    }
}
