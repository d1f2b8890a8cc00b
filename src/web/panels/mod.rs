//! The panels: each renders its part of the page from the [`State`] alone. Light panels set texts
//! and attributes on every update (setting the same text again changes nothing); heavy ones
//! (results, « Mesurer ») rebuild only when what they show has changed, so that an open
//! « Pourquoi ce score ? » or a focused control survives an unrelated update.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::link::View;
use crate::page::State;

/// The answer panel: the method and model, what will be sent, the answer.
pub mod answer;
/// The answer's rendering: citations linked, flags.
pub mod answer_view;
/// « Mesurer »'s charts and tables, pure rendering from measurements.
pub mod charts;
/// « Mesurer les réponses ».
pub mod evaluation;
/// The header: summary, costs, tabs, the shared link.
pub mod header;
/// « Questions sans réponse ».
pub mod journal;
/// The key panel.
pub mod key;
/// « Mesurer »: tables, bars, grid, pair, thresholds, exports, and the dense methods' part.
pub mod measure;
/// « Vos données ».
pub mod own_data;
/// « Chercher »: the question, the examples, the methods, one column per method.
pub mod search;
/// « Mesurer »'s strip plots of best scores and the refusal threshold.
pub mod threshold;
/// « Vecteurs des fiches ».
pub mod vectors;

/// What each heavy panel last rendered, as a hash of everything it reads from the state, and
/// whether one put part of its rendering off to the next turn of the event loop.
#[derive(Default)]
pub struct Memo(HashMap<String, u64>, bool);

impl Memo {
    /// Forgets what `panel` last rendered: its next [`Memo::changed`] is true.
    pub fn forget(&mut self, panel: &str) {
        self.0.remove(panel);
    }

    /// Asks for another render on the next turn, for the part of a panel not rendered yet.
    pub fn defer(&mut self) {
        self.1 = true;
    }

    /// Whether a render was asked for by [`Memo::defer`] (and clears the request).
    pub fn take_deferred(&mut self) -> bool {
        std::mem::take(&mut self.1)
    }

    /// Whether `panel`'s inputs differ from its last render (and records them).
    pub fn changed(&mut self, panel: &str, inputs: impl Hash) -> bool {
        let mut h = DefaultHasher::new();
        inputs.hash(&mut h);
        let now = h.finish();
        match self.0.get_mut(panel) {
            Some(last) if *last == now => false,
            Some(last) => {
                *last = now;
                true
            }
            None => {
                self.0.insert(panel.to_owned(), now);
                true
            }
        }
    }
}

/// Renders every panel from `s`.
pub fn render(s: &State, memo: &mut Memo) {
    header::render(s);
    key::render(s);
    vectors::render(s);
    own_data::render(s, memo);
    // A hidden view is not rendered: its memo keeps what it last showed, so it is brought up to
    // date when it is shown (at 50,000 fiches « Mesurer » took 40-60 ms per change, unseen).
    match s.view {
        View::Chercher => {
            search::render(s, memo);
            answer::render(s, memo);
        }
        View::Mesurer => {
            measure::render(s, memo);
            evaluation::render(s, memo);
            journal::render(s, memo);
        }
    }
}
