//! « Mesurer »: every method on the same questions, as tables, bars, a question grid, a paired
//! comparison in words, strip plots of the best scores, and the refusal threshold that fails in
//! plain sight. Pure rendering from measurements; the controller wires the controls.

use web_sys::Element;

use super::super::dom::{scroller, E};
use crate::data::QuestionKind;
use crate::fr::{decimal as fr, labels::kind_title as kind_label};
use crate::lab::Method;
use crate::measure::graded::{self, Qrels};
use crate::measure::{KindStats, Measurement};

pub(super) fn pct(x: f64) -> String {
    crate::fr::percent(x)
}

fn stats(m: &Measurement, kind: QuestionKind) -> Option<&KindStats> {
    m.kinds.iter().find(|k| k.kind == kind)
}

/// A score as the method shows it.
pub fn score_text(m: &Measurement, score: f64) -> String {
    let decimals = Method::parse(&m.method).map_or(4, Method::display_decimals);
    fr(score, decimals)
}

/// The cells hit@1, hit@5 and MRR@10 of one type, as every table shows them: the figure as ranked,
/// and beside it, when ties change it, the pessimistic one (every fiche of equal score counted
/// above the expected fiche).
pub fn stat_cells(k: &KindStats) -> [Element; 3] {
    let cell = |class: &str, ranked: String, worst: String| {
        let mut td = E::new("td").class(class).text(&ranked);
        if worst != ranked {
            td = td.child(
                E::new("span")
                    .class("pessimiste")
                    .attr(
                        "title",
                        "pessimiste : chaque fiche de même score que la bonne comptée devant elle",
                    )
                    .text(&format!(" ({worst})")),
            );
        }
        td.build()
    };
    let n = k.questions;
    [
        cell(
            "hit1",
            format!("{}/{n}", k.hit1),
            format!("{}/{n}", k.worst_hit1),
        ),
        cell(
            "hit5",
            format!("{}/{n}", k.hit5),
            format!("{}/{n}", k.worst_hit5),
        ),
        cell("mrr", fr(k.mrr10, 2), fr(k.worst_mrr10, 2)),
    ]
}

/// The sentence under every table with pessimistic figures.
pub const PESSIMISTIC_NOTE: &str = "Entre parenthèses, quand il diffère, le chiffre pessimiste : chaque fiche ex æquo avec la bonne (exactement le même score) est comptée devant elle. L'écart est ce que le chiffre doit à la règle qui départage les égalités (pour mots, l'identifiant le plus grand d'abord, comme dans le sujet), pas à la méthode.";

/// The answerable types that have questions in this set (a learner's file may have none of one).
fn kinds_present(ms: &[Measurement]) -> Vec<QuestionKind> {
    QuestionKind::ANSWERABLE
        .into_iter()
        .filter(|&kind| {
            ms.first()
                .and_then(|m| stats(m, kind))
                .is_some_and(|k| k.questions > 0)
        })
        .collect()
}

/// The sentence under the tables when the product level is shown.
pub const PRODUCT_NOTE: &str = "« Fiche en tête » : la fiche attendue est la première. « Produit en tête » : la première est la fiche attendue ou une autre variante du même produit (autre longueur, autre coloris), que la question souvent ne distingue pas. « Dans les 5 » : la fiche attendue est dans les 5 premières.";

