//! « Vecteurs des fiches »: where they come from, or what computing them would cost, with its
//! progress, and the download of vectors computed here.

use wasm_bindgen::JsCast;
use web_sys::HtmlProgressElement;

use crate::fr::{self, dollars};
use crate::mistral;

use super::super::dom::{by_id, set_disabled, set_hidden, set_text};
use super::super::ids;
use crate::page::{embed_estimate, Phase, State};

pub fn render(s: &State) {
    let lab = &s.data.lab;
    let origin = &s.data.vectors_origin;
    let calculer = by_id(ids::CALCULER);
    let text = match lab.vectors_info(crate::lab::Encoder::Mistral) {
        Some(v) => {
            set_hidden(&calculer, true);
            format!(
                "Vecteurs des fiches : {} × {} ({}), {}.",
                v.count, v.dim, v.model, origin
            )
        }
        None => {
            set_hidden(&calculer, false);
            set_disabled(&calculer, s.key.is_none() || s.data.ui.compute.is_running());
            let tokens = embed_estimate(lab.fiches().iter().map(|f| f.texte.as_str()));
            let prefix = if origin.is_empty() {
                String::new()
            } else {
                format!("{origin} ")
            };
            format!(
                "{prefix}Aucun vecteur pour ces fiches : les calculer coûte au plus {} tokens, soit au plus {}, une seule fois.",
                fr::int(tokens),
                dollars(mistral::cost_usd(tokens))
            )
        }
    };
    set_text(&by_id(ids::VECTEURS_ETAT), &text);
    set_hidden(&by_id(ids::TELECHARGER), s.data.computed.is_none());
    let progress_box = by_id(ids::CALCUL);
    match s.data.ui.compute {
        Phase::Idle => set_hidden(&progress_box, true),
        Phase::Running { done, total } => {
            set_hidden(&progress_box, false);
            if let Ok(p) = by_id(ids::PROGRESSION).dyn_into::<HtmlProgressElement>() {
                p.set_max(total.max(1) as f64);
                p.set_value(done as f64);
            }
            let text = if done == 0 {
                "Calcul en cours…".to_owned()
            } else {
                format!("{done} fiches sur {total}")
            };
            set_text(&by_id(ids::CALCUL_MESSAGE), &text);
        }
    }
    set_text(
        &by_id(ids::VECTEURS_MESSAGE),
        s.vectors_message.as_deref().unwrap_or_default(),
    );
}
