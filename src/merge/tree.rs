//! The three-way merge of two JSON trees against their common base, with the
//! checkpoint's keyed lists merged by key.
//!
//! Both sides arrive as the JSON of Karenina's canonical bytes, so formatting
//! and legacy encodings are already gone and equal content is equal JSON. An
//! object merges member by member; a keyed list (questions by ID, traits and
//! properties by `name`, keywords by value) merges element by element, with
//! the order merged separately ([`merge_order`]); anything else is one value.
//! A value changed on one side only is taken, the same change on both sides
//! is taken once, timestamps take the later one, and anything else is a
//! [`RawConflict`] that takes the preferred side's value, so the caller can
//! render the merge twice (ours, theirs) and put markers where they differ.

use crate::json::{Json, Object};
use crate::model::qid;
use std::collections::{HashMap, HashSet};

/// Which side a conflict's value is taken from in one rendering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prefer {
    /// The current branch (`%A`).
    Ours,
    /// The branch merged in (`%B`).
    Theirs,
}

/// One step of a path into the tree: an object member or a keyed element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// An object member.
    Key(String),
    /// The element of a keyed list with this key (question ID, trait name …).
    Elem(String),
}

/// Why a value is a conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConflictKind {
    /// The value was changed differently on both sides.
    Changed,
    /// Both sides reordered the elements of a keyed list differently (or, in
    /// a list new on both sides, listed the same elements in different orders).
    Order,
    /// A keyed list one side holds with a key repeated (two questions with
    /// one ID, two traits with one name): it cannot be merged element by
    /// element, so the whole list is one value.
    RepeatedKey {
        /// `base`, `ours` or `theirs`.
        side: &'static str,
        /// The repeated key.
        key: String,
    },
    /// A keyed list with an element that has no key.
    Unkeyed {
        /// `base`, `ours` or `theirs`.
        side: &'static str,
    },
    /// Each side was fine here, but the merge of the two is not: Karenina
    /// refuses it (the cause, as `kld validate` words it).
    Refused {
        /// The first new problem, from `kld validate`.
        cause: String,
    },
}

/// A value changed differently on both sides (`None`: absent on that side).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawConflict {
    /// Where, from the root.
    pub path: Vec<Step>,
    /// Why.
    pub kind: ConflictKind,
    /// The common ancestor's value.
    pub base: Option<Json>,
    /// The current branch's value.
    pub ours: Option<Json>,
    /// The other branch's value.
    pub theirs: Option<Json>,
}

/// The rules of one kind of file: which members are keyed lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schema {
    /// A benchmark checkpoint.
    Checkpoint,
    /// A verification preset (objects by key, lists whole).
    Preset,
}

/// The merge of one tree.
pub(crate) struct Merger<'f> {
    schema: Schema,
    prefer: Prefer,
    /// Values that are a conflict whenever the sides differ there, with the
    /// cause: where an earlier merge made something Karenina refuses.
    forced: &'f HashMap<Vec<Step>, String>,
    /// The paths above a forced one: merged member by member even when one
    /// side did not change them, so the merge reaches the forced value.
    above_forced: HashSet<Vec<Step>>,
    /// Conflicts found, in document order.
    pub conflicts: Vec<RawConflict>,
}

/// How the elements of a keyed list are named.
#[derive(Clone, Copy)]
enum KeyRule {
    /// `dataFeedElement`: the item's `@id`, else the ID Karenina computes from the text.
    Question,
    /// `rating`, `additionalProperty`: `name`.
    Name,
    /// `keywords`: the string itself.
    Value,
}

/// What [`Merger::new`] forces when nothing is.
pub(crate) fn nothing_forced() -> &'static HashMap<Vec<Step>, String> {
    static EMPTY: std::sync::OnceLock<HashMap<Vec<Step>, String>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(HashMap::new)
}

