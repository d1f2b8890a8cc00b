//! What the last change did: the figures before and after, the questions that moved, the verdict,
//! the success criteria and « les ratées ».

use web_sys::Element;

use super::super::super::dom::{scroller, E};
use crate::data::QuestionKind;
use crate::fr::decimal;
use crate::improve::checklist::Status;
use crate::improve::diff::Moved;
use crate::improve::missed::missed;
use crate::improve::why::{fused_side, FusedSide};
use crate::improve::Settings;
use crate::lab::Keyword;
use crate::measure::Measurement;
use crate::page::State;

fn rank(r: Option<usize>) -> String {
    r.map_or("hors des 10".to_owned(), |r| r.to_string())
}

fn figures_table(before: &Measurement, after: &Measurement) -> Element {
    let kind = |m: &Measurement, k| {
        m.kinds
            .iter()
            .find(|s| s.kind == k && s.questions > 0)
            .cloned()
    };
    let mut rows: Vec<(String, f64, f64, usize)> = Vec::new();
    for k in [QuestionKind::Exacte, QuestionKind::Courante] {
        let (Some(a), Some(b)) = (kind(before, k), kind(after, k)) else {
            continue;
        };
        let label = match k {
            QuestionKind::Exacte => "exactes",
            _ => "courantes",
        };
        rows.push((
            format!("{label} : bonne fiche en tête"),
            a.hit1 as f64,
            b.hit1 as f64,
            0,
        ));
        if let (Some(pa), Some(pb)) = (&a.product, &b.product) {
            rows.push((
                format!("{label} : bon produit en tête"),
                pa.hit1 as f64,
                pb.hit1 as f64,
                0,
            ));
        }
        rows.push((
            format!("{label} : dans les 5 premières"),
            a.hit5 as f64,
            b.hit5 as f64,
            0,
        ));
        rows.push((format!("{label} : MRR@10"), a.mrr10, b.mrr10, 3));
        rows.push((
            format!("{label} : bonne fiche en tête, ex æquo comptés contre"),
            a.worst_hit1 as f64,
            b.worst_hit1 as f64,
            0,
        ));
    }
    let head = E::new("tr").children(
        ["Mesure", "départ", "maintenant", "écart"]
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
    let body = rows.into_iter().map(|(label, a, b, d)| {
        let delta = b - a;
        let sign = if delta > 0.0 { "+" } else { "" };
        let class = if delta > 0.0 {
            "mieux"
        } else if delta < 0.0 {
            "moins"
        } else {
            ""
        };
        E::new("tr")
            .children([
                E::new("th").attr("scope", "row").text(&label).build(),
                E::new("td").text(&decimal(a, d)).build(),
                E::new("td").text(&decimal(b, d)).build(),
                E::new("td")
                    .class(class)
                    .text(&if delta == 0.0 {
                        "=".to_owned()
                    } else {
                        format!("{sign}{}", decimal(delta, d))
                    })
                    .build(),
            ])
            .build()
    });
    let table = E::new("table")
        .class("mesure")
        .attr("id", "ameliorer-chiffres")
        .child(E::new("caption").text(&format!("{} face à {}", after.method, before.method)))
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(body))
        .build();
    scroller("Chiffres avant et après", table)
}

fn moved_list(
    title: &str,
    class: &str,
    moved: &[Moved],
    why: &dyn Fn(&Moved) -> Option<String>,
) -> Element {
    let items = moved.iter().map(|m| {
        let line = format!(
            "{}\u{a0}: {} → {}",
            m.question,
            rank(m.before),
            rank(m.after)
        );
        match why(m) {
            None => E::new("li").text(&line).build(),
            Some(why) => E::new("li")
                .text(&line)
                .child(
                    E::new("details")
                        .class("pourquoi-bouge")
                        .child(E::new("summary").text("Pourquoi\u{a0}?"))
                        .child(E::new("p").text(&why)),
                )
                .build(),
        }
    });
    E::new("div")
        .class(class)
        .child(E::new("h3").text(&format!("{title} ({})", moved.len())))
        .child(E::new("ul").children(items))
        .build()
}

