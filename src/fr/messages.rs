//! The French sentence of every error a learner can meet, each saying what went wrong and what to
//! do. Every match is exhaustive (no `_ =>`): a new error variant does not compile until it has
//! its sentence here. The core's `Display` messages (English) are for the terminal and the logs.

use crate::answer::shipped::ShippedError;
use crate::data::intake::IntakeError;
use crate::data::npy::NpyError;
use crate::data::vectors::{VectorsError, NORM_TOLERANCE};
use crate::data::{DataError, JsonProblem, JsonType, QuestionKind};
use crate::encoder::ModelError;
use crate::lab::SearchError;
use crate::measure::graded::{QrelsError, QrelsProblem};
use crate::measure::import::{RunError, RunProblem, MAX_PER_QUESTION};
use crate::mistral::{ApiError, KeyError, WaitReason};
use crate::search::dense::DenseError;

use super::{decimal, int};

fn megabytes(bytes: u64) -> String {
    decimal(bytes as f64 / 1_048_576.0, 1)
}

/// A data error as the learner reads it: the file, the line, the field, what to do.
pub fn data(e: &DataError) -> String {
    data_in(e, "fiches.jsonl", "questions.csv")
}

/// [`data`], naming the learner's files as they are called (`fiches` holds the fiches,
/// `questions` the questions).
pub fn data_in(e: &DataError, fiches: &str, questions: &str) -> String {
    let name = |file: &str| {
        if file == "questions.csv" {
            questions.to_owned()
        } else {
            fiches.to_owned()
        }
    };
    match e {
        DataError::Empty { file } => format!("{} : le fichier est vide.", name(file)),
        DataError::HeaderOnly { file } => format!(
            "{} : la ligne d'en-tête est là, mais aucune question ne la suit.",
            name(file)
        ),
        DataError::Json { line, column, problem } => {
            let at = column.map_or(String::new(), |c| format!(", colonne {c}"));
            let why = match problem {
                JsonProblem::Syntax => "ce n'est pas du JSON valide (guillemet, virgule ou accolade manquant ?)",
                JsonProblem::Truncated => "l'objet JSON s'arrête avant son accolade fermante",
                JsonProblem::NotObject => "une fiche doit être un objet JSON { … }, pas une liste, un texte ou un nombre",
            };
            format!("{fiches}, ligne {line}{at} : {why}.")
        }
        DataError::MissingField { file, line, field } => {
            format!("{}, ligne {line} : le champ « {field} » manque (un texte est attendu).", name(file))
        }
        DataError::WrongType {
            file,
            line,
            field,
            found,
        } => {
            let found = match found {
                JsonType::Number => "un nombre",
                JsonType::Bool => "true ou false",
                JsonType::Null => "null",
                JsonType::List => "une liste",
                JsonType::Object => "un objet",
            };
            format!(
                "{}, ligne {line} : le champ « {field} » doit être un texte entre guillemets, pas {found}.",
                name(file)
            )
        }
        DataError::EmptyField { file, line, field } => {
            format!("{}, ligne {line} : le champ « {field} » est vide.", name(file))
        }
        DataError::IdWithSpace { line, id } => format!(
            "fiches.jsonl, ligne {line} : l'identifiant « {} » contient une espace, un saut de ligne ou un caractère invisible ; un identifiant est un seul mot visible (les citations [AR-0040] et les fichiers TREC en ont besoin, et deux identifiants ne doivent pas se ressembler sans être égaux).",
            id.escape_debug()
        ),
        DataError::DuplicateId { id, first_line, line } => format!(
            "{fiches}, ligne {line} : l'identifiant « {id} » est déjà pris ligne {first_line} ; chaque fiche doit avoir le sien."
        ),
        DataError::BadHeader { found } => format!(
            "{questions}, ligne 1 : l'en-tête doit être « type;question;fiche_attendue », il est « {found} » (le séparateur est-il bien « ; » ?)."
        ),
        DataError::Csv { line, message } => {
            let hint = if message.contains("separated by") {
                " Le séparateur est-il bien « ; » ?"
            } else {
                ""
            };
            format!("{questions}, ligne {line} : ligne illisible (guillemets non fermés, ou nombre de champs différent de 3).{hint}")
        }
        DataError::UnknownKind { line, found } => format!(
            "{questions}, ligne {line} : le type « {found} » n'existe pas ; exacte, courante ou absente."
        ),
        DataError::ExpectedMismatch { line, kind } => match kind {
            QuestionKind::Absente => format!(
                "{questions}, ligne {line} : une question absente laisse « fiche_attendue » vide."
            ),
            QuestionKind::Exacte | QuestionKind::Courante => format!(
                "{questions}, ligne {line} : « fiche_attendue » est vide ; une question {} doit nommer sa fiche.",
                kind.as_str()
            ),
        },
        DataError::UnknownExpected { line, id } => format!(
            "{questions}, ligne {line} : la fiche attendue « {id} » n'est pas dans vos fiches."
        ),
    }
}