impl<'f> Merger<'f> {
    pub(crate) fn new(
        schema: Schema,
        prefer: Prefer,
        forced: &'f HashMap<Vec<Step>, String>,
    ) -> Merger<'f> {
        let above_forced = forced
            .keys()
            .flat_map(|p| (0..p.len()).map(|n| p[..n].to_vec()))
            .collect();
        Merger {
            schema,
            prefer,
            forced,
            above_forced,
            conflicts: Vec::new(),
        }
    }

    fn key_rule(&self, member: &str) -> Option<KeyRule> {
        match (self.schema, member) {
            (Schema::Checkpoint, "dataFeedElement") => Some(KeyRule::Question),
            (Schema::Checkpoint, "rating" | "additionalProperty") => Some(KeyRule::Name),
            (Schema::Checkpoint, "keywords") => Some(KeyRule::Value),
            _ => None,
        }
    }

    fn conflict(
        &mut self,
        path: &[Step],
        kind: ConflictKind,
        b: Option<&Json>,
        o: Option<&Json>,
        t: Option<&Json>,
    ) -> Option<Json> {
        self.conflicts.push(RawConflict {
            path: path.to_vec(),
            kind,
            base: b.cloned(),
            ours: o.cloned(),
            theirs: t.cloned(),
        });
        match self.prefer {
            Prefer::Ours => o.cloned(),
            Prefer::Theirs => t.cloned(),
        }
    }

    /// Merges one value (`None`: absent on that side; the result `None`: absent).
    pub(crate) fn value(
        &mut self,
        path: &mut Vec<Step>,
        b: Option<&Json>,
        o: Option<&Json>,
        t: Option<&Json>,
    ) -> Option<Json> {
        if o == t {
            return o.cloned();
        }
        let mut descend = false;
        if !self.forced.is_empty() {
            if let Some(cause) = self.forced.get(path.as_slice()) {
                let kind = ConflictKind::Refused {
                    cause: cause.clone(),
                };
                return self.conflict(path, kind, b, o, t);
            }
            descend = self.above_forced.contains(path.as_slice())
                && matches!(
                    (o, t),
                    (Some(Json::Object(_)), Some(Json::Object(_)))
                        | (Some(Json::Array(_)), Some(Json::Array(_)))
                );
        }
        if !descend && b == o {
            return t.cloned();
        }
        if !descend && b == t {
            return o.cloned();
        }
        let member = match path.last() {
            Some(Step::Key(k)) => k.as_str(),
            _ => "",
        };
        match (b, o, t) {
            // Karenina stamps these on every save: the later one, never a conflict.
            (_, Some(Json::String(x)), Some(Json::String(y)))
                if matches!(member, "dateModified" | "updated_at") =>
            {
                Some(Json::String(x.max(y).clone()))
            }
            (None | Some(Json::Object(_)), Some(Json::Object(x)), Some(Json::Object(y))) => {
                let empty = Object::new();
                let base = match b {
                    Some(Json::Object(z)) => z,
                    _ => &empty,
                };
                Some(Json::Object(self.object(path, base, x, y)))
            }
            (None | Some(Json::Array(_)), Some(Json::Array(x)), Some(Json::Array(y))) => {
                let base: &[Json] = match b {
                    Some(Json::Array(z)) => z,
                    _ => &[],
                };
                match self.key_rule(member) {
                    Some(rule) => match self.keyed(path, rule, base, x, y) {
                        Ok(v) => Some(v),
                        Err(kind) => self.conflict(path, kind, b, o, t),
                    },
                    None => self.conflict(path, ConflictKind::Changed, b, o, t),
                }
            }
            _ => self.conflict(path, ConflictKind::Changed, b, o, t),
        }
    }

    fn object(&mut self, path: &mut Vec<Step>, b: &Object, o: &Object, t: &Object) -> Object {
        let mut keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
        keys.extend(t.iter().map(|(k, _)| k).filter(|k| o.get(k).is_none()));
        // A member only the base has was removed on both sides.
        let mut out = Object::new();
        for k in keys {
            path.push(Step::Key(k.to_string()));
            if let Some(v) = self.value(path, b.get(k), o.get(k), t.get(k)) {
                out.push(k, v);
            }
            path.pop();
        }
        out
    }

    /// Merges a keyed list element by element; the reason when some side's
    /// elements cannot be keyed (a missing or repeated key): then the list is
    /// one value.
    fn keyed(
        &mut self,
        path: &mut Vec<Step>,
        rule: KeyRule,
        b: &[Json],
        o: &[Json],
        t: &[Json],
    ) -> Result<Json, ConflictKind> {
        let (kb, ko, kt) = (
            keys(rule, b, "base")?,
            keys(rule, o, "ours")?,
            keys(rule, t, "theirs")?,
        );
        let index = |ks: &[String]| -> HashMap<String, usize> {
            ks.iter().enumerate().map(|(i, k)| (k.clone(), i)).collect()
        };
        let (ib, io, it) = (index(&kb), index(&ko), index(&kt));
        let (order, order_conflict) = merge_order(&kb, &ko, &kt, self.prefer);
        if order_conflict {
            // The orders, by key (question IDs, trait names).
            let ks =
                |k: &[String]| Some(Json::Array(k.iter().cloned().map(Json::String).collect()));
            self.conflicts.push(RawConflict {
                path: path.clone(),
                kind: ConflictKind::Order,
                base: ks(&kb),
                ours: ks(&ko),
                theirs: ks(&kt),
            });
        }
        let mut out = Vec::with_capacity(order.len());
        for k in order {
            let (vb, vo, vt) = (
                ib.get(&k).map(|&i| &b[i]),
                io.get(&k).map(|&i| &o[i]),
                it.get(&k).map(|&i| &t[i]),
            );
            path.push(Step::Elem(k));
            if let Some(v) = self.value(path, vb, vo, vt) {
                out.push(v);
            }
            path.pop();
        }
        Ok(Json::Array(out))
    }
}

