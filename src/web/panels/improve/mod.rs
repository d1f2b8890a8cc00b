//! « Améliorer »: the controls (built once per method, their values kept in step with the state
//! without taking focus or a slider from the learner's hand) and what the last change did.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use super::super::dom::{by_id, replace_children, set_hidden, set_text, E};
use super::Memo;
use crate::improve::sweep::Grid;
use crate::improve::Enrichment;
use crate::lab::Method;
use crate::page::improve::{Change, StopPreset};
use crate::page::{Msg, State};
use crate::search::analysis::custom::WordChars;
use crate::search::fusion::{Fusion, Norm};

/// The controls.
mod controls;
/// « L'épreuve ».
mod epreuve;
/// The figures, the moves, the criteria, « les ratées ».
mod results;
/// The sweep and the session's history.
mod session;

pub const REGLAGES: &str = "ameliorer-reglages";
pub const RESULTATS: &str = "ameliorer-resultats";
pub const CALCUL: &str = "ameliorer-calcul";
pub const EFFET: &str = "ameliorer-effet";
pub const EPREUVE: &str = "ameliorer-epreuve";
pub const IDS: &[&str] = &[REGLAGES, EFFET, CALCUL, RESULTATS, EPREUVE];

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
                "epreuve" => Change::PassEpreuve,
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
                        id: id.trim().to_owned(),
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

fn button(label: &str, attr: (&str, &str)) -> Element {
    E::new("button")
        .attr("type", "button")
        .attr(attr.0, attr.1)
        .text(label)
        .build()
}

pub fn render(s: &State, memo: &mut Memo) {
    let im = &s.data.improve;
    if !s.data.measurable() {
        if memo.changed("ameliorer-reglages", (s.data.epoch, "sans questions")) {
            replace_children(&by_id(REGLAGES), vec![E::new("p").class("etat").text(
                "Améliorer, c'est changer la recherche et mesurer aussitôt ce que le changement fait sur des questions dont on connaît la bonne fiche\u{a0}: ce catalogue n'en a pas. Chargez un fichier de questions avec vos fiches (voir «\u{202f}Mesurer\u{202f}»).",
            ).build()]);
            // The memo's keys are these ids: each is drawn again once there are questions.
            for id in [RESULTATS, EFFET, CALCUL, EPREUVE] {
                replace_children(&by_id(id), Vec::new());
                memo.forget(id);
            }
            for id in [EFFET, CALCUL, EPREUVE] {
                set_hidden(&by_id(id), true);
            }
        }
        return;
    }
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
        replace_children(&by_id(REGLAGES), controls::controls(s, settings));
    }
    controls::sync(settings, !im.undo.is_empty());
    let inputs = (
        s.data.epoch,
        settings.name(),
        im.error.clone(),
        im.refused.clone(),
        im.after.as_ref().map(|m| m.method.clone()),
        im.diff.as_ref().map(|d| d.verdict.clone()),
        im.history.len(),
        im.sweep.as_ref().map(|sw| sw.verdict.clone()),
        s.key.is_some(),
        // The first criterion counts the methods « Mesurer » measured.
        s.data.measure_version,
    );
    let summary = crate::page::improve::summary(&s.data, s.key.is_some());
    if memo.changed("ameliorer-effet", &summary) {
        let target = by_id(EFFET);
        set_hidden(&target, summary.is_none());
        let lines: Vec<Element> = summary
            .iter()
            .flat_map(|m| [&m.figures, &m.moved, &m.criteria])
            .filter(|l| !l.is_empty())
            .map(|l| E::new("p").text(l).build())
            .collect();
        replace_children(&target, lines);
    }
    let progress = crate::page::improve::progress(im, &s.data.lab, s.data.questions.len());
    let calcul = by_id(CALCUL);
    set_hidden(&calcul, progress.is_none());
    set_text(&calcul, progress.as_deref().unwrap_or(""));
    if memo.changed("ameliorer-resultats", inputs) {
        replace_children(&by_id(RESULTATS), results::results(s));
    }
    let e = &im.epreuve;
    let epreuve = (
        s.data.epoch,
        s.data.label.is_some(),
        e.asked,
        e.passes,
        e.pass
            .as_ref()
            .map(|p| p.as_ref().map(|p| p.settings.name()).map_err(Clone::clone)),
        settings.name(),
    );
    if memo.changed("ameliorer-epreuve", epreuve) {
        let section = by_id(EPREUVE);
        // Written for the exercise's fiches: no section over a learner's catalogue.
        set_hidden(&section, s.data.label.is_some());
        replace_children(&section, epreuve::epreuve(s));
    }
}