/// Why a question moved, for keyword settings: its expected fiche's score before and after, word
/// by word (each word's term after the analysis when it differs: « isolant » read « isol »).
fn moved_why(
    lab: &crate::lab::Lab,
    before: &crate::search::bm25::Bm25Index,
    after: &crate::search::bm25::Bm25Index,
    question: &str,
    expected: &str,
) -> Option<String> {
    let doc = lab.doc_of(expected)?;
    let (a, b) = (before.explain(question, doc), after.explain(question, doc));
    let mut words: Vec<(String, f64, f64, String)> = Vec::new();
    for t in &a.terms {
        match words.iter_mut().find(|w| w.0 == t.word) {
            Some(w) => w.1 += t.contribution,
            None => words.push((t.word.clone(), t.contribution, 0.0, String::new())),
        }
    }
    for t in &b.terms {
        match words.iter_mut().find(|w| w.0 == t.word) {
            Some(w) => {
                w.2 += t.contribution;
                w.3 = t.term.clone();
            }
            None => words.push((t.word.clone(), 0.0, t.contribution, t.term.clone())),
        }
    }
    let changed: Vec<String> = words
        .iter()
        .filter(|w| (w.1 - w.2).abs() > 1e-9)
        .map(|(word, x, y, term)| {
            let read = if !term.is_empty() && term != &word.to_lowercase() {
                format!(" (lu «\u{202f}{term}\u{202f}»)")
            } else {
                String::new()
            };
            format!(
                "«\u{202f}{word}\u{202f}»{read} {} → {}",
                decimal(*x, 2),
                decimal(*y, 2)
            )
        })
        .collect();
    Some(format!(
        "Score de la fiche attendue {expected}\u{a0}: {} → {}. {}",
        decimal(a.score, 2),
        decimal(b.score, 2),
        if changed.is_empty() {
            "Aucun mot de la question ne compte autrement pour elle\u{a0}: ce sont d'autres fiches qui ont bougé autour d'elle.".to_owned()
        } else {
            format!(
                "Ce qui change, mot par mot\u{a0}: {}.",
                changed.join("\u{202f}; ")
            )
        }
    ))
}

/// Why a question moved under a fusion: its expected fiche's rank in each list fused and in the
/// fused list, before → after, and what changed in the fusion itself.
fn fused_why(
    expected: &str,
    before: (&Settings, &FusedSide),
    after: (&Settings, &FusedSide),
) -> String {
    let ((sa, a), (sb, b)) = (before, after);
    let rank = |r: Option<usize>, depth: usize| {
        r.map_or(format!("au-delà des {depth}"), |r| format!("rang {r}"))
    };
    let list = |name: &str, x: Option<usize>, y: Option<usize>| {
        if x == y && a.depth == b.depth {
            format!("{name}\u{a0}: {} (inchangé)", rank(x, a.depth))
        } else {
            format!("{name}\u{a0}: {} → {}", rank(x, a.depth), rank(y, b.depth))
        }
    };
    let fused = |f: Option<(usize, f64)>| {
        f.map_or("absente".to_owned(), |(r, score)| {
            format!("rang {r} ({})", decimal(score, 4))
        })
    };
    let mut what = Vec::new();
    if sa.fusion != sb.fusion {
        what.push(format!("{} → {}", sa.fusion.label(), sb.fusion.label()));
    }
    if sa.weights != sb.weights {
        let w = |s: &Settings| {
            format!(
                "{} / {}",
                crate::fr::numbers::plain(s.weights[0]),
                crate::fr::numbers::plain(s.weights[1])
            )
        };
        what.push(format!("poids {} → {}", w(sa), w(sb)));
    }
    if sa.depth != sb.depth {
        what.push(format!("profondeur {} → {}", sa.depth, sb.depth));
    }
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(" Fusion\u{a0}: {}.", what.join("\u{202f}; "))
    };
    format!(
        "Fiche attendue {expected}, avant → après. {}\u{202f}; {}.{what} Dans la liste fusionnée\u{a0}: {} → {}.",
        list("Liste des mots", a.keyword, b.keyword),
        list("liste du sens", a.dense, b.dense),
        fused(a.fused),
        fused(b.fused),
    )
}

fn status_mark(st: Status) -> (&'static str, &'static str) {
    match st {
        Status::Met => ("✓", "tenu"),
        Status::NotMet => ("✗", "non tenu"),
        Status::NotApplicable => ("—", "sans objet"),
        Status::NeedsKey => ("⋯", "clé nécessaire"),
        Status::ToMeasure => ("?", "à mesurer"),
    }
}

