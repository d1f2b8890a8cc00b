//! Long computations written once, run two ways: natively in one go, and in the page in bounded
//! steps that await a pause (a turn of the event loop) between them, so that the page's thread is
//! never held for long. A computation takes a `pause` function; the one-go form passes pauses that
//! are ready at once and runs the future with [`run_ready`].

use std::future::Future;
use std::task::{Context, Poll, Waker};

/// The output of `f`, polled until it is ready. For futures whose every await is ready at once
/// (the one-go forms of the pausing computations): the first poll completes them. A future that
/// waits on something else would be polled again and again; none is passed here.
pub fn run_ready<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_a_future_of_ready_pauses_to_its_end() {
        let mut pauses = 0;
        let out = run_ready(async {
            let mut sum = 0;
            for i in 0..10 {
                sum += i;
                std::future::ready(()).await;
                pauses += 1;
            }
            sum
        });
        assert_eq!((out, pauses), (45, 10));
    }

    /// The stepped forms pause where they say and compute exactly what the one-go forms do: a
    /// 5,000-line catalogue parsed (a pause every `LINES_PER_STEP` lines), indexed for both
    /// keyword methods (every `DOCS_PER_STEP` fiches, counted over both indexes), searched the
    /// same.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn stepped_parsing_and_indexing_equal_the_one_go_forms() {
        use crate::data::LINES_PER_STEP;
        use crate::lab::{Lab, Method};
        use crate::search::bm25::DOCS_PER_STEP;
        let bundled = crate::data::parse_fiches(include_str!("../data/fiches.jsonl")).unwrap();
        let (fiches, questions) = crate::data::synth::catalogue(&bundled, 5000, 40, 1);
        let text = crate::data::synth::to_jsonl(&fiches);
        let mut lines = Vec::new();
        let parsed = run_ready(crate::data::parse_fiches_pausing(
            &text,
            crate::data::nfc,
            |l| {
                lines.push(l);
                std::future::ready(())
            },
        ))
        .unwrap();
        assert_eq!(parsed, fiches);
        let steps = 5000 / LINES_PER_STEP;
        assert_eq!(
            lines,
            (1..=steps).map(|i| i * LINES_PER_STEP).collect::<Vec<_>>()
        );
        let mut indexed = Vec::new();
        let stepped = run_ready(Lab::new_pausing(fiches.clone(), |d| {
            indexed.push(d);
            std::future::ready(())
        }));
        // Every DOCS_PER_STEP fiches, then once before each index's weights.
        assert_eq!(indexed.len(), 2 * (4999 / DOCS_PER_STEP + 1));
        assert_eq!(indexed.first(), Some(&DOCS_PER_STEP));
        assert!(indexed.contains(&5000));
        assert_eq!(indexed.last(), Some(&(5000 + 5000)));
        let one_go = Lab::new(fiches);
        for q in &questions {
            for m in Method::KEYWORD {
                let a = stepped.search(m, &q.text, None, 10).unwrap();
                let b = one_go.search(m, &q.text, None, 10).unwrap();
                assert_eq!(a, b, "{} {}", m.name(), q.text);
            }
        }
        // The keyword measurement pauses before each question and measures the same.
        let mut asked = 0;
        let kw = crate::lab::Keyword::MotsPlus;
        let m = run_ready(stepped.measure_keyword_pausing(kw, &questions, |_| {
            asked += 1;
            std::future::ready(())
        }));
        assert_eq!(asked, questions.len());
        let expected = one_go.measure_keyword(kw, &questions);
        assert_eq!(m.seed_report(), expected.seed_report());
    }

    /// The fingerprint hashed in steps (a pause after each megabyte of text) is the one-go
    /// fingerprint, and the lab keeps the one it computed.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn stepped_fingerprint_equals_the_one_go_fingerprint() {
        use crate::data::vectors::{fingerprint, fingerprint_pausing, FINGERPRINT_STEP_BYTES};
        let bundled = crate::data::parse_fiches(include_str!("../data/fiches.jsonl")).unwrap();
        let (fiches, _) = crate::data::synth::catalogue(&bundled, 20_000, 0, 1);
        let bytes: usize = fiches.iter().map(|f| f.texte.len()).sum();
        let mut pauses = Vec::new();
        let stepped = run_ready(fingerprint_pausing(&fiches, |i| {
            pauses.push(i);
            std::future::ready(())
        }));
        assert_eq!(stepped, fingerprint(&fiches));
        assert!(
            pauses.len() >= bytes / FINGERPRINT_STEP_BYTES / 2,
            "{pauses:?} {bytes}"
        );
        assert!(pauses.windows(2).all(|w| w[0] < w[1]));
        let lab = crate::lab::Lab::new(fiches[..300].to_vec());
        run_ready(lab.fingerprint_pausing(|_| std::future::ready(())));
        assert_eq!(lab.fingerprint(), fingerprint(&fiches[..300]));
        assert_ne!(lab.fingerprint(), stepped);
    }
}
