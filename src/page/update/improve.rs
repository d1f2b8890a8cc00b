//! « Améliorer »: each change re-measures every question, against the starting method, in
//! bounded steps (all at once on a small catalogue).

use crate::fr::messages;
use crate::improve::batch::Batch;
use crate::improve::diff::diff;
use crate::improve::sweep::{conclude, settings as sweep_settings};
use crate::improve::{dense_tops, DenseTops, Settings, Tuned};
use crate::lab::{Encoder, SearchError};
use crate::link::View;
use crate::search::analysis::custom::{
    french_stop_list, seed_stop_list, word_list, SNOWBALL_FRENCH_STOP_WORDS,
};

use super::super::improve::{Change, Job, Pass, StopPreset, Tried, HISTORY_MAX};
use super::super::jobs::Subject;
use super::super::state::State;

/// Why a dense method's settings cannot be measured, in the page's words.
fn dense_problem(e: &SearchError, encoder: Encoder) -> String {
    let method = match encoder {
        Encoder::Local => "sens local",
        Encoder::Mistral => "sens",
    };
    match e {
        SearchError::NoVectors => format!("Les vecteurs des fiches de « {method} » ne sont pas là."),
        _ => format!(
            "Les vecteurs des questions de « {method} » manquent : mesurez d'abord « {method} » dans « Mesurer », puis revenez ici."
        ),
    }
}

/// The questions' dense tops for `encoder`, computed once per catalogue.
fn tops(s: &mut State, encoder: Encoder) -> Result<DenseTops, String> {
    if let Some((e, t)) = &s.data.improve.dense {
        if *e == encoder {
            return Ok(t.clone());
        }
    }
    let vectors = match encoder {
        Encoder::Local => &s.local_qvectors,
        Encoder::Mistral => &s.qvectors,
    };
    let t = dense_tops(&s.data.lab, encoder, &s.data.questions, vectors)
        .map_err(|e| dense_problem(&e, encoder))?;
    s.data.improve.dense = Some((encoder, t.clone()));
    Ok(t)
}

/// Starts measuring `settings` (with the fusion's keyword side, and the starting method when it
/// changed), and does the first step: on a small catalogue, all of it.
fn measure(s: &mut State, settings: Settings) {
    let Ok(method) = settings.base() else { return };
    if let Some(e) = method.encoder() {
        if let Err(why) = tops(s, e) {
            s.data.improve.error = Some(why);
            s.data.improve.waiting_for_vectors = true;
            s.data.improve.settings = Some(settings);
            s.data.improve.job = None;
            s.data.improve.after = None;
            s.data.improve.measured = None;
            s.data.improve.diff = None;
            return;
        }
    }
    let start = Settings::of(method);
    let before =
        s.data.improve.before.as_ref().map(|m| m.method.as_str()) != Some(start.method.as_str());
    let side = match (method.fused_keyword(), settings.keyword()) {
        (Some(_), Some(k)) => Some(Settings {
            method: crate::lab::Method::Keyword(k).name().to_owned(),
            ..settings.clone()
        }),
        _ => None,
    };
    let mut list = vec![settings.clone()];
    list.extend(side.iter().cloned());
    if before {
        list.push(start);
    }
    let batch = Batch::new(list, s.data.improve.tuned.clone());
    s.data.improve.settings = Some(settings.clone());
    s.data.improve.job = Some(Job::Measure {
        settings,
        side: side.is_some(),
        before,
        batch,
    });
    advance(s);
}