pub(super) fn results(s: &State) -> Vec<Element> {
    let im = &s.data.improve;
    let mut out = Vec::new();
    if !im.refused.is_empty() {
        let mut note = E::new("div").class("erreur-api").attr("role", "status").child(
            E::new("p")
                .text("Le lien portait des valeurs refusées\u{a0}; le reste de ses réglages est appliqué\u{a0}:")
                .build(),
        );
        let mut list = E::new("ul");
        for r in &im.refused {
            list = list.child(E::new("li").text(r).build());
        }
        note = note.child(list.build());
        out.push(note.build());
    }
    if let Some(e) = &im.error {
        out.push(
            E::new("p")
                .class("erreur-api")
                .attr("role", "alert")
                .text(e)
                .build(),
        );
    }
    let (Some(before), Some(after), Some(settings)) = (&im.before, &im.after, &im.settings) else {
        return out;
    };
    out.push(figures_table(before, after));
    let products = s.data.lab.products();
    if products.has_siblings() {
        let with_siblings = s
            .data
            .questions
            .iter()
            .filter(|q| q.kind == QuestionKind::Courante)
            .filter(|q| {
                q.expected
                    .as_deref()
                    .is_some_and(|e| products.variants(e) > 1)
            })
            .count();
        let courantes = s
            .data
            .questions
            .iter()
            .filter(|q| q.kind == QuestionKind::Courante)
            .count();
        out.push(E::new("p").class("etat").text(&format!(
            "« Bon produit » : la fiche attendue ou une autre variante du même produit (autre longueur, autre coloris). {with_siblings} des {courantes} questions courantes attendent une variante que la question ne nomme pas."
        )).build());
    }
    // Why each question moved, when both sides are keyword settings: the start method's index
    // (the lab's own) against the settings'.
    use crate::lab::Method;
    let indexes = match (
        Method::parse(&before.method),
        settings.base().ok(),
        im.tuned.as_ref().and_then(|t| t.index()),
    ) {
        (Some(Method::Keyword(k)), Some(Method::Keyword(_)), Some(index)) => {
            Some((s.data.lab.bm25(k), index))
        }
        _ => None,
    };
    // Under a fusion: the start method's keyword index and settings against the settings'.
    let fused = match (
        Method::parse(&before.method),
        im.tuned.as_ref().and_then(|t| t.index()),
        im.dense.as_ref(),
    ) {
        (Some(m), Some(index), Some((_, tops))) => m
            .fused_keyword()
            .map(|k| (s.data.lab.bm25(k), Settings::of(m), index, tops)),
        _ => None,
    };
    let why = |m: &Moved| {
        let expected = after.questions.get(m.row)?.expected.as_deref()?;
        if let Some((was, start, now, tops)) = &fused {
            let doc = s.data.lab.doc_of(expected)?;
            let dense = tops.get(&m.question)?;
            let a = fused_side(was, start, &m.question, dense, doc);
            let b = fused_side(now, settings, &m.question, dense, doc);
            return Some(fused_why(expected, (start, &a), (settings, &b)));
        }
        let (was, now) = indexes?;
        moved_why(&s.data.lab, was, now, &m.question, expected)
    };
    if let Some(d) = &im.diff {
        out.push(
            E::new("p")
                .class("verdict")
                .attr("id", "ameliorer-verdict")
                .text(&d.verdict)
                .build(),
        );
        if !d.gap_said.is_empty() {
            out.push(
                E::new("p")
                    .class("etat")
                    .attr("id", "ameliorer-ecart")
                    .text(&d.gap_said)
                    .build(),
            );
        }
        let borrowed = crate::improve::borrowed::borrowed(&s.data.lab, settings, &s.data.questions);
        if !borrowed.is_empty() {
            // The exercise keeps « l'épreuve » apart; another catalogue has no such questions here.
            let check = if s.data.label.is_none() {
                "Passez l'épreuve, plus bas, pour le vérifier sur des questions jamais vues."
            } else {
                "Pour le vérifier, mesurez-le sur des questions gardées à part, écrites sans regarder celles-ci (dans le terminal\u{a0}: mesurer --enrichir … --questions AUTRES.csv)."
            };
            out.push(
                E::new("p")
                    .class("avertissement")
                    .attr("id", "ameliorer-emprunt")
                    .text(&crate::improve::borrowed::warning(&borrowed, check))
                    .build(),
            );
        }
        out.push(
            E::new("div")
                .class("mouvements")
                .children([
                    moved_list("Remontées", "montees", &d.up, &why),
                    moved_list("Descendues", "descentes", &d.down, &why),
                ])
                .build(),
        );
    }
    // The success criteria.
    use crate::page::improve::{criteria, met_by, MetBy};
    let items = criteria(&s.data, s.key.is_some())
        .unwrap_or_default()
        .into_iter()
        .map(|c| {
            let (mark, word) = status_mark(c.status);
            let since = match met_by(im, c.label) {
                Some(MetBy::Start) => " dès la méthode de départ".to_owned(),
                Some(MetBy::Change(change)) => format!(" depuis «\u{202f}{change}\u{202f}»"),
                None => String::new(),
            };
            E::new("li")
                .attr("data-statut", word)
                .children([
                    E::new("span")
                        .class("marque")
                        .attr("aria-hidden", "true")
                        .text(mark)
                        .build(),
                    E::new("span")
                        .text(&format!("{} : {} ({word}{since})", c.label, c.detail))
                        .build(),
                ])
                .build()
        });
    out.push(
        E::new("section")
            .class("partie")
            .attr("id", "ameliorer-criteres")
            .child(E::new("h3").text("Critères de réussite du sujet"))
            .child(E::new("ul").class("criteres").children(items))
            .build(),
    );
    // « Les ratées ».
    let index = im
        .tuned
        .as_ref()
        .and_then(|t| t.index())
        .unwrap_or_else(|| s.data.lab.bm25(Keyword::MotsPlus));
    let misses = missed(&s.data.lab, index, after);
    let name = |id: &str| {
        s.data
            .lab
            .doc_of(id)
            .map(|d| s.data.lab.fiches()[d].nom.clone())
            .unwrap_or_default()
    };
    let quoted = |w: &str| format!("«\u{202f}{w}\u{202f}»");
    // The exercise's catalogue: the words that are missing are the lesson, so they come on
    // request, after a hint of where to look (a developer's catalogue shows them at once).
    let exercise = s.data.label.is_none();
    let items = misses.iter().map(|r| {
        let lifted: Vec<String> = r
            .lifted
            .iter()
            .map(|(w, c)| format!("{} {}", quoted(w), decimal(*c, 2)))
            .collect();
        let absent: Vec<String> = r.absent.iter().map(|w| quoted(w)).collect();
        // A tie said as the question grid says it (« 9–10 »), its range in words.
        let tie = after
            .questions
            .iter()
            .find(|o| o.question == r.question)
            .filter(|o| o.tied())
            .and_then(|o| o.tie_ranks)
            .map_or(String::new(), |(a, b)| {
                format!(", ex æquo avec d'autres fiches de même score, rangs {a} à {b}")
            });
        let expected = format!(
            "Fiche attendue {} {} (rang\u{a0}: {}{tie}).",
            r.expected,
            name(&r.expected),
            rank(r.rank)
        );
        let words = format!(
            "Mots absents de la fiche\u{a0}: {}.",
            if absent.is_empty() {
                "aucun".into()
            } else {
                absent.join(", ")
            }
        );
        let first = match &r.first {
            Some(id) => format!(
                "En tête à la place\u{a0}: {id} {}, par {}.",
                name(id),
                if lifted.is_empty() {
                    "aucun mot".into()
                } else {
                    lifted.join(", ")
                }
            ),
            None => String::new(),
        };
        let question = E::new("p")
            .class("question-ratee")
            .text(&r.question)
            .build();
        if !exercise {
            return E::new("li")
                .children([
                    question,
                    E::new("p").text(&format!("{expected} {words}")).build(),
                    E::new("p").text(&first).build(),
                ])
                .build();
        }
        let hint = match (r.absent.len(), &r.first) {
            (0, _) => "Tous les mots de la question sont dans la fiche attendue\u{a0}: c'est une autre fiche qui les a plus souvent, ou de plus rares. Comparez-la à celle qui passe devant.".to_owned(),
            (n, Some(id)) => format!(
                "{} de la question {} pas dans la fiche attendue telle que la méthode la lit. Devant elle\u{a0}: {id} {}.",
                crate::fr::count(n as u64, "mot", "mots"),
                if n > 1 { "ne sont" } else { "n'est" },
                name(id)
            ),
            (n, None) => format!(
                "{} de la question {} pas dans la fiche attendue telle que la méthode la lit.",
                crate::fr::count(n as u64, "mot", "mots"),
                if n > 1 { "ne sont" } else { "n'est" }
            ),
        };
        let fold = |summary: &str, lines: Vec<Element>| {
            E::new("details")
                .child(E::new("summary").text(summary))
                .children(lines)
                .build()
        };
        E::new("li")
            .children([
                question,
                E::new("p").text(&expected).build(),
                fold("Un indice", vec![E::new("p").text(&hint).build()]),
                fold(
                    "Les mots en cause",
                    vec![
                        E::new("p").text(&words).build(),
                        E::new("p").text(&first).build(),
                    ],
                ),
            ])
            .build()
    });
    let table = E::new("div")
        .child(E::new("p").class("etat").text(&format!(
            "{} question{} hors des 5 premières ; mots lus avec : {}.",
            misses.len(),
            if misses.len() > 1 { "s" } else { "" },
            index.analyzer().describe()
        )))
        .children(exercise.then(|| {
            E::new("p")
                .class("etat")
                .text("Cherchez d'abord vous-même pourquoi chacune manque sa fiche\u{a0}: un indice, puis les mots en cause, sont repliés sous elle.")
                .build()
        }))
        .child(E::new("ol").class("ratees-liste").children(items))
        .build();
    out.push(
        E::new("section")
            .class("partie")
            .attr("id", "ameliorer-ratees")
            .child(E::new("h3").text("Les ratées : quel mot de la question manque à la fiche ?"))
            .child(table)
            .build(),
    );
    out.push(super::session::sweep(s, settings));
    out.push(super::session::history(s));
    out
}