/// The worker received a model file whose content hash is not the one the page names.
pub fn model_not_this_page(bytes: usize, found: &str, expected: &str) -> String {
    let short = |h: &str| h.chars().take(7 + 12).collect::<String>();
    format!(
        "le fichier reçu ({} octets, empreinte {}…) n'est pas celui de cette page (empreinte attendue {}…)",
        crate::fr::int(bytes as u64),
        short(found),
        short(expected)
    )
}

/// Why the local encoder's model file was refused (the format's own words, when it has some, in
/// parentheses).
pub fn model(e: &ModelError) -> String {
    match e {
        ModelError::Format(why) => format!(
            "ce n'est pas un fichier de modèle lisible, tronqué ou d'un autre format ({why})"
        ),
        ModelError::Missing(name) => {
            format!("il manque le tenseur « {name} » : le fichier est incomplet")
        }
        ModelError::Shape {
            name,
            expected,
            found,
        } => format!("le tenseur « {name} » est {found} au lieu de {expected}"),
        ModelError::Tokenizer(why) => format!("son découpage en mots est illisible ({why})"),
    }
}

/// Why a vectors file was refused (without the file's name: callers prefix it).
pub fn vectors(e: &VectorsError) -> String {
    match e {
        VectorsError::TooLarge { bytes, max } => format!(
            "{} Mo, au-delà de la limite de {} Mo.",
            megabytes(*bytes as u64),
            megabytes(*max as u64)
        ),
        VectorsError::Unreadable { .. } => {
            "ce n'est pas un fichier safetensors lisible (tronqué, ou d'un autre format).".into()
        }
        VectorsError::NotOurs { found } => format!(
            "ce fichier safetensors n'a pas été fait par rag-fiches (format « {found} ») : calculez les vecteurs ici ou avec la commande vecteurs."
        ),
        VectorsError::MissingMetadata { key } => {
            format!("il manque l'information « {key} » dans l'en-tête : le fichier est incomplet.")
        }
        VectorsError::BadMetadata { key, found } => {
            format!("l'information « {key} » de l'en-tête est invalide (« {found} »).")
        }
        VectorsError::WrongTensor { .. } => {
            "le tableau de vecteurs n'a pas le type ou la forme attendus (F16, fiches × dimensions).".into()
        }
        VectorsError::Model { expected, found } => format!(
            "fait avec le modèle « {found} », attendu « {expected} » : des vecteurs de modèles différents ne se comparent pas."
        ),
        VectorsError::Dim { expected, found } => {
            format!("{found} dimensions, attendu {expected}.")
        }
        VectorsError::Count { expected, found } => format!(
            "{found} vecteurs pour {expected} fiches : il a été fait pour un autre catalogue."
        ),
        VectorsError::Ids { row, expected, found } => format!(
            "la ligne {row} est la fiche {found}, attendu {expected} : il a été fait pour d'autres fiches."
        ),
        VectorsError::OtherFiches { .. } => {
            "l'empreinte des textes ne correspond pas : les fiches ont changé depuis son calcul.".into()
        }
        VectorsError::NotFinite { row } => {
            format!("la ligne {row} contient une valeur non numérique (NaN ou infinie).")
        }
        VectorsError::Norm { row, norm } => format!(
            "la ligne {row} a une norme de {}, attendu 1 (à {} près) : vecteur nul ou non normalisé.",
            decimal(f64::from(*norm), 4),
            decimal(f64::from(NORM_TOLERANCE), 2)
        ),
        VectorsError::Store { .. } => "les vecteurs n'ont pas pu être écrits dans le stockage du navigateur (espace plein ?) : libérez de la place, ou chargez-les dans une fenêtre ordinaire.".into(),
    }
}

