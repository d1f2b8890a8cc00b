//! « Mesurer »'s unanswerable questions: the strip plot of each question's best score under a
//! method, the refusal threshold calibrated on half the questions, and where it fails.

use web_sys::Element;

use super::super::dom::{scroller, E};
use super::charts::*;
use crate::measure::compare;
use crate::measure::Measurement;

/// Strip plot of one method's best scores: answerable questions (dots) and absente ones
/// (crosses), on one axis, with the threshold calibrated on the even rows.
pub fn strip_plot(m: &Measurement) -> Element {
    let best = compare::best_scores(m);
    let split = compare::calibrate_split(m);
    let (min, max) = best
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (s, _)| {
            (lo.min(*s), hi.max(*s))
        });
    let (lo, hi) = if max > min {
        (min, max)
    } else {
        (min - 1.0, min + 1.0)
    };
    let (width, left, right) = (520.0, 10.0, 510.0);
    let x = |s: f64| left + (s - lo) / (hi - lo) * (right - left);
    let mut nodes = vec![
        E::svg("title")
            .text(&format!(
                "Meilleurs scores sous {} : points = questions avec réponse, croix = sans réponse",
                m.method
            ))
            .build(),
        line(&format!("{left}"), "40", &format!("{right}"), "40", "axe").build(),
        E::svg("text")
            .attr("x", &format!("{left}"))
            .attr("y", "58")
            .text(&score_text(m, lo))
            .build(),
        E::svg("text")
            .attr("x", &format!("{right}"))
            .attr("y", "58")
            .attr("text-anchor", "end")
            .text(&score_text(m, hi))
            .build(),
    ];
    // Past PLOT_CAP questions, one in `step` is drawn (the axis and threshold stay exact): a plot
    // of 76,000 marks says no more than one of 2,000, and costs a frozen tab.
    let step = best.len().div_ceil(PLOT_CAP).max(1);
    if step > 1 {
        nodes.push(
            E::svg("text")
                .attr("x", &format!("{right}"))
                .attr("y", "8")
                .attr("text-anchor", "end")
                .text(&format!("une question sur {step} dessinée"))
                .build(),
        );
    }
    for (i, (s, covered)) in best.iter().enumerate().step_by(step) {
        let cx = x(*s);
        // Answerable questions above the axis, absente below, jittered by row so they do not hide.
        let label = m.questions.get(i).map_or(String::new(), |q| {
            format!("{} — {}", q.question, score_text(m, *s))
        });
        if *covered {
            let cy = 14.0 + (i % 4) as f64 * 5.0;
            nodes.push(
                E::svg("circle")
                    .attr("cx", &format!("{cx:.1}"))
                    .attr("cy", &format!("{cy}"))
                    .attr("r", "4")
                    .class("avec")
                    .child(E::svg("title").text(&label))
                    .build(),
            );
        } else {
            let cy = 66.0 + (i % 2) as f64 * 6.0;
            let d = 4.0;
            for (x1, y1, x2, y2) in [
                (cx - d, cy - d, cx + d, cy + d),
                (cx - d, cy + d, cx + d, cy - d),
            ] {
                let (x1, y1) = (format!("{x1:.1}"), format!("{y1:.1}"));
                let (x2, y2) = (format!("{x2:.1}"), format!("{y2:.1}"));
                nodes.push(
                    line(&x1, &y1, &x2, &y2, "sans")
                        .child(E::svg("title").text(&label))
                        .build(),
                );
            }
        }
    }
    if let Some(c) = &split {
        let tx = x(c.calibration.threshold).clamp(left, right);
        let at = format!("{tx:.1}");
        nodes.push(line(&at, "4", &at, "80", "seuil").build());
        let anchor = if tx > (left + right) / 2.0 {
            "end"
        } else {
            "start"
        };
        let shift = if anchor == "end" { -4.0 } else { 4.0 };
        nodes.push(
            E::svg("text")
                .attr("x", &format!("{:.1}", tx + shift))
                .attr("y", "94")
                .attr("text-anchor", anchor)
                .class("valeur-seuil")
                .text(&format!("seuil {}", score_text(m, c.calibration.threshold)))
                .build(),
        );
    }
    let svg = E::svg("svg")
        .attr("viewBox", &format!("0 0 {width} 100"))
        .attr("role", "img")
        .attr("aria-label", &format!("Meilleurs scores sous {}", m.method))
        .class("bande")
        .children(nodes)
        .build();
    let text = match &split {
        None => "Pas assez de questions pour calibrer un seuil.".to_owned(),
        Some(c) => {
            let separates = best_separable(&best);
            let mut t = format!(
                "Seuil calibré sur les {} questions de rang impair (1re, 3e, 5e…) : {} ({} bien triées) ; sur les {} autres : {} bien triées.",
                c.calibration_questions,
                score_text(m, c.calibration.threshold),
                pct(c.calibration.accuracy),
                c.test_questions,
                pct(c.test_accuracy)
            );
            if !separates {
                t += &format!(" Sur les {} questions, aucun seuil ne sépare celles qui ont une réponse de celles qui n'en ont pas : un score haut ne garantit pas une réponse. C'est au modèle qui lit les fiches trouvées de dire « pas dans le catalogue ».", m.questions.len());
            } else {
                t += &format!(" Ici un seuil sépare les {} questions, mais sur ces seules questions : de nouvelles questions le mettraient en défaut ; le modèle qui lit les fiches reste le juge.", m.questions.len());
            }
            t
        }
    };
    E::new("div")
        .class("bande-methode")
        .attr("data-methode", &m.method)
        .child(E::new("h4").text(&m.method))
        .child(scroller(
            &format!("Meilleurs scores sous {}", m.method),
            svg,
        ))
        .child(E::new("p").class("seuil-texte").text(&text))
        .children(overlap(m, &best))
        .child(points_list(
            m,
            &best,
            split.as_ref().map(|c| c.calibration.threshold),
        ))
        .build()
}