/// The key of every element, or why not: one has none, or two share one.
fn keys(rule: KeyRule, xs: &[Json], side: &'static str) -> Result<Vec<String>, ConflictKind> {
    let mut seen = HashSet::with_capacity(xs.len());
    xs.iter()
        .map(|x| {
            let k = match rule {
                KeyRule::Value => x.as_str().map(str::to_string),
                KeyRule::Name => x
                    .as_object()
                    .and_then(|o| o.get("name"))
                    .and_then(Json::as_str)
                    .map(str::to_string),
                KeyRule::Question => x.as_object().and_then(|o| match o.get("@id") {
                    Some(Json::String(id)) => Some(id.clone()),
                    _ => o
                        .get("item")
                        .and_then(Json::as_object)
                        .and_then(|q| q.get("text"))
                        .and_then(Json::as_str)
                        .map(qid::question_id),
                }),
            }
            .ok_or(ConflictKind::Unkeyed { side })?;
            if seen.insert(k.clone()) {
                Ok(k)
            } else {
                Err(ConflictKind::RepeatedKey { side, key: k })
            }
        })
        .collect()
}

/// The key of element `i` of the keyed list `member` of a checkpoint, as
/// [`Merger`] names it (`None`: not a keyed list, or no key).
pub(crate) fn element_key(member: &str, x: &Json) -> Option<String> {
    let rule = match member {
        "dataFeedElement" => KeyRule::Question,
        "rating" | "additionalProperty" => KeyRule::Name,
        "keywords" => KeyRule::Value,
        _ => return None,
    };
    keys(rule, std::slice::from_ref(x), "ours").ok()?.pop()
}

