//! The panels: each renders its part of the page from the [`State`] alone. Light panels set texts
//! and attributes on every update (setting the same text again changes nothing); heavy ones
//! (results, « Mesurer ») rebuild only when what they show has changed, so that an open
//! « Pourquoi ce score ? » or a focused control survives an unrelated update.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use web_sys::Element;

use crate::link::View;
use crate::page::{Msg, State};

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
/// « Améliorer »: the controls and what the last change did.
pub mod improve;
/// « Questions sans réponse ».
pub mod journal;
/// The key panel.
pub mod key;
/// « Mesurer »: tables, bars, grid, pair, thresholds, exports, and the dense methods' part.
pub mod measure;
/// « Vos données ».
pub mod own_data;
/// « Mesurer »'s statistics of pairs of methods: Holm's correction, the pair on every measure.
pub mod pairs;
/// « Questions »: the pool judged by hand, the questions measured.
pub mod questions;
/// « Chercher »: the question, the examples, the methods, one column per method.
pub mod search;
/// « Réponses calculées d'avance »: the shipped answers' lessons.
pub mod shipped;
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

/// A panel: the view it shows in, how it renders from the state, the events it turns into
/// messages, and the ids the document must provide for it (checked at start-up with the rest).
/// A new panel is one module with these and one row of [`PANELS`].
pub struct Panel {
    /// `None`: in every view. A hidden view is not rendered: its memo keeps what it last showed,
    /// so it is brought up to date when it is shown.
    pub view: Option<View>,
    pub render: fn(&State, &mut Memo),
    /// The message an event of type `kind` on `target` means to this panel, if any.
    pub event: fn(kind: &str, target: &Element) -> Option<Msg>,
    pub ids: &'static [&'static str],
}

/// For a panel whose controls are still mapped in `events` (or that has none).
fn no_event(_: &str, _: &Element) -> Option<Msg> {
    None
}

fn header_render(s: &State, _: &mut Memo) {
    header::render(s);
}

fn key_render(s: &State, _: &mut Memo) {
    key::render(s);
}

fn vectors_render(s: &State, _: &mut Memo) {
    vectors::render(s);
}

/// Every panel, in the order they render.
pub const PANELS: &[Panel] = &[
    Panel {
        view: None,
        render: header_render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: None,
        render: key_render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: None,
        render: vectors_render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: None,
        render: own_data::render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: Some(View::Chercher),
        render: search::render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: Some(View::Chercher),
        render: answer::render,
        event: answer::event,
        ids: &[],
    },
    Panel {
        view: Some(View::Mesurer),
        render: measure::render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: Some(View::Mesurer),
        render: evaluation::render,
        event: no_event,
        ids: &[],
    },
    Panel {
        view: Some(View::Mesurer),
        render: journal::render,
        event: journal::event,
        ids: journal::IDS,
    },
    Panel {
        view: Some(View::Ameliorer),
        render: improve::render,
        event: improve::event,
        ids: improve::IDS,
    },
    Panel {
        view: Some(View::Questions),
        render: questions::render,
        event: questions::event,
        ids: questions::IDS,
    },
];

/// Renders every panel of the view shown from `s`.
pub fn render(s: &State, memo: &mut Memo) {
    for panel in PANELS {
        if panel.view.is_none_or(|v| v == s.view) {
            (panel.render)(s, memo);
        }
    }
}

/// The message a panel makes of an event, if one does.
pub fn event(kind: &str, target: &Element) -> Option<Msg> {
    PANELS.iter().find_map(|p| (p.event)(kind, target))
}

/// The ids the document lacks, of the page's and of every panel's.
pub fn missing_ids(doc: &web_sys::Document) -> Vec<&'static str> {
    let mut missing = super::ids::missing(doc);
    for panel in PANELS {
        missing.extend(
            panel
                .ids
                .iter()
                .copied()
                .filter(|id| doc.get_element_by_id(id).is_none()),
        );
    }
    missing
}
