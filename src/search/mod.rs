//! Searching benchmarks without SPARQL: the text of questions, expected
//! answers, answer templates, rubric traits and metadata, by regular
//! expression (`kld find`).
//!
//! Why: "which questions mention BRCA1", "which traits check for a
//! citation", "what did Ada write" are the first things a user asks of a
//! folder of checkpoints, and a SPARQL query for each is a lot to ask. This
//! module walks the typed checkpoint ([`crate::model`]) field by field, so
//! what it searches is what Karenina's `Benchmark` exposes (`question`,
//! `raw_answer`, `answer_template`, the rubrics, `author`, `keywords`,
//! `custom_metadata`…), and returns typed [`Hit`]s; printing them is the
//! caller's business.
//!
//! Values are searched line by line, as ripgrep searches files: a hit is
//! one line of one value, with the byte spans of the matches in it.

use crate::error::{Error, Result};
use crate::json::{Json, JsonPath};
use crate::model::qid;
use crate::model::{Checkpoint, Creator, Property, Question, Rating};
use regex::{Regex, RegexBuilder};

mod scenario_nodes;

/// The kinds of text a search can be restricted to (`--field`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// The question text (Karenina's `question`).
    Question,
    /// The expected answer (`raw_answer`).
    Answer,
    /// The answer template's Python source (`answer_template`).
    Template,
    /// Rubric traits, global and question-specific: name, description,
    /// summary, regex pattern, literal classes, metric instructions.
    Trait,
    /// Metadata: keywords, question properties (author, sources, custom
    /// properties…), the benchmark's name, description, version, creator
    /// and properties.
    Metadata,
}

impl Field {
    /// The lowercase name (`question`, `answer`, `template`, `trait`,
    /// `metadata`), as `--field` takes it and the JSON output writes it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Question => "question",
            Field::Answer => "answer",
            Field::Template => "template",
            Field::Trait => "trait",
            Field::Metadata => "metadata",
        }
    }
}

/// How a pattern is read.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The pattern is a literal string, not a regular expression (`-F`).
    pub fixed: bool,
    /// Letters match either case (`-i`).
    pub ignore_case: bool,
    /// The fields to search; empty means all of them.
    pub fields: Vec<Field>,
}

/// A compiled search: the pattern and the fields it looks in.
#[derive(Clone, Debug)]
pub struct Matcher {
    regex: Regex,
    fields: Vec<Field>,
}

impl Matcher {
    /// Compiles `pattern` (Rust `regex` syntax, or a literal with
    /// [`Options::fixed`]). A pattern that does not compile is an
    /// [`Error::Usage`] that quotes the regex crate's explanation.
    pub fn new(pattern: &str, opts: &Options) -> Result<Self> {
        let source = if opts.fixed {
            regex::escape(pattern)
        } else {
            pattern.to_string()
        };
        let regex = RegexBuilder::new(&source)
            .case_insensitive(opts.ignore_case)
            .build()
            .map_err(|e| Error::Usage(format!("the pattern is not a regular expression:\n{e}")))?;
        Ok(Matcher {
            regex,
            fields: opts.fields.clone(),
        })
    }

    fn wants(&self, f: Field) -> bool {
        self.fields.is_empty() || self.fields.contains(&f)
    }
}

/// One matching line of one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The question's ID (as Karenina computes it when the file has none;
    /// for a scenario node's question, Karenina's `Question.id`, the MD5 of
    /// its text); `None` for the benchmark's own metadata and its global
    /// traits.
    pub question: Option<String>,
    /// For a scenario node's question: the scenario's name and the node's
    /// key.
    pub scenario: Option<(String, String)>,
    /// Which kind of text matched.
    pub field: Field,
    /// Which value, for people: `question`, `trait[cites].pattern`,
    /// `metadata.author`, `metadata.keywords`…
    pub label: String,
    /// Where the value is in the file as Karenina writes it (a JSON pointer).
    pub path: JsonPath,
    /// The 1-based line of the value the match is on.
    pub line: usize,
    /// That line.
    pub text: String,
    /// The matches in `text`, as byte ranges.
    pub spans: Vec<(usize, usize)>,
}

