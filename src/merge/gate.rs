//! What Karenina refuses in a merge that neither side had.
//!
//! Why: two edits that are each fine can make, together, a checkpoint
//! Karenina cannot run: a metric trait's `metrics` from one side and its
//! `evaluation_mode` from the other (`get_global_rubric()` raises), or a
//! global and a question trait given one name on two branches (the merged
//! rubric lookup raises). The merge reads each rendering as `kld validate`
//! does; every problem Karenina refuses (an error, or a warning that reading
//! a rubric raises: [`crate::model::karenina_refuses`]) that neither side
//! had is traced to the smallest unit of the tree that holds it (a trait,
//! a rubric, a question, the file), and the merge is redone with that unit
//! a conflict ([`super::tree::ConflictKind::Refused`]), so each side of the
//! conflict is one side's unit.

use super::tree::{element_key, Step};
use crate::error::Report;
use crate::json::{Json, Seg};
use crate::model::karenina_refuses;
use std::collections::HashSet;

/// A refused problem, by where it is (keyed elements named, so the same
/// problem in a moved question is the same) and what it says.
pub(crate) type ProblemKey = (&'static str, Vec<Step>, String);

/// The tree steps of a JSON path into `tree`: object members as keys, the
/// elements of keyed lists by key. A step into a list that is not keyed
/// (or an element without a key) ends the walk: the merge does not go
/// below it either.
fn steps(tree: &Json, path: &[Seg]) -> Vec<Step> {
    let mut out = Vec::with_capacity(path.len());
    let mut cur = Some(tree);
    let mut member: &str = "";
    for seg in path {
        match seg {
            Seg::Key(k) => {
                out.push(Step::Key(k.clone()));
                cur = cur.and_then(Json::as_object).and_then(|o| o.get(k));
                member = k;
            }
            Seg::Index(i) => {
                let x = cur.and_then(Json::as_array).and_then(|a| a.get(*i));
                match x.and_then(|x| element_key(member, x)) {
                    Some(k) => out.push(Step::Elem(k)),
                    None => {
                        // The list as a whole.
                        break;
                    }
                }
                cur = x;
                member = "";
            }
        }
    }
    out
}

/// The problems Karenina refuses in `report`, read from `tree`.
pub(crate) fn problems(tree: &Json, report: &Report) -> Vec<(ProblemKey, Vec<Step>)> {
    report
        .diagnostics
        .iter()
        .filter(|d| karenina_refuses(d))
        .map(|d| {
            let s = steps(tree, &d.path.0);
            ((d.code, s.clone(), d.message.clone()), s)
        })
        .collect()
}

/// The units of the tree that hold a problem at `at`, to be taken whole
/// from one side: the trait it is in; a rubric (a question's, with the
/// global one whose names it collides with); the question; the top-level
/// member; the file.
pub(crate) fn units(at: &[Step]) -> Vec<Vec<Step>> {
    let rating = Step::Key("rating".into());
    if let Some(p) = at
        .windows(2)
        .rposition(|w| w[0] == rating && matches!(w[1], Step::Elem(_)))
    {
        return vec![at[..p + 2].to_vec()];
    }
    if at.last() == Some(&rating) {
        let mut out = vec![at.to_vec()];
        if at.len() > 1 {
            out.push(vec![rating]);
        }
        return out;
    }
    match at {
        [k @ Step::Key(m), q @ Step::Elem(_), ..] if m == "dataFeedElement" => {
            vec![vec![k.clone(), q.clone()]]
        }
        [first, ..] => vec![vec![first.clone()]],
        [] => vec![Vec::new()],
    }
}

/// The problems of a rendering that no side had: (units, cause) each.
pub(crate) fn new_problems(
    found: Vec<(ProblemKey, Vec<Step>)>,
    sides: &[&HashSet<ProblemKey>],
) -> Vec<(Vec<Vec<Step>>, String)> {
    found
        .into_iter()
        .filter(|(k, _)| !sides.iter().any(|s| s.contains(k)))
        .map(|((code, _, msg), at)| (units(&at), format!("{code} {msg}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> Step {
        Step::Key(s.into())
    }
    fn e(s: &str) -> Step {
        Step::Elem(s.into())
    }

    #[test]
    fn a_problem_is_traced_to_its_trait_rubric_question_or_file() {
        let in_trait = [
            k("rating"),
            e("cover"),
            k("additionalProperty"),
            e("metrics"),
        ];
        assert_eq!(units(&in_trait), [vec![k("rating"), e("cover")]]);
        let q_rubric = [k("dataFeedElement"), e("q1"), k("item"), k("rating")];
        assert_eq!(units(&q_rubric), [q_rubric.to_vec(), vec![k("rating")]]);
        let in_q = [
            k("dataFeedElement"),
            e("q1"),
            k("item"),
            k("additionalProperty"),
        ];
        assert_eq!(units(&in_q), [vec![k("dataFeedElement"), e("q1")]]);
        assert_eq!(units(&[]), [Vec::<Step>::new()]);
    }

    #[test]
    fn steps_name_keyed_elements_and_stop_at_unkeyed_lists() {
        let tree =
            crate::json::parse(br#"{"rating": [{"name": "a"}, {"name": "b", "x": [1, 2]}]}"#)
                .unwrap();
        let path = [
            Seg::Key("rating".into()),
            Seg::Index(1),
            Seg::Key("x".into()),
            Seg::Index(0),
        ];
        assert_eq!(steps(&tree, &path), [k("rating"), e("b"), k("x")]);
    }
}
