//! What the page calls methods, question types and measurements.

use crate::data::QuestionKind;
use crate::lab::{FusionExplanation, WordChange};
use crate::lab::{Keyword, Method};
use crate::measure::compare::Paired;
use crate::search::fusion::{RRF_DEPTH, RRF_K};

use super::decimal;

/// A method's name and what it is, as a column or a section is titled.
pub fn method_title(m: Method) -> &'static str {
    match m {
        Method::Keyword(Keyword::Mots) => "mots — le BM25 du sujet",
        Method::Keyword(Keyword::MotsPlus) => "mots+ — BM25 en français",
        Method::Sens => "sens — plongements mistral-embed",
        Method::Hybride(Keyword::Mots) => "hybride — fusion RRF de mots et sens",
        Method::Hybride(Keyword::MotsPlus) => "hybride+ — fusion RRF de mots+ et sens",
        Method::SensLocal => "sens local — plongements USE multilingue, calculés dans la page",
        Method::HybrideLocal => "hybride local — fusion RRF de mots+ et sens local",
    }
}

/// A question type in the plural, as a table or a group is titled.
pub fn kind_title(kind: QuestionKind) -> &'static str {
    match kind {
        QuestionKind::Exacte => "Questions exactes",
        QuestionKind::Courante => "Questions courantes",
        QuestionKind::Absente => "Questions sans réponse",
    }
}

/// The lines that explain a fused score: each list's contribution `1/(k + rang)`, then the total,
/// from the same constants the fusion uses.
pub fn fusion_lines(method: Method, e: &FusionExplanation) -> Vec<String> {
    let keyword = method.fused_keyword().unwrap_or(Keyword::MotsPlus);
    let dense = match method.encoder() {
        Some(crate::lab::Encoder::Local) => Method::SensLocal,
        _ => Method::Sens,
    };
    let k = RRF_K as usize;
    let part = |name: &str, rank: Option<usize>| match rank {
        Some(rank) => format!(
            "{name} : rang {rank} → 1/({k} + {rank}) = {}",
            decimal(crate::search::fusion::points(rank), 5)
        ),
        None => format!("{name} : absente des {RRF_DEPTH} premières → 0"),
    };
    vec![
        part(Method::Keyword(keyword).name(), e.keyword_rank),
        part(dense.name(), e.dense_rank),
        format!(
            "total : {} (constante k = {k}, {RRF_DEPTH} premières de chaque liste)",
            decimal(e.points, 5)
        ),
    ]
}

/// What `mots+` changes from `mots` for a question, word by word: the words only one of them
/// finds, the words one of them ignores.
pub fn mots_plus_changes(changes: &[WordChange]) -> String {
    let parts: Vec<String> = changes
        .iter()
        .filter(|c| c.differs())
        .map(|c| {
            let w = &c.word;
            match (&c.mots, &c.mots_plus) {
                (Some(_), None) => format!("« {w} » ignoré par mots+ (mot vide)"),
                (None, Some((t, _))) => {
                    format!("« {w} » ignoré par mots, cherché par mots+ comme « {t} »")
                }
                (_, Some((t, true))) => format!("« {w} » → « {t} », trouvé par mots+ seulement"),
                (Some((t, true)), _) => format!("« {w} » → « {t} », trouvé par mots seulement"),
                _ => format!("« {w} » traité autrement"),
            }
        })
        .collect();
    if parts.is_empty() {
        "Ici, mots+ trouve les mêmes mots que mots (racines et accents mis à part).".into()
    } else {
        format!("Ce que mots+ change ici : {}.", parts.join(" ; "))
    }
}

/// What a paired comparison establishes, in words a learner understands.
pub fn paired_sentence(a: &str, b: &str, kind: QuestionKind, p: &Paired) -> String {
    let n = p.wins + p.losses + p.ties;
    let plural = if n > 1 { "s" } else { "" };
    let base = format!(
        "Sur {n} question{plural} {}{plural} : {a} place la bonne fiche plus haut que {b} {} fois, plus bas {} fois, au même rang {} fois.",
        kind.as_str(),
        p.wins,
        p.losses,
        p.ties
    );
    let verdict = if p.wins + p.losses == 0 {
        "Aucune différence : rien à tester.".to_owned()
    } else if p.p_value < 0.05 {
        let (winner, loser) = if p.wins > p.losses { (a, b) } else { (b, a) };
        format!(
            "Test du signe : p = {}. Un écart aussi net n'arriverait qu'une fois sur {} par hasard : {winner} l'emporte sur {loser} sur ces questions — pas forcément sur d'autres.",
            decimal(p.p_value, 3),
            (1.0 / p.p_value).floor()
        )
    } else {
        format!(
            "Test du signe : p = {}. Avec {}, un tel écart peut venir du hasard : ni {a} ni {b} ne l'emporte ; il faudrait plus de questions pour conclure.",
            decimal(p.p_value, 2),
            if p.wins + p.losses > 1 {
                format!("{} questions qui diffèrent", p.wins + p.losses)
            } else {
                format!("{} question qui diffère", p.wins + p.losses)
            }
        )
    };
    format!("{base} {verdict}")
}

