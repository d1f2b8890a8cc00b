//! « Améliorer »: the controls (built once per method, their values kept in step with the state
//! without taking focus or a slider from the learner's hand) and what the last change did.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use super::super::dom::{by_id, options, replace_children, scroller, E};
use super::Memo;
use crate::data::QuestionKind;
use crate::fr::decimal;
use crate::improve::checklist::{checklist, Status};
use crate::improve::diff::Moved;
use crate::improve::missed::missed;
use crate::improve::sweep::Grid;
use crate::improve::{Enrichment, Settings};
use crate::lab::{Keyword, Method};
use crate::measure::Measurement;
use crate::page::improve::{Change, StopPreset};
use crate::page::{Msg, State};
use crate::search::analysis::custom::WordChars;
use crate::search::fusion::{Fusion, Norm};

pub const REGLAGES: &str = "ameliorer-reglages";
pub const RESULTATS: &str = "ameliorer-resultats";
pub const IDS: &[&str] = &[REGLAGES, RESULTATS];

const METHODE: &str = "ameliorer-methode";
const MOTS_VIDES: &str = "ameliorer-mots-vides";
const FICHE: &str = "ameliorer-fiche";
const AJOUT: &str = "ameliorer-ajout";
const PRODUIT: &str = "ameliorer-produit";

/// The methods one can start from on this catalogue.
fn startable(s: &State) -> Vec<Method> {
    Method::ALL
        .into_iter()
        .filter(|m| match m.encoder() {
            None => true,
            Some(e) => s.data.lab.has_vectors(e),
        })
        .collect()
}

fn value(target: &Element) -> Option<String> {
    if let Some(i) = target.dyn_ref::<HtmlInputElement>() {
        return Some(i.value());
    }
    if let Some(i) = target.dyn_ref::<HtmlSelectElement>() {
        return Some(i.value());
    }
    target.dyn_ref::<HtmlTextAreaElement>().map(|t| t.value())
}

fn checked(target: &Element) -> bool {
    target
        .dyn_ref::<HtmlInputElement>()
        .is_some_and(|i| i.checked())
}

fn fusion_of(v: &str, k: f64) -> Option<Fusion> {
    Some(match v {
        "rrf" => Fusion::Rrf { k },
        "sum-mm" => Fusion::CombSum { norm: Norm::MinMax },
        "sum-z" => Fusion::CombSum { norm: Norm::ZScore },
        "mnz-mm" => Fusion::CombMnz { norm: Norm::MinMax },
        "mnz-z" => Fusion::CombMnz { norm: Norm::ZScore },
        _ => return None,
    })
}

fn fusion_value(f: Fusion) -> &'static str {
    match f {
        Fusion::Rrf { .. } => "rrf",
        Fusion::CombSum { norm: Norm::MinMax } => "sum-mm",
        Fusion::CombSum { norm: Norm::ZScore } => "sum-z",
        Fusion::CombMnz { norm: Norm::MinMax } => "mnz-mm",
        Fusion::CombMnz { norm: Norm::ZScore } => "mnz-z",
    }
}