/// The merged order of a keyed list: every key of the three sides, once.
///
/// The base's elements follow the side that reordered them (both sides'
/// order when they agree; the preferred side's, and `true` for a conflict,
/// when they reordered differently). An element a side added stays after
/// the element it follows on that side, as Karenina appends new questions
/// at the end: two branches that each append keep both, ours first.
pub(crate) fn merge_order(
    b: &[String],
    o: &[String],
    t: &[String],
    prefer: Prefer,
) -> (Vec<String>, bool) {
    let in_b: HashSet<&str> = b.iter().map(String::as_str).collect();
    let only_base = |side: &[String]| -> Vec<String> {
        side.iter()
            .filter(|k| in_b.contains(k.as_str()))
            .cloned()
            .collect()
    };
    let kept_in = |side: &[String]| -> Vec<String> {
        let s: HashSet<&str> = side.iter().map(String::as_str).collect();
        b.iter()
            .filter(|k| s.contains(k.as_str()))
            .cloned()
            .collect()
    };
    let (ob, tb) = (only_base(o), only_base(t));
    let o_moved = ob != kept_in(o);
    let t_moved = tb != kept_in(t);
    let mut conflict = false;
    let skeleton: Vec<String> = match (o_moved, t_moved) {
        (false, false) => b.to_vec(),
        (true, false) => ob,
        (false, true) => tb,
        (true, true) => {
            // The same reordering on both sides is one reordering. (Sets, not
            // list scans: 20,000 questions reordered on both sides took
            // minutes with `Vec::contains`.)
            let kt: HashSet<&str> = t.iter().map(String::as_str).collect();
            let common: HashSet<&str> = o
                .iter()
                .map(String::as_str)
                .filter(|k| in_b.contains(k) && kt.contains(k))
                .collect();
            let oc = ob.iter().filter(|k| common.contains(k.as_str()));
            let tc = tb.iter().filter(|k| common.contains(k.as_str()));
            conflict = !oc.eq(tc);
            match prefer {
                Prefer::Ours => ob,
                Prefer::Theirs => tb,
            }
        }
    };
    // Base elements the skeleton's side removed go back after their base
    // predecessor, so an edit/delete conflict keeps its place.
    let in_skel: HashSet<&str> = skeleton.iter().map(String::as_str).collect();
    let mut pending: HashMap<Option<&str>, Vec<&String>> = HashMap::new();
    let mut prev: Option<&str> = None;
    for k in b {
        if in_skel.contains(k.as_str()) {
            prev = Some(k.as_str());
        } else {
            pending.entry(prev).or_default().push(k);
        }
    }
    let mut full: Vec<String> = Vec::with_capacity(b.len());
    full.extend(pending.remove(&None).into_iter().flatten().cloned());
    for k in &skeleton {
        full.push(k.clone());
        full.extend(
            pending
                .remove(&Some(k.as_str()))
                .into_iter()
                .flatten()
                .cloned(),
        );
    }
    // Additions, grouped under the base element they follow on their side;
    // those after a side's last base element were appended, and go to the
    // end (ours first), wherever that element ends up.
    #[derive(Clone, PartialEq, Eq, Hash)]
    enum Anchor {
        Start,
        After(String),
        End,
    }
    let groups = |side: &[String]| -> HashMap<Anchor, Vec<String>> {
        let mut g: HashMap<Anchor, Vec<String>> = HashMap::new();
        let mut anchor = Anchor::Start;
        for k in side {
            if in_b.contains(k.as_str()) {
                anchor = Anchor::After(k.clone());
            } else {
                g.entry(anchor.clone()).or_default().push(k.clone());
            }
        }
        if let Some(tail) = g.remove(&anchor) {
            g.insert(Anchor::End, tail);
        }
        g
    };
    // Elements both sides added (all of them in a list new on both sides)
    // in different orders: an order conflict, shown in the preferred side's order.
    let (in_o, in_t): (HashSet<&str>, HashSet<&str>) = (
        o.iter().map(String::as_str).collect(),
        t.iter().map(String::as_str).collect(),
    );
    let added_both = |side: &[String], other: &HashSet<&str>| -> Vec<String> {
        side.iter()
            .filter(|k| !in_b.contains(k.as_str()) && other.contains(k.as_str()))
            .cloned()
            .collect()
    };
    let added_conflict = added_both(o, &in_t) != added_both(t, &in_o);
    conflict |= added_conflict;
    let (go, gt) = match (added_conflict, prefer) {
        (true, Prefer::Theirs) => (groups(t), groups(o)),
        _ => (groups(o), groups(t)),
    };
    let mut out = Vec::with_capacity(full.len() + o.len() + t.len());
    let mut emitted: HashSet<String> = HashSet::with_capacity(out.capacity());
    let mut anchored = |out: &mut Vec<String>, at: Anchor| {
        for g in [&go, &gt] {
            for k in g.get(&at).into_iter().flatten() {
                if emitted.insert(k.clone()) {
                    out.push(k.clone());
                }
            }
        }
    };
    anchored(&mut out, Anchor::Start);
    for k in &full {
        out.push(k.clone());
        anchored(&mut out, Anchor::After(k.clone()));
    }
    anchored(&mut out, Anchor::End);
    (out, conflict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn appends_on_both_sides_keep_both_ours_first() {
        let (o, c) = merge_order(
            &s(&["a", "b"]),
            &s(&["a", "b", "x"]),
            &s(&["a", "b", "y"]),
            Prefer::Ours,
        );
        assert_eq!((o, c), (s(&["a", "b", "x", "y"]), false));
    }

    #[test]
    fn appends_stay_at_the_end_when_the_other_side_removed_the_last_question() {
        let (o, c) = merge_order(
            &s(&["a", "b", "c"]),
            &s(&["a", "b", "c", "x"]),
            &s(&["a", "b", "y"]),
            Prefer::Ours,
        );
        // c is still listed; the merged value (removed) drops it.
        assert_eq!((o, c), (s(&["a", "b", "c", "x", "y"]), false));
    }

    #[test]
    fn one_side_s_reordering_is_taken_with_the_other_side_s_addition() {
        let (o, c) = merge_order(
            &s(&["a", "b", "c"]),
            &s(&["c", "a", "b"]),
            &s(&["a", "b", "n", "c"]),
            Prefer::Ours,
        );
        assert_eq!((o, c), (s(&["c", "a", "b", "n"]), false));
    }

    #[test]
    fn different_reorderings_conflict_and_take_the_preferred_side() {
        let b = s(&["a", "b", "c"]);
        let (o, c) = merge_order(
            &b,
            &s(&["c", "b", "a"]),
            &s(&["b", "a", "c"]),
            Prefer::Theirs,
        );
        assert_eq!((o, c), (s(&["b", "a", "c"]), true));
    }

    #[test]
    fn a_removed_element_keeps_its_place_in_the_order() {
        // Removed on ours (the skeleton when theirs did not reorder); the
        // merged value decides whether it stays.
        let (o, _) = merge_order(
            &s(&["a", "b", "c"]),
            &s(&["a", "c"]),
            &s(&["a", "b", "c"]),
            Prefer::Ours,
        );
        assert_eq!(o, s(&["a", "b", "c"]));
    }

    fn j(text: &str) -> Json {
        crate::json::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn timestamps_take_the_later_one_and_one_sided_changes_merge() {
        let mut m = Merger::new(Schema::Checkpoint, Prefer::Ours, nothing_forced());
        let b = j(r#"{"dateModified": "2026-01-01", "a": 1, "b": 1}"#);
        let o = j(r#"{"dateModified": "2026-03-01", "a": 2, "b": 1}"#);
        let t = j(r#"{"dateModified": "2026-02-01", "a": 1, "b": 3}"#);
        let r = m.value(&mut vec![], Some(&b), Some(&o), Some(&t));
        assert_eq!(
            r,
            Some(j(r#"{"dateModified": "2026-03-01", "a": 2, "b": 3}"#))
        );
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn a_value_changed_differently_is_one_conflict_at_its_path() {
        let mut m = Merger::new(Schema::Checkpoint, Prefer::Theirs, nothing_forced());
        let b = j(r#"{"rating": [{"name": "x", "v": 1}, {"name": "y", "v": 1}]}"#);
        let o = j(r#"{"rating": [{"name": "x", "v": 2}, {"name": "y", "v": 5}]}"#);
        let t = j(r#"{"rating": [{"name": "x", "v": 3}, {"name": "y", "v": 1}]}"#);
        let r = m.value(&mut vec![], Some(&b), Some(&o), Some(&t));
        assert_eq!(
            r,
            Some(j(
                r#"{"rating": [{"name": "x", "v": 3}, {"name": "y", "v": 5}]}"#
            ))
        );
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(
            m.conflicts[0].path,
            vec![
                Step::Key("rating".into()),
                Step::Elem("x".into()),
                Step::Key("v".into())
            ]
        );
    }
}