/// What a difference of `measure` between two methods is worth, in words a learner reads first:
/// the gap with its 95 % interval, whether it is sure, the paired t-test and the effect size, and
/// when it is not sure, the gap these questions could detect and the questions this gap would
/// need. `num` writes a number (the page's commas, the terminal's points).
pub fn gap_sentence(
    measure: &str,
    s: &crate::measure::stats::PairStats,
    num: &dyn Fn(f64) -> String,
) -> String {
    use crate::measure::stats::questions_needed;
    let signed = |x: f64| {
        if x > 0.0 {
            format!("+{}", num(x))
        } else if x < 0.0 {
            format!("\u{2212}{}", num(-x))
        } else {
            num(0.0)
        }
    };
    if s.n == 0 {
        return String::new();
    }
    if s.sd == 0.0 && s.delta == 0.0 {
        return format!("Écart de {measure}\u{a0}: nul sur ces {} questions.", s.n);
    }
    let sure = s.ci.0 > 0.0 || s.ci.1 < 0.0;
    let head = format!(
        "Écart de {measure}\u{a0}: {}, intervalle à 95\u{a0}% [{}\u{202f}; {}]\u{a0}: {} (t apparié p = {}, d = {}).",
        signed(s.delta),
        signed(s.ci.0),
        signed(s.ci.1),
        if sure {
            "l'écart est sûr à 95\u{a0}%"
        } else {
            "on ne peut pas conclure"
        },
        crate::fr::numbers::p_value(s.t_p),
        decimal(s.effect, 2).replace('-', "\u{2212}"),
    );
    if sure {
        return head;
    }
    let Some(detectable) = s.detectable else {
        return head;
    };
    let need = questions_needed(s.sd, s.delta.abs())
        .map(|n| {
            format!(
                "\u{202f}; pour en déceler un de {}, il en faudrait environ {}",
                num(s.delta.abs()),
                crate::fr::int(n as u64)
            )
        })
        .unwrap_or_default();
    format!(
        "{head} Avec ces {} questions, un écart de {} serait décelé 8 fois sur 10{need}.",
        s.n,
        num(detectable)
    )
}

/// `a`, `a et b`, `a, b et c`.
fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} et {last}", rest.join(", ")),
    }
}

/// Which method leads on MRR@10 for the questions of `kind`, and whether that survives Holm's
/// correction over the pairs compared ([`crate::measure::pairs::leader`]); `names` are every
/// method's.
pub fn leader_sentence(
    names: &[&str],
    kind: QuestionKind,
    leader: &crate::measure::pairs::Leader,
) -> String {
    let crate::measure::pairs::Leader {
        best,
        close,
        mrr_sums: mrr,
        pairs,
    } = leader;
    let (best, pairs) = (*best, *pairs);
    let leaders: Vec<usize> = (0..names.len()).filter(|&i| mrr[i] == mrr[best]).collect();
    let title = kind_title(kind);
    if leaders.len() == names.len() {
        return format!("{title}\u{a0}: toutes les méthodes ont le même MRR@10.");
    }
    let many = leaders.len() > 1;
    let head = format!(
        "{title}\u{a0}: {} {} le meilleur MRR@10",
        and_list(&leaders.iter().map(|&i| names[i]).collect::<Vec<_>>()),
        if many { "ont" } else { "a" }
    );
    let others: Vec<&str> = close
        .iter()
        .filter(|i| !leaders.contains(i))
        .map(|&i| names[i])
        .collect();
    let (correction, p) = if pairs > 1 {
        (
            format!("après correction de Holm sur les {pairs} paires de méthodes (t apparié)"),
            "p corrigé",
        )
    } else {
        ("au test t apparié".to_owned(), "p")
    };
    if others.is_empty() {
        return format!(
            "{head}, et l'écart avec chacune des autres reste sûr {correction}\u{a0}: {p} < 0,05."
        );
    }
    format!(
        "{head}\u{202f}; mais {correction}, rien ne {} distingue de {} ({p} ≥ 0,05)\u{a0}: on ne peut pas {} dire meilleure{} qu'{}.",
        if many { "les" } else { "la" },
        and_list(&others),
        if many { "les" } else { "la" },
        if many { "s" } else { "" },
        if others.len() > 1 { "elles" } else { "elle" },
    )
}

