//! `reponses`'s command line: its arguments and their checks.

use rag_fiches::cli::Fail;
use rag_fiches::lab::Method;
use rag_fiches::mistral::chat;

pub struct Args {
    pub fiches: String,
    pub questions: String,
    pub out: String,
    pub methods: Option<Vec<Method>>,
    pub model: String,
    pub judge: String,
    pub reranker: String,
    pub vectors: String,
    pub local_vectors: String,
    pub local_model: String,
    pub up_to_date: bool,
}

pub fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, Fail> {
    let mut a = Args {
        fiches: "data/fiches.jsonl".into(),
        questions: "data/questions.csv".into(),
        out: "data/reponses.json".into(),
        methods: None,
        model: chat::DEFAULT_MODEL.into(),
        judge: chat::cheapest().into(),
        reranker: chat::DEFAULT_MODEL.into(),
        vectors: "data/vecteurs.safetensors".into(),
        local_vectors: "data/vecteurs-local.safetensors".into(),
        local_model: "data/modele-local.safetensors".into(),
        up_to_date: false,
    };
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| Fail::Usage(format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--fiches" => a.fiches = value()?,
            "--questions" => a.questions = value()?,
            "--out" => a.out = value()?,
            "--modele" => a.model = value()?,
            "--juge" => a.judge = value()?,
            "--reclasseur" => a.reranker = value()?,
            "--vectors" => a.vectors = value()?,
            "--vecteurs-local" => a.local_vectors = value()?,
            "--modele-local" => a.local_model = value()?,
            "--methodes" => {
                let list = value()?;
                let methods = list
                    .split(',')
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .map(|m| {
                        Method::parse(m).ok_or_else(|| {
                            Fail::Usage(format!(
                                "unknown method \"{m}\": expected mots, mots+, sens, hybride, hybride+, sens-local or hybride-local"
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if methods.is_empty() {
                    return Err(Fail::Usage("--methodes names no method".into()));
                }
                a.methods = Some(methods);
            }
            "--a-jour" => a.up_to_date = true,
            "-h" | "--help" => return Err(Fail::Help),
            other => return Err(Fail::Usage(format!("unknown argument \"{other}\""))),
        }
    }
    for m in [&a.model, &a.judge, &a.reranker] {
        if !chat::is_offered(m) {
            return Err(Fail::Usage(format!(
                "unknown chat model \"{m}\": expected one of {}",
                chat::models().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    Ok(a)
}
