//! `pairs`: `mots` and `mots+` beside a real peer, tantivy, on the same fiches and questions.
//!
//! ```text
//! cargo run --release --example pairs [-- --fiches PATH --questions PATH]
//! ```
//!
//! tantivy indexes the same `texte` of every fiche with its own French pipeline: its simple
//! tokenizer (runs of letters and digits), lowercasing, its French stop-word filter (the Snowball
//! project's list), its Snowball French stemmer and ASCII folding — the chain its documentation
//! gives for a language, nothing of ours. Questions go through its query parser (leniently: a
//! question mark is not syntax), so a question is an OR of its terms, scored with tantivy's BM25
//! (k1 = 1.2, b = 0.75; ours use the seed's k1 = 1.5). tantivy breaks ties by the order of
//! indexing (the first fiche first); `mots` and `mots+` keep the seed's rule (the larger id first):
//! the pessimistic figures are the ones that do not depend on that rule.
//!
//! tantivy is a native dev-dependency: nothing of it reaches the page's wasm.

use rag_fiches::data::{check_expected, parse_fiches, parse_questions, Fiche, Question};
use rag_fiches::lab::{Keyword, Lab};
use rag_fiches::measure::{text_tables, Measurement, DEPTH};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, SimpleTokenizer, Stemmer, StopWordFilter,
    TextAnalyzer,
};
use tantivy::{doc, Index, IndexWriter, TantivyDocument};

/// `questions` searched with tantivy over `fiches`, measured as our methods are.
pub fn tantivy_measurement(
    fiches: &[Fiche],
    questions: &[Question],
) -> tantivy::Result<Measurement> {
    let mut schema = Schema::builder();
    let id = schema.add_text_field("id", STRING | STORED);
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("francais")
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let texte = schema.add_text_field(
        "texte",
        TextOptions::default().set_indexing_options(indexing),
    );
    let index = Index::create_in_ram(schema.build());
    let stop_words = StopWordFilter::new(Language::French)
        .ok_or_else(|| tantivy::TantivyError::InvalidArgument("no French stop words".into()))?;
    let french = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .filter(stop_words)
        .filter(Stemmer::new(Language::French))
        .filter(AsciiFoldingFilter)
        .build();
    index.tokenizers().register("francais", french);
    // One thread, one segment: documents keep the catalogue's order, which tantivy's ties follow.
    let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
    for f in fiches {
        writer.add_document(doc!(id => f.id.clone(), texte => f.texte.clone()))?;
    }
    writer.commit()?;
    let searcher = index.reader()?.searcher();
    let parser = QueryParser::for_index(&index, vec![texte]);
    let mut outcomes = Vec::with_capacity(questions.len());
    for q in questions {
        let (query, _ignored) = parser.parse_query_lenient(&q.text);
        let mut top = Vec::new();
        for (score, address) in
            searcher.search(&query, &TopDocs::with_limit(DEPTH + 1).order_by_score())?
        {
            let found: TantivyDocument = searcher.doc(address)?;
            let fiche = found
                .get_first(id)
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            top.push((fiche.to_owned(), f64::from(score)));
        }
        outcomes.push(Measurement::outcome(q, top));
    }
    Ok(Measurement::from_outcomes("tantivy", Some(2), outcomes))
}

/// `mots`, `mots+` and tantivy measured on the same questions.
pub fn measurements(
    fiches: Vec<Fiche>,
    questions: &[Question],
) -> Result<Vec<Measurement>, String> {
    let peer = tantivy_measurement(&fiches, questions).map_err(|e| format!("tantivy: {e}"))?;
    let lab = Lab::new(fiches);
    Ok(vec![
        lab.measure_keyword(Keyword::Mots, questions),
        lab.measure_keyword(Keyword::MotsPlus, questions),
        peer,
    ])
}

fn run() -> Result<String, String> {
    let mut fiches_path = "data/fiches.jsonl".to_owned();
    let mut questions_path = "data/questions.csv".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let target = match arg.as_str() {
            "--fiches" => &mut fiches_path,
            "--questions" => &mut questions_path,
            other => {
                return Err(format!(
                "unknown argument \"{other}\" (usage: pairs [--fiches PATH] [--questions PATH])"
            ))
            }
        };
        *target = args.next().ok_or(format!("{arg} needs a value"))?;
    }
    let fiches = parse_fiches(&rag_fiches::cli::read_text(&fiches_path)?)
        .map_err(|e| format!("{fiches_path}: {e}"))?;
    let questions = parse_questions(&rag_fiches::cli::read_text(&questions_path)?)
        .map_err(|e| format!("{questions_path}: {e}"))?;
    check_expected(&fiches, &questions).map_err(|e| format!("{questions_path}: {e}"))?;
    let ms = measurements(fiches, &questions)?;
    Ok(format!(
        "{} : simple tokenizer, minuscules, mots vides français (Snowball), racine Snowball, ASCII\n\n{}",
        tantivy::version_string(),
        text_tables(&ms)
    ))
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pairs: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