/// The proof that no threshold works, by name: the best-scoring question without an answer that
/// beats the worst-scoring question with one.
fn overlap(m: &Measurement, best: &[(f64, bool)]) -> Option<Element> {
    let pick = |covered: bool| {
        best.iter()
            .enumerate()
            .filter(|(_, b)| b.1 == covered)
            .map(|(i, b)| (i, b.0))
            .reduce(|a, b| match (covered, b.1.total_cmp(&a.1)) {
                (true, std::cmp::Ordering::Less) | (false, std::cmp::Ordering::Greater) => b,
                _ => a,
            })
    };
    let (absent, lowest) = (pick(false)?, pick(true)?);
    if absent.1 <= lowest.1 {
        return None;
    }
    let text = |i: usize| m.questions.get(i).map_or("", |q| q.question.as_str());
    Some(
        E::new("p")
            .class("preuve")
            .text(&format!(
                "La preuve : « {} » n'a pas de réponse dans le catalogue et obtient {} ; « {} » en a une et n'obtient que {}. Tout seuil qui garde la seconde laisse passer la première.",
                text(absent.0),
                score_text(m, absent.1),
                text(lowest.0),
                score_text(m, lowest.1)
            ))
            .build(),
    )
}

/// The points of the plot as text: the questions without an answer, and those with one that
/// fall under the threshold.
fn points_list(m: &Measurement, best: &[(f64, bool)], threshold: Option<f64>) -> Element {
    let items = best.iter().enumerate().filter_map(|(i, (score, covered))| {
        let below = threshold.is_some_and(|t| *score < t);
        if *covered && !below {
            return None;
        }
        let q = m.questions.get(i)?;
        let what = match (*covered, threshold.is_some_and(|t| *score >= t)) {
            (false, true) => "sans réponse, au-dessus du seuil",
            (false, false) => "sans réponse, sous le seuil",
            (true, _) => "avec réponse, sous le seuil",
        };
        Some(
            E::new("li")
                .text(&format!(
                    "« {} » : {} ({what})",
                    q.question,
                    score_text(m, *score)
                ))
                .build(),
        )
    });
    E::new("div")
        .child(E::new("p").class("points-titre").text(
            "Les points à regarder : les questions sans réponse, et celles avec réponse sous le seuil.",
        ))
        .child(
            E::new("ul")
                .class("points")
                .children(capped(items, "questions")),
        )
        .build()
}

/// Whether some threshold sorts all questions right: every answerable best score above every
/// absente one.
fn best_separable(best: &[(f64, bool)]) -> bool {
    let lowest_covered = best
        .iter()
        .filter(|b| b.1)
        .map(|b| b.0)
        .fold(f64::INFINITY, f64::min);
    let highest_absent = best
        .iter()
        .filter(|b| !b.1)
        .map(|b| b.0)
        .fold(f64::NEG_INFINITY, f64::max);
    lowest_covered > highest_absent
}
