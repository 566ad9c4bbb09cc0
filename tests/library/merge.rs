//! The three-way merge of checkpoints (issue 29), generated: two branches
//! edit one base with random edit scripts that touch different questions
//! (and different benchmark metadata); the merge is always clean and equals,
//! byte for byte, the base with both scripts applied one after the other
//! (ours, then theirs), with the later `dateModified`.

use karenina_ld::json::Json;
use karenina_ld::merge;
use karenina_ld::model::*;
use karenina_ld::save::{write_checkpoint, WriteOptions};
use proptest::prelude::*;
use std::path::Path;

fn question(id: &str, text: &str, answer: &str) -> Item {
    Item {
        id: Some(id.to_string()),
        date_created: "2026-01-01T00:00:00".into(),
        date_modified: "2026-01-01T00:00:00".into(),
        keywords: None,
        question: Question {
            text: text.to_string(),
            accepted_answer: Answer {
                text: answer.to_string(),
                ..Answer::default()
            },
            template: SourceCode {
                name: "Answer Template".into(),
                text: "class Answer(BaseAnswer):\n    value: str\n".into(),
                ..SourceCode::default()
            },
            additional_property: Some(vec![Property {
                name: "finished".into(),
                value: Some(Json::Bool(true)),
                extra: Vec::new(),
            }]),
            keywords: Some(vec!["base".into()]),
            ..Question::default()
        },
        extra: Vec::new(),
    }
}

fn base(n: usize) -> Checkpoint {
    Checkpoint {
        context: karenina_ld::context::canonical().clone(),
        id: Some("urn:bench:base".into()),
        name: "merge property".into(),
        description: Some("base".into()),
        version: Some("1.0.0".into()),
        date_created: "2026-01-01T00:00:00".into(),
        date_modified: "2026-01-01T00:00:00".into(),
        items: (0..n)
            .map(|i| {
                question(
                    &format!("urn:q:{i}"),
                    &format!("Question {i}?"),
                    &format!("{i}"),
                )
            })
            .collect(),
        ..Checkpoint::default()
    }
}

/// One edit of one question.
#[derive(Clone, Debug)]
enum Edit {
    Answer(String),
    Text(String),
    Keyword(String),
    Finished(bool),
    Remove,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        "[a-zé ]{0,12}".prop_map(Edit::Answer),
        "[a-z ]{1,12}\\?".prop_map(Edit::Text),
        "[a-z]{1,8}".prop_map(Edit::Keyword),
        any::<bool>().prop_map(Edit::Finished),
        Just(Edit::Remove),
    ]
}

/// A branch's script: edits by question ID, questions appended, metadata.
#[derive(Clone, Debug, Default)]
struct Script {
    edits: Vec<(String, Edit)>,
    added: Vec<Item>,
    stamp: String,
}

impl Script {
    /// Applies the script; `side` names its keywords and metadata so the two
    /// branches' changes never collide.
    fn apply(&self, cp: &mut Checkpoint, side: &str) {
        for (id, e) in &self.edits {
            let Some(pos) = cp.items.iter().position(|it| it.id.as_deref() == Some(id)) else {
                continue;
            };
            let it = &mut cp.items[pos];
            it.date_modified = self.stamp.clone();
            let q = &mut it.question;
            match e {
                Edit::Answer(a) => q.accepted_answer.text = format!("{side}: {a}"),
                Edit::Text(t) => q.text = format!("{side}: {t}"),
                Edit::Keyword(k) => {
                    let kw = format!("{side}-{k}");
                    let ks = q.keywords.get_or_insert_with(Vec::new);
                    if !ks.contains(&kw) {
                        ks.push(kw);
                    }
                }
                Edit::Finished(f) => {
                    q.additional_property.as_mut().unwrap()[0].value = Some(Json::Bool(*f))
                }
                Edit::Remove => {
                    cp.items.remove(pos);
                }
            }
        }
        cp.items.extend(self.added.iter().cloned());
        match side {
            "ours" => cp.description = Some(format!("edited by {side}")),
            _ => cp.version = Some("2.0.0".into()),
        }
        cp.date_modified = cp.date_modified.clone().max(self.stamp.clone());
    }
}

/// A base size, who owns each question (0 nobody, 1 ours, 2 theirs) with
/// its edits, and each side's added questions.
fn scripts() -> impl Strategy<Value = (usize, Script, Script)> {
    (1usize..24).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec((0u8..3, prop::collection::vec(edit(), 1..4)), n),
            0usize..4,
            0usize..4,
            any::<bool>(),
        )
            .prop_map(|(n, owners, add_o, add_t, ours_later)| {
                let (so, st) = if ours_later {
                    ("2026-03-02T00:00:00", "2026-03-01T00:00:00")
                } else {
                    ("2026-03-01T00:00:00", "2026-03-02T00:00:00")
                };
                let mut o = Script {
                    stamp: so.into(),
                    ..Script::default()
                };
                let mut t = Script {
                    stamp: st.into(),
                    ..Script::default()
                };
                for (i, (owner, edits)) in owners.into_iter().enumerate() {
                    let s = match owner {
                        1 => &mut o,
                        2 => &mut t,
                        _ => continue,
                    };
                    s.edits
                        .extend(edits.into_iter().map(|e| (format!("urn:q:{i}"), e)));
                }
                for (s, side, k) in [(&mut o, "ours", add_o), (&mut t, "theirs", add_t)] {
                    s.added = (0..k)
                        .map(|j| {
                            question(
                                &format!("urn:{side}:{j}"),
                                &format!("Added by {side}, {j}?"),
                                "new",
                            )
                        })
                        .collect();
                }
                (n, o, t)
            })
    })
}

