//! Conflict markers: the merge taking our side of every conflict, with
//! git-style markers around the lines where the merge taking theirs differs.
//!
//! Why not one line diff of the two renderings: the two are Karenina's
//! canonical bytes of one benchmark, so they differ only inside conflicted
//! questions (or in the order of whole questions), but a line diff of two
//! 20,000-question files cost minutes and more than a gigabyte. Here each
//! rendering is cut into its head, one chunk per question and its tail
//! (the canonical layout makes the cut exact); questions are aligned by ID
//! (the longest increasing subsequence of their positions, `O(n log n)`),
//! an aligned pair that differs is line-diffed on its own, and questions
//! outside the alignment are whole blocks. Taking one side of every block
//! gives that rendering back, byte for byte. Text without the layout
//! (presets) is line-diffed whole.

pub use crate::model::markers::{MARKER_OURS, MARKER_SEP, MARKER_THEIRS};

/// The opening line of the question list in canonical bytes.
const ITEMS_OPEN: &str = "  \"dataFeedElement\": [\n";
/// The opening line of one question.
const ITEM_OPEN: &str = "    {\n";
/// The ID member of a question (its first `@id` at this indent).
const ITEM_ID: &str = "      \"@id\": ";

/// A rendering cut into head, questions and tail (lines with their newlines).
struct Layout<'a> {
    head: Vec<&'a str>,
    items: Vec<Chunk<'a>>,
    tail: Vec<&'a str>,
}

/// One question's lines, and its ID line when it has one.
struct Chunk<'a> {
    key: Option<&'a str>,
    lines: Vec<&'a str>,
}

impl<'a> Layout<'a> {
    /// `None` when `text` does not have the canonical layout.
    fn of(text: &'a str) -> Option<Layout<'a>> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let open = lines.iter().position(|l| *l == ITEMS_OPEN)?;
        let mut items = Vec::new();
        let mut i = open + 1;
        loop {
            match lines.get(i) {
                Some(&ITEM_OPEN) => {
                    let end = i + lines[i..]
                        .iter()
                        .position(|l| matches!(*l, "    }\n" | "    },\n"))?;
                    let chunk = &lines[i..=end];
                    let key = chunk
                        .iter()
                        .find(|l| l.starts_with(ITEM_ID))
                        .map(|l| l.trim_end_matches(['\n', ',']));
                    items.push(Chunk {
                        key,
                        lines: chunk.to_vec(),
                    });
                    i = end + 1;
                }
                Some(l) if l.starts_with("  ]") => break,
                _ => return None,
            }
        }
        Some(Layout {
            head: lines[..=open].to_vec(),
            items,
            tail: lines[i..].to_vec(),
        })
    }
}

/// The marked text being written.
struct Out<'a> {
    text: String,
    hunk: Option<(Vec<&'a str>, Vec<&'a str>)>,
}