/// One step of the work under way; its results once it is done.
fn advance(s: &mut State) {
    let Some(mut job) = s.data.improve.job.take() else {
        return;
    };
    let dense = match &job {
        Job::Measure { settings, .. } | Job::Sweep { from: settings, .. } => {
            match settings.base().ok().and_then(|m| m.encoder()) {
                None => DenseTops::new(),
                Some(e) => match tops(s, e) {
                    Ok(t) => t,
                    Err(why) => {
                        s.data.improve.error = Some(why);
                        return;
                    }
                },
            }
        }
    };
    let stepped = match &mut job {
        Job::Measure { batch, .. } | Job::Sweep { batch, .. } => {
            batch.step(&s.data.lab, &s.data.questions, &dense)
        }
    };
    match (stepped, job) {
        (Ok(false), job) => s.data.improve.job = Some(job),
        (Err(e), Job::Measure { settings, .. }) => fail(s, settings, e.to_string()),
        (Err(e), Job::Sweep { .. }) => s.data.improve.error = Some(e.to_string()),
        (Ok(true), Job::Sweep { from, grid, batch }) => {
            let measured: Vec<_> = batch.finish().into_iter().map(|(_, m)| m).collect();
            s.data.improve.sweep = Some(conclude(&from, grid, &measured));
        }
        (
            Ok(true),
            Job::Measure {
                settings,
                side,
                before,
                batch,
            },
        ) => {
            let mut done = batch.finish().into_iter();
            let Some((tuned, after)) = done.next() else {
                return;
            };
            let keyword_side = if side {
                done.next().map(|(_, m)| m)
            } else {
                None
            };
            if before {
                s.data.improve.before = done.next().map(|(_, m)| m);
            }
            if let Some(before) = &s.data.improve.before {
                s.data.improve.diff = Some(diff(before, &after));
            }
            s.data.improve.keyword_side = keyword_side;
            record(&mut s.data.improve, Tried::of(&settings, &after));
            s.data.improve.tuned = Some(tuned);
            s.data.improve.after = Some(after);
            s.data.improve.measured = Some(settings.clone());
            s.data.improve.settings = Some(settings);
            s.data.improve.error = None;
            s.data.improve.waiting_for_vectors = false;
        }
    }
}

/// Settings measured, in the history: each settings once (« Annuler » and « Reprendre » go back
/// to their row), and a gesture's moves in one row, the last value's.
fn record(im: &mut crate::page::improve::Improve, tried: Tried) {
    let streak_row = im
        .streak_row
        .filter(|&i| im.streak.is_some() && i + 1 == im.history.len());
    if im.history.iter().any(|t| t.settings == tried.settings) {
        // The gesture came back to settings already tried: its own row goes.
        if let Some(i) = streak_row {
            if im.history[i].settings != tried.settings {
                im.history.remove(i);
                im.streak_row = None;
            }
        }
        return;
    }
    match streak_row {
        Some(i) => im.history[i] = tried,
        None => {
            im.history.push(tried);
            if im.history.len() > HISTORY_MAX {
                im.history.remove(0);
            }
            im.streak_row = im.streak.map(|_| im.history.len() - 1);
        }
    }
}

/// The shell's turn of the event loop is over: the next step.
pub(super) fn step(s: &mut State) {
    if can_step(s) {
        advance(s);
    }
}

/// Whether « Améliorer » has work under way for its next step: only while it is shown.
pub(super) fn can_step(s: &State) -> bool {
    s.view == View::Ameliorer && s.data.improve.job.is_some()
}

fn fail(s: &mut State, settings: Settings, why: String) {
    s.data.improve.error = Some(why);
    s.data.improve.waiting_for_vectors = false;
    s.data.improve.settings = Some(settings);
    s.data.improve.tuned = None;
    s.data.improve.after = None;
    s.data.improve.measured = None;
    s.data.improve.diff = None;
}

/// Makes « Améliorer » current for the catalogue shown (its session is the catalogue's: a new
/// catalogue brings a new one): settings are measured once. A catalogue without questions that
/// name their fiche has nothing to measure them on.
pub(super) fn ensure(s: &mut State) {
    if s.view != View::Ameliorer || !s.data.measurable() {
        return;
    }
    let settings = s
        .data
        .improve
        .settings
        .clone()
        .unwrap_or_else(|| Settings::of(crate::lab::Method::MOTS));
    // Work under way for other settings (a link replaced them) is dropped.
    if let Some(Job::Measure { settings: m, .. }) = &s.data.improve.job {
        if *m != settings {
            s.data.improve.job = None;
        }
    }
    let done =
        s.data.improve.measured.as_ref() == Some(&settings) && s.data.improve.after.is_some();
    // A failure of these settings is final until they change, unless it waited for vectors.
    let failed = s.data.improve.settings.as_ref() == Some(&settings)
        && s.data.improve.error.is_some()
        && !s.data.improve.waiting_for_vectors;
    if s.data.improve.job.is_none() && !done && !failed {
        measure(s, settings);
    }
}

/// Settings from a link: measured when the view is shown.
pub(super) fn from_link(s: &mut State, settings: Option<Settings>, refused: Vec<String>) {
    // A link that changes the settings, or refuses some, is said; the page's own fragment
    // written back (the same settings) leaves what was said.
    if settings.is_some() && (settings != s.data.improve.settings || !refused.is_empty()) {
        s.data.improve.refused = refused;
    }
    if let Some(settings) = settings {
        if s.data.improve.settings.as_ref() != Some(&settings) {
            if let Some(old) = s.data.improve.settings.replace(settings.clone()) {
                s.data.improve.undo.push(old, &settings);
            }
            s.data.improve.after = None;
            s.data.improve.error = None;
        }
    }
}

