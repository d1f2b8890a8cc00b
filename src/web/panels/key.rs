//! The key panel: the field, « retenir », « oublier », and what is kept where.

use super::super::dom::{by_id, input, set_disabled, set_hidden, set_text};
use super::super::ids;
use crate::page::State;

pub fn render(s: &State) {
    let field = input(ids::CLE);
    // The field holds what was typed; it is emptied when the key is forgotten (but not while it
    // holds an unusable key the learner is correcting).
    if s.key.is_none() && s.key_ui.problem.is_none() && !field.value().trim().is_empty() {
        field.set_value("");
    }
    if let Some(k) = &s.key {
        if field.value().trim() != k.secret() {
            field.set_value(k.secret());
        }
    }
    let remember = input(ids::RETENIR);
    if remember.checked() != s.key_ui.remembered {
        remember.set_checked(s.key_ui.remembered);
    }
    let text = match (s.key.is_some(), s.key_ui.remembered) {
        (false, _) if s.data.questions_shipped > 0 && s.data.label.is_some() => "Aucune clé : sens et hybride sont mesurés sur vos questions avec les vecteurs de votre fichier ; une question que vous tapez demande votre clé.",
        (false, _) if s.data.questions_shipped > 0 => "Aucune clé : sens et hybride sont mesurés sur les questions de l'exercice avec les vecteurs fournis ; une question que vous tapez demande votre clé.",
        (false, _) => "Aucune clé : les méthodes sens et hybride attendent la vôtre.",
        (true, false) => "Clé en mémoire, pour cet onglet seulement.",
        (true, true) => "Clé retenue sur cet appareil (« oublier » l'efface).",
    };
    set_text(
        &by_id(ids::CLE_ETAT),
        s.key_ui.problem.as_deref().unwrap_or(text),
    );
    let warning = by_id(ids::RETENIR_AVERTISSEMENT);
    if s.key_ui.remember_warning {
        let host = web_sys::window()
            .and_then(|w| w.location().hostname().ok())
            .unwrap_or_default();
        set_text(
            &by_id(ids::RETENIR_AVERTISSEMENT_TEXTE),
            &format!(
                "Attention : {host} est partagé par toutes les pages GitHub Pages de ce compte. Une clé retenue ici, toute autre page de {host} peut la lire. Retenez-la plutôt sur une copie de la page à un domaine à vous ; sinon, gardez-la en mémoire (rien à cocher)."
            ),
        );
    }
    set_hidden(&warning, !s.key_ui.remember_warning);
    // Nothing to forget: no key in memory, none remembered, nothing typed that is not one.
    set_disabled(
        &by_id(ids::OUBLIER),
        s.key.is_none() && !s.key_ui.remembered && s.key_ui.problem.is_none(),
    );
    let checking = matches!(s.key_ui.check, Some(None));
    set_disabled(&by_id(ids::VERIFIER_CLE), s.key.is_none() || checking);
    let verdict = by_id(ids::VERIFICATION);
    let (said, refused) = match &s.key_ui.check {
        None => ("", false),
        Some(None) => ("Vérification…", false),
        Some(Some(Ok(m))) => (m.as_str(), false),
        Some(Some(Err(m))) => (m.as_str(), true),
    };
    set_text(&verdict, said);
    verdict
        .class_list()
        .toggle_with_force("refus", refused)
        .ok();
}
