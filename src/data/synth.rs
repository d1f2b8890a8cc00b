//! A deterministic synthetic catalogue, to measure how the methods scale: product-like French fiches
//! built from the bundled ones (their families, product names, usages and advice, recombined with new
//! variants), and questions whose right fiche is known (exacte: the name as written; courante: the
//! usage in other words is not generatable, so it quotes part of the usage). Same seed, same files.

use crate::data::{Fiche, Question, QuestionKind};

/// splitmix64: tiny, deterministic, good enough to pick among words.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// The parts of a bundled fiche's text: « NOM, VARIANTE. Famille : f. Usage : u. Conseil. »
struct Parts {
    famille: String,
    base: String,
    usage: String,
    advice: String,
}

fn parts(f: &Fiche) -> Option<Parts> {
    let base = f.nom.split(", ").next()?.to_owned();
    let usage_at = f.texte.find("Usage : ")? + "Usage : ".len();
    let rest = &f.texte[usage_at..];
    let end = rest.find(". ").unwrap_or(rest.len());
    let usage = rest[..end].trim_end_matches('.').to_owned();
    let advice = rest.get(end + 2..).unwrap_or("").to_owned();
    Some(Parts {
        famille: f.famille.clone(),
        base,
        usage,
        advice,
    })
}

const SIZES: [&str; 8] = [
    "sac de 10 kg",
    "sac de 20 kg",
    "seau de 8 kg",
    "rouleau de 50 m",
    "longueur 1,80 m",
    "lot de 12",
    "carton de 6",
    "palette de 40",
];
const COLOURS: [&str; 8] = [
    "gris perle",
    "blanc pur",
    "sable",
    "anthracite",
    "terre cuite",
    "ivoire",
    "vert d'eau",
    "noir mat",
];
const GRADES: [&str; 6] = [
    "qualité pro",
    "gamme éco",
    "renforcé",
    "haute résistance",
    "usage intensif",
    "format compact",
];

/// `n` fiches (ids `SY-000001`…) and `questions` questions (about 40 % exacte, 40 % courante,
/// 20 % absente), reproducible from `seed`.
pub fn catalogue(
    bundled: &[Fiche],
    n: usize,
    questions: usize,
    seed: u64,
) -> (Vec<Fiche>, Vec<Question>) {
    let parts: Vec<Parts> = bundled.iter().filter_map(parts).collect();
    let mut rng = Rng(seed);
    let mut fiches = Vec::with_capacity(n);
    for i in 0..n {
        let p = rng.pick(&parts);
        let other = rng.pick(&parts);
        let variant = format!(
            "{}, {}, {}",
            rng.pick(&SIZES),
            rng.pick(&COLOURS),
            rng.pick(&GRADES)
        );
        let nom = format!("{} {}, {variant}", p.base, 1 + rng.next() % 900);
        let texte = format!(
            "{nom}. Famille : {}. Usage : {}. {} Voir aussi : {}.",
            p.famille.to_lowercase(),
            p.usage,
            p.advice,
            other.usage
        );
        fiches.push(Fiche {
            id: format!("SY-{:06}", i + 1),
            famille: p.famille.clone(),
            nom,
            texte,
        });
    }
    let absent = [
        "Avez-vous des panneaux solaires ?",
        "Quel est le prix d'une pompe à chaleur ?",
        "Louez-vous des nacelles ?",
        "Vendez-vous des tondeuses ?",
        "Un radiateur électrique, vous en avez ?",
    ];
    let mut qs = Vec::with_capacity(questions);
    for i in 0..questions {
        let target = &fiches[(rng.next() % n.max(1) as u64) as usize];
        let q = match i % 5 {
            0 | 1 => Question {
                kind: QuestionKind::Exacte,
                text: target.nom.clone(),
                expected: Some(target.id.clone()),
            },
            2 | 3 => {
                let usage = target
                    .texte
                    .split("Usage : ")
                    .nth(1)
                    .unwrap_or("")
                    .split(". ")
                    .next()
                    .unwrap_or("");
                let words: Vec<&str> = usage.split_whitespace().collect();
                let half = words[..words.len().min(8)].join(" ");
                Question {
                    kind: QuestionKind::Courante,
                    text: format!("Je cherche {half}"),
                    expected: Some(target.id.clone()),
                }
            }
            _ => Question {
                kind: QuestionKind::Absente,
                text: absent[i % absent.len()].to_owned(),
                expected: None,
            },
        };
        qs.push(q);
    }
    (fiches, qs)
}

/// The fiches in the seed's JSON lines format.
pub fn to_jsonl(fiches: &[Fiche]) -> String {
    fiches
        .iter()
        .map(|f| serde_json::to_string(f).unwrap_or_default() + "\n")
        .collect()
}

/// The questions in the seed's CSV format (`;`, CRLF, as Python's csv module writes them).
pub fn to_csv(questions: &[Question]) -> String {
    let mut w = csv::WriterBuilder::new()
        .delimiter(b';')
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    w.write_record(["type", "question", "fiche_attendue"]).ok();
    for q in questions {
        w.write_record([
            q.kind.as_str(),
            &q.text,
            q.expected.as_deref().unwrap_or(""),
        ])
        .ok();
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{check_expected, parse_fiches, parse_questions};

    #[test]
    fn same_seed_same_catalogue_in_the_seed_formats() {
        let bundled = parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        let (f1, q1) = catalogue(&bundled, 1000, 40, 7);
        let (f2, q2) = catalogue(&bundled, 1000, 40, 7);
        assert_eq!((&f1, &q1), (&f2, &q2));
        let fiches = parse_fiches(&to_jsonl(&f1)).unwrap();
        let questions = parse_questions(&to_csv(&q1)).unwrap();
        assert_eq!((fiches.len(), questions.len()), (1000, 40));
        check_expected(&fiches, &questions).unwrap();
        assert_ne!(
            catalogue(&bundled, 10, 5, 8).0,
            catalogue(&bundled, 10, 5, 7).0
        );
    }
}