/// The page's limit on `fiches.jsonl` as « Vos données » states it.
pub fn fiches_limit(max: u64) -> String {
    format!(
        "{}\u{a0}Mo de fiches (selon la mémoire de cet appareil)",
        crate::fr::numbers::decimal(max as f64 / 1_048_576.0, 0)
    )
}

/// « Questions » over a catalogue that came without questions.
pub const NO_QUESTIONS: &str = "Ce catalogue est venu sans questions\u{a0}: rien à juger. Ajoutez à vos \
    fiches un fichier de questions (le format du sujet, «\u{202f}type;question;fiche_attendue\u{202f}») \
    dans «\u{202f}Vos données\u{202f}», en bas de page.";

/// Where the judging of a pool stands: `done` pairs judged of `total`, the hand judgments in all
/// (`given`, some of pairs no longer pooled).
pub fn judging_progress(done: usize, total: usize, given: usize) -> String {
    use crate::fr::numbers::{count, int, percent};
    if total == 0 {
        return "Aucune fiche à juger\u{a0}: mesurez d'abord des méthodes (vue «\u{202f}Mesurer\u{202f}»)\u{202f}; \
            leurs 10 premières fiches par question font le lot à juger."
            .to_owned();
    }
    let share = percent(done as f64 / total as f64);
    let left = total - done;
    let mut out = if left == 0 {
        format!(
            "Tout est jugé\u{a0}: {}.",
            count(total as u64, "fiche", "fiches")
        )
    } else {
        format!(
            "{} jugées sur {} ({share})\u{202f}; encore {}.",
            int(done as u64),
            int(total as u64),
            count(left as u64, "fiche", "fiches")
        )
    };
    if given > done {
        out += &format!(
            " Et {} d'un lot précédent, gardées.",
            count((given - done) as u64, "note", "notes")
        );
    }
    out
}

