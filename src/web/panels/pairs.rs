//! « Mesurer »'s statistics of pairs of methods, pure rendering from measurements
//! ([`crate::measure::pairs`]): which method leads and whether Holm's correction lets it be
//! called the best, the pair compared on each measure in full, and every pair's MRR@10 gap with
//! its t-test corrected by Holm. `mesurer --all` prints the same numbers.

use web_sys::Element;

use super::super::dom::{scroller, E};
use crate::data::QuestionKind;
use crate::fr::{self, labels};
use crate::measure::pairs::{self, MEASURES};
use crate::measure::stats::ALPHA;
use crate::measure::Measurement;

/// The types of answerable question `ms` were measured on.
fn kinds(ms: &[Measurement]) -> impl Iterator<Item = QuestionKind> + '_ {
    QuestionKind::ANSWERABLE.into_iter().filter(|&k| {
        ms.first()
            .is_some_and(|m| !pairs::values(m, k, MEASURES[0]).is_empty())
    })
}

fn signed(x: f64) -> String {
    if x < 0.0 {
        format!("\u{2212}{}", fr::decimal(-x, 3))
    } else {
        format!("+{}", fr::decimal(x, 3))
    }
}

fn cell(class: &str, text: &str) -> Element {
    E::new("td").class(class).text(text).build()
}

fn head(titles: &[&str]) -> E {
    E::new("thead").child(
        E::new("tr").children(
            titles
                .iter()
                .map(|h| E::new("th").attr("scope", "col").text(h).build()),
        ),
    )
}

/// Under the tables: for each type, the method that leads on MRR@10, and whether it survives
/// Holm's correction over every pair.
pub fn leaders(ms: &[Measurement]) -> Vec<Element> {
    let names: Vec<&str> = ms.iter().map(|m| m.method.as_str()).collect();
    kinds(ms)
        .filter_map(|kind| {
            let leader = pairs::leader(ms, kind)?;
            Some(
                E::new("p")
                    .class("legende meilleure-methode")
                    .attr("data-type", kind.as_str())
                    .text(&labels::leader_sentence(&names, kind, &leader))
                    .build(),
            )
        })
        .collect()
}

/// Methods `i` against `j` on every measure, one table per type: the gap of `i` over `j` with
/// its 95 % interval, the t-test's p-value and its Holm correction, the randomisation test's,
/// the effect size and the gap these questions detect.
pub fn compared(ms: &[Measurement], i: usize, j: usize) -> Vec<Element> {
    kinds(ms)
        .map(|kind| {
            let holm = pairs::holm(ms, kind);
            let p = pairs::pair(ms, (i, j), kind, &holm);
            // One row per figure, one column per measure: three narrow columns fit a phone.
            type Figure = fn(&pairs::Gap) -> String;
            let figures: [(&str, &str, Figure); 7] = [
                ("ecart", "Écart", |g| signed(g.stats.delta)),
                ("intervalle", "IC à 95\u{a0}%", |g| {
                    format!(
                        "[{}\u{202f}; {}]",
                        signed(g.stats.ci.0),
                        signed(g.stats.ci.1)
                    )
                }),
                ("p-t", "p (t)", |g| fr::numbers::p_value(g.stats.t_p)),
                ("p-holm", "p corrigé", |g| fr::numbers::p_value(g.t_p_holm)),
                ("p-permutation", "p perm.", |g| {
                    fr::numbers::p_value(g.stats.randomisation_p)
                }),
                ("taille-effet", "d", |g| {
                    fr::decimal(g.stats.effect, 2).replace('-', "\u{2212}")
                }),
                ("decelable", "Décelable", |g| {
                    g.stats
                        .detectable
                        .map_or("—".to_owned(), |d| fr::decimal(d, 3))
                }),
            ];
            let rows = figures.iter().map(|(class, title, figure)| {
                E::new("tr")
                    .attr("data-chiffre", class)
                    .child(E::new("th").attr("scope", "row").text(title))
                    .children(p.gaps.iter().map(|g| cell(class, &figure(g))))
                    .build()
            });
            let mut titles = vec!["Chiffre"];
            titles.extend(p.gaps.iter().map(|g| g.measure));
            let table = E::new("table")
                .class("mesure ecarts")
                .attr("data-type", kind.as_str())
                .child(E::new("caption").text(&format!(
                    "{} ({})\u{a0}: {} − {}",
                    labels::kind_title(kind),
                    p.wins + p.losses + p.ties,
                    p.a,
                    p.b
                )))
                .child(head(&titles))
                .child(E::new("tbody").children(rows))
                .build();
            scroller(
                &format!("Écarts, {}", labels::kind_title(kind).to_lowercase()),
                table,
            )
        })
        .collect()
}

