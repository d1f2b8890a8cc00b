//! The element ids `www/index.html` provides and the page's Rust reads or fills: one constant each,
//! checked all at once when the page starts ([`missing`]), so that a renamed id fails loudly at
//! start-up instead of silently at the first click. Ids of elements the panels create themselves
//! are constants too, below.

// The header and the guide.
pub const RESUME: &str = "resume";
/// What a link asked for that this browser cannot show (its data are elsewhere).
pub const NOTE_LIEN: &str = "note-lien";
pub const COMMENCER: &str = "commencer";
pub const COMMENCER_FERMER: &str = "commencer-fermer";
/// « Par où commencer »'s steps, folded on a phone.
pub const COMMENCER_GUIDE: &str = "commencer-guide";
pub const TEST_BUILD: &str = "test-build";
pub const COUTS: &str = "couts";
pub const ERREUR: &str = "erreur";
// A call waiting before its next attempt.
pub const ATTENTE: &str = "attente";
pub const ATTENTE_TEXTE: &str = "attente-texte";
pub const REESSAYER: &str = "reessayer";
pub const ATTENTE_ANNULER: &str = "attente-annuler";
// The settings, and the key.
pub const REGLAGES: &str = "reglages";
pub const VERIFIER_CLE: &str = "verifier-cle";
pub const RETENIR_AVERTISSEMENT: &str = "retenir-avertissement";
pub const RETENIR_AVERTISSEMENT_TEXTE: &str = "retenir-avertissement-texte";
pub const RETENIR_CONFIRMER: &str = "retenir-confirmer";
pub const VERIFICATION: &str = "verification";
pub const CLE: &str = "cle";
pub const RETENIR: &str = "retenir";
pub const OUBLIER: &str = "oublier";
pub const CLE_ETAT: &str = "cle-etat";
// The fiche vectors.
pub const VECTEURS_ETAT: &str = "vecteurs-etat";
pub const CALCULER: &str = "calculer";
pub const TELECHARGER: &str = "telecharger";
pub const CALCUL: &str = "calcul";
pub const PROGRESSION: &str = "progression";
pub const CALCUL_MESSAGE: &str = "calcul-message";
pub const ANNULER_CALCUL: &str = "annuler-calcul";
pub const VECTEURS_MESSAGE: &str = "vecteurs-message";
// The learner's own data.
pub const DEPOT: &str = "depot";
pub const FICHIERS: &str = "fichiers";
pub const DONNEES_ETAT: &str = "donnees-etat";
pub const LIMITE_FICHES: &str = "limite-fiches";
pub const DONNEES_ERREURS: &str = "donnees-erreurs";
pub const REVENIR: &str = "revenir";
// The tabs and the shared link.
pub const ONGLET_CHERCHER: &str = "onglet-chercher";
pub const ONGLET_MESURER: &str = "onglet-mesurer";
pub const ONGLET_AMELIORER: &str = "onglet-ameliorer";
pub const ONGLET_QUESTIONS: &str = "onglet-questions";
pub const COPIER_LIEN: &str = "copier-lien";
pub const PARTAGE: &str = "partage";
pub const LIEN: &str = "lien";
pub const LIEN_ETAT: &str = "lien-etat";
pub const VUE_CHERCHER: &str = "vue-chercher";
pub const VUE_MESURER: &str = "vue-mesurer";
pub const VUE_AMELIORER: &str = "vue-ameliorer";
pub const VUE_QUESTIONS: &str = "vue-questions";
// « Chercher ».
pub const QUESTION: &str = "question";
pub const EXEMPLES: &str = "exemples";
/// The examples' label: the exercise's questions, or the learner's.
pub const EXEMPLES_ETIQUETTE: &str = "exemples-etiquette";
pub const ATTENDUE: &str = "attendue";
pub const METHODES: &str = "methodes";
pub const INDISPONIBLES: &str = "indisponibles";
pub const ECART: &str = "ecart-mots-plus";
pub const RESUME_RESULTATS: &str = "resume-resultats";
pub const RESULTATS: &str = "resultats";
// The answer.
pub const REPONSE_METHODE: &str = "reponse-methode";
pub const REPONSE_MODELE: &str = "reponse-modele";
pub const REDIGER: &str = "rediger";
pub const REDIGER_ETAT: &str = "rediger-etat";
pub const ENVOI: &str = "envoi";
pub const ENVOI_TEXTE: &str = "envoi-texte";
pub const REPONSE_RESULTAT: &str = "reponse-resultat";
// « Mesurer ».
pub const MESURES_SENS: &str = "mesures-sens";
pub const MESURES: &str = "mesures";
pub const MESURES_REPONSES: &str = "mesures-reponses";
pub const EVAL_METHODE: &str = "eval-methode";
pub const EVAL_MODELE: &str = "eval-modele";
pub const EVAL_ACTIONS: &str = "eval-actions";
pub const EVAL_ETAT: &str = "eval-etat";
pub const EVAL_RESULTAT: &str = "eval-resultat";
pub const EVAL_JUGE: &str = "eval-juge";
pub const RECLASSER_ACTIONS: &str = "reclasser-actions";
pub const RECLASSER_ETAT: &str = "reclasser-etat";
pub const RECLASSER_RESULTAT: &str = "reclasser-resultat";
pub const REPONSES_LIVREES: &str = "reponses-livrees";
// « Questions sans réponse ».