/// The message a control of « Améliorer » sends.
pub fn event(kind: &str, target: &Element) -> Option<Msg> {
    if kind == "click" {
        let button = target.closest("button").ok()??;
        // Only the view's own buttons.
        button.closest("#vue-ameliorer").ok()??;
        let attr = |name: &str| button.get_attribute(name);
        let change = if let Some(p) = attr("data-mots-vides") {
            Change::StopPreset(match p.as_str() {
                "sujet" => StopPreset::Seed,
                "mots-plus" => StopPreset::MotsPlus,
                "snowball" => StopPreset::Snowball,
                _ => StopPreset::Empty,
            })
        } else if let Some(i) = attr("data-retirer") {
            Change::Unenrich(i.parse().ok()?)
        } else if let Some(i) = attr("data-reprendre") {
            Change::Replay(i.parse().ok()?)
        } else if let Some(g) = attr("data-balayer") {
            Change::Sweep(if g == "rrf" { Grid::RrfK } else { Grid::K1B })
        } else {
            match attr("data-ameliorer")?.as_str() {
                "annuler" => Change::Undo,
                "garder" => Change::KeepSwept,
                "repartir" => Change::Start(Method::parse(&attr("data-methode")?)?),
                "enrichir" => {
                    let field = |id: &str| {
                        by_id(id)
                            .dyn_into::<HtmlInputElement>()
                            .ok()
                            .map(|i| (i.value(), i.checked()))
                    };
                    let (id, _) = field(FICHE)?;
                    let (words, _) = field(AJOUT)?;
                    let (_, product) = field(PRODUIT)?;
                    Change::Enrich(Enrichment {
                        id: id.trim().to_uppercase(),
                        words: words.trim().to_owned(),
                        product,
                    })
                }
                _ => return None,
            }
        };
        return Some(Msg::Improve(change));
    }
    if kind != "input" && kind != "change" {
        return None;
    }
    let setting = target.get_attribute("data-reglage")?;
    let v = value(target)?;
    let number = || v.parse::<f64>().ok();
    // Sliders move on `input`; the rest commit on `change`.
    let change = match (kind, setting.as_str()) {
        ("input", "k1") => Change::K1(number()?),
        ("input", "b") => Change::B(number()?),
        ("input", "rrf-k") => Change::RrfK(number()?),
        ("input", "profondeur") => Change::Depth(number()? as usize),
        ("input", "poids-mots") => Change::Weight(0, number()?),
        ("input", "poids-sens") => Change::Weight(1, number()?),
        ("change", "methode") => Change::Start(Method::parse(&v)?),
        ("change", "caracteres") => Change::Words(if v == "unicode" {
            WordChars::Unicode
        } else {
            WordChars::Seed
        }),
        ("change", "minuscules") => Change::Lowercase(checked(target)),
        ("change", "elisions") => Change::Elisions(checked(target)),
        ("change", "racine") => Change::Stem(checked(target)),
        ("change", "accents") => Change::Fold(checked(target)),
        ("change", "mots-vides") => Change::StopWords(v),
        ("change", "fusion") => {
            let k = by_id("ameliorer-rrf-k")
                .dyn_into::<HtmlInputElement>()
                .ok()
                .and_then(|i| i.value().parse().ok())
                .unwrap_or(60.0);
            Change::Fusion(fusion_of(&v, k)?)
        }
        _ => return None,
    };
    Some(Msg::Improve(change))
}

fn slider(
    id: &str,
    setting: &str,
    label: &str,
    min: &str,
    max: &str,
    step: &str,
    v: f64,
) -> Element {
    E::new("div")
        .class("curseur")
        .children([
            E::new("label").attr("for", id).text(label).build(),
            E::new("input")
                .attr("type", "range")
                .attr("id", id)
                .attr("data-reglage", setting)
                .attr("min", min)
                .attr("max", max)
                .attr("step", step)
                .attr("value", &v.to_string())
                .build(),
            E::new("output")
                .attr("for", id)
                .attr("id", &format!("{id}-valeur"))
                .text(&decimal(v, 2))
                .build(),
        ])
        .build()
}

fn checkbox(id: &str, setting: &str, label: &str, on: bool) -> Element {
    E::new("span")
        .class("choix-ligne")
        .children([
            E::new("input")
                .attr("type", "checkbox")
                .attr("id", id)
                .attr("data-reglage", setting)
                .flag("checked", on)
                .build(),
            E::new("label").attr("for", id).text(label).build(),
        ])
        .build()
}

fn button(label: &str, attr: (&str, &str)) -> Element {
    E::new("button")
        .attr("type", "button")
        .attr(attr.0, attr.1)
        .text(label)
        .build()
}

