//! Two fiches, a question file and a question, written as the bundled files are, for code that
//! should run once before it counts. The first module searches them while its own files are on
//! their way (`web::first`): in a page just opened, the browser compiles each WebAssembly function
//! at its first call, so a first index build costs several times the same build done again
//! (docs/benchmarks-history.md).

/// Two fiches in the JSON Lines of `fiches.jsonl`, accents included (they take the
/// normaliser's path).
pub const FICHES: &str = concat!(
    r#"{"id": "R-0001", "famille": "Colles et joints", "nom": "Joint époxy, seau de 5 kg", "#,
    r#""texte": "Joint époxy bicomposant pour carrelage, seau de 5 kg. Famille : colles et "#,
    r#"joints. Usage : joints de faïence en cuisine et dans les salles de bains."}"#,
    "\n",
    r#"{"id": "R-0002", "famille": "Isolation", "nom": "Laine de verre, rouleau de 100 mm", "#,
    r#""texte": "Laine de verre en rouleau, épaisseur 100 mm. Famille : isolation. Usage : "#,
    r#"isoler les combles perdus, à poser entre les solives."}"#,
    "\n"
);
/// One question in the seed's CSV (`questions.csv`).
pub const QUESTIONS: &str =
    "type;question;fiche_attendue\r\nexacte;Joint époxy bicomposant;R-0001\r\n";
/// A question whose words `mots+` stems, drops and keeps, found in both fiches.
pub const QUESTION: &str =
    "Quels joints époxy pour la faïence des salles de bains, et quel isolant peut-on poser ?";