/// Every hit of `m` in `cp`, in file order: the benchmark's metadata and
/// global traits first, then each question's question text, answer,
/// template, traits and metadata, then each scenario node's question (its
/// `questionData`, the Question Karenina loads, when the file has one).
/// The tests' collector; the faces stream hits through [`search_each`].
#[cfg(test)]
pub(crate) fn search(cp: &Checkpoint, m: &Matcher) -> Vec<Hit> {
    let mut hits = Vec::new();
    search_each(cp, m, &mut |h| hits.push(h));
    hits
}

/// `search`, handing each hit to `each` as it is found instead of
/// collecting them: memory stays bounded by one hit however many there are
/// (`kld find --format json` on a text full of matches).
pub fn search_each(cp: &Checkpoint, m: &Matcher, each: &mut dyn FnMut(Hit)) {
    let mut s = Search { m, each };
    let root = JsonPath::root();
    let bench = Scope {
        question: None,
        scenario: None,
        path: root.clone(),
    };
    if m.wants(Field::Metadata) {
        for (key, v) in [
            ("name", Some(&cp.name)),
            ("description", cp.description.as_ref()),
            ("version", cp.version.as_ref()),
        ] {
            if let Some(v) = v {
                s.text(
                    &bench,
                    Field::Metadata,
                    &format!("metadata.{key}"),
                    &root.key(key),
                    v,
                );
            }
        }
        match &cp.creator {
            Some(Creator::Name(n)) => s.text(
                &bench,
                Field::Metadata,
                "metadata.creator",
                &root.key("creator"),
                n,
            ),
            Some(Creator::Person(p)) => {
                let at = root.key("creator");
                for (key, v) in [
                    ("name", Some(&p.name)),
                    ("url", p.url.as_ref()),
                    ("email", p.email.as_ref()),
                ] {
                    if let Some(v) = v {
                        s.text(&bench, Field::Metadata, "metadata.creator", &at.key(key), v);
                    }
                }
            }
            None => {}
        }
        s.properties(&bench, &cp.additional_property, &[]);
    }
    s.traits(&bench, &cp.rating);
    for (i, item) in cp.items.iter().enumerate() {
        let q = &item.question;
        let at = root.key("dataFeedElement").index(i);
        let scope = Scope {
            question: Some(item.id.clone().unwrap_or_else(|| qid::question_id(&q.text))),
            scenario: None,
            path: at.key("item"),
        };
        let p = &scope.path;
        s.question(&scope, q, p, "");
        s.traits(&scope, &q.rating);
        if m.wants(Field::Metadata) {
            // Legacy files keep keywords on the item; Karenina reads both.
            for (kw, at) in [
                (&item.keywords, at.key("keywords")),
                (&q.keywords, p.key("keywords")),
            ] {
                for (k, word) in kw.iter().flatten().enumerate() {
                    s.text(
                        &scope,
                        Field::Metadata,
                        "metadata.keywords",
                        &at.index(k),
                        word,
                    );
                }
            }
            // `finished` is the question's state, not a description of it.
            s.properties(&scope, &q.additional_property, &["finished"]);
        }
    }
    for (i, sc) in cp.scenarios.iter().flatten().enumerate() {
        let at = root.key("hasPart").index(i).key("nodes");
        for (key, node) in &sc.nodes {
            s.scenario_node(&sc.name, key, node, &at.key(key));
        }
    }
}

/// Trait properties whose values are text a person wrote (the rest are
/// settings, or `callable_code`'s pickled bytes).
const TRAIT_TEXT: &[&str] = &[
    "summary",
    "pattern",
    "classes",
    "tp_instructions",
    "tn_instructions",
];

/// Whose hits these are and where that object is in the file.
struct Scope {
    question: Option<String>,
    scenario: Option<(String, String)>,
    path: JsonPath,
}

struct Search<'m, 'e> {
    m: &'m Matcher,
    each: &'e mut dyn FnMut(Hit),
}

impl Search<'_, '_> {
    /// A `schema:Question` object at `at`: its text, expected answer and
    /// template, labelled `{prefix}question`, `{prefix}answer` and
    /// `{prefix}template`.
    fn question(&mut self, scope: &Scope, q: &Question, at: &JsonPath, prefix: &str) {
        for (field, what, path, value) in [
            (Field::Question, "question", at.key("text"), &q.text),
            (
                Field::Answer,
                "answer",
                at.key("acceptedAnswer").key("text"),
                &q.accepted_answer.text,
            ),
            (
                Field::Template,
                "template",
                at.key("hasPart").key("text"),
                &q.template.text,
            ),
        ] {
            if self.m.wants(field) {
                self.text(scope, field, &format!("{prefix}{what}"), &path, value);
            }
        }
    }