/// Why a `.npy` file was refused (without the file's name: callers prefix it).
pub fn npy(e: &NpyError) -> String {
    match e {
        NpyError::NotNpy => "ce n'est pas un fichier .npy (il doit commencer par \\x93NUMPY).".into(),
        NpyError::Truncated { expected, found } => format!(
            "le fichier est tronqué : {} octets de données, son en-tête en annonce {}.",
            int(*found as u64),
            int(*expected as u64)
        ),
        NpyError::Header { .. } => "l'en-tête du .npy est illisible.".into(),
        NpyError::Dtype { found } => format!(
            "valeurs de type {found} : seuls les flottants float32 (<f4) et float64 (<f8) petit-boutistes sont lus."
        ),
        NpyError::FortranOrder => {
            "le tableau est en ordre Fortran : enregistrez-le avec np.save(…, np.ascontiguousarray(v)).".into()
        }
        NpyError::Shape { found } => {
            format!("forme {found} : attendu 2 dimensions (fiches, valeurs).")
        }
        NpyError::TooLarge { bytes, max } => format!(
            "{} Mo, au-delà de la limite de {} Mo.",
            megabytes(*bytes as u64),
            megabytes(*max as u64)
        ),
    }
}

/// Why a dense comparison could not be made.
pub fn dense(e: &DenseError) -> String {
    match e {
        DenseError::Dim { expected, found } => format!(
            "le vecteur de la question a {found} dimensions, ceux des fiches {expected} : ils ne viennent pas du même modèle."
        ),
        DenseError::NotFinite => {
            "le vecteur de la question contient une valeur non numérique (NaN ou infinie).".into()
        }
        DenseError::NotUnit { norm } => format!(
            "le vecteur de la question a une norme de {}, pas de 1 : il n'est pas celui de mistral-embed.",
            crate::fr::decimal(*norm, 3)
        ),
        DenseError::Rows { .. } => {
            "les valeurs exactes des fiches retenues n'ont pas pu être relues dans le stockage du navigateur : chargez les vecteurs à nouveau.".into()
        }
    }
}

/// Why a search could not run.
pub fn search(e: &SearchError) -> String {
    match e {
        SearchError::NoVectors => {
            "Cette méthode a besoin des vecteurs des fiches (voyez « Vecteurs des fiches »).".into()
        }
        SearchError::NoQuestionVector { .. } => {
            "La question n'est pas encore plongée : attendez ses résultats sous cette méthode."
                .into()
        }
        SearchError::Dense(d) => format!("Recherche impossible : {}", dense(d)),
        SearchError::Pending => "Recherche par le sens en cours.".into(),
    }
}

/// What the learner reads when a call to Mistral fails.
pub fn api(e: &ApiError) -> String {
    match e {
        ApiError::KeyRefused { status } => format!(
            "Clé refusée (HTTP {status}) : vérifiez-la sur console.mistral.ai, ou créez-en une autre."
        ),
        ApiError::RateLimited => {
            "Trop de requêtes (HTTP 429), même après avoir attendu : réessayez dans une minute.".into()
        }
        ApiError::Server { status } => format!(
            "Le service de Mistral est en panne (HTTP {status}) après plusieurs essais : réessayez plus tard."
        ),
        ApiError::Rejected { status, message } => {
            let stop = if message.ends_with(['.', '!', '?']) { "" } else { "." };
            format!("La requête a été refusée (HTTP {status}) : {message}{stop}")
        }
        ApiError::Network { .. } => {
            "Pas de réponse de l'API (hors ligne, ou requête bloquée par le navigateur) : vérifiez la connexion.".into()
        }
        ApiError::Timeout {
            seconds,
            resent: true,
        } => format!("L'API n'a pas répondu en {seconds} s, après plusieurs essais : réessayez plus tard."),
        ApiError::Timeout {
            seconds,
            resent: false,
        } => format!(
            "Pas de réponse en {seconds} s. La demande n'a pas été renvoyée (elle a pu être facturée) : relancez-la si vous le souhaitez."
        ),
        ApiError::Malformed { .. } => {
            "La réponse de l'API n'est pas celle attendue (ni le JSON documenté, ni une erreur de l'API) : réessayez plus tard.".into()
        }
        ApiError::Cancelled => "Annulé.".into(),
    }
}