fn bytes(cp: &Checkpoint) -> String {
    write_checkpoint(cp, &WriteOptions::default())
}

/// The merge of three checkpoints, written as Karenina writes them.
fn merged(b: &Checkpoint, o: &Checkpoint, t: &Checkpoint) -> merge::Merged {
    merge::merge(
        Path::new("bench.jsonld"),
        bytes(b).as_bytes(),
        bytes(o).as_bytes(),
        bytes(t).as_bytes(),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn non_overlapping_edit_scripts_merge_cleanly_to_both_scripts((n, o, t) in scripts()) {
        let b = base(n);
        let (mut ours, mut theirs, mut both) = (b.clone(), b.clone(), b.clone());
        o.apply(&mut ours, "ours");
        t.apply(&mut theirs, "theirs");
        o.apply(&mut both, "ours");
        t.apply(&mut both, "theirs");
        let m = merged(&b, &ours, &theirs);
        prop_assert!(m.conflicts.is_empty(), "{:?}", m.conflicts);
        prop_assert_eq!(m.text, bytes(&both));
    }
}

#[test]
fn an_answer_changed_differently_is_one_typed_conflict_naming_both_values() {
    let b = base(3);
    let (mut o, mut t) = (b.clone(), b.clone());
    o.items[1].question.accepted_answer.text = "ours".into();
    t.items[1].question.accepted_answer.text = "theirs".into();
    let m = merged(&b, &o, &t);
    assert_eq!(m.conflicts.len(), 1);
    let c = &m.conflicts[0];
    assert_eq!(c.question.as_deref(), Some("urn:q:1"));
    assert_eq!(c.field, "item.acceptedAnswer.text");
    assert_eq!(
        (c.ours.as_ref(), c.theirs.as_ref()),
        (
            Some(&Json::String("ours".into())),
            Some(&Json::String("theirs".into()))
        )
    );
    // Everything outside the one marked block is the merge taking ours.
    assert_eq!(m.text.matches(merge::MARKER_OURS).count(), 1);
}

#[test]
fn a_results_export_or_a_broken_side_is_refused_for_the_text_merge() {
    let b = bytes(&base(2));
    let r = merge::merge(Path::new("x"), b.as_bytes(), b"{\"oops\": ", b.as_bytes());
    assert!(
        matches!(r, Err(merge::Refusal::Kind { side: "ours", .. })),
        "{r:?}"
    );
    let broken = b.replacen("\"name\"", "\"nme\"", 1);
    let r = merge::merge(
        Path::new("x"),
        b.as_bytes(),
        b.as_bytes(),
        broken.as_bytes(),
    );
    assert!(
        matches!(r, Err(merge::Refusal::Unreadable { side: "theirs", .. })),
        "{r:?}"
    );
}

/// `text` with every conflict block resolved to one side (0 ours, 1 theirs).
fn resolve(text: &str, side: usize) -> String {
    let mut out = Vec::new();
    let mut at = None; // Some(0) in ours, Some(1) in theirs
    for l in text.lines() {
        if l == merge::MARKER_OURS {
            at = Some(0);
        } else if l == merge::MARKER_SEP && at == Some(0) {
            at = Some(1);
        } else if l == merge::MARKER_THEIRS && at == Some(1) {
            at = None;
        } else if at.is_none_or(|s| s == side) {
            out.push(l);
        }
    }
    out.join("\n")
}

#[test]
fn two_different_reorderings_conflict_once_and_each_side_of_the_blocks_is_that_order() {
    let b = base(4);
    let (mut o, mut t) = (b.clone(), b.clone());
    o.items.rotate_left(1); // 1 2 3 0
    t.items.reverse(); // 3 2 1 0
    t.items[0].question.accepted_answer.text = "theirs".into();
    let m = merged(&b, &o, &t);
    assert_eq!(m.conflicts.len(), 1, "{:?}", m.conflicts);
    assert_eq!(m.conflicts[0].field, "dataFeedElement (question order)");
    let ids = |cp: &Checkpoint| -> Vec<String> {
        cp.items.iter().map(|i| i.id.clone().unwrap()).collect()
    };
    // Their answer edit is merged on both sides of the blocks.
    let mut want_o = o.clone();
    want_o.items[2].question.accepted_answer.text = "theirs".into();
    for (side, want) in [(0, want_o), (1, t.clone())] {
        let text = resolve(&m.text, side);
        let cp = read_checkpoint(Path::new("x"), text.as_bytes(), ReadOptions::default()).unwrap();
        assert_eq!(ids(&cp), ids(&want));
        assert_eq!(text, bytes(&want));
    }
}
