//! The controls of « Améliorer », built once per method; [`sync`] keeps their values in step.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use super::super::super::dom::{by_id, options, E};
use super::{button, fusion_value, startable, AJOUT, FICHE, METHODE, MOTS_VIDES, PRODUIT};
use crate::fr::decimal;
use crate::improve::Settings;
use crate::page::State;
use crate::search::analysis::custom::WordChars;
use crate::search::fusion::Fusion;

/// A slider's value as its label says it: `decimals` places, a huge value in a few characters.
fn label(v: f64, decimals: usize) -> String {
    if v.abs() >= 1e6 {
        format!("{v:e}")
    } else {
        decimal(v, decimals)
    }
}

fn slider(
    id: &str,
    setting: &str,
    text: &str,
    range: (&str, &str, &str),
    v: f64,
    decimals: usize,
) -> Element {
    let (min, max, step) = range;
    E::new("div")
        .class("curseur")
        .children([
            E::new("label").attr("for", id).text(text).build(),
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
                .text(&label(v, decimals))
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

/// The controls for `settings`, as built (their values then follow the state in [`sync`]).
pub(super) fn controls(s: &State, settings: &Settings) -> Vec<Element> {
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
                        .text(&stop_words_title(a.stop_words.len())),
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
                    E::new("span").text("Partir de :").build(),
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
                    ("0", "3", "0.1"),
                    settings.k1,
                    2,
                ))
                .child(slider(
                    "ameliorer-b",
                    "b",
                    "b (longueur)",
                    ("0", "1", "0.05"),
                    settings.b,
                    2,
                ))
                .build(),
        );
        let enriched = settings.enrich.iter().enumerate().map(|(i, e)| {
            E::new("li")
                .text(&format!(
                    "{}{} + «\u{202f}{}\u{202f}» ",
                    e.id,
                    if e.product { " et ses variantes" } else { "" },
                    e.words
                ))
                .child(button("retirer", ("data-retirer", &i.to_string())))
                .build()
        });
        // Neutral placeholders: the catalogue's first id, no words (the exercise's own fix would
        // give the lesson away, and another catalogue has other ids).
        let example_id = s
            .data
            .lab
            .fiches()
            .first()
            .map_or_else(|| "identifiant".to_owned(), |f| f.id.clone());
        sets.push(
            E::new("fieldset")
                .class("panneau")
                .child(E::new("legend").text("Enrichir une fiche"))
                .child(E::new("p").class("etat").text(
                    "« C'est la fiche qu'on enrichit, pas la question » : ajoutez à une fiche les mots que les clients emploient.",
                ))
                .child(E::new("div").class("ligne").children([
                    E::new("label").attr("for", FICHE).text("Fiche").build(),
                    E::new("input")
                        .attr("id", FICHE)
                        .attr("size", "9")
                        .attr("placeholder", &example_id)
                        .attr("autocomplete", "off")
                        .attr("spellcheck", "false")
                        .build(),
                    E::new("label").attr("for", AJOUT).text("mots ajoutés").build(),
                    E::new("input")
                        .attr("id", AJOUT)
                        .attr("placeholder", "les mots des clients")
                        .attr("autocomplete", "off")
                        .build(),
                    checkbox(PRODUIT, "", "et toutes ses variantes", false),
                    button("Ajouter", ("data-ameliorer", "enrichir")),
                ]))
                .child(E::new("ul").class("enrichies").children(enriched))
                // What was improved leaves the lab: the catalogue to index, and its difference.
                .children((!settings.enrich.is_empty()).then(|| {
                    E::new("div")
                        .class("ligne")
                        .children([
                            button(
                                "Exporter le catalogue enrichi (fiches-enrichies.jsonl)",
                                ("data-export", "fiches-enrichies"),
                            ),
                            button(
                                "Exporter les ajouts (enrichissements.txt)",
                                ("data-export", "enrichissements"),
                            ),
                        ])
                        .build()
                }))
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
                    ("1", "200", "1"),
                    k,
                    0,
                ))
                .child(slider(
                    "ameliorer-profondeur",
                    "profondeur",
                    "profondeur (résultats de chaque liste)",
                    ("5", "100", "5"),
                    settings.depth as f64,
                    0,
                ))
                .child(slider(
                    "ameliorer-poids-mots",
                    "poids-mots",
                    "poids des mots",
                    ("0", "3", "0.1"),
                    settings.weights[0],
                    2,
                ))
                .child(slider(
                    "ameliorer-poids-sens",
                    "poids-sens",
                    "poids du sens",
                    ("0", "3", "0.1"),
                    settings.weights[1],
                    2,
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
pub(super) fn sync(settings: &Settings, undo: bool) {
    let active = crate::web::dom::document()
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
    let slider = |id: &str, v: f64, decimals: usize| {
        // A value beyond the slider's range (from a link, or a file) widens it: the thumb stands
        // where its label says.
        if let Ok(i) = by_id(id).dyn_into::<HtmlInputElement>() {
            if v.is_finite() {
                if i.max().parse::<f64>().is_ok_and(|m| v > m) {
                    i.set_max(&v.to_string());
                }
                if i.min().parse::<f64>().is_ok_and(|m| v < m) {
                    i.set_min(&v.to_string());
                }
            }
        }
        set_input(id, &v.to_string());
        let out = by_id(&format!("{id}-valeur"));
        let text = label(v, decimals);
        if out.text_content().as_deref() != Some(text.as_str()) {
            out.set_text_content(Some(&text));
        }
    };
    slider("ameliorer-k1", settings.k1, 2);
    slider("ameliorer-b", settings.b, 2);
    if let Fusion::Rrf { k } = settings.fusion {
        slider("ameliorer-rrf-k", k, 0);
    }
    slider("ameliorer-profondeur", settings.depth as f64, 0);
    slider("ameliorer-poids-mots", settings.weights[0], 2);
    slider("ameliorer-poids-sens", settings.weights[1], 2);
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
    let title = stop_words_title(a.stop_words.len());
    let t = by_id("ameliorer-mots-vides-titre");
    if t.text_content().as_deref() != Some(title.as_str()) {
        t.set_text_content(Some(&title));
    }
    crate::web::dom::set_disabled(&by_id("ameliorer-annuler"), !undo);
}

/// The stop-word list's label, with when the list counts (typing a word shows nothing yet).
fn stop_words_title(n: usize) -> String {
    format!("Mots vides ({n}), séparés par des espaces (la liste compte une fois le champ quitté)")
}