/// The controls for `settings`, as built (their values then follow the state in [`sync`]).
fn controls(s: &State, settings: &Settings) -> Vec<Element> {
    let Ok(method) = settings.base() else {
        return Vec::new();
    };
    let methods = startable(s);
    let names: Vec<(&str, &str)> = methods.iter().map(|m| (m.name(), m.name())).collect();
    let mut out = vec![E::new("div")
        .class("ligne depart")
        .children([
            E::new("label")
                .attr("for", METHODE)
                .text("Méthode de départ")
                .build(),
            E::new("select")
                .attr("id", METHODE)
                .attr("data-reglage", "methode")
                .children(options(names, Some(method.name())))
                .build(),
            E::new("button")
                .attr("type", "button")
                .attr("id", "ameliorer-annuler")
                .attr("data-ameliorer", "annuler")
                .text("Annuler le dernier changement")
                .build(),
            E::new("button")
                .attr("type", "button")
                .attr("data-ameliorer", "repartir")
                .attr("data-methode", method.name())
                .text("Repartir de la méthode")
                .build(),
            button("Exporter les réglages (JSON)", ("data-export", "reglages")),
        ])
        .build()];
    let mut sets = Vec::new();
    if settings.keyword().is_some() {
        let a = &settings.analysis;
        sets.push(
            E::new("fieldset")
                .class("panneau")
                .child(E::new("legend").text("Analyse des mots"))
                .child(
                    E::new("div").class("ligne").children([
                        E::new("label")
                            .attr("for", "ameliorer-caracteres")
                            .text("Un mot, c'est")
                            .build(),
                        E::new("select")
                            .attr("id", "ameliorer-caracteres")
                            .attr("data-reglage", "caracteres")
                            .children(options(
                                [
                                    ("seed", "[a-zà-öø-ÿ0-9] (le sujet)"),
                                    ("unicode", "lettres et chiffres"),
                                ],
                                Some(if a.words == WordChars::Unicode {
                                    "unicode"
                                } else {
                                    "seed"
                                }),
                            ))
                            .build(),
                    ]),
                )
                .child(E::new("div").class("ligne").children([
                    checkbox(
                        "ameliorer-minuscules",
                        "minuscules",
                        "minuscules",
                        a.lowercase,
                    ),
                    checkbox(
                        "ameliorer-elisions",
                        "elisions",
                        "élisions retirées (l', d'…)",
                        a.elisions,
                    ),
                    checkbox("ameliorer-racine", "racine", "racine (Snowball)", a.stem),
                    checkbox("ameliorer-accents", "accents", "accents retirés", a.fold),
                ]))
                .child(
                    E::new("label")
                        .attr("for", MOTS_VIDES)
                        .attr("id", "ameliorer-mots-vides-titre")
                        .text(&format!(
                            "Mots vides ({}), séparés par des espaces",
                            a.stop_words.len()
                        )),
                )
                .child(
                    E::new("textarea")
                        .attr("id", MOTS_VIDES)
                        .attr("data-reglage", "mots-vides")
                        .attr("rows", "3")
                        .attr("spellcheck", "false")
                        .text(&a.stop_words.join(" ")),
                )
                .child(E::new("div").class("ligne").children([
                    E::new("span").text("Partir de :").build(),
                    button("la liste du sujet", ("data-mots-vides", "sujet")),
                    button("celle de mots+", ("data-mots-vides", "mots-plus")),
                    button("Snowball", ("data-mots-vides", "snowball")),
                    button("aucune", ("data-mots-vides", "aucun")),
                ]))
                .build(),
        );
        sets.push(
            E::new("fieldset")
                .class("panneau")
                .child(E::new("legend").text("BM25"))
                .child(slider(
                    "ameliorer-k1",
                    "k1",
                    "k1 (saturation)",
                    "0",
                    "3",
                    "0.1",
                    settings.k1,
                ))
                .child(slider(
                    "ameliorer-b",
                    "b",
                    "b (longueur)",
                    "0",
                    "1",
                    "0.05",
                    settings.b,
                ))
                .build(),
        );
        let enriched = settings.enrich.iter().enumerate().map(|(i, e)| {
            E::new("li")
                .text(&format!(
                    "{}{} + «\u{a0}{}\u{a0}» ",
                    e.id,
                    if e.product { " et ses variantes" } else { "" },
                    e.words
                ))
                .child(button("retirer", ("data-retirer", &i.to_string())))
                .build()
        });
        sets.push(
            E::new("fieldset")
                .class("panneau")
                .child(E::new("legend").text("Enrichir une fiche"))
                .child(E::new("p").class("etat").text(
                    "« C'est la fiche qu'on enrichit, pas la question » : ajoutez à une fiche les mots que les clients emploient.",
                ))
                .child(E::new("div").class("ligne").children([
                    E::new("label").attr("for", FICHE).text("Fiche").build(),
                    E::new("input")
                        .attr("id", FICHE)
                        .attr("size", "9")
                        .attr("placeholder", "AR-0063")
                        .attr("autocomplete", "off")
                        .attr("spellcheck", "false")
                        .build(),
                    E::new("label").attr("for", AJOUT).text("mots ajoutés").build(),
                    E::new("input")
                        .attr("id", AJOUT)
                        .attr("placeholder", "ne brûle pas")
                        .attr("autocomplete", "off")
                        .build(),
                    checkbox(PRODUIT, "", "et toutes ses variantes", false),
                    button("Ajouter", ("data-ameliorer", "enrichir")),
                ]))
                .child(E::new("ul").class("enrichies").children(enriched))
                .build(),
        );
    }
    if method.fused_keyword().is_some() {
        let k = match settings.fusion {
            Fusion::Rrf { k } => k,
            _ => 60.0,
        };
        sets.push(
            E::new("fieldset")
                .class("panneau")
                .child(E::new("legend").text("Fusion"))
                .child(
                    E::new("div").class("ligne").children([
                        E::new("label")
                            .attr("for", "ameliorer-fusion")
                            .text("Méthode")
                            .build(),
                        E::new("select")
                            .attr("id", "ameliorer-fusion")
                            .attr("data-reglage", "fusion")
                            .children(options(
                                [
                                    ("rrf", "RRF (rangs)"),
                                    ("sum-mm", "CombSUM, min-max"),
                                    ("sum-z", "CombSUM, z-score"),
                                    ("mnz-mm", "CombMNZ, min-max"),
                                    ("mnz-z", "CombMNZ, z-score"),
                                ],
                                Some(fusion_value(settings.fusion)),
                            ))
                            .build(),
                    ]),
                )
                .child(slider(
                    "ameliorer-rrf-k",
                    "rrf-k",
                    "k de RRF",
                    "1",
                    "200",
                    "1",
                    k,
                ))
                .child(slider(
                    "ameliorer-profondeur",
                    "profondeur",
                    "profondeur (résultats de chaque liste)",
                    "5",
                    "50",
                    "5",
                    settings.depth as f64,
                ))
                .child(slider(
                    "ameliorer-poids-mots",
                    "poids-mots",
                    "poids des mots",
                    "0",
                    "3",
                    "0.1",
                    settings.weights[0],
                ))
                .child(slider(
                    "ameliorer-poids-sens",
                    "poids-sens",
                    "poids du sens",
                    "0",
                    "3",
                    "0.1",
                    settings.weights[1],
                ))
                .build(),
        );
    }
    out.push(
        E::new("div")
            .class("reglages-ameliorer")
            .children(sets)
            .build(),
    );
    out
}