/// One change from the learner.
pub(super) fn change(s: &mut State, c: Change) {
    let Some(current) = s.data.improve.settings.clone() else {
        return;
    };
    s.data.improve.refused.clear();
    // The same control moved again continues its gesture; anything else ends it.
    let control = c.control();
    let continuing = control.is_some() && control == s.data.improve.streak;
    if !continuing {
        s.data.improve.streak = control;
        s.data.improve.streak_row = None;
    }
    let mut next = current.clone();
    let a = &mut next.analysis;
    match c {
        Change::Start(m) => {
            next = Settings::of(m);
            s.data.improve.sweep = None;
        }
        Change::K1(v) => next.k1 = v,
        Change::B(v) => next.b = v,
        Change::Words(w) => a.words = w,
        Change::Lowercase(v) => a.lowercase = v,
        Change::Elisions(v) => a.elisions = v,
        Change::Stem(v) => a.stem = v,
        Change::Fold(v) => a.fold = v,
        Change::StopWords(text) => a.stop_words = word_list(&text),
        Change::StopPreset(p) => {
            a.stop_words = match p {
                StopPreset::Seed => seed_stop_list(),
                StopPreset::MotsPlus => french_stop_list(),
                StopPreset::Snowball => word_list(SNOWBALL_FRENCH_STOP_WORDS),
                StopPreset::Empty => Vec::new(),
            }
        }
        Change::Enrich(mut e) => {
            // Ids are compared as the catalogue writes them (NFC), case included.
            e.id = crate::data::nfc(e.id.trim());
            if s.data.lab.doc_of(&e.id).is_none() {
                let near = s
                    .data
                    .lab
                    .fiches()
                    .iter()
                    .find(|f| f.id.to_lowercase() == e.id.to_lowercase());
                s.data.improve.error = Some(match near {
                    Some(f) => format!(
                        "Aucune fiche {} dans ce catalogue\u{202f}; vouliez-vous {}\u{202f}?",
                        e.id, f.id
                    ),
                    None => format!("Aucune fiche {} dans ce catalogue.", e.id),
                });
                return;
            }
            if e.words.trim().is_empty() {
                s.data.improve.error =
                    Some(format!("Écrivez les mots à ajouter à la fiche {}.", e.id));
                return;
            }
            let same = |o: &crate::improve::Enrichment| {
                o.id == e.id && o.product == e.product && o.words.trim() == e.words.trim()
            };
            if next.enrich.iter().any(same) {
                s.data.improve.error = Some(format!(
                    "La fiche {} a déjà ces mots\u{a0}: ajoutés deux fois, ils ne compteraient pas davantage pour un client.",
                    e.id
                ));
                return;
            }
            if next.analysis.analyzer().analyze(&e.words).is_empty() {
                s.data.improve.error = Some(format!(
                    "«\u{202f}{}\u{202f}» ne compte pour rien\u{a0}: ce ne sont que des mots vides de cette analyse, la recherche ne les lit pas. Ajoutez des mots qui portent le sens.",
                    e.words.trim()
                ));
                return;
            }
            next.enrich.push(e);
        }
        Change::Unenrich(i) => {
            if i < next.enrich.len() {
                next.enrich.remove(i);
            }
        }
        Change::Fusion(f) => next.fusion = f,
        Change::RrfK(k) => next.fusion = crate::search::fusion::Fusion::Rrf { k },
        Change::Depth(d) => next.depth = d,
        Change::Weight(i, w) => {
            if i < 2 {
                next.weights[i] = w;
            }
        }
        Change::Undo => {
            let Some(previous) = s.data.improve.undo.pop(&current) else {
                return;
            };
            measure(s, previous);
            return;
        }
        Change::Replay(i) => {
            let Some(t) = s.data.improve.history.get(i) else {
                return;
            };
            next = t.settings.clone();
        }
        Change::Sweep(grid) => {
            s.data.improve.sweep = None;
            if let Some(e) = current.base().ok().and_then(|m| m.encoder()) {
                if let Err(why) = tops(s, e) {
                    s.data.improve.error = Some(why);
                    return;
                }
            }
            let batch = Batch::new(sweep_settings(&current, grid), s.data.improve.tuned.clone());
            s.data.improve.job = Some(Job::Sweep {
                from: current,
                grid,
                batch,
            });
            advance(s);
            return;
        }
        Change::KeepSwept => {
            let Some(sw) = &s.data.improve.sweep else {
                return;
            };
            next = sw.points[sw.best_calibration].settings.clone();
        }
        Change::PassEpreuve => {
            // Questions that could not be read (the network) are read again; and so are their
            // local vectors, missing for a method over the local encoder.
            let local = s
                .data
                .improve
                .settings
                .as_ref()
                .and_then(|t| t.base().ok())
                .is_some_and(|m| m.encoder() == Some(Encoder::Local));
            let e = &mut s.data.improve.epreuve;
            let unvectored = |qs: &Vec<crate::data::Question>| {
                local && qs.iter().any(|q| !s.local_qvectors.contains_key(&q.text))
            };
            if e.questions
                .as_ref()
                .is_some_and(|r| r.as_ref().map_or(true, unvectored))
            {
                e.questions = None;
            }
            e.asked = true;
            pass_epreuve(s);
            return;
        }
    }
    if next == current {
        return;
    }
    if let Err(e) = next.check() {
        s.data.improve.error = Some(e.to_string());
        return;
    }
    // A gesture is one step of « Annuler »: back to the settings before it began.
    if !continuing {
        s.data.improve.undo.push(current, &next);
    }
    measure(s, next);
}

