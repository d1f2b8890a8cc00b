//! « Vos données »: what is loaded, what was refused and why, and the way back to the exercise.

use super::super::dom::{by_id, replace_children, set_hidden, set_text, E};
use super::super::ids;
use super::Memo;
use crate::page::State;

pub fn render(s: &State, memo: &mut Memo) {
    set_text(&by_id(ids::DONNEES_ETAT), &s.data_status);
    if memo.changed("limite-fiches", s.fiches_max) {
        set_text(
            &by_id(ids::LIMITE_FICHES),
            &crate::fr::labels::fiches_limit(s.fiches_max),
        );
    }
    if memo.changed("donnees-erreurs", &s.data_errors) {
        let items = s.data_errors.iter().map(|e| E::new("li").text(e).build());
        replace_children(&by_id(ids::DONNEES_ERREURS), items);
    }
    set_hidden(&by_id(ids::REVENIR), s.data.label.is_none());
}