/// Every id above, which `index.html` must hold.
pub const IN_PAGE: [&str; 69] = [
    RETENIR_AVERTISSEMENT,
    RETENIR_AVERTISSEMENT_TEXTE,
    RETENIR_CONFIRMER,
    ATTENTE,
    ATTENTE_TEXTE,
    REESSAYER,
    ATTENTE_ANNULER,
    VERIFIER_CLE,
    VERIFICATION,
    RESUME,
    NOTE_LIEN,
    TEST_BUILD,
    COUTS,
    ERREUR,
    CLE,
    RETENIR,
    OUBLIER,
    CLE_ETAT,
    VECTEURS_ETAT,
    CALCULER,
    TELECHARGER,
    CALCUL,
    PROGRESSION,
    CALCUL_MESSAGE,
    ANNULER_CALCUL,
    VECTEURS_MESSAGE,
    DEPOT,
    FICHIERS,
    DONNEES_ETAT,
    DONNEES_ERREURS,
    REVENIR,
    ONGLET_CHERCHER,
    ONGLET_MESURER,
    ONGLET_AMELIORER,
    ONGLET_QUESTIONS,
    COPIER_LIEN,
    PARTAGE,
    LIEN,
    LIEN_ETAT,
    VUE_CHERCHER,
    VUE_MESURER,
    VUE_AMELIORER,
    VUE_QUESTIONS,
    QUESTION,
    EXEMPLES,
    EXEMPLES_ETIQUETTE,
    ATTENDUE,
    METHODES,
    RESULTATS,
    REPONSE_METHODE,
    REPONSE_MODELE,
    REDIGER,
    ENVOI,
    ENVOI_TEXTE,
    REPONSE_RESULTAT,
    MESURES_SENS,
    MESURES,
    MESURES_REPONSES,
    EVAL_METHODE,
    EVAL_MODELE,
    EVAL_ACTIONS,
    EVAL_ETAT,
    EVAL_RESULTAT,
    EVAL_JUGE,
    RECLASSER_ACTIONS,
    RECLASSER_ETAT,
    RECLASSER_RESULTAT,
    REPONSES_LIVREES,
    "app",
];

// Elements the panels create.
pub const COMPARER_A: &str = "comparer-a";
pub const COMPARER_B: &str = "comparer-b";
/// « Importer un run » (a file field drawn in « Mesurer »).
pub const IMPORTER_RUN: &str = "importer-run";
/// « Questions »' file input for another judge's qrels (mapped here: its files are held).
pub const JUGER_IMPORTER: &str = "juger-importer";
pub const MESURER_SENS: &str = "mesurer-sens";
pub const MESURE_SENS_ETAT: &str = "mesure-sens-etat";
pub const EVAL_LANCER: &str = "eval-lancer";
pub const EVAL_CONFIRMER: &str = "eval-confirmer";
pub const EVAL_ANNULER: &str = "eval-annuler";
pub const EVAL_PROGRESSION: &str = "eval-progression";
pub const RECLASSER_LANCER: &str = "reclasser-lancer";
pub const RECLASSER_CONFIRMER: &str = "reclasser-confirmer";
pub const RECLASSER_ANNULER: &str = "reclasser-annuler";
pub const RECLASSER_PROGRESSION: &str = "reclasser-progression";
pub const OUVRIR_REGLAGES: &str = "ouvrir-reglages";
/// « Montrer sens local et hybride local », offered beside « Ouvrir les réglages » to a learner
/// without a key.
pub const ESSAYER_LOCAL: &str = "essayer-local";

/// The checkbox that shows or hides `method`'s column.
pub fn method_choice(m: crate::lab::Method) -> String {
    format!("voir-{}", m.slug())
}

/// `method`'s results column.
pub fn column(m: crate::lab::Method) -> String {
    format!("colonne-{}", m.slug())
}

/// The ids of [`IN_PAGE`] the document lacks.
pub fn missing(doc: &web_sys::Document) -> Vec<&'static str> {
    IN_PAGE
        .into_iter()
        .filter(|id| doc.get_element_by_id(id).is_none())
        .collect()
}