impl<'a> Out<'a> {
    fn line(text: &mut String, l: &str) {
        text.push_str(l);
        if !l.ends_with('\n') {
            text.push('\n');
        }
    }
    fn flush(&mut self) {
        if let Some((x, y)) = self.hunk.take() {
            self.text.push_str(MARKER_OURS);
            self.text.push('\n');
            x.iter().for_each(|l| Self::line(&mut self.text, l));
            self.text.push_str(MARKER_SEP);
            self.text.push('\n');
            y.iter().for_each(|l| Self::line(&mut self.text, l));
            self.text.push_str(MARKER_THEIRS);
            self.text.push('\n');
        }
    }
    fn same(&mut self, ls: &[&'a str]) {
        if ls.is_empty() {
            return;
        }
        self.flush();
        ls.iter().for_each(|l| self.text.push_str(l));
    }
    fn differ(&mut self, ours: &[&'a str], theirs: &[&'a str]) {
        if ours.is_empty() && theirs.is_empty() {
            return;
        }
        let h = self.hunk.get_or_insert_with(Default::default);
        h.0.extend_from_slice(ours);
        h.1.extend_from_slice(theirs);
    }
    /// A line diff of two short runs. Patience: it anchors on unique lines
    /// (IDs, texts), so a trait moved or removed is one block.
    fn diff(&mut self, a: &[&'a str], b: &[&'a str]) {
        if a == b {
            self.same(a);
            return;
        }
        for op in similar::capture_diff_slices(similar::Algorithm::Patience, a, b) {
            let (o, t) = (op.old_range(), op.new_range());
            match op {
                similar::DiffOp::Equal { .. } => self.same(&a[o]),
                _ => self.differ(&a[o], &b[t]),
            }
        }
    }
}

/// `ours` with git-style markers around each run of lines that differs from
/// `theirs` (both are the same merge, taking a different side of each conflict).
pub fn mark(ours: &str, theirs: &str) -> String {
    let mut out = Out {
        text: String::with_capacity(ours.len() + 256),
        hunk: None,
    };
    match (Layout::of(ours), Layout::of(theirs)) {
        (Some(a), Some(b)) => {
            out.diff(&a.head, &b.head);
            let mut i = 0;
            let mut j = 0;
            for (ai, bj) in align(&a.items, &b.items) {
                for c in &a.items[i..ai] {
                    out.differ(&c.lines, &[]);
                }
                for c in &b.items[j..bj] {
                    out.differ(&[], &c.lines);
                }
                out.diff(&a.items[ai].lines, &b.items[bj].lines);
                (i, j) = (ai + 1, bj + 1);
            }
            for c in &a.items[i..] {
                out.differ(&c.lines, &[]);
            }
            for c in &b.items[j..] {
                out.differ(&[], &c.lines);
            }
            out.diff(&a.tail, &b.tail);
        }
        _ => {
            let a: Vec<&str> = ours.split_inclusive('\n').collect();
            let b: Vec<&str> = theirs.split_inclusive('\n').collect();
            out.diff(&a, &b);
        }
    }
    out.flush();
    out.text
}

/// The pairs `(i, j)` of questions with one ID, `a[i]` and `b[j]`, that keep
/// their relative order on both sides, as many as can (the longest
/// increasing subsequence of their positions in `b`, by patience sorting).
/// Questions without an ID, or whose ID repeats on a side, are not aligned.
fn align(a: &[Chunk], b: &[Chunk]) -> Vec<(usize, usize)> {
    use std::collections::HashMap;
    fn unique<'a>(xs: &[Chunk<'a>]) -> HashMap<&'a str, Option<usize>> {
        let mut m: HashMap<&str, Option<usize>> = HashMap::with_capacity(xs.len());
        for (i, c) in xs.iter().enumerate() {
            if let Some(k) = c.key {
                m.entry(k).and_modify(|e| *e = None).or_insert(Some(i));
            }
        }
        m
    }
    let (ua, ub) = (unique(a), unique(b));
    // (i in a, j in b) for IDs unique on both sides, in a's order.
    let pairs: Vec<(usize, usize)> = a
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let k = c.key?;
            ua.get(k).copied().flatten()?;
            Some((i, ub.get(k).copied().flatten()?))
        })
        .collect();
    // tails[l]: index into `pairs` of the smallest j ending an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let l = tails.partition_point(|&t| pairs[t].1 < j);
        if l > 0 {
            prev[p] = Some(tails[l - 1]);
        }
        if l == tails.len() {
            tails.push(p);
        } else {
            tails[l] = p;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(p) = at {
        out.push(pairs[p]);
        at = prev[p];
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_go_around_the_differing_lines_only() {
        let m = mark("a\nb\nc\nd", "a\nB\nc\nd");
        assert_eq!(
            m,
            format!("a\n{MARKER_OURS}\nb\n{MARKER_SEP}\nB\n{MARKER_THEIRS}\nc\nd")
        );
    }

    fn doc(items: &[(&str, &str)]) -> String {
        let mut s = String::from("{\n  \"name\": \"x\",\n  \"dataFeedElement\": [\n");
        for (n, (id, v)) in items.iter().enumerate() {
            let comma = if n + 1 < items.len() { "," } else { "" };
            s.push_str(&format!(
                "    {{\n      \"@id\": \"{id}\",\n      \"v\": \"{v}\"\n    }}{comma}\n"
            ));
        }
        s.push_str("  ]\n}");
        s
    }

    /// `text` with each block resolved to one side.
    fn resolve(text: &str, theirs: bool) -> String {
        let mut out = String::new();
        let mut at = 0; // 0 outside, 1 ours, 2 theirs
        for l in text.split_inclusive('\n') {
            match l.trim_end_matches('\n') {
                MARKER_OURS => at = 1,
                MARKER_SEP if at == 1 => at = 2,
                MARKER_THEIRS if at == 2 => at = 0,
                _ if at == 0 || (at == 2) == theirs => out.push_str(l),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn questions_are_aligned_by_id_and_each_side_of_the_blocks_is_that_rendering() {
        let a = doc(&[("q1", "a"), ("q2", "b"), ("q3", "c"), ("q4", "d")]);
        let b = doc(&[("q3", "c"), ("q2", "B"), ("q1", "a"), ("q4", "d")]);
        let m = mark(&a, &b);
        assert!(Layout::of(&a).is_some());
        // The last line has no newline in either rendering.
        assert_eq!(resolve(&m, false).trim_end_matches('\n'), a);
        assert_eq!(resolve(&m, true).trim_end_matches('\n'), b);
        // q4 and the head are outside every block.
        assert!(m.starts_with("{\n  \"name\": \"x\",\n  \"dataFeedElement\": [\n"));
        assert!(m.contains("    {\n      \"@id\": \"q4\",\n      \"v\": \"d\"\n    }\n  ]\n}"));
    }

    #[test]
    fn a_value_conflict_in_one_question_is_marked_inside_it() {
        let a = doc(&[("q1", "a"), ("q2", "b")]);
        let b = doc(&[("q1", "a"), ("q2", "B")]);
        let m = mark(&a, &b);
        assert_eq!(m.matches(MARKER_OURS).count(), 1);
        assert!(m.contains(&format!(
            "{MARKER_OURS}\n      \"v\": \"b\"\n{MARKER_SEP}\n      \"v\": \"B\"\n{MARKER_THEIRS}\n"
        )));
    }

    #[test]
    fn the_alignment_is_a_longest_common_order() {
        let c = |k: &'static str| Chunk {
            key: Some(k),
            lines: Vec::new(),
        };
        let a = [c("1"), c("2"), c("3"), c("4"), c("5")];
        let b = [c("5"), c("1"), c("2"), c("4"), c("3")];
        assert_eq!(align(&a, &b), [(0, 1), (1, 2), (3, 3)]);
    }
}