/// One table per answerable type: methods in rows, hit@1, hit@1 by product (when the catalogue
/// has variants), hit@5, MRR@10.
pub fn comparison_tables(ms: &[Measurement]) -> Element {
    let products = ms
        .iter()
        .flat_map(|m| &m.kinds)
        .any(|k| k.product.is_some());
    let tables = kinds_present(ms).into_iter().map(|kind| {
        let n = ms
            .first()
            .and_then(|m| stats(m, kind))
            .map_or(0, |k| k.questions);
        // Short enough for four figures across a phone's width.
        let mut headers = vec!["Méthode", "Fiche en tête"];
        if products {
            headers.push("Produit en tête");
        }
        headers.extend(["Dans les 5", "MRR@10"]);
        let head = E::new("tr").children(
            headers
                .iter()
                .map(|h| E::new("th").attr("scope", "col").text(h).build()),
        );
        let best_mrr = ms
            .iter()
            .filter_map(|m| stats(m, kind))
            .map(|k| k.mrr10)
            .fold(0.0, f64::max);
        let rows =
            ms.iter().filter_map(|m| {
                let k = stats(m, kind)?;
                let [hit1, hit5, mrr] = stat_cells(k);
                let mut cells = vec![hit1];
                if products {
                    cells.push(
                        E::new("td")
                            .class("produit")
                            .text(&k.product.as_ref().map_or("—".to_owned(), |p| {
                                format!("{}/{}", p.hit1, k.questions)
                            }))
                            .build(),
                    );
                }
                cells.extend([hit5, mrr]);
                Some(
                    E::new("tr")
                        .attr("data-methode", &m.method)
                        .class(if k.mrr10 == best_mrr && best_mrr > 0.0 {
                            "meilleure"
                        } else {
                            ""
                        })
                        .child(E::new("th").attr("scope", "row").text(&m.method))
                        .children(cells)
                        .build(),
                )
            });
        let table = E::new("table")
            .class("mesure comparaison")
            .attr("data-type", kind.as_str())
            .child(E::new("caption").text(&format!("{} ({n})", kind_label(kind))))
            .child(E::new("thead").child(head))
            .child(E::new("tbody").children(rows))
            .build();
        scroller(kind_label(kind), table)
    });
    let any_tie = ms
        .iter()
        .flat_map(|m| &m.kinds)
        .any(|k| (k.hit1, k.hit5, k.mrr10) != (k.worst_hit1, k.worst_hit5, k.worst_mrr10));
    let mut out = E::new("div").class("comparaisons").children(tables);
    if products {
        out = out.child(
            E::new("p")
                .class("legende")
                .attr("id", "note-produit")
                .text(PRODUCT_NOTE),
        );
    }
    if any_tie {
        out = out.child(
            E::new("p")
                .class("legende")
                .attr("id", "note-pessimiste")
                .text(PESSIMISTIC_NOTE),
        );
    }
    out.build()
}

/// The sentence under the graded table.
pub const GRADED_NOTE: &str = "Notes graduées, dérivées des fiches attendues\u{a0}: la fiche attendue vaut 3, chaque autre variante de son produit 2 (une taille, un coloris que la question ne nomme pas)\u{202f}; vos notes données à la main (vue «\u{202f}Questions\u{202f}») passent avant. nDCG (nDCG@10)\u{a0}: chaque fiche notée des 10 premières compte selon sa note et son rang. Rappel (rappel@10)\u{a0}: la part des fiches notées trouvées dans les 10 premières. Jugées (Judged@10)\u{a0}: la part des 10 premières qui a une note\u{202f}; les autres comptent comme des erreurs, et les deux chiffres d'avant sont alors un plancher.";

/// The graded figures of every method on the questions `qrels` judges (none: no table).
pub fn graded_table(ms: &[Measurement], qrels: &Qrels) -> Option<Element> {
    let first = ms.first()?;
    let n = graded::measure(first, qrels).all.questions;
    if n == 0 {
        return None;
    }
    let head = E::new("tr").children(
        // Short enough for a phone's width: « @10 » is said once, in the caption.
        ["Méthode", "nDCG", "Rappel", "Jugées"]
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
    let figures: Vec<graded::Graded> = ms.iter().map(|m| graded::measure(m, qrels)).collect();
    let best = figures.iter().map(|g| g.all.ndcg10).fold(0.0, f64::max);
    let rows = figures.iter().map(|g| {
        let cell = |class: &str, x: f64| E::new("td").class(class).text(&fr(x, 2)).build();
        E::new("tr")
            .attr("data-methode", &g.method)
            .class(if g.all.ndcg10 == best && best > 0.0 {
                "meilleure"
            } else {
                ""
            })
            .child(E::new("th").attr("scope", "row").text(&g.method))
            .child(cell("ndcg", g.all.ndcg10))
            .child(cell("rappel", g.all.recall10))
            .child(cell("jugees", g.all.judged10))
            .build()
    });
    let table = E::new("table")
        .class("mesure graduee")
        .child(E::new("caption").text(&format!("Mesures graduées sur les 10 premières ({n})")))
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(rows))
        .build();
    Some(
        E::new("div")
            .class("graduees")
            .child(scroller("Mesures graduées", table))
            .child(
                E::new("p")
                    .class("legende")
                    .attr("id", "note-graduee")
                    .text(GRADED_NOTE),
            )
            .build(),
    )
}

