//! The header (summary, costs), the tabs and the shared link.

use crate::fr::{self, dollars};
use crate::link::View;
use crate::mistral::{self, prices};

use super::super::api;
use super::super::dom::{by_id, input, set_hidden, set_text};
use super::super::ids;
use super::super::state::State;

pub fn render(s: &State) {
    let (n_f, n_q) = (s.data.lab.fiches().len(), s.data.questions.len());
    let summary = match &s.data.label {
        Some(l) => format!("{n_f} fiches, {n_q} questions : {l}."),
        None => format!("{n_f} fiches, {n_q} questions dont on connaît la bonne fiche."),
    };
    set_text(&by_id(ids::RESUME), &summary);
    if api::is_test_build() {
        let banner = by_id(ids::TEST_BUILD);
        set_text(
            &banner,
            &format!("Version de test : l'API est simulée à {}.", api::API_BASE),
        );
        set_hidden(&banner, false);
    }
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
    let c = &s.costs;
    // The cost line appears once there is something to pay with, or something paid.
    set_hidden(&by_id(ids::COUTS), s.key.is_none() && c.calls == 0);
    let embed = |t: u64| mistral::cost_usd(t);
    let (chat_in, chat_out) = c.chat_tokens();
    let (chat_usd, unknown) = c.chat_usd();
    let unknown = if unknown.is_empty() {
        String::new()
    } else {
        format!(", prix inconnu pour {}", unknown.join(", "))
    };
    set_text(
        &by_id(ids::COUTS),
        &format!(
            "Coût de la session : vecteurs des fiches {} ({}), questions {} ({}) en {}, réponses {} + {} tokens (≈ {}{unknown}) ; total ≈ {} (tarifs relevés en {}).",
            fr::count(c.fiches, "token", "tokens"),
            dollars(embed(c.fiches)),
            fr::count(c.questions, "token", "tokens"),
            dollars(embed(c.questions)),
            fr::count(c.calls, "appel", "appels"),
            fr::int(chat_in),
            fr::int(chat_out),
            dollars(chat_usd),
            dollars(embed(c.fiches + c.questions) + chat_usd),
            prices::CHECKED
        ),
    );
    for (tab, panel, view) in [
        (ids::ONGLET_CHERCHER, ids::VUE_CHERCHER, View::Chercher),
        (ids::ONGLET_MESURER, ids::VUE_MESURER, View::Mesurer),
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
            let state = match copied {
                None => "",
                Some(true) => {
                    "Lien copié : il garde la vue, la question et les méthodes, jamais la clé."
                }
                Some(false) => {
                    "Copiez ce lien : il garde la vue, la question et les méthodes, jamais la clé."
                }
            };
            set_text(&by_id(ids::LIEN_ETAT), state);
        }
    }
}
