//! Unresolved merge conflicts: git-style markers left in a checkpoint.
//!
//! Why: a file with `<<<<<<<` lines is not JSON, and "expected value at line
//! 812" sends the user hunting. `kld git-merge` writes these markers around
//! the lines of a conflicting field (its constants are here, so the writer
//! and the reader agree); reading such a file reports each conflict by line
//! and, in Karenina's layout, by question ID instead of a JSON error.

use crate::error::{Diagnostic, Location};
use crate::json::JsonPath;

/// Opens a conflict: our lines follow.
pub const MARKER_OURS: &str = "<<<<<<< ours";
/// Separates our lines from theirs.
pub const MARKER_SEP: &str = "=======";
/// Closes a conflict: their lines precede.
pub const MARKER_THEIRS: &str = ">>>>>>> theirs";

/// One unresolved conflict in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    /// 1-based line of the opening `<<<<<<<` marker.
    pub line: usize,
    /// Byte offset of that line.
    pub offset: usize,
    /// The question it is in, when the file is in Karenina's layout.
    pub question: Option<String>,
}

/// The ID on a DataFeedItem's `@id` line in Karenina's layout (6 spaces).
fn item_id(line: &str) -> Option<String> {
    let rest = line.strip_prefix("      \"@id\": ")?;
    serde_json::from_str::<String>(rest.trim_end().trim_end_matches(',')).ok()
}

/// Every opening conflict marker (a line starting with `<<<<<<<` and a space
/// or the end of line, as git writes them), with the question it is in.
pub fn scan(text: &str) -> Vec<Unresolved> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0usize, |off, l| {
            let at = *off;
            *off += l.len();
            Some((at, l.trim_end_matches(['\n', '\r'])))
        })
        .collect();
    let opens = |l: &str| {
        l.strip_prefix("<<<<<<<")
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
    };
    let mut out = Vec::new();
    let mut in_items = false;
    let mut current: Option<String> = None;
    let mut skipping = false;
    for (i, &(offset, l)) in lines.iter().enumerate() {
        if skipping {
            // Their side of a conflict: our side already set the state.
            skipping = !l.starts_with(">>>>>>>");
            continue;
        }
        if l.starts_with("=======") {
            skipping = true;
            continue;
        }
        if opens(l) {
            let question = if in_items {
                // At a question's start (one side added or removed it): the
                // ID inside the block, on either side.
                current.clone().or_else(|| {
                    lines[i + 1..]
                        .iter()
                        .take_while(|(_, x)| !x.starts_with(">>>>>>>"))
                        .find_map(|(_, x)| item_id(x))
                })
            } else {
                // A conflict that opens the question list is in its first question.
                lines[i + 1..]
                    .iter()
                    .take_while(|(_, x)| !x.starts_with("======="))
                    .skip_while(|(_, x)| !x.starts_with("  \"dataFeedElement\": ["))
                    .find_map(|(_, x)| item_id(x))
            };
            out.push(Unresolved {
                line: i + 1,
                offset,
                question,
            });
            continue;
        }
        if l.starts_with("  \"dataFeedElement\": [") {
            in_items = !l.ends_with(']') && !l.ends_with("],");
        } else if in_items && (l == "  ]" || l == "  ],") {
            in_items = false;
            current = None;
        } else if in_items && matches!(l, "    {" | "    }" | "    },") {
            // Between questions, a conflict is in the question it holds.
            current = None;
        } else if in_items {
            if let Some(id) = item_id(l) {
                current = Some(id);
            }
        }
    }
    out
}

/// The located errors (`KLD-E009`) for the conflict markers in a file that
/// does not parse, or `None` when it has none.
pub(crate) fn diagnostics(text: &str) -> Option<Vec<Diagnostic>> {
    let found = scan(text);
    if found.is_empty() {
        return None;
    }
    Some(
        found
            .into_iter()
            .map(|u| {
                let what = match &u.question {
                    Some(q) => format!("question {q}"),
                    None => "outside the questions: benchmark metadata, traits or order".into(),
                };
                let mut d = Diagnostic::error(
                    "KLD-E009",
                    JsonPath::root(),
                    format!(
                        "unresolved merge conflict at line {} ({what}): keep one side between the `<<<<<<<` and `>>>>>>>` lines and delete the markers",
                        u.line
                    ),
                );
                d.location = Some(Location {
                    offset: u.offset,
                    line: u.line,
                    column: 1,
                });
                d
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_named_by_its_line_and_question() {
        let text = "{\n  \"name\": \"x\",\n  \"dataFeedElement\": [\n    {\n      \"@type\": \"DataFeedItem\",\n      \"@id\": \"urn:q1\",\n      \"item\": {\n<<<<<<< ours\n        \"text\": \"a\"\n=======\n        \"text\": \"b\"\n>>>>>>> theirs\n      }\n    },\n    {\n<<<<<<< ours\n      \"@id\": \"urn:q2\",\n=======\n>>>>>>> theirs\n    }\n  ]\n}";
        let found = scan(text);
        assert_eq!(found.len(), 2);
        assert_eq!(
            (found[0].line, found[0].question.as_deref()),
            (8, Some("urn:q1"))
        );
        assert_eq!(
            (found[1].line, found[1].question.as_deref()),
            (16, Some("urn:q2"))
        );
        assert!(scan("{\"a\": \"<<<<<<< not at a line start\"}").is_empty());
    }
}