    /// The matching lines of one value.
    fn text(&mut self, scope: &Scope, field: Field, label: &str, path: &JsonPath, value: &str) {
        for (n, line) in value.lines().enumerate() {
            let spans: Vec<(usize, usize)> = self
                .m
                .regex
                .find_iter(line)
                .map(|f| (f.start(), f.end()))
                .collect();
            if !spans.is_empty() {
                (self.each)(Hit {
                    question: scope.question.clone(),
                    scenario: scope.scenario.clone(),
                    field,
                    label: label.to_string(),
                    path: path.clone(),
                    line: n + 1,
                    text: line.to_string(),
                    spans,
                });
            }
        }
    }

    /// Every key and scalar of a JSON value (numbers and booleans as
    /// written, strings as they are, JSON-in-a-string included).
    fn json(&mut self, scope: &Scope, field: Field, label: &str, path: &JsonPath, v: &Json) {
        match v {
            Json::String(s) => self.text(scope, field, label, path, s),
            Json::Number(_) | Json::Bool(_) => {
                self.text(scope, field, label, path, &v.to_compact())
            }
            Json::Null => {}
            Json::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    self.json(scope, field, label, &path.index(i), x);
                }
            }
            Json::Object(o) => {
                for (k, x) in o.iter() {
                    let at = path.key(k);
                    self.text(scope, field, label, &at, k);
                    self.json(scope, field, label, &at, x);
                }
            }
        }
    }

    fn properties(&mut self, scope: &Scope, ps: &Option<Vec<Property>>, skip: &[&str]) {
        for (k, p) in ps.iter().flatten().enumerate() {
            if skip.contains(&p.name.as_str()) {
                continue;
            }
            if let Some(v) = &p.value {
                let path = scope.path.key("additionalProperty").index(k).key("value");
                self.json(
                    scope,
                    Field::Metadata,
                    &format!("metadata.{}", p.name),
                    &path,
                    v,
                );
            }
        }
    }

    fn traits(&mut self, scope: &Scope, rs: &Option<Vec<Rating>>) {
        if !self.m.wants(Field::Trait) {
            return;
        }
        for (j, r) in rs.iter().flatten().enumerate() {
            let at = scope.path.key("rating").index(j);
            let label = |what: &str| format!("trait[{}].{what}", r.name);
            self.text(
                scope,
                Field::Trait,
                &label("name"),
                &at.key("name"),
                &r.name,
            );
            if let Some(d) = &r.description {
                self.text(
                    scope,
                    Field::Trait,
                    &label("description"),
                    &at.key("description"),
                    d,
                );
            }
            for (k, p) in r.additional_property.iter().flatten().enumerate() {
                if !TRAIT_TEXT.contains(&p.name.as_str()) {
                    continue;
                }
                if let Some(v) = &p.value {
                    let path = at.key("additionalProperty").index(k).key("value");
                    self.json(scope, Field::Trait, &label(&p.name), &path, v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{read_checkpoint, ReadOptions};
    use std::path::Path;

    fn probe() -> Checkpoint {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/probe.jsonld");
        read_checkpoint(
            &file,
            &std::fs::read(&file).unwrap(),
            ReadOptions::default(),
        )
        .unwrap()
    }

    fn find(pattern: &str, opts: Options) -> Vec<Hit> {
        search(&probe(), &Matcher::new(pattern, &opts).unwrap())
    }

    #[test]
    fn a_question_text_is_found_with_its_id_path_and_span() {
        let hits = find("capital of France", Options::default());
        let q = hits
            .iter()
            .find(|h| h.field == Field::Question)
            .expect("the question");
        assert_eq!(
            q.question.as_deref(),
            Some("urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf")
        );
        assert_eq!(q.path.to_string(), "/dataFeedElement/0/item/text");
        assert_eq!(&q.text[q.spans[0].0..q.spans[0].1], "capital of France");
    }

    #[test]
    fn fields_case_and_literals_restrict_and_widen_the_search() {
        let all = find("paris", Options::default());
        let any_case = find(
            "paris",
            Options {
                ignore_case: true,
                ..Options::default()
            },
        );
        assert!(any_case.len() > all.len(), "{any_case:?}");
        let answers = find(
            "paris",
            Options {
                ignore_case: true,
                fields: vec![Field::Answer],
                ..Options::default()
            },
        );
        assert!(!answers.is_empty());
        assert!(
            answers.iter().all(|h| h.field == Field::Answer),
            "{answers:?}"
        );
        // `[\d+\]` is a regex trait's pattern: found as a literal with -F,
        // and as a regex it means something else.
        let literal = find(
            r"\[\d+\]",
            Options {
                fixed: true,
                ..Options::default()
            },
        );
        assert!(
            literal.iter().any(|h| h.field == Field::Trait
                && h.label == "trait[cites].pattern"
                && h.question.is_none()),
            "{literal:?}"
        );
        assert!(Matcher::new("(", &Options::default()).is_err());
        assert!(Matcher::new(
            "(",
            &Options {
                fixed: true,
                ..Options::default()
            }
        )
        .is_ok());
    }

    #[test]
    fn metadata_covers_author_custom_properties_and_keywords_but_not_finished() {
        let ada = find("Ada", Options::default());
        assert!(ada.iter().any(|h| h.label == "metadata.author"), "{ada:?}");
        let easy = find("^easy$", Options::default());
        assert_eq!(easy.len(), 1, "{easy:?}");
        assert_eq!(easy[0].label, "metadata.custom_difficulty");
        let primes = find("primes", Options::default());
        assert!(
            primes.iter().any(|h| h.label == "metadata.keywords"),
            "{primes:?}"
        );
        assert!(find("^false$", Options::default())
            .iter()
            .all(|h| h.label != "metadata.finished"));
    }

    #[test]
    fn a_template_is_searched_line_by_line() {
        let hits = find(
            "def verify",
            Options {
                fields: vec![Field::Template],
                ..Options::default()
            },
        );
        assert!(!hits.is_empty());
        for h in &hits {
            assert!(
                h.line > 1 && h.text.trim_start().starts_with("def verify"),
                "{h:?}"
            );
        }
    }

    fn scenario_probe(drop_question_data: bool) -> Checkpoint {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/corpus/loads/karenina-output__scenario_probe.jsonld");
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        if drop_question_data {
            for sc in v["hasPart"].as_array_mut().unwrap() {
                for node in sc["nodes"].as_object_mut().unwrap().values_mut() {
                    node.as_object_mut().unwrap().remove("questionData");
                }
            }
        }
        let bytes = serde_json::to_vec(&v).unwrap();
        read_checkpoint(&file, &bytes, ReadOptions::default()).unwrap()
    }

    #[test]
    fn a_scenario_node_s_question_is_found_with_its_scenario_node_and_id() {
        for drop in [false, true] {
            let cp = scenario_probe(drop);
            let hits = search(
                &cp,
                &Matcher::new("What is X", &Options::default()).unwrap(),
            );
            let q = hits
                .iter()
                .find(|h| h.field == Field::Question)
                .unwrap_or_else(|| panic!("questionData dropped: {drop}: {hits:?}"));
            // Karenina's Question.id: the MD5 of the question text.
            assert_eq!(
                q.question.as_deref(),
                Some("ee27e8e6a046a4fee869e5d321498721")
            );
            assert_eq!(q.scenario, Some(("test_branch".into(), "ask".into())));
            assert_eq!(q.label, "scenario[test_branch].node[ask].question");
            let want = if drop {
                "/hasPart/0/nodes/ask/question/text"
            } else {
                "/hasPart/0/nodes/ask/questionData/question"
            };
            assert_eq!(q.path.to_string(), want);
            // The template too, and --field restricts scenario nodes alike.
            let only = Options {
                fields: vec![Field::Template],
                ..Options::default()
            };
            let t = search(&cp, &Matcher::new("class Answer", &only).unwrap());
            assert!(!t.is_empty(), "{t:?}");
            assert!(t
                .iter()
                .all(|h| h.field == Field::Template && h.scenario.is_some()));
        }
    }
}
