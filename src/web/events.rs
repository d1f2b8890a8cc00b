//! The page's events, by delegation: one listener per event kind on the `#app` root (and one for
//! `hashchange` on the window), added once at start-up. Panels re-render freely: no listener is
//! ever added per render. Each event becomes a [`Msg`]; a control's value is read here, in the
//! event that reports it, and nowhere else.

use crate::page::{
    AnswerMsg, CatalogueMsg, KeyMsg, LocalMsg, MeasureMsg, NavMsg, SearchMsg, VectorsMsg,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, Element, Event, HtmlInputElement, HtmlSelectElement};

use super::dom::by_id;
use super::ids;
use super::runtime::{fragment_state, App, Shared};
use crate::lab::Method;
use crate::link::View;
use crate::page::Msg;

/// Adds the page's listeners (once).
pub fn listen(app: &Shared) {
    let root = by_id("app");
    for kind in [
        "click",
        "input",
        "change",
        "keydown",
        "dragover",
        "dragleave",
        "drop",
    ] {
        let app = app.clone();
        let cb = Closure::<dyn Fn(Event)>::new(move |e: Event| {
            if let Some(msg) = message(&app, &e) {
                app.dispatch(msg);
            }
        });
        root.add_event_listener_with_callback(kind, cb.as_ref().unchecked_ref())
            .ok();
        // Lives as long as the page: added once, never per render.
        cb.forget();
    }
    // « Pourquoi ce score ? » is built when first opened: on a click on its summary, before the
    // browser opens it, so that it opens full; and on `toggle` (which does not bubble: caught on
    // the way down) when it is opened otherwise.
    let opened = app.clone();
    let cb = Closure::<dyn Fn(Event)>::new(move |e: Event| {
        if let Some(details) = why_details(&e) {
            opened.peek(|s| super::panels::search::fill_why(s, &details));
        }
    });
    for (kind, capture) in [("click", false), ("toggle", true)] {
        root.add_event_listener_with_callback_and_bool(kind, cb.as_ref().unchecked_ref(), capture)
            .ok();
    }
    cb.forget();
    let app = app.clone();
    let cb = Closure::<dyn Fn()>::new(move || {
        app.dispatch(Msg::Nav(NavMsg::FragmentChanged(fragment_state())))
    });
    if let Some(w) = web_sys::window() {
        w.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref())
            .ok();
    }
    cb.forget();
}

/// The `<details>` a click on its summary or a `toggle` opens, if any ([`fill_why`] takes only a
/// « Pourquoi ce score ? »).
///
/// [`fill_why`]: super::panels::search::fill_why
fn why_details(e: &Event) -> Option<Element> {
    let target: Element = e.target()?.dyn_into().ok()?;
    match e.type_().as_str() {
        "click" => target.closest("summary").ok()??.parent_element(),
        _ => Some(target),
    }
}

/// The message an event means, if any.
fn message(app: &App, e: &Event) -> Option<Msg> {
    let target: Element = e.target()?.dyn_into().ok()?;
    let kind = e.type_();
    // A panel that maps its own controls goes first (see `panels::Panel`).
    if let Some(msg) = super::panels::event(&kind, &target) {
        return Some(msg);
    }
    match kind.as_str() {
        "click" => {
            let clicks = e
                .dyn_ref::<web_sys::UiEvent>()
                .map_or(1, web_sys::UiEvent::detail);
            click(&target.closest("button").ok()??, clicks)
        }
        "input" => input(&target),
        "change" => change(app, &target),
        "keydown" => key(e, &target),
        kind => drag(app, kind, e, &target),
    }
}