/// Why the key typed was not taken (never quoting it).
pub fn key(e: &KeyError) -> String {
    match e {
        KeyError::Empty => "Aucune clé.".to_owned(),
        KeyError::BadCharacter { position, code } => format!(
            "Clé refusée avant tout envoi : son caractère {position} (U+{code:04X}) ne peut pas voyager dans un en-tête HTTP (espace insécable, caractère invisible, accent ?). Copiez-la à nouveau depuis console.mistral.ai."
        ),
    }
}

/// A call waiting before its next attempt, with the seconds left.
pub fn wait(reason: WaitReason, seconds: u32) -> String {
    let why = match reason {
        WaitReason::RateLimited => "Trop de requêtes (HTTP 429)".to_owned(),
        WaitReason::Server(status) => format!("Le service de Mistral répond HTTP {status}"),
        WaitReason::Network => "Pas de réponse de l'API".to_owned(),
        WaitReason::Timeout => "L'API n'a pas répondu à temps".to_owned(),
    };
    format!("{why} : nouvel essai dans {seconds} s.")
}

/// Why the learner's files were not read.
pub fn intake(e: &IntakeError) -> String {
    match e {
        IntakeError::Unrecognised { name } => format!(
            "{name} : fichier non reconnu (attendu : .jsonl, .csv, .safetensors ou .npy)."
        ),
        IntakeError::TooLarge { name, bytes, max } => format!(
            "{name} : {} Mo, au-delà de la limite de {} Mo pour ce type de fichier : il n'a pas été lu.",
            megabytes(*bytes),
            decimal(*max as f64 / 1_048_576.0, 0)
        ),
        IntakeError::FichesTooLarge { name, bytes, max } => format!(
            "{name}\u{a0}: {}\u{a0}Mo de fiches, au-delà de ce que la mémoire de cet appareil permet à la page d'indexer ({}\u{a0}Mo)\u{a0}: il n'a pas été lu. Le terminal (mesurer) lit les plus grands catalogues.",
            megabytes(*bytes),
            decimal(*max as f64 / 1_048_576.0, 0)
        ),
        IntakeError::Twice { first, second } => format!(
            "{first} et {second} sont du même type : chargez-en un seul à la fois."
        ),
        IntakeError::NoFiches => "Il faut au moins vos fiches (.jsonl)\u{a0}: vos questions (.csv) et vos vecteurs se chargent avec elles.".to_owned(),
        IntakeError::NotUtf8 { name, line } => format!(
            "{name}, ligne {line} : ce n'est pas du texte UTF-8 valide (enregistrez le fichier en UTF-8)."
        ),
    }
}

/// A refused TREC run, named `file`: the line and what to fix; nothing of it was measured.
pub fn run(e: &RunError, file: &str) -> String {
    let why = match &e.problem {
        RunProblem::Fields(n) => format!(
            "{n} champs au lieu de 6 ; une ligne de run s'écrit « qid Q0 fiche rang score nom »"
        ),
        RunProblem::UnknownQuestion(q) => format!(
            "aucune question n'a l'identifiant « {q} » (q01, q02… dans l'ordre du fichier de questions, comme les exports)"
        ),
        RunProblem::UnknownFiche(d) => format!("aucune fiche n'a l'identifiant « {d} » dans ce catalogue"),
        RunProblem::Rank(r) => format!("le rang « {r} » n'est pas un nombre entier"),
        RunProblem::Score(x) => format!("le score « {x} » n'est pas un nombre (point décimal, pas de virgule)"),
        RunProblem::DuplicateRank { qid, rank } => format!("le rang {rank} est donné deux fois pour {qid}"),
        RunProblem::DuplicateFiche { qid, fiche } => format!("{fiche} est classée deux fois pour {qid}"),
        RunProblem::TooMany { qid } => format!(
            "plus de {} résultats pour {qid} : gardez les {} premiers",
            int(MAX_PER_QUESTION as u64),
            int(MAX_PER_QUESTION as u64)
        ),
        RunProblem::Tags { first, other } => format!(
            "deux runs dans un seul fichier (« {first} » puis « {other} ») : un fichier par run"
        ),
        RunProblem::Empty => return format!("{file} : le run est vide, rien n'a été mesuré."),
    };
    format!("{file}, ligne {} : {why}. Rien n'a été mesuré.", e.line)
}

