//! Per-article statistics, computed in parallel over each set's records.
//!
//! Every statistic uses the report tokens ([`TokenKind::WordsAndPunctuation`]):
//! UAX #29 word segments, lowercased, punctuation segments included, whitespace
//! not; tokens are compared by their 64-bit hashes.

use rayon::prelude::*;
use tempora_novelty::tokens::{token_hashes_into, TokenKind};

use crate::error::ReportError;
use crate::fragments::{
    fragments, novel_ngram_percent, ArticleIndex, Extractiveness, NOVEL_NGRAM_SIZES,
};
use crate::read::{for_each_chunk, parse_record, FactEntity, NoveltyField, SetFile};

/// Lines handed to the thread pool at a time: enough to keep the cores busy, few
/// enough that a set never sits in memory whole.
const CHUNK_LINES: usize = 4096;

/// Newsroom's and SummEval's statistics of one article.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStats {
    /// Summary tokens.
    pub summary_tokens: usize,
    /// Article tokens.
    pub article_tokens: usize,
    /// Coverage, density and compression.
    pub extractiveness: Extractiveness,
    /// Percent of novel n-grams for n = 1..4 (`None` when the summary is shorter).
    pub novel: [Option<f64>; 4],
}

/// Reusable buffers of one worker thread.
#[derive(Debug, Default)]
pub struct Scratch {
    summary: Vec<u64>,
    article: Vec<u64>,
    index: ArticleIndex,
}

/// The statistics of a summary against its article.
pub fn text_stats(summary: &str, document: &str, scratch: &mut Scratch) -> TextStats {
    let kind = TokenKind::WordsAndPunctuation;
    token_hashes_into(summary, kind, &mut scratch.summary);
    token_hashes_into(document, kind, &mut scratch.article);
    scratch.index.rebuild(&scratch.article);
    let (s, a, index) = (&scratch.summary, &scratch.article, &scratch.index);
    let found = fragments(s, a, index);
    TextStats {
        summary_tokens: s.len(),
        article_tokens: a.len(),
        extractiveness: Extractiveness::of(&found, s.len(), a.len()),
        novel: NOVEL_NGRAM_SIZES.map(|n| novel_ngram_percent(s, a, index, n)),
    }
}

/// One article of a set: what the record says about it and its statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleRow {
    /// News source, when named.
    pub source: Option<String>,
    /// Year of publication, when dated.
    pub year: Option<i32>,
    /// Entities of its evolving facts.
    pub entities: Vec<FactEntity>,
    /// Relations of its evolving facts.
    pub relations: Vec<String>,
    /// Its novelty, when scored.
    pub novelty: Option<NoveltyField>,
    /// Its statistics.
    pub stats: TextStats,
}

/// Reads a set and computes every article's statistics, in file order.
///
/// # Errors
/// The file cannot be read, or a line is not an article record (the error names
/// the file, the line and the field).
pub fn analyze_set(set: &SetFile) -> Result<Vec<ArticleRow>, ReportError> {
    let mut rows = Vec::new();
    for_each_chunk(set, CHUNK_LINES, |lines| {
        let chunk: Vec<Result<ArticleRow, ReportError>> = lines
            .par_iter()
            .map_init(Scratch::default, |scratch, (line, bytes)| {
                let record = parse_record(bytes).map_err(|message| ReportError::BadRecord {
                    path: set.path.clone(),
                    line: *line,
                    message,
                })?;
                let stats = text_stats(&record.summary, &record.document, scratch);
                Ok(ArticleRow {
                    source: record.source,
                    year: record.year,
                    entities: record.entities,
                    relations: record.relations,
                    novelty: record.novelty,
                    stats,
                })
            })
            .collect();
        // The first bad line in file order, whichever thread saw it.
        for row in chunk {
            rows.push(row?);
        }
        Ok(())
    })?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_use_words_and_punctuation() {
        let mut scratch = Scratch::default();
        let s = text_stats(
            "Biden signs orders.",
            "On Wednesday, Biden signs orders. Masks are required.",
            &mut scratch,
        );
        // Summary tokens: biden signs orders . ; article: 11 tokens.
        assert_eq!((s.summary_tokens, s.article_tokens), (4, 11));
        assert_eq!(s.extractiveness.coverage, 1.0);
        assert_eq!(s.extractiveness.density, 4.0);
        assert_eq!(s.novel, [Some(0.0), Some(0.0), Some(0.0), Some(0.0)]);
        // Case is ignored; a new word makes its n-grams novel.
        let s = text_stats("BIDEN signs new orders", "biden signs orders", &mut scratch);
        assert_eq!(s.extractiveness.coverage, 0.75);
        assert_eq!(s.extractiveness.density, (4.0 + 1.0) / 4.0);
        assert_eq!(s.novel[0], Some(25.0));
        assert_eq!(s.novel[1], Some(200.0 / 3.0));
        assert_eq!(s.novel[3], Some(100.0));
    }
}