fn click(button: &Element, clicks: i32) -> Option<Msg> {
    let msg = match button.id().as_str() {
        ids::ONGLET_CHERCHER => Msg::Nav(NavMsg::ViewChosen(View::Chercher)),
        ids::ONGLET_MESURER => Msg::Nav(NavMsg::ViewChosen(View::Mesurer)),
        ids::ONGLET_AMELIORER => Msg::Nav(NavMsg::ViewChosen(View::Ameliorer)),
        ids::ONGLET_QUESTIONS => Msg::Nav(NavMsg::ViewChosen(View::Questions)),
        ids::COPIER_LIEN => Msg::Nav(NavMsg::CopyLink(web_sys::window()?.location().href().ok()?)),
        ids::OUBLIER => Msg::Key(KeyMsg::Forgotten),
        ids::VERIFIER_CLE => Msg::Key(KeyMsg::CheckRequested),
        ids::RETENIR_CONFIRMER => Msg::Key(KeyMsg::RememberConfirmed),
        ids::REESSAYER => Msg::Key(KeyMsg::RetryNow),
        ids::ATTENTE_ANNULER => Msg::Key(KeyMsg::WaitCancelled),
        ids::CALCULER => Msg::Vectors(VectorsMsg::ComputeRequested),
        ids::ANNULER_CALCUL => Msg::Vectors(VectorsMsg::ComputeCancelled),
        ids::TELECHARGER => Msg::Vectors(VectorsMsg::DownloadRequested),
        ids::REDIGER => Msg::Answer(AnswerMsg::Requested),
        ids::REVENIR => Msg::Catalogue(CatalogueMsg::BackToExercise),
        ids::MESURER_SENS => Msg::Vectors(VectorsMsg::DenseMeasureRequested),
        ids::EVAL_LANCER => Msg::Answer(AnswerMsg::EvalAsked),
        // « Confirmer » appears where « Mesurer les réponses » was: the second click of a double
        // click (detail 2) lands on it, and must not decide to pay.
        ids::EVAL_CONFIRMER if clicks > 1 => return None,
        ids::EVAL_CONFIRMER => Msg::Answer(AnswerMsg::EvalConfirmed),
        ids::EVAL_ANNULER => Msg::Answer(AnswerMsg::EvalCancelled),
        ids::RECLASSER_LANCER => Msg::Answer(AnswerMsg::RerankAsked),
        // As « Mesurer les réponses »'s: a double click's second click never pays.
        ids::RECLASSER_CONFIRMER if clicks > 1 => return None,
        ids::RECLASSER_CONFIRMER => Msg::Answer(AnswerMsg::RerankConfirmed),
        ids::RECLASSER_ANNULER => Msg::Answer(AnswerMsg::RerankCancelled),
        ids::COMMENCER_FERMER => Msg::Nav(NavMsg::GuideClosed),
        ids::OUVRIR_REGLAGES => Msg::Nav(NavMsg::SettingsRequested),
        ids::ESSAYER_LOCAL => Msg::Search(SearchMsg::LocalMethodsChosen),
        _ => {
            if button.has_attribute("data-plonger") {
                Msg::Search(SearchMsg::EmbedRequested)
            } else if button.has_attribute("data-charger-modele") {
                Msg::Local(LocalMsg::Requested)
            } else if button.has_attribute("data-annuler-modele") {
                Msg::Local(LocalMsg::Cancelled)
            } else if button.has_attribute("data-retirer-runs") {
                Msg::Measure(MeasureMsg::RunsCleared)
            } else if button.has_attribute("data-grille-plus") {
                Msg::Measure(MeasureMsg::GridMore)
            } else if let Some(by) = button.get_attribute("data-tri") {
                Msg::Measure(MeasureMsg::GridSorted((!by.is_empty()).then_some(by)))
            } else if let Some(i) = button.get_attribute("data-question") {
                Msg::Search(SearchMsg::Opened(i.parse().ok()?))
            } else {
                Msg::Measure(MeasureMsg::ExportRequested(
                    button.get_attribute("data-export")?,
                ))
            }
        }
    };
    Some(msg)
}

/// Enter in the question box; the arrow keys, Home and End on the tabs (the ARIA tabs pattern).
fn key(e: &Event, target: &Element) -> Option<Msg> {
    let event = e.dyn_ref::<web_sys::KeyboardEvent>()?;
    let key = event.key();
    if target.id() == ids::QUESTION {
        // Not while an input method is composing: its Enter picks a word, it sends nothing.
        return (key == "Enter" && !event.is_composing())
            .then_some(Msg::Search(SearchMsg::Entered));
    }
    if target.get_attribute("role").as_deref() != Some("tab") {
        return None;
    }
    const TABS: [(&str, View); 4] = [
        (ids::ONGLET_CHERCHER, View::Chercher),
        (ids::ONGLET_MESURER, View::Mesurer),
        (ids::ONGLET_AMELIORER, View::Ameliorer),
        (ids::ONGLET_QUESTIONS, View::Questions),
    ];
    let at = TABS.iter().position(|(id, _)| *id == target.id())?;
    let view = match key.as_str() {
        "ArrowRight" => TABS[(at + 1) % TABS.len()].1,
        "ArrowLeft" => TABS[(at + TABS.len() - 1) % TABS.len()].1,
        "Home" => TABS[0].1,
        "End" => TABS[TABS.len() - 1].1,
        _ => return None,
    };
    e.prevent_default();
    Some(Msg::Nav(NavMsg::TabKey(view)))
}