/// Bars: for each type, each method's share of questions with the right fiche first and in the
/// first five. Drawn as SVG, node by node, with the figures written on the bars.
pub fn bars(ms: &[Measurement]) -> Element {
    let (bar_h, gap, label_w, width) = (14.0, 8.0, 90.0, 600.0);
    let plot_w = width - label_w - 120.0;
    let mut y = 10.0;
    let svg = E::svg("svg").attr("role", "img").attr("class", "barres");
    let mut nodes: Vec<Element> = Vec::new();
    let title = "Part des questions avec la bonne fiche en tête (barre foncée) et dans les 5 premières (barre claire)";
    nodes.push(E::svg("title").text(title).build());
    for kind in kinds_present(ms) {
        nodes.push(
            E::svg("text")
                .attr("x", "0")
                .attr("y", &format!("{}", y + 10.0))
                .class("titre")
                .text(kind_label(kind))
                .build(),
        );
        y += 18.0;
        for m in ms {
            let Some(k) = stats(m, kind) else { continue };
            let n = k.questions.max(1) as f64;
            let w5 = plot_w * k.hit5 as f64 / n;
            let w1 = plot_w * k.hit1 as f64 / n;
            nodes.push(
                E::svg("text")
                    .attr("x", "0")
                    .attr("y", &format!("{}", y + bar_h - 3.0))
                    .text(&m.method)
                    .build(),
            );
            nodes.push(bar(label_w, y, w5, bar_h, "top5"));
            nodes.push(bar(label_w, y, w1, bar_h, "top1"));
            nodes.push(
                E::svg("text")
                    .attr("x", &format!("{:.1}", label_w + w5.max(w1) + 6.0))
                    .attr("y", &format!("{}", y + bar_h - 3.0))
                    .text(&format!("{} · {} / {}", k.hit1, k.hit5, k.questions))
                    .build(),
            );
            y += bar_h + gap;
        }
        y += 10.0;
    }
    let svg = svg
        .attr("viewBox", &format!("0 0 {width} {y}"))
        .attr("aria-label", title)
        .children(nodes)
        .build();
    // Each swatch kept with its words (a narrow screen split them).
    let entry = |class: &str, words: &str| {
        E::new("span")
            .class("entree")
            .child(E::new("span").class(class).attr("aria-hidden", "true"))
            .text(words)
    };
    let legend = E::new("p")
        .class("legende-barres")
        .child(entry("cle top1", "barre foncée"))
        .text("\u{a0}: bonne fiche en tête ")
        .child(entry("cle top5", "barre claire"))
        .text("\u{a0}: dans les 5 premières\u{202f}; les chiffres\u{a0}: en tête · dans les 5 / questions.");
    E::new("div")
        .child(scroller("Barres des méthodes", svg))
        .child(legend)
        .build()
}

/// The rank cell's class: colour and a letter for readers without colour.
/// One bar of the chart: a rectangle at (`x`, `y`), `width` × `height`.
fn bar(x: f64, y: f64, width: f64, height: f64, class: &str) -> Element {
    E::svg("rect")
        .attr("x", &format!("{x}"))
        .attr("y", &format!("{y}"))
        .attr("width", &format!("{width:.1}"))
        .attr("height", &format!("{height}"))
        .class(class)
        .build()
}

/// An SVG line from (`x1`, `y1`) to (`x2`, `y2`), coordinates as they are to be written.
pub(super) fn line(x1: &str, y1: &str, x2: &str, y2: &str, class: &str) -> E {
    E::svg("line")
        .attr("x1", x1)
        .attr("y1", y1)
        .attr("x2", x2)
        .attr("y2", y2)
        .class(class)
}

fn rank_class(rank: Option<usize>) -> (&'static str, String) {
    match rank {
        Some(1) => ("r1", "1".into()),
        Some(r) if r <= 5 => ("r5", r.to_string()),
        Some(r) => ("r10", r.to_string()),
        None => ("hors", "—".into()),
    }
}

/// The grid: one row per answerable question, one column per method, the expected fiche's rank.
/// `order` is the row order (indices into the question list). Each question is a button
/// (`data-question` holds its index) that the controller opens in « Chercher ».
/// The grid shows this many rows at first, and as many more at each « Afficher » click: a question
/// set of 76,000 lines stays a page of a few hundred rows.
pub use crate::page::GRID_PAGE;

/// The strip plot draws at most about this many questions.
pub const PLOT_CAP: usize = 2_000;

/// Lists of questions (missed, under the threshold) show at most this many, then a count.
pub const LIST_CAP: usize = 200;

/// `items` cut to [`LIST_CAP`], with a last item saying how many were left out.
pub fn capped(items: impl Iterator<Item = Element>, what: &str) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::new();
    let mut more = 0usize;
    for item in items {
        if out.len() < LIST_CAP {
            out.push(item);
        } else {
            more += 1;
        }
    }
    if more > 0 {
        out.push(
            E::new("li")
                .class("suite")
                .text(&format!(
                    "… et {} {what} de plus (toutes sont dans les exports).",
                    crate::fr::int(more as u64)
                ))
                .build(),
        );
    }
    out
}

