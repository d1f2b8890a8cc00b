//! The exercise's success criteria (« Critères de réussite »), checked on any measurement.

use serde::Serialize;

use crate::data::QuestionKind;
use crate::measure::Measurement;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    Met,
    NotMet,
    /// Does not apply to this method (the fusion criterion for a method that fuses nothing).
    NotApplicable,
    /// Judged on written answers: needs a Mistral key.
    NeedsKey,
    /// Judged on written answers, which the learner can have judged in « Évaluer les réponses ».
    ToMeasure,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Criterion {
    pub label: &'static str,
    pub status: Status,
    pub detail: String,
}

fn kind(m: &Measurement, k: QuestionKind) -> Option<&crate::measure::KindStats> {
    m.kinds.iter().find(|s| s.kind == k && s.questions > 0)
}

/// The seed's first criterion.
pub const THREE: &str = "Trois mesures sur les mêmes questions\u{a0}: mots, sens, fusion";
/// The exactes' criterion.
pub const EXACTES: &str = "Toutes les questions exactes, bonne fiche en tête";
/// The courantes' criterion.
pub const COURANTES: &str = "Au moins 18 courantes sur 20 avec la bonne fiche dans les 5 premières";

/// The courantes the criterion needs in the top 5, of `n`: the exercise's 18 of 20, as a share
/// for another question file.
pub fn courantes_needed(n: usize) -> usize {
    (n * 18).div_ceil(20)
}

/// The seed's first criterion on the methods measured on these questions (their names, or the
/// names of settings tried from them, « mots+ (b = 0) »): a keyword method, a dense one, a fusion.
fn three_measured(measured: &[&str]) -> Criterion {
    use crate::lab::Method;
    let mut found: [Vec<&str>; 3] = Default::default();
    for name in measured {
        let base = name.split(" (").next().unwrap_or(name);
        let Some(m) = Method::parse(base) else {
            continue;
        };
        let family = match m {
            Method::Keyword(_) => 0,
            Method::Sens | Method::SensLocal => 1,
            Method::Hybride(_) | Method::HybrideLocal => 2,
        };
        if !found[family].contains(&m.name()) {
            found[family].push(m.name());
        }
    }
    let words = [
        "la recherche par les mots",
        "la recherche par le sens",
        "leur fusion",
    ];
    let missing: Vec<&str> = (0..3)
        .filter(|&f| found[f].is_empty())
        .map(|f| words[f])
        .collect();
    let done: Vec<&str> = found.iter().flatten().copied().collect();
    let done = if done.is_empty() {
        "aucune méthode mesurée".to_owned()
    } else {
        format!("mesurées\u{a0}: {}", done.join(", "))
    };
    Criterion {
        label: THREE,
        status: if missing.is_empty() {
            Status::Met
        } else {
            Status::NotMet
        },
        detail: if missing.is_empty() {
            done
        } else {
            format!(
                "{done}\u{202f}; il manque {}, à mesurer dans «\u{202f}Mesurer\u{202f}»",
                match missing.split_last() {
                    Some((last, rest)) if !rest.is_empty() =>
                        format!("{} et {last}", rest.join(", ")),
                    _ => missing.join(""),
                }
            )
        },
    }
}

/// The criteria for `m`. `keyword_side` is the measurement of the keyword method a fusion fuses
/// (the fusion must lose no exacte it finds first); `has_key` whether answers can be written;
/// `measured` the names of the methods measured on the same questions (the first criterion).
pub fn checklist(
    m: &Measurement,
    keyword_side: Option<&Measurement>,
    has_key: bool,
    measured: &[&str],
) -> Vec<Criterion> {
    let mut out = vec![three_measured(measured)];
    let status = |ok: bool| if ok { Status::Met } else { Status::NotMet };
    if let Some(e) = kind(m, QuestionKind::Exacte) {
        out.push(Criterion {
            label: EXACTES,
            status: status(e.hit1 == e.questions),
            detail: format!("{} sur {}", e.hit1, e.questions),
        });
    }
    if let Some(c) = kind(m, QuestionKind::Courante) {
        let needed = courantes_needed(c.questions);
        out.push(Criterion {
            label: COURANTES,
            status: status(c.hit5 >= needed),
            detail: format!("{} sur {} (il en faut {needed})", c.hit5, c.questions),
        });
    }
    out.push(match keyword_side {
        None => Criterion {
            label: "La fusion ne perd aucune exacte",
            status: Status::NotApplicable,
            detail: "pas de fusion dans cette méthode".into(),
        },
        Some(k) => {
            let lost: Vec<&str> = k
                .questions
                .iter()
                .zip(&m.questions)
                .filter(|(a, b)| {
                    a.kind == QuestionKind::Exacte && a.rank == Some(1) && b.rank != Some(1)
                })
                .map(|(a, _)| a.question.as_str())
                .collect();
            Criterion {
                label: "La fusion ne perd aucune exacte",
                status: status(lost.is_empty()),
                detail: if lost.is_empty() {
                    format!("aucune perdue face à {}", k.method)
                } else {
                    format!("perdues face à {} : {}", k.method, lost.join(" ; "))
                },
            }
        }
    });
    let answers = if has_key {
        Status::ToMeasure
    } else {
        Status::NeedsKey
    };
    let detail = if has_key {
        "à mesurer dans « Évaluer les réponses »"
    } else {
        "se juge sur les réponses rédigées : il faut une clé Mistral"
    };
    for label in [
        "Les questions sans réponse reçoivent « pas dans le catalogue » par la génération",
        "Chaque réponse rédigée cite les numéros de ses fiches",
        "Le coût est noté",
    ] {
        out.push(Criterion {
            label,
            status: answers,
            detail: detail.into(),
        });
    }
    out
}
