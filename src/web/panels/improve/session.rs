//! The sweep (tuned on one half, checked on the other) and the session's history.

use web_sys::Element;

use super::super::super::dom::{scroller, E};
use super::button;
use crate::fr::decimal;
use crate::improve::Settings;
use crate::page::State;

/// A table that stacks on a phone (`table.empilee`, `www/style.css`): each row's header on a line
/// of its own, then its cells side by side, each named by its column (`data-label`). Its roles
/// keep it a table for assistive technologies whatever display the stylesheet gives it.
fn stacked(table: E, headers: &[&str], rows: Vec<Element>) -> Element {
    let head = E::new("tr")
        .attr("role", "row")
        .children(headers.iter().map(|h| {
            E::new("th")
                .attr("scope", "col")
                .attr("role", "columnheader")
                .text(h)
                .build()
        }));
    for row in &rows {
        row.set_attribute("role", "row").ok();
        let cells = row.children();
        for i in 0..cells.length() {
            let Some(cell) = cells.item(i) else { continue };
            if cell.tag_name() == "TH" {
                cell.set_attribute("role", "rowheader").ok();
            } else {
                cell.set_attribute("role", "cell").ok();
                if let Some(h) = headers.get(i as usize) {
                    cell.set_attribute("data-label", h).ok();
                }
            }
        }
    }
    table
        .class("empilee")
        .attr("role", "table")
        .child(E::new("thead").attr("role", "rowgroup").child(head))
        .child(E::new("tbody").attr("role", "rowgroup").children(rows))
        .build()
}

/// « Régler sur une moitié, vérifier sur l'autre ».
pub(super) fn sweep(s: &State, settings: &Settings) -> Element {
    let im = &s.data.improve;
    // The sweep.
    let mut sweep = E::new("section")
        .class("partie")
        .attr("id", "ameliorer-balayage")
        .child(E::new("h3").text("Régler sur une moitié, vérifier sur l'autre"))
        .child(E::new("p").class("intro").text(&format!(
            "Un balayage essaie toute une grille de réglages. Le meilleur sur les {} est surtout chanceux : on le choisit sur les questions de rang impair (1re, 3e, 5e…), et on regarde ce qu'il donne sur les autres.",
            crate::fr::count(s.data.questions.len() as u64, "question", "questions")
        )));
    let mut buttons = Vec::new();
    if settings.keyword().is_some() {
        buttons.push(button(
            "Balayer k1 × b (35 réglages)",
            ("data-balayer", "k1b"),
        ));
    }
    if settings
        .base()
        .ok()
        .and_then(|m| m.fused_keyword())
        .is_some()
    {
        buttons.push(button(
            "Balayer k de RRF (8 réglages)",
            ("data-balayer", "rrf"),
        ));
    }
    sweep = sweep.child(E::new("div").class("ligne").children(buttons));
    if let Some(sw) = &im.sweep {
        sweep = sweep.child(
            E::new("p")
                .class("verdict")
                .attr("id", "ameliorer-balayage-verdict")
                .text(&sw.verdict),
        );
        let row = |label: &str, p: &crate::improve::sweep::Point, class: &str| {
            E::new("tr")
                .class(class)
                .children([
                    E::new("th").attr("scope", "row").text(label).build(),
                    E::new("td").text(&decimal(p.calibration, 3)).build(),
                    E::new("td").text(&decimal(p.test, 3)).build(),
                    E::new("td").text(&decimal(p.all, 3)).build(),
                ])
                .build()
        };
        let mut rows = vec![row(
            &format!("départ ({})", sw.start.settings.name()),
            &sw.start,
            "",
        )];
        rows.push(row(
            &format!(
                "choisi sur le calibrage : {}",
                sw.points[sw.best_calibration].label
            ),
            &sw.points[sw.best_calibration],
            "choisi",
        ));
        rows.push(row(
            &format!("meilleur sur toutes : {}", sw.points[sw.best_all].label),
            &sw.points[sw.best_all],
            "",
        ));
        let table = stacked(
            E::new("table").class("mesure"),
            &[
                "Réglage",
                "MRR@10 calibrage (pairs)",
                "MRR@10 test (impairs)",
                "MRR@10 toutes",
            ],
            rows,
        );
        sweep = sweep.child(scroller("Balayage", table)).child(button(
            "Garder le réglage choisi sur le calibrage",
            ("data-ameliorer", "garder"),
        ));
    }
    sweep.build()
}

/// The settings tried in this session, the most recent first.
pub(super) fn history(s: &State) -> Element {
    let im = &s.data.improve;
    // The history.
    let rows = im.history.iter().enumerate().rev().map(|(i, t)| {
        let current = Some(&t.settings) == im.settings.as_ref();
        E::new("tr")
            .class(if current { "courant" } else { "" })
            .children([
                E::new("th").attr("scope", "row").text(&t.name).build(),
                E::new("td")
                    .text(&format!("{}/{}", t.exact_hit1.0, t.exact_hit1.1))
                    .build(),
                E::new("td")
                    .text(&format!("{}/{}", t.common_hit1.0, t.common_hit1.1))
                    .build(),
                E::new("td")
                    .text(
                        &t.common_product_hit1
                            .map_or("—".into(), |p| format!("{p}/{}", t.common_hit1.1)),
                    )
                    .build(),
                E::new("td")
                    .text(&format!("{}/{}", t.common_hit5, t.common_hit1.1))
                    .build(),
                E::new("td").text(&decimal(t.mrr, 3)).build(),
                E::new("td")
                    .child(if current {
                        E::new("span").text("en cours").build()
                    } else {
                        button("Reprendre", ("data-reprendre", &i.to_string()))
                    })
                    .build(),
            ])
            .build()
    });
    let table = stacked(
        E::new("table")
            .class("mesure historique")
            .attr("id", "ameliorer-historique")
            .child(E::new("caption").text("Essais de cette session, le plus récent d'abord")),
        &[
            "Réglages essayés",
            "Exactes en tête",
            "Courantes en tête",
            "Bon produit",
            "Courantes dans les 5",
            "MRR@10, exactes et courantes",
            "Action",
        ],
        rows.collect(),
    );
    E::new("section")
        .class("partie")
        .child(E::new("h3").text("Historique"))
        .child(scroller("Historique", table))
        .build()
}