pub fn question_grid(ms: &[Measurement], order: &[usize], limit: usize) -> Element {
    let Some(first) = ms.first() else {
        return E::new("p").build();
    };
    let mut head = vec![
        E::new("th").attr("scope", "col").child(
            E::new("button")
                .attr("type", "button")
                .attr("data-tri", "")
                .text("question")
                .build(),
        ),
        E::new("th").attr("scope", "col").text("type"),
    ];
    for m in ms {
        head.push(
            E::new("th").attr("scope", "col").child(
                E::new("button")
                    .attr("type", "button")
                    .attr("data-tri", &m.method)
                    .attr("title", &format!("trier par le rang sous {}", m.method))
                    .text(&m.method)
                    .build(),
            ),
        );
    }
    let answerable: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| {
            first
                .questions
                .get(i)
                .is_some_and(|q| q.kind != QuestionKind::Absente)
        })
        .collect();
    let hidden = answerable.len().saturating_sub(limit);
    let rows = answerable.iter().take(limit).filter_map(|&i| {
        let q = first.questions.get(i)?;
        let mut cells = vec![
            E::new("th")
                .attr("scope", "row")
                .child(
                    E::new("button")
                        .attr("type", "button")
                        .class("ouvrir")
                        .attr("data-question", &i.to_string())
                        .text(&q.question)
                        .build(),
                )
                .build(),
            E::new("td").text(q.kind.as_str()).build(),
        ];
        for m in ms {
            let outcome = m.questions.get(i);
            let rank = outcome.and_then(|o| o.rank);
            let (class, mut text) = rank_class(rank);
            let mut title = match rank {
                Some(r) => format!("{} : bonne fiche au rang {r}", m.method),
                None => format!("{} : bonne fiche hors des 10 premières", m.method),
            };
            let tie = outcome.filter(|o| o.tied()).and_then(|o| o.tie_ranks);
            if let Some((a, b)) = tie {
                let last = if b > crate::measure::DEPTH {
                    format!("{b}+")
                } else {
                    b.to_string()
                };
                text = format!("{a}–{last}");
                title +=
                    &format!(", ex æquo avec d'autres fiches de même score (rangs {a} à {last})");
            }
            cells.push(
                E::new("td")
                    .class(&format!(
                        "rang-grille {class}{}",
                        if tie.is_some() { " exaequo-grille" } else { "" }
                    ))
                    .attr("title", &title)
                    .text(&text)
                    .build(),
            );
        }
        Some(
            E::new("tr")
                .attr("data-question", &i.to_string())
                .children(cells)
                .build(),
        )
    });
    let legend = E::new("p").class("legende").text(
        "Rang de la bonne fiche : 1 (en tête), 2 à 5, 6 à 10, — (hors des 10 premières) ; « 1–2 » : ex æquo, même score qu'une autre fiche, rangée devant ou derrière par la règle d'égalité. Cliquez une question pour voir ses résultats, un nom de méthode pour trier.",
    );
    let table = E::new("table")
        .class("grille")
        .child(E::new("thead").child(E::new("tr").children(head.into_iter().map(E::build))))
        .child(E::new("tbody").children(rows))
        .build();
    let mut out = E::new("div")
        .class("grille-conteneur")
        .child(legend)
        .child(scroller("Grille des questions", table));
    if hidden > 0 {
        out = out.child(
            E::new("button")
                .attr("type", "button")
                .attr("data-grille-plus", "")
                .text(&format!(
                    "Afficher {} questions de plus ({} restantes)",
                    crate::fr::int(hidden.min(GRID_PAGE) as u64),
                    crate::fr::int(hidden as u64)
                ))
                .build(),
        );
    }
    out.build()
}

/// Row order for the grid: file order, or by rank under `method` (best first, outside last).
pub fn grid_order(ms: &[Measurement], sort_by: Option<&str>) -> Vec<usize> {
    let n = ms.first().map_or(0, |m| m.questions.len());
    let mut order: Vec<usize> = (0..n).collect();
    if let Some(m) = sort_by.and_then(|name| ms.iter().find(|m| m.method == name)) {
        order.sort_by_key(|&i| m.questions[i].rank.unwrap_or(usize::MAX));
    }
    order
}

/// The methods among `ms`, in the page's order.
pub fn methods_of(ms: &[Measurement]) -> Vec<Method> {
    Method::ALL
        .into_iter()
        .filter(|m| ms.iter().any(|x| x.method == m.name()))
        .collect()
}