/// What the pair's table says, once under it.
pub const COMPARED_NOTE: &str = "Écart\u{a0}: la première méthode moins la seconde, en moyenne par question\u{202f}; IC\u{a0}: intervalle de confiance à 95\u{a0}% (bootstrap apparié, 10\u{a0}000 tirages des questions, graine fixe)\u{202f}; p (t)\u{a0}: test t apparié\u{202f}; p corrigé\u{a0}: le même, corrigé par Holm sur toutes les paires de méthodes\u{202f}; p perm.\u{a0}: test de permutation apparié (exact jusqu'à 12 questions qui diffèrent, sinon 10\u{a0}000 tirages)\u{202f}; d\u{a0}: taille d'effet (écart sur écart-type des différences)\u{202f}; décelable\u{a0}: le plus petit écart que ces questions voient 8 fois sur 10 (α = 0,05).";

/// Every pair's MRR@10 gap with its t-test and Holm's correction over the pairs, one table per
/// type: where a difference survives the number of pairs looked at.
pub fn all_pairs(ms: &[Measurement]) -> Option<Element> {
    if ms.len() < 3 {
        return None;
    }
    let count = pairs::indices(ms.len()).len();
    let tables =
        kinds(ms).map(|kind| {
            let tests = pairs::t_tests(ms, kind, MEASURES[0]);
            let rows = pairs::indices(ms.len()).into_iter().zip(tests).map(
                |((i, j), (delta, p, holm))| {
                    E::new("tr")
                        .attr("data-paire", &format!("{}|{}", ms[i].method, ms[j].method))
                        .class(if holm < ALPHA { "distinctes" } else { "" })
                        .child(
                            E::new("th")
                                .attr("scope", "row")
                                .text(&format!("{} − {}", ms[i].method, ms[j].method)),
                        )
                        .child(cell("ecart", &signed(delta)))
                        .child(cell("p-t", &fr::numbers::p_value(p)))
                        .child(cell("p-holm", &fr::numbers::p_value(holm)))
                        .child(cell(
                            "conclusion",
                            if holm < ALPHA { "sûr" } else { "incertain" },
                        ))
                        .build()
                },
            );
            let table = E::new("table")
                .class("mesure paires")
                .attr("data-type", kind.as_str())
                .child(E::new("caption").text(&format!(
                    "{}\u{a0}: écart de MRR@10",
                    labels::kind_title(kind)
                )))
                .child(head(&[
                    "Paire",
                    "Écart",
                    "p (t)",
                    "p corrigé",
                    "Sûr\u{202f}?",
                ]))
                .child(E::new("tbody").children(rows))
                .build();
            scroller(
                &format!("Paires, {}", labels::kind_title(kind).to_lowercase()),
                table,
            )
        });
    Some(
        E::new("section")
            .class("partie")
            .attr("id", "partie-paires")
            .child(E::new("h3").text("Toutes les paires\u{a0}: lesquelles se distinguent\u{202f}?"))
            .child(E::new("p").class("intro").text(&format!(
                "Plus on compare de paires, plus il est probable que l'une d'elles paraisse différente par le seul hasard\u{a0}: chaque p du test t apparié est donc corrigé par Holm sur les {count} paires. Un écart n'est sûr que si le p corrigé reste sous 0,05\u{202f}; sinon, il est «\u{202f}incertain\u{202f}»\u{a0}: on ne peut pas conclure."
            )))
            .children(tables)
            .build(),
    )
}