/// « L'épreuve »'s questions are read while a pass waits for them (the exercise's catalogue only).
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    let e = &s.data.improve.epreuve;
    if e.asked && e.questions.is_none() && s.data.label.is_none() {
        want(Subject::ReadEpreuve);
    }
}

/// « L'épreuve »'s questions read (or why not): a pass that waited for them is made.
pub(super) fn epreuve_read(
    s: &mut State,
    read: Result<Vec<crate::data::Question>, String>,
    local: crate::lab::QuestionVectors,
) {
    s.data.improve.epreuve.questions = Some(read);
    s.local_qvectors.extend(local);
    pass_epreuve(s);
}

/// Passes « l'épreuve » when it is asked and its questions are here: the settings last measured
/// on the 40 questions, and their starting method, measured on its questions. A method over the
/// local encoder reads its questions' shipped vectors; Mistral's would need a paid call for each of
/// them: said.
fn pass_epreuve(s: &mut State) {
    let e = &s.data.improve.epreuve;
    if !e.asked {
        return;
    }
    let questions = match &e.questions {
        None => return,
        Some(Err(why)) => Err(why.clone()),
        Some(Ok(questions)) => Ok(questions),
    };
    let pass = questions.and_then(|questions| {
        let im = &s.data.improve;
        let (Some(settings), Some(tuned), Some(was), Some(now)) =
            (&im.measured, &im.tuned, &im.before, &im.after)
        else {
            return Err("Vos réglages ne sont pas encore mesurés sur les 40 questions\u{a0}: l'épreuve les mesurera ensuite.".to_owned());
        };
        let method = settings.base().map_err(|e| e.to_string())?;
        let lab = &s.data.lab;
        let search = |e: SearchError| messages::search(&e);
        let dense = match method.encoder() {
            None => DenseTops::new(),
            Some(Encoder::Mistral) => {
                return Err(format!(
                    "L'épreuve mesure les réglages des méthodes par mots et du modèle local\u{a0}: les vecteurs mistral-embed de ses questions, dont {} aurait besoin, ne sont pas livrés avec la page.",
                    method.name()
                ))
            }
            Some(Encoder::Local) => {
                if questions.iter().any(|q| !s.local_qvectors.contains_key(&q.text)) {
                    return Err(format!(
                        "Les vecteurs du modèle local des questions de l'épreuve, dont {} a besoin, n'ont pas pu être lus.",
                        method.name()
                    ));
                }
                dense_tops(lab, Encoder::Local, questions, &s.local_qvectors).map_err(search)?
            }
        };
        let after = tuned.measure(lab, questions, &dense).map_err(search)?;
        let start = Tuned::new(lab, Settings::of(method), None).map_err(|e| e.to_string())?;
        let before = start.measure(lab, questions, &dense).map_err(search)?;
        let diff = diff(&before, &after);
        Ok(Pass {
            settings: settings.clone(),
            before,
            after,
            diff,
            exercise: (was.clone(), now.clone()),
        })
    });
    let e = &mut s.data.improve.epreuve;
    e.asked = false;
    if pass.is_ok() {
        e.passes += 1;
    }
    e.pass = Some(pass);
}