/// How another judge's file (`name`) agrees with the learner's hand judgments, in words: the
/// pairs both graded, the share graded alike, κ and its reading by Landis and Koch's scale.
pub fn agreement(a: &crate::measure::judging::Agreement, name: &str) -> String {
    use crate::fr::numbers::{count, decimal, percent};
    if a.pairs == 0 {
        return format!(
            "Aucune fiche notée à la fois par vous et par «\u{202f}{name}\u{202f}»\u{a0}: leurs notes \
             se comparent aux vôtres sur les fiches que vous avez toutes deux notées."
        );
    }
    let kappa = match a.kappa {
        None => "κ non défini (une seule note, des deux côtés)".to_owned(),
        Some(k) => {
            let word = match k {
                k if k < 0.0 => "moins que le hasard",
                k if k <= 0.20 => "accord faible",
                k if k <= 0.40 => "accord passable",
                k if k <= 0.60 => "accord modéré",
                k if k <= 0.80 => "accord substantiel",
                _ => "accord presque parfait",
            };
            format!(
                "κ pondéré = {} ({word}, selon Landis et Koch)",
                decimal(k, 2).replace('-', "\u{2212}")
            )
        }
    };
    format!(
        "«\u{202f}{name}\u{202f}» et vous\u{a0}: {} notées des deux côtés, la même note pour {}\u{202f}; {kappa}.",
        count(a.pairs as u64, "fiche", "fiches"),
        percent(a.exact())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_judges_agreement_is_said_with_its_scale() {
        use crate::measure::graded::Qrels;
        use crate::measure::judging::Agreement;
        let (mut a, mut b) = (Qrels::default(), Qrels::default());
        for (i, (g, h)) in [(3, 3), (2, 2), (0, 0), (1, 1), (3, 2), (0, 1)]
            .iter()
            .enumerate()
        {
            a.set(0, &format!("F{i}"), *g);
            b.set(0, &format!("F{i}"), *h);
        }
        assert_eq!(
            agreement(&Agreement::between(&a, &b), "juge.txt"),
            "«\u{202f}juge.txt\u{202f}» et vous\u{a0}: 6 fiches notées des deux côtés, la même note pour 67\u{202f}%\u{202f}; κ pondéré = 0,74 (accord substantiel, selon Landis et Koch)."
        );
        assert!(
            agreement(&Agreement::between(&a, &Qrels::default()), "x").starts_with("Aucune fiche")
        );
    }

    #[test]
    fn the_judging_progress_counts_what_is_left_in_french() {
        assert_eq!(
            judging_progress(12, 840, 12),
            "12 jugées sur 840 (1\u{202f}%)\u{202f}; encore 828 fiches."
        );
        assert_eq!(
            judging_progress(3, 3, 5),
            "Tout est jugé\u{a0}: 3 fiches. Et 2 notes d'un lot précédent, gardées."
        );
        assert!(judging_progress(0, 0, 0).starts_with("Aucune fiche à juger\u{a0}:"));
    }

    #[test]
    fn a_negative_gap_and_effect_take_the_minus_sign() {
        let s = crate::measure::stats::differences(&[-0.5, -0.25, 0.0, -1.0, 0.25]);
        let text = gap_sentence("MRR@10", &s, &|x| decimal(x, 2));
        assert!(text.contains("d = \u{2212}0,"), "{text}");
        assert!(!text.contains('-'), "{text}");
    }

    #[test]
    fn one_question_that_differs_is_said_in_the_singular() {
        let one = Paired {
            wins: 1,
            losses: 0,
            ties: 0,
            p_value: 1.0,
        };
        let text = paired_sentence("mots", "mots+", QuestionKind::Courante, &one);
        assert!(text.starts_with("Sur 1 question courante\u{a0}:"), "{text}");
        assert!(text.contains("Avec 1 question qui diffère,"), "{text}");
        let two = Paired {
            wins: 2,
            losses: 1,
            ties: 3,
            p_value: 1.0,
        };
        let text = paired_sentence("mots", "mots+", QuestionKind::Courante, &two);
        assert!(
            text.starts_with("Sur 6 questions courantes\u{a0}:"),
            "{text}"
        );
        assert!(text.contains("Avec 3 questions qui diffèrent,"), "{text}");
    }

    #[test]
    fn the_fusion_lines_use_the_fusion_constants() {
        let e = FusionExplanation {
            keyword_rank: Some(2),
            dense_rank: None,
            points: 1.0 / 62.0,
        };
        let lines = fusion_lines(Method::Hybride(Keyword::MotsPlus), &e);
        assert_eq!(lines[0], "mots+ : rang 2 → 1/(60 + 2) = 0,01613");
        assert_eq!(lines[1], "sens : absente des 50 premières → 0");
        assert!(lines[2].starts_with("total : 0,01613 (constante k = 60, 50 premières"));
    }

    fn lead(
        mrr: &[f64],
        best: usize,
        close: &[usize],
        pairs: usize,
    ) -> crate::measure::pairs::Leader {
        crate::measure::pairs::Leader {
            best,
            close: close.to_vec(),
            mrr_sums: mrr.to_vec(),
            pairs,
        }
    }

    #[test]
    fn the_leader_is_said_best_only_where_holm_lets_it() {
        let names = ["mots", "mots+", "sens local"];
        let text = leader_sentence(
            &names,
            QuestionKind::Courante,
            &lead(&[0.5, 0.7, 0.6], 1, &[2], 3),
        );
        assert_eq!(
            text,
            "Questions courantes\u{a0}: mots+ a le meilleur MRR@10\u{202f}; mais après correction de Holm sur les 3 paires de méthodes (t apparié), rien ne la distingue de sens local (p corrigé ≥ 0,05)\u{a0}: on ne peut pas la dire meilleure qu'elle."
        );
        let text = leader_sentence(
            &names,
            QuestionKind::Courante,
            &lead(&[0.5, 0.7, 0.6], 1, &[], 3),
        );
        assert!(text.ends_with("reste sûr après correction de Holm sur les 3 paires de méthodes (t apparié)\u{a0}: p corrigé < 0,05."), "{text}");
        let text = leader_sentence(
            &names,
            QuestionKind::Exacte,
            &lead(&[1.0, 1.0, 0.9], 0, &[1, 2], 3),
        );
        assert!(
            text.starts_with("Questions exactes\u{a0}: mots et mots+ ont le meilleur MRR@10"),
            "{text}"
        );
        assert!(
            text.contains("rien ne les distingue de sens local"),
            "{text}"
        );
        let text = leader_sentence(
            &names[..2],
            QuestionKind::Courante,
            &lead(&[0.5, 0.7], 1, &[0], 1),
        );
        assert!(text.ends_with("mais au test t apparié, rien ne la distingue de mots (p ≥ 0,05)\u{a0}: on ne peut pas la dire meilleure qu'elle."), "{text}");
        let text = leader_sentence(
            &names,
            QuestionKind::Exacte,
            &lead(&[1.0; 3], 0, &[1, 2], 3),
        );
        assert!(
            text.ends_with("toutes les méthodes ont le même MRR@10."),
            "{text}"
        );
    }

    #[test]
    fn every_method_has_a_title_starting_with_its_name() {
        for m in Method::ALL {
            assert!(method_title(m).starts_with(&format!("{} — ", m.name())));
        }
    }
}