/// A refused qrels file, named `file`: the line and what to fix; nothing of it was kept.
pub fn qrels(e: &QrelsError, file: &str) -> String {
    let why = match &e.problem {
        QrelsProblem::Fields(n) => format!(
            "{n} champs au lieu de 4 ; une ligne de qrels s'écrit « qid 0 fiche note »"
        ),
        QrelsProblem::UnknownQuestion(q) => format!(
            "aucune question n'a l'identifiant « {q} » (q01, q02… dans l'ordre du fichier de questions, comme les exports)"
        ),
        QrelsProblem::UnknownFiche(d) => {
            format!("aucune fiche n'a l'identifiant « {d} » dans ce catalogue")
        }
        QrelsProblem::Grade(g) => format!(
            "la note « {g} » n'est pas un nombre entier de 0 à 3 (3 : la réponse, 2 : une variante, 1 : en rapport, 0 : hors sujet)"
        ),
        QrelsProblem::Duplicate { question, fiche } => {
            format!("{fiche} est jugée deux fois pour {question}")
        }
    };
    format!("{file}, ligne {} : {why}. Rien n'a été gardé.", e.line)
}

#[cfg(test)]
mod tests;

/// Why the shipped answers file (`reponses.json`) was refused: nothing of it is shown.
pub fn shipped(e: &ShippedError) -> String {
    let why = match e {
        ShippedError::TooLarge { bytes, max } => format!(
            "{} Mo, au-delà de la limite de {} Mo",
            megabytes(*bytes as u64),
            megabytes(*max as u64)
        ),
        ShippedError::Unreadable { .. } => {
            "ce n'est pas un fichier de réponses lisible (tronqué, ou d'un autre format)".into()
        }
        ShippedError::NotOurs { found } => {
            format!("il est au format « {found} », que cette page ne lit pas")
        }
        ShippedError::OtherFiches => {
            "il a été calculé pour d'autres fiches (leur empreinte diffère)".into()
        }
        ShippedError::OtherQuestions => {
            "il a été calculé pour d'autres questions (leur empreinte diffère)".into()
        }
        ShippedError::Count {
            part,
            expected,
            found,
        } => format!(
            "« {part} » y a {} réponses pour {} questions",
            int(*found as u64),
            int(*expected as u64)
        ),
        ShippedError::UnknownMethod { name } => {
            format!("il nomme une méthode inconnue, « {name} »")
        }
        ShippedError::UnknownFiche { part, id } => {
            format!("« {part} » y cite la fiche {id}, absente du catalogue")
        }
        ShippedError::Duplicate { part } => format!("« {part} » y figure deux fois"),
        ShippedError::ListShape { part, question } => format!(
            "« {part} », question {question}, y a une liste de fiches plus longue qu'un appel n'en envoie, ou une fiche deux fois"
        ),
        ShippedError::Tokens { part, question } => format!(
            "« {part} », question {question}, y compte plus de tokens qu'aucun appel"
        ),
        ShippedError::OtherFirstStage { part, question } => format!(
            "les 20 fiches relues pour « {part} », question {question}, ne sont pas celles que cette page trouve (fichier ancien ou modifié)"
        ),
    };
    format!("Les réponses calculées d'avance ne sont pas montrées : {why}. Recalculez-les avec la commande reponses.")
}
