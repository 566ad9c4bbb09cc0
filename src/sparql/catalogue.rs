//! The catalogue of ready queries: `queries/*.rq`, embedded in the binary.
//!
//! Each file opens with a comment saying what it answers and a `Returns:` line
//! naming its variables; `kld queries`, `/queries` and the page show both.

/// One query of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct NamedQuery {
    /// Name (the file stem).
    pub name: &'static str,
    /// The SPARQL text, opening with its description comment.
    pub text: &'static str,
}

macro_rules! catalogue {
    ($($name:literal),* $(,)?) => {
        &[$(NamedQuery { name: $name, text: include_str!(concat!("../../queries/", $name, ".rq")) }),*]
    };
}

/// The embedded catalogue, by name.
pub const CATALOGUE: &[NamedQuery] = catalogue![
    "benchmark-stats",
    "capture-errors-by-model",
    "duplicate-ids",
    "graphs",
    "hardest-questions",
    "keywords",
    "latest-result-per-question",
    "model-performance",
    "outcome-classes",
    "pass-rate-by-adele",
    "pass-rate-by-benchmark",
    "pass-rate-by-keyword",
    "pass-rate-by-label",
    "question-usage",
    "questions",
    "questions-by-author",
    "questions-without-template",
    "regex-traits",
    "repairs",
    "replicate-pass-rates",
    "results",
    "results-by-model",
    "results-without-files",
    "results-without-question",
    "rubric-score-aggregates",
    "run-diff",
    "run-summary",
    "runs",
    "scenarios",
    "scores-by-trait",
    "scores-by-trait-and-judge",
    "shared-questions",
    "templates",
    "tokens-by-combo",
    "trait-scores",
    "traits",
    "traits-by-type",
    "unfinished",
    "verification-history",
];

impl NamedQuery {
    /// What the query answers (the opening comment, without `Returns:`).
    pub fn description(&self) -> String {
        self.comment_lines()
            .filter(|l| !l.starts_with("Returns:"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The variables it returns (the `Returns:` comment line).
    pub fn returns(&self) -> &'static str {
        self.comment_lines()
            .find_map(|l| l.strip_prefix("Returns:"))
            .map(str::trim)
            .unwrap_or("")
    }

    fn comment_lines(&self) -> impl Iterator<Item = &'static str> {
        self.text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
    }
}

/// Finds a catalogue query by name.
pub fn find(name: &str) -> Option<&'static NamedQuery> {
    CATALOGUE.iter().find(|q| q.name == name)
}

/// The catalogue query names nearest to `name` (by edit distance), best first:
/// for a "did you mean" on a typo.
pub fn suggest(name: &str) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = CATALOGUE
        .iter()
        .map(|q| (strsim::levenshtein(name, q.name), q.name))
        .filter(|(d, n)| *d <= (n.len() / 3).max(2) || n.contains(name))
        .collect();
    scored.sort();
    scored.into_iter().map(|(_, n)| n).take(3).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_suggest_the_nearest_names() {
        assert_eq!(suggest("benchmark-stat")[0], "benchmark-stats");
        assert_eq!(suggest("questons")[0], "questions");
        assert!(suggest("zzzzzzzzzzzz").is_empty());
    }
}
