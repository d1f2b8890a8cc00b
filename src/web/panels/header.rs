//! The header (summary, costs), the tabs and the shared link.

use crate::link::View;

use super::super::dom::{by_id, input, set_hidden, set_text};
use super::super::{frame, ids};
use crate::page::State;

pub fn render(s: &State) {
    let c = &s.costs;
    let (chat_in, chat_out) = c.chat_tokens();
    let (chat_usd, unknown) = c.chat_usd();
    let costs = frame::CostLine {
        fiches: c.fiches,
        questions: c.questions,
        calls: c.calls,
        chat_in,
        chat_out,
        chat_usd,
        unknown,
    };
    // The cost line appears once there is something to pay with, or something paid.
    frame::header(
        s.data.lab.fiches().len(),
        s.data.questions.len(),
        s.data.label.as_deref(),
        (s.key.is_some() || c.calls > 0).then_some(&costs),
    );
    let note = by_id(ids::NOTE_LIEN);
    set_text(&note, s.link_note.as_deref().unwrap_or_default());
    set_hidden(&note, s.link_note.is_none());
    set_hidden(&by_id(ids::COMMENCER), s.guide_hidden);
    let waiting = by_id(ids::ATTENTE);
    match &s.waiting {
        Some((w, _)) => {
            set_text(
                &by_id(ids::ATTENTE_TEXTE),
                &crate::fr::messages::wait(w.reason, w.seconds),
            );
            set_hidden(&waiting, false);
        }
        None => set_hidden(&waiting, true),
    }
    for (tab, panel, view) in [
        (ids::ONGLET_CHERCHER, ids::VUE_CHERCHER, View::Chercher),
        (ids::ONGLET_MESURER, ids::VUE_MESURER, View::Mesurer),
        (ids::ONGLET_AMELIORER, ids::VUE_AMELIORER, View::Ameliorer),
        (ids::ONGLET_QUESTIONS, ids::VUE_QUESTIONS, View::Questions),
    ] {
        let selected = s.view == view;
        let tab = by_id(tab);
        let value = if selected { "true" } else { "false" };
        if tab.get_attribute("aria-selected").as_deref() != Some(value) {
            tab.set_attribute("aria-selected", value).ok();
            // Roving focus: only the selected tab is a Tab stop; arrows move between tabs.
            tab.set_attribute("tabindex", if selected { "0" } else { "-1" })
                .ok();
        }
        set_hidden(&by_id(panel), !selected);
    }
    let share = by_id(ids::PARTAGE);
    match &s.share {
        None => set_hidden(&share, true),
        Some((link, copied)) => {
            let field = input(ids::LIEN);
            if field.value() != *link {
                field.set_value(link);
            }
            set_hidden(&share, false);
            let state = copied.map(|c| s.share_note(c)).unwrap_or_default();
            set_text(&by_id(ids::LIEN_ETAT), &state);
        }
    }
}