fn input(target: &Element) -> Option<Msg> {
    let value = target.dyn_ref::<HtmlInputElement>()?.value();
    match target.id().as_str() {
        ids::QUESTION => Some(Msg::Search(SearchMsg::Typed(value))),
        ids::CLE => Some(Msg::Key(KeyMsg::Typed(value))),
        _ => None,
    }
}

fn change(app: &App, target: &Element) -> Option<Msg> {
    let select_value = || {
        target
            .dyn_ref::<HtmlSelectElement>()
            .map(HtmlSelectElement::value)
    };
    let method = || Method::parse(&select_value()?);
    let id = target.id();
    let msg = match id.as_str() {
        ids::EXEMPLES => Msg::Search(SearchMsg::ExamplePicked(select_value()?.parse().ok())),
        ids::RETENIR => Msg::Key(KeyMsg::RememberToggled(
            target.dyn_ref::<HtmlInputElement>()?.checked(),
        )),
        ids::REPONSE_METHODE => Msg::Answer(AnswerMsg::MethodChosen(method()?)),
        ids::REPONSE_MODELE => Msg::Answer(AnswerMsg::ModelChosen(select_value()?)),
        ids::EVAL_METHODE => Msg::Answer(AnswerMsg::EvalSourceChosen(
            crate::answer::Source::parse(&select_value()?)?,
        )),
        ids::EVAL_JUGE => Msg::Answer(AnswerMsg::EvalJudgeChosen(select_value()?)),
        ids::EVAL_MODELE => Msg::Answer(AnswerMsg::EvalModelChosen(select_value()?)),
        ids::COMPARER_A => Msg::Measure(MeasureMsg::PairSide {
            first: true,
            name: select_value()?,
        }),
        ids::COMPARER_B => Msg::Measure(MeasureMsg::PairSide {
            first: false,
            name: select_value()?,
        }),
        ids::QUESTION => Msg::Search(SearchMsg::Committed),
        ids::JUGER_IMPORTER => {
            let field = target.dyn_ref::<HtmlInputElement>()?;
            let files = app.hold_files(field.files());
            field.set_value("");
            Msg::Judge(crate::page::JudgeMsg::FilesChosen(files))
        }
        ids::IMPORTER_RUN => {
            let field = target.dyn_ref::<HtmlInputElement>()?;
            let files = app.hold_files(field.files());
            field.set_value("");
            Msg::Measure(MeasureMsg::RunFilesChosen(files))
        }
        ids::FICHIERS => {
            let field = target.dyn_ref::<HtmlInputElement>()?;
            let files = app.hold_files(field.files());
            field.set_value("");
            Msg::Catalogue(CatalogueMsg::FilesChosen(files))
        }
        _ => {
            let checkbox = target.dyn_ref::<HtmlInputElement>()?;
            let m = Method::parse(&target.get_attribute("data-methode")?)?;
            Msg::Search(SearchMsg::MethodToggled(m, checkbox.checked()))
        }
    };
    Some(msg)
}

/// Files dropped on « Vos données »; the zone's highlight while dragging is the DOM's alone.
fn drag(app: &App, kind: &str, e: &Event, target: &Element) -> Option<Msg> {
    let zone = target.closest(&format!("#{}", ids::DEPOT)).ok()??;
    e.prevent_default();
    let classes = zone.class_list();
    match kind {
        "dragover" => {
            classes.add_1("survol").ok();
            None
        }
        "dragleave" => {
            classes.remove_1("survol").ok();
            None
        }
        "drop" => {
            classes.remove_1("survol").ok();
            let dropped = e.dyn_ref::<DragEvent>()?.data_transfer()?.files();
            Some(Msg::Catalogue(CatalogueMsg::FilesChosen(
                app.hold_files(dropped),
            )))
        }
        _ => None,
    }
}