/// Brings the controls' values to the state's (after « Annuler », a history entry, a link),
/// leaving alone the control the learner is using.
fn sync(settings: &Settings, undo: bool) {
    let active = super::super::dom::document()
        .active_element()
        .map(|e| e.id())
        .unwrap_or_default();
    let set_input = |id: &str, v: &str| {
        if id == active {
            return;
        }
        if let Ok(i) = by_id(id).dyn_into::<HtmlInputElement>() {
            if i.value() != v {
                i.set_value(v);
            }
        }
    };
    let set_check = |id: &str, on: bool| {
        if let Ok(i) = by_id(id).dyn_into::<HtmlInputElement>() {
            if i.checked() != on {
                i.set_checked(on);
            }
        }
    };
    let slider = |id: &str, v: f64| {
        set_input(id, &v.to_string());
        let out = by_id(&format!("{id}-valeur"));
        let text = decimal(v, 2);
        if out.text_content().as_deref() != Some(text.as_str()) {
            out.set_text_content(Some(&text));
        }
    };
    slider("ameliorer-k1", settings.k1);
    slider("ameliorer-b", settings.b);
    if let Fusion::Rrf { k } = settings.fusion {
        slider("ameliorer-rrf-k", k);
    }
    slider("ameliorer-profondeur", settings.depth as f64);
    slider("ameliorer-poids-mots", settings.weights[0]);
    slider("ameliorer-poids-sens", settings.weights[1]);
    let a = &settings.analysis;
    set_check("ameliorer-minuscules", a.lowercase);
    set_check("ameliorer-elisions", a.elisions);
    set_check("ameliorer-racine", a.stem);
    set_check("ameliorer-accents", a.fold);
    if let Ok(sel) = by_id("ameliorer-caracteres").dyn_into::<HtmlSelectElement>() {
        let v = if a.words == WordChars::Unicode {
            "unicode"
        } else {
            "seed"
        };
        if sel.value() != v {
            sel.set_value(v);
        }
    }
    if let Ok(sel) = by_id("ameliorer-fusion").dyn_into::<HtmlSelectElement>() {
        let v = fusion_value(settings.fusion);
        if sel.value() != v {
            sel.set_value(v);
        }
    }
    if active != MOTS_VIDES {
        if let Ok(t) = by_id(MOTS_VIDES).dyn_into::<HtmlTextAreaElement>() {
            let v = a.stop_words.join(" ");
            if t.value() != v {
                t.set_value(&v);
            }
        }
    }
    let title = format!(
        "Mots vides ({}), séparés par des espaces",
        a.stop_words.len()
    );
    let t = by_id("ameliorer-mots-vides-titre");
    if t.text_content().as_deref() != Some(title.as_str()) {
        t.set_text_content(Some(&title));
    }
    super::super::dom::set_disabled(&by_id("ameliorer-annuler"), !undo);
}

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
            format!("{label} : bonne fiche en tête"),
            a.hit1 as f64,
            b.hit1 as f64,
            0,
        ));
        if let (Some(pa), Some(pb)) = (&a.product, &b.product) {
            rows.push((
                format!("{label} : bon produit en tête"),
                pa.hit1 as f64,
                pb.hit1 as f64,
                0,
            ));
        }
        rows.push((
            format!("{label} : dans les 5 premières"),
            a.hit5 as f64,
            b.hit5 as f64,
            0,
        ));
        rows.push((format!("{label} : MRR@10"), a.mrr10, b.mrr10, 3));
        rows.push((
            format!("{label} : bonne fiche en tête, ex æquo comptés contre"),
            a.worst_hit1 as f64,
            b.worst_hit1 as f64,
            0,
        ));
    }
    let head = E::new("tr").children(
        ["", "départ", "maintenant", "écart"]
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

fn moved_list(title: &str, class: &str, moved: &[Moved]) -> Element {
    let items = moved.iter().map(|m| {
        E::new("li")
            .text(&format!(
                "{} : {} → {}",
                m.question,
                rank(m.before),
                rank(m.after)
            ))
            .build()
    });
    E::new("div")
        .class(class)
        .child(E::new("h4").text(&format!("{title} ({})", moved.len())))
        .child(E::new("ul").children(items))
        .build()
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

fn results(s: &State) -> Vec<Element> {
    let im = &s.improve;
    let mut out = Vec::new();
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
                    .is_some_and(|e| products.siblings(e, s.data.lab.fiches()).len() > 1)
            })
            .count();
        let courantes = s
            .data
            .questions
            .iter()
            .filter(|q| q.kind == QuestionKind::Courante)
            .count();
        out.push(E::new("p").class("etat").text(&format!(
            "« Bon produit » : la fiche attendue ou une autre variante du même produit (autre longueur, autre coloris). {with_siblings} des {courantes} questions courantes attendent une variante que la question ne nomme pas."
        )).build());
    }
    if let Some(d) = &im.diff {
        out.push(
            E::new("p")
                .class("verdict")
                .attr("id", "ameliorer-verdict")
                .text(&d.verdict)
                .build(),
        );
        out.push(
            E::new("div")
                .class("mouvements")
                .children([
                    moved_list("Remontées", "montees", &d.up),
                    moved_list("Descendues", "descentes", &d.down),
                ])
                .build(),
        );
    }
    // The success criteria.
    let keyword_side = im.keyword_side.as_ref();
    let items = checklist(after, keyword_side, s.key.is_some())
        .into_iter()
        .map(|c| {
            let (mark, word) = status_mark(c.status);
            E::new("li")
                .attr("data-statut", word)
                .children([
                    E::new("span")
                        .class("marque")
                        .attr("aria-hidden", "true")
                        .text(mark)
                        .build(),
                    E::new("span")
                        .text(&format!("{} : {} ({word})", c.label, c.detail))
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
    let quoted = |w: &str| format!("«\u{a0}{w}\u{a0}»");
    let items = misses.iter().map(|r| {
        let lifted: Vec<String> = r
            .lifted
            .iter()
            .map(|(w, c)| format!("{} {}", quoted(w), decimal(*c, 2)))
            .collect();
        let absent: Vec<String> = r.absent.iter().map(|w| quoted(w)).collect();
        E::new("li")
            .children([
                E::new("p")
                    .class("question-ratee")
                    .text(&r.question)
                    .build(),
                E::new("p")
                    .text(&format!(
                        "Fiche attendue {} {} (rang : {}). Mots absents de la fiche : {}.",
                        r.expected,
                        name(&r.expected),
                        rank(r.rank),
                        if absent.is_empty() {
                            "aucun".into()
                        } else {
                            absent.join(", ")
                        }
                    ))
                    .build(),
                E::new("p")
                    .text(&match &r.first {
                        Some(id) => format!(
                            "En tête à la place : {id} {}, par {}.",
                            name(id),
                            if lifted.is_empty() {
                                "aucun mot".into()
                            } else {
                                lifted.join(", ")
                            }
                        ),
                        None => String::new(),
                    })
                    .build(),
            ])
            .build()
    });
    let table = E::new("div")
        .child(E::new("p").class("etat").text(&format!(
            "{} question{} hors des 5 premières ; mots lus avec : {}.",
            misses.len(),
            if misses.len() > 1 { "s" } else { "" },
            index.analyzer().describe()
        )))
        .child(E::new("ol").class("ratees-liste").children(items))
        .build();
    out.push(
        E::new("section")
            .class("partie")
            .attr("id", "ameliorer-ratees")
            .child(E::new("h3").text("Les ratées : quel mot de la question manque à la fiche ?"))
            .child(table)
            .build(),
    );
    // The sweep.
    let mut sweep = E::new("section")
        .class("partie")
        .attr("id", "ameliorer-balayage")
        .child(E::new("h3").text("Régler sur une moitié, vérifier sur l'autre"))
        .child(E::new("p").class("intro").text(
            "Un balayage essaie toute une grille de réglages. Le meilleur sur les 40 questions est surtout chanceux : on le choisit sur les questions de rang pair, et on regarde ce qu'il donne sur les autres.",
        ));
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
        let head = E::new("tr").children(
            [
                "Réglage",
                "MRR@10 calibrage (pairs)",
                "MRR@10 test (impairs)",
                "MRR@10 toutes",
            ]
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
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
                "choisi sur le calibrage : {}",
                sw.points[sw.best_calibration].label
            ),
            &sw.points[sw.best_calibration],
            "choisi",
        ));
        rows.push(row(
            &format!("meilleur sur toutes : {}", sw.points[sw.best_all].label),
            &sw.points[sw.best_all],
            "",
        ));
        let table = E::new("table")
            .class("mesure")
            .child(E::new("thead").child(head))
            .child(E::new("tbody").children(rows))
            .build();
        sweep = sweep.child(scroller("Balayage", table)).child(button(
            "Garder le réglage choisi sur le calibrage",
            ("data-ameliorer", "garder"),
        ));
    }
    out.push(sweep.build());
    // The history.
    let head = E::new("tr").children(
        [
            "Réglages essayés",
            "Exactes en tête",
            "Courantes en tête",
            "Bon produit",
            "Dans les 5",
            "MRR@10",
            "",
        ]
        .iter()
        .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
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
    let table = E::new("table")
        .class("mesure historique")
        .attr("id", "ameliorer-historique")
        .child(E::new("caption").text("Essais de cette session, le plus récent d'abord"))
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(rows))
        .build();
    out.push(
        E::new("section")
            .class("partie")
            .child(E::new("h3").text("Historique"))
            .child(scroller("Historique", table))
            .build(),
    );
    out
}

pub fn render(s: &State, memo: &mut Memo) {
    let im = &s.improve;
    let Some(settings) = &im.settings else {
        return;
    };
    let methods: Vec<&str> = startable(s).iter().map(|m| m.name()).collect();
    let structure = (
        s.data.epoch,
        settings.method.clone(),
        methods,
        settings.enrich.clone(),
    );
    if memo.changed("ameliorer-reglages", structure) {
        replace_children(&by_id(REGLAGES), controls(s, settings));
    }
    sync(settings, !im.undo.is_empty());
    let inputs = (
        s.data.epoch,
        settings.name(),
        im.error.clone(),
        im.after.as_ref().map(|m| m.method.clone()),
        im.diff.as_ref().map(|d| d.verdict.clone()),
        im.history.len(),
        im.sweep.as_ref().map(|sw| sw.verdict.clone()),
        s.key.is_some(),
    );
    if memo.changed("ameliorer-resultats", inputs) {
        replace_children(&by_id(RESULTATS), results(s));
    }
}
