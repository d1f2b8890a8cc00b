//! « L'épreuve »: the exercise's questions kept apart, passed on the learner's request, the
//! settings in use measured on them beside the 40 questions.

use web_sys::Element;

use super::super::super::dom::{scroller, E};
use super::button;
use crate::data::QuestionKind;
use crate::fr::decimal;
use crate::measure::{KindStats, Measurement};
use crate::page::improve::Pass;
use crate::page::State;

/// The courantes' figures of `m`.
fn courantes(m: &Measurement) -> Option<&KindStats> {
    m.kinds
        .iter()
        .find(|k| k.kind == QuestionKind::Courante && k.questions > 0)
}

/// The courantes in the top 5 and their MRR@10, from the start and with the settings, on the 40
/// questions and on « l'épreuve ».
fn table(pass: &Pass) -> Option<Element> {
    let (was, now) = &pass.exercise;
    let sets = [
        ("les 40 questions", courantes(was)?, courantes(now)?),
        (
            "l'épreuve",
            courantes(&pass.before)?,
            courantes(&pass.after)?,
        ),
    ];
    let head = E::new("tr").children(
        ["Courantes", "départ", "vos réglages", "écart"]
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
    let mut rows = Vec::new();
    for (set, a, b) in sets {
        let n = b.questions;
        let delta = b.hit5 as f64 - a.hit5 as f64;
        rows.push((
            format!("{set}\u{a0}: dans les 5 premières"),
            format!("{}/{n}", a.hit5),
            format!("{}/{n}", b.hit5),
            delta,
            decimal(delta, 0),
        ));
        let delta = b.mrr10 - a.mrr10;
        rows.push((
            format!("{set}\u{a0}: MRR@10"),
            decimal(a.mrr10, 3),
            decimal(b.mrr10, 3),
            delta,
            decimal(delta, 3),
        ));
    }
    let body = rows.into_iter().map(|(label, a, b, delta, shown)| {
        let (class, shown) = match delta {
            d if d > 0.0 => ("mieux", format!("+{shown}")),
            d if d < 0.0 => ("moins", shown),
            _ => ("", "=".to_owned()),
        };
        E::new("tr")
            .children([
                E::new("th").attr("scope", "row").text(&label).build(),
                E::new("td").text(&a).build(),
                E::new("td").text(&b).build(),
                E::new("td").class(class).text(&shown).build(),
            ])
            .build()
    });
    let table = E::new("table")
        .class("mesure")
        .attr("id", "ameliorer-epreuve-chiffres")
        .child(E::new("caption").text(&format!(
            "{} face à {}",
            pass.after.method, pass.before.method
        )))
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(body))
        .build();
    Some(scroller("Chiffres de l'épreuve", table))
}

/// The section: what the épreuve is, its button, and its last pass.
pub(super) fn epreuve(s: &State) -> Vec<Element> {
    // It is written for the exercise's fiches.
    if s.data.label.is_some() {
        return Vec::new();
    }
    let e = &s.data.improve.epreuve;
    let mut out = vec![
        E::new("h3").text("L'épreuve\u{a0}: des questions jamais vues").build(),
        E::new("p")
            .text("Vos réglages sont choisis en regardant les 40 questions de l'exercice. Tiennent-ils sur d'autres\u{a0}? L'épreuve garde à part d'autres questions courantes, écrites séparément, sur les mêmes fiches. Passez-la quand vos réglages sont choisis\u{a0}: la repasser après chaque changement reviendrait à régler sur elle.")
            .build(),
    ];
    if e.asked {
        out.push(
            E::new("p")
                .class("etat")
                .text("Lecture des questions de l'épreuve…")
                .build(),
        );
    } else {
        out.push(
            E::new("div")
                .class("ligne")
                .child(button("Passer l'épreuve", ("data-ameliorer", "epreuve")))
                .build(),
        );
    }
    match &e.pass {
        None => {}
        Some(Err(why)) => out.push(E::new("p").class("erreur-api").text(why).build()),
        Some(Ok(pass)) => {
            out.extend(table(pass));
            out.push(
                E::new("p")
                    .attr("id", "ameliorer-epreuve-verdict")
                    .text(&format!("Sur l'épreuve\u{a0}: {}", pass.diff.verdict))
                    .build(),
            );
            if !pass.diff.gap_said.is_empty() {
                out.push(
                    E::new("p")
                        .class("etat")
                        .attr("id", "ameliorer-epreuve-ecart")
                        .text(&pass.diff.gap_said)
                        .build(),
                );
            }
            let now = s.data.improve.settings.as_ref();
            if now.is_some_and(|n| *n != pass.settings) {
                out.push(
                    E::new("p")
                        .class("etat")
                        .text("Vos réglages ont changé depuis cette épreuve\u{a0}: ses chiffres sont ceux des réglages d'alors.")
                        .build(),
                );
            }
            if e.passes > 1 {
                out.push(
                    E::new("p")
                        .text(&format!(
                            "Épreuve passée {} fois dans cette séance\u{a0}: plus on la repasse en changeant les réglages, moins elle dit ce qui tiendrait sur des questions nouvelles.",
                            e.passes
                        ))
                        .build(),
                );
            }
        }
    }
    out
}
