//! JSON tree → typed checkpoint, applying Karenina's load rules (spec §1.1, §6).
//!
//! Everything Karenina refuses is an error; members we do not know are kept in
//! `extra` and reported; legacy spellings Karenina still accepts are normalized
//! (with a warning saying what changed).

use super::types::*;
use crate::error::Diagnostic;
use crate::json::{Json, JsonPath, Object, Seg};

/// Collects diagnostics and tracks the current JSON path.
pub(crate) struct Cx {
    path: Vec<Seg>,
    pub(crate) diags: Vec<Diagnostic>,
}

impl Cx {
    pub(crate) fn new() -> Self {
        Cx {
            path: Vec::new(),
            diags: Vec::new(),
        }
    }
    fn here(&self) -> JsonPath {
        JsonPath(self.path.clone())
    }
    fn at(&self, k: &str) -> JsonPath {
        let mut p = self.here();
        p.0.push(Seg::Key(k.to_string()));
        p
    }
    fn error(&mut self, code: &'static str, path: JsonPath, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, path, msg));
    }
    fn warn(&mut self, code: &'static str, path: JsonPath, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, path, msg));
    }
    fn enter(&mut self, k: &str) {
        self.path.push(Seg::Key(k.to_string()));
    }
    fn enter_index(&mut self, i: usize) {
        self.path.push(Seg::Index(i));
    }
    fn leave(&mut self) {
        self.path.pop();
    }
    fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
}

/// The members of one object, taken one by one; what is left is "unknown".
struct Fields(Vec<Option<(String, Json)>>);

impl Fields {
    fn new(o: Object) -> Self {
        Fields(o.0.into_iter().map(Some).collect())
    }
    fn take(&mut self, key: &str) -> Option<Json> {
        self.0
            .iter_mut()
            .find(|e| matches!(e, Some((k, _)) if k == key))
            .and_then(|e| e.take())
            .map(|(_, v)| v)
    }
    fn rest(self, cx: &mut Cx, what: &str) -> Extra {
        let rest: Extra = self.0.into_iter().flatten().collect();
        for (k, _) in &rest {
            let p = cx.at(k);
            cx.warn(
                "KLD-W001",
                p,
                format!("unknown member `{k}` in {what}: kept by karenina-ld, dropped by Karenina on its next save"),
            );
        }
        rest
    }
}

fn expect_object(v: Json, cx: &mut Cx, path: JsonPath, what: &str) -> Option<Object> {
    match v {
        Json::Object(o) => Some(o),
        other => {
            cx.error(
                "KLD-E012",
                path,
                format!("expected {what} (a JSON object), found {}", other.kind()),
            );
            None
        }
    }
}

fn req_str(f: &mut Fields, key: &str, cx: &mut Cx, what: &str) -> Option<String> {
    match f.take(key) {
        None | Some(Json::Null) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E011",
                p,
                format!("{what} is missing required member `{key}` (expected a string)"),
            );
            None
        }
        Some(Json::String(s)) => Some(s),
        Some(other) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E012",
                p,
                format!("`{key}` must be a string, found {}", other.kind()),
            );
            None
        }
    }
}

fn opt_str(f: &mut Fields, key: &str, cx: &mut Cx) -> Option<String> {
    match f.take(key) {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s),
        Some(other) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E012",
                p,
                format!("`{key}` must be a string or null, found {}", other.kind()),
            );
            None
        }
    }
}

fn float_of(v: Json, key: &str, cx: &mut Cx) -> Option<f64> {
    match v {
        Json::Number(n) => Some(n.as_f64()),
        Json::String(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => {
                let p = cx.at(key);
                cx.warn(
                    "KLD-W007",
                    p,
                    format!("`{key}` is the string {s:?}; Karenina coerces it to the number {x} and writes a number"),
                );
                Some(x)
            }
            _ => {
                let p = cx.at(key);
                cx.error(
                    "KLD-E012",
                    p,
                    format!("`{key}` must be a number, found the string {s:?}"),
                );
                None
            }
        },
        other => {
            let p = cx.at(key);
            cx.error(
                "KLD-E012",
                p,
                format!("`{key}` must be a number, found {}", other.kind()),
            );
            None
        }
    }
}

fn req_float(f: &mut Fields, key: &str, cx: &mut Cx, what: &str) -> Option<f64> {
    match f.take(key) {
        None | Some(Json::Null) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E011",
                p,
                format!("{what} is missing required member `{key}` (expected a number)"),
            );
            None
        }
        Some(v) => float_of(v, key, cx),
    }
}

fn opt_json(f: &mut Fields, key: &str) -> Option<Json> {
    match f.take(key) {
        None | Some(Json::Null) => None,
        Some(v) => Some(v),
    }
}

/// `@type` is optional everywhere, but when present must be the literal.
fn check_type(f: &mut Fields, expected: &str, cx: &mut Cx) {
    match f.take("@type") {
        None | Some(Json::Null) => {}
        Some(Json::String(s)) if s == expected => {}
        Some(other) => {
            let found = match &other {
                Json::String(s) => format!("{s:?}"),
                o => o.kind().to_string(),
            };
            let p = cx.at("@type");
            cx.error(
                "KLD-E013",
                p,
                format!("`@type` must be \"{expected}\", found {found}"),
            );
        }
    }
}

fn list_of<T>(
    v: Option<Json>,
    key: &str,
    cx: &mut Cx,
    mut each: impl FnMut(Json, &mut Cx) -> Option<T>,
) -> Option<Vec<T>> {
    match v {
        None | Some(Json::Null) => None,
        Some(Json::Array(a)) => {
            cx.enter(key);
            let mut out = Vec::with_capacity(a.len());
            let mut ok = true;
            for (i, x) in a.into_iter().enumerate() {
                cx.enter_index(i);
                match each(x, cx) {
                    Some(t) => out.push(t),
                    None => ok = false,
                }
                cx.leave();
            }
            cx.leave();
            ok.then_some(out)
        }
        Some(other) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E012",
                p,
                format!("`{key}` must be an array, found {}", other.kind()),
            );
            None
        }
    }
}

fn strings(v: Json, cx: &mut Cx) -> Option<String> {
    match v {
        Json::String(s) => Some(s),
        other => {
            let p = cx.here();
            cx.error(
                "KLD-E012",
                p,
                format!("keywords must be strings, found {}", other.kind()),
            );
            None
        }
    }
}

/// Reads the root `DataFeed`. Returns `None` when there are errors.
pub(crate) fn read_checkpoint(v: Json, cx: &mut Cx) -> Option<Checkpoint> {
    let Json::Object(o) = v else {
        let k = v.kind();
        cx.error(
            "KLD-E010",
            JsonPath::root(),
            format!("a checkpoint is a JSON object (a DataFeed), found {k}"),
        );
        return None;
    };
    let mut f = Fields::new(o);
    // The root model accepts the non-aliased spellings too (populate_by_name).
    for (alias, plain) in [("@context", "context"), ("@type", "type"), ("@id", "id")] {
        if f.0.iter().flatten().all(|(k, _)| k != alias) {
            if let Some(v) = f.take(plain) {
                let p = cx.at(plain);
                cx.warn(
                    "KLD-W006",
                    p,
                    format!("root member `{plain}` is read as `{alias}`; canon writes `{alias}`"),
                );
                f.0.push(Some((alias.to_string(), v)));
            }
        }
    }
    let errors_before = cx.error_count();
    let context = match f.take("@context") {
        None | Some(Json::Null) => {
            cx.error(
                "KLD-E011",
                JsonPath::root().key("@context"),
                "checkpoint has no `@context` (Karenina requires a JSON object)",
            );
            None
        }
        Some(Json::Object(c)) => Some(c),
        Some(Json::String(s)) => {
            let p = cx.at("@context");
            cx.error(
                "KLD-E014",
                p,
                format!("`@context` is the string {s:?}; Karenina only loads an embedded context object (early GUI files and E2E fixtures used strings)"),
            );
            None
        }
        Some(other) => {
            let p = cx.at("@context");
            cx.error(
                "KLD-E012",
                p,
                format!("`@context` must be a JSON object, found {}", other.kind()),
            );
            None
        }
    };
    if let Some(Json::String(t)) =
        f.0.iter()
            .flatten()
            .find(|(k, _)| k == "@type")
            .map(|(_, v)| v)
    {
        if t == "Dataset" {
            let p = cx.at("@type");
            cx.error(
                "KLD-E015",
                p,
                "2025-08 `Dataset` checkpoint (questions in `hasPart`): Karenina no longer loads this format; convert it with `kld canon --upgrade`",
            );
            return None;
        }
    }
    check_type(&mut f, "DataFeed", cx);
    let id = opt_str(&mut f, "@id", cx);
    let name = req_str(&mut f, "name", cx, "the checkpoint");
    if name.as_deref() == Some("") {
        let p = cx.at("name");
        cx.error("KLD-E013", p, "Benchmark must have a name (empty `name`)");
    }
    let description = opt_str(&mut f, "description", cx);
    let version = opt_str(&mut f, "version", cx);
    let creator = read_creator(f.take("creator"), cx);
    let date_created = req_str(&mut f, "dateCreated", cx, "the checkpoint");
    let date_modified = req_str(&mut f, "dateModified", cx, "the checkpoint");
    let rating = list_of(f.take("rating"), "rating", cx, |v, cx| {
        let r = read_rating(v, cx)?;
        if r.kind.scope != Scope::Global {
            let p = cx.at("additionalType");
            cx.error(
                "KLD-E018",
                p,
                format!(
                    "Dataset-level rating must be a global trait type, got {}",
                    r.kind.as_curie()
                ),
            );
        }
        Some(r)
    });
    let items = match f.take("dataFeedElement") {
        None | Some(Json::Null) => {
            cx.error(
                "KLD-E011",
                JsonPath::root().key("dataFeedElement"),
                "checkpoint is missing required member `dataFeedElement` (expected an array, may be empty)",
            );
            None
        }
        v => list_of(v, "dataFeedElement", cx, read_item),
    };
    let scenarios = list_of(f.take("hasPart"), "hasPart", cx, read_scenario);
    let additional_property = list_of(
        f.take("additionalProperty"),
        "additionalProperty",
        cx,
        read_property,
    );
    let extra = f.rest(cx, "the checkpoint");
    if let (Some(items), Some(sc)) = (&items, &scenarios) {
        if !items.is_empty() && !sc.is_empty() {
            cx.error(
                "KLD-E019",
                JsonPath::root().key("hasPart"),
                "Checkpoint contains both questions and scenarios; Karenina refuses to load it",
            );
        }
    }
    if cx.error_count() > errors_before {
        return None;
    }
    Some(Checkpoint {
        context: context?,
        id,
        name: name?,
        description,
        version,
        creator,
        date_created: date_created?,
        date_modified: date_modified?,
        rating,
        items: items?,
        scenarios,
        additional_property,
        extra,
    })
}

fn read_creator(v: Option<Json>, cx: &mut Cx) -> Option<Creator> {
    match v {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(Creator::Name(s)),
        Some(Json::Object(o)) => {
            cx.enter("creator");
            let mut f = Fields::new(o);
            if let Some(Json::String(t)) =
                f.0.iter()
                    .flatten()
                    .find(|(k, _)| k == "@type")
                    .map(|(_, v)| v)
            {
                if t != "Person" {
                    let p = cx.at("@type");
                    let t = t.clone();
                    cx.error(
                        "KLD-E021",
                        p,
                        format!("`creator` must be a string or a Person, found a {t}"),
                    );
                    cx.leave();
                    return None;
                }
            }
            check_type(&mut f, "Person", cx);
            let name = req_str(&mut f, "name", cx, "the creator Person");
            let url = opt_str(&mut f, "url", cx);
            let email = opt_str(&mut f, "email", cx);
            let extra = f.rest(cx, "the creator Person");
            cx.leave();
            Some(Creator::Person(Person {
                name: name?,
                url,
                email,
                extra,
            }))
        }
        Some(other) => {
            let p = cx.at("creator");
            cx.error(
                "KLD-E012",
                p,
                format!(
                    "`creator` must be a string or a Person object, found {}",
                    other.kind()
                ),
            );
            None
        }
    }
}

fn read_item(v: Json, cx: &mut Cx) -> Option<Item> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a DataFeedItem")?);
    check_type(&mut f, "DataFeedItem", cx);
    let id = opt_str(&mut f, "@id", cx);
    let date_created = req_str(&mut f, "dateCreated", cx, "the DataFeedItem");
    let date_modified = req_str(&mut f, "dateModified", cx, "the DataFeedItem");
    let keywords = list_of(f.take("keywords"), "keywords", cx, strings);
    let question = match f.take("item") {
        None | Some(Json::Null) => {
            let p = cx.at("item");
            cx.error(
                "KLD-E011",
                p,
                "the DataFeedItem is missing required member `item` (the Question)",
            );
            None
        }
        Some(q) => {
            cx.enter("item");
            let q = read_question(q, cx);
            cx.leave();
            q
        }
    };
    let extra = f.rest(cx, "the DataFeedItem");
    Some(Item {
        id,
        date_created: date_created?,
        date_modified: date_modified?,
        keywords,
        question: question?,
        extra,
    })
}

pub(crate) fn read_question(v: Json, cx: &mut Cx) -> Option<Question> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a Question")?);
    check_type(&mut f, "Question", cx);
    let id = opt_str(&mut f, "@id", cx);
    let text = req_str(&mut f, "text", cx, "the Question");
    if text.as_deref() == Some("") {
        let p = cx.at("text");
        cx.error(
            "KLD-E013",
            p,
            "Question text is empty (Karenina: \"Question missing text\")",
        );
    }
    let accepted_answer = match f.take("acceptedAnswer") {
        None | Some(Json::Null) => {
            let p = cx.at("acceptedAnswer");
            cx.error(
                "KLD-E011",
                p,
                "the Question is missing required member `acceptedAnswer`",
            );
            None
        }
        Some(a) => {
            cx.enter("acceptedAnswer");
            let a = read_answer(a, cx);
            cx.leave();
            a
        }
    };
    let template = match f.take("hasPart") {
        None | Some(Json::Null) => {
            let p = cx.at("hasPart");
            cx.error(
                "KLD-E011",
                p,
                "the Question is missing required member `hasPart` (the SoftwareSourceCode answer template)",
            );
            None
        }
        Some(c) => {
            cx.enter("hasPart");
            let c = read_code(c, cx);
            cx.leave();
            c
        }
    };
    let rating = list_of(f.take("rating"), "rating", cx, read_rating);
    let additional_property = list_of(
        f.take("additionalProperty"),
        "additionalProperty",
        cx,
        read_property,
    );
    let keywords = list_of(f.take("keywords"), "keywords", cx, strings);
    let extra = f.rest(cx, "the Question");
    Some(Question {
        id,
        text: text?,
        accepted_answer: accepted_answer?,
        template: template?,
        rating,
        additional_property,
        keywords,
        extra,
    })
}

fn read_answer(v: Json, cx: &mut Cx) -> Option<Answer> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "an Answer")?);
    check_type(&mut f, "Answer", cx);
    let id = opt_str(&mut f, "@id", cx);
    let text = req_str(&mut f, "text", cx, "the Answer");
    let extra = f.rest(cx, "the Answer");
    Some(Answer {
        id,
        text: text?,
        extra,
    })
}

fn read_code(v: Json, cx: &mut Cx) -> Option<SourceCode> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(
        v,
        cx,
        here,
        "a SoftwareSourceCode answer template",
    )?);
    check_type(&mut f, "SoftwareSourceCode", cx);
    let id = opt_str(&mut f, "@id", cx);
    let name = req_str(&mut f, "name", cx, "the answer template");
    let text = req_str(&mut f, "text", cx, "the answer template");
    match f.take("programmingLanguage") {
        None | Some(Json::Null) => {}
        Some(Json::String(s)) if s == "Python" => {}
        Some(other) => {
            let p = cx.at("programmingLanguage");
            cx.error(
                "KLD-E013",
                p,
                format!(
                    "`programmingLanguage` must be \"Python\", found {}",
                    crate::model::show(&other)
                ),
            );
        }
    }
    let code_repository = opt_str(&mut f, "codeRepository", cx);
    let extra = f.rest(cx, "the answer template");
    Some(SourceCode {
        id,
        name: name?,
        text: text?,
        code_repository,
        extra,
    })
}

fn read_rating(v: Json, cx: &mut Cx) -> Option<Rating> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a Rating")?);
    check_type(&mut f, "Rating", cx);
    let id = opt_str(&mut f, "@id", cx);
    let name = req_str(&mut f, "name", cx, "the Rating");
    let description = opt_str(&mut f, "description", cx);
    let best = req_float(&mut f, "bestRating", cx, "the Rating");
    let worst = req_float(&mut f, "worstRating", cx, "the Rating");
    let rating_value = match f.take("ratingValue") {
        None | Some(Json::Null) => None,
        Some(v) => float_of(v, "ratingValue", cx),
    };
    let rating_explanation = opt_str(&mut f, "ratingExplanation", cx);
    let kind = match f.take("additionalType") {
        None | Some(Json::Null) => {
            let p = cx.at("additionalType");
            cx.error(
                "KLD-E011",
                p,
                "the Rating has no `additionalType` (one of the 14 karenina trait types); GUI-era ratings without it no longer load",
            );
            None
        }
        Some(Json::String(s)) if s.is_empty() => {
            let p = cx.at("additionalType");
            cx.error(
                "KLD-E011",
                p,
                "`additionalType` is empty (one of the 14 karenina trait types)",
            );
            None
        }
        Some(Json::String(s)) => {
            if !s.starts_with("karenina:") {
                let p = cx.at("additionalType");
                cx.warn(
                    "KLD-W003",
                    p,
                    format!("unprefixed trait type {s:?}: Karenina reads it as \"karenina:{s}\" and canon writes that"),
                );
            }
            let local = s.strip_prefix("karenina:").unwrap_or(&s);
            match TraitType::parse(local) {
                Some(t) => Some(t),
                None if local.contains("Manual") => {
                    let p = cx.at("additionalType");
                    cx.error(
                        "KLD-E017",
                        p,
                        format!("{s:?}: Manual rubric traits were removed from Karenina in 2026-02; files containing them no longer load"),
                    );
                    None
                }
                None => {
                    let p = cx.at("additionalType");
                    cx.error(
                        "KLD-E016",
                        p,
                        format!("unknown trait type {s:?}; expected one of the 14 karenina:Global…/QuestionSpecific… types"),
                    );
                    None
                }
            }
        }
        Some(other) => {
            let p = cx.at("additionalType");
            cx.error(
                "KLD-E012",
                p,
                format!("`additionalType` must be a string, found {}", other.kind()),
            );
            None
        }
    };
    let additional_property = list_of(
        f.take("additionalProperty"),
        "additionalProperty",
        cx,
        read_property,
    );
    let extra = f.rest(cx, "the Rating");
    Some(Rating {
        id,
        name: name?,
        description,
        best: best?,
        worst: worst?,
        rating_value,
        rating_explanation,
        kind: kind?,
        additional_property,
        extra,
    })
}

fn read_property(v: Json, cx: &mut Cx) -> Option<Property> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a PropertyValue")?);
    check_type(&mut f, "PropertyValue", cx);
    let name = req_str(&mut f, "name", cx, "the PropertyValue");
    let value = opt_json(&mut f, "value");
    let extra = f.rest(cx, "the PropertyValue");
    Some(Property {
        name: name?,
        value,
        extra,
    })
}

fn object_or_default(f: &mut Fields, key: &str, cx: &mut Cx) -> Json {
    match f.take(key) {
        None => Json::Object(Object::new()),
        Some(Json::Object(o)) => Json::Object(o),
        Some(other) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E012",
                p,
                format!("`{key}` must be an object, found {}", other.kind()),
            );
            Json::Null
        }
    }
}

fn read_scenario(v: Json, cx: &mut Cx) -> Option<Scenario> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a karenina:Scenario")?);
    check_type(&mut f, "karenina:Scenario", cx);
    let name = req_str(&mut f, "name", cx, "the Scenario");
    let description = opt_str(&mut f, "description", cx).unwrap_or_default();
    let entry_node = req_str(&mut f, "entryNode", cx, "the Scenario");
    let nodes = match f.take("nodes") {
        Some(Json::Object(o)) => {
            cx.enter("nodes");
            let mut out = Vec::with_capacity(o.len());
            let mut ok = true;
            for (k, v) in o.0 {
                cx.enter(&k);
                match read_node(v, cx) {
                    Some(n) => out.push((k, n)),
                    None => ok = false,
                }
                cx.leave();
            }
            cx.leave();
            ok.then_some(out)
        }
        None | Some(Json::Null) => {
            let p = cx.at("nodes");
            cx.error(
                "KLD-E011",
                p,
                "the Scenario is missing required member `nodes` (an object keyed by node id)",
            );
            None
        }
        Some(other) => {
            let p = cx.at("nodes");
            cx.error(
                "KLD-E012",
                p,
                format!("`nodes` must be an object, found {}", other.kind()),
            );
            None
        }
    };
    let edges = match f.take("edges") {
        None | Some(Json::Null) => {
            let p = cx.at("edges");
            cx.error(
                "KLD-E011",
                p,
                "the Scenario is missing required member `edges`",
            );
            None
        }
        v => list_of(v, "edges", cx, read_edge),
    };
    let outcome_criteria = list_of(
        f.take("outcomeCriteria"),
        "outcomeCriteria",
        cx,
        read_outcome,
    )
    .unwrap_or_default();
    let metadata = object_or_default(&mut f, "metadata", cx);
    let extra = f.rest(cx, "the Scenario");
    Some(Scenario {
        name: name?,
        description,
        entry_node: entry_node?,
        nodes: nodes?,
        edges: edges?,
        outcome_criteria,
        metadata,
        extra,
    })
}

fn read_node(v: Json, cx: &mut Cx) -> Option<ScenarioNode> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a karenina:ScenarioNode")?);
    check_type(&mut f, "karenina:ScenarioNode", cx);
    let node_id = req_str(&mut f, "nodeId", cx, "the ScenarioNode");
    let question = match f.take("question") {
        None | Some(Json::Null) => {
            let p = cx.at("question");
            cx.error(
                "KLD-E011",
                p,
                "the ScenarioNode is missing required member `question`",
            );
            None
        }
        Some(q) => {
            cx.enter("question");
            let q = read_question(q, cx);
            cx.leave();
            q
        }
    };
    let model_override = opt_json(&mut f, "modelOverride");
    let tool_filter = opt_json(&mut f, "toolFilter");
    let state_update_source = opt_str(&mut f, "stateUpdateSource", cx);
    let question_data = opt_json(&mut f, "questionData");
    let agent_identity = opt_json(&mut f, "agentIdentity");
    let metadata = object_or_default(&mut f, "metadata", cx);
    let extra = f.rest(cx, "the ScenarioNode");
    Some(ScenarioNode {
        node_id: node_id?,
        question: question?,
        model_override,
        tool_filter,
        state_update_source,
        question_data,
        agent_identity,
        metadata,
        extra,
    })
}

fn read_edge(v: Json, cx: &mut Cx) -> Option<Edge> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "a scenario edge")?);
    let source = req_str(&mut f, "source", cx, "the edge");
    let target = req_str(&mut f, "target", cx, "the edge");
    let condition = opt_json(&mut f, "condition");
    let condition_source = opt_str(&mut f, "conditionSource", cx);
    let handover = opt_json(&mut f, "handover");
    let extra = f.rest(cx, "the edge");
    Some(Edge {
        source: source?,
        target: target?,
        condition,
        condition_source,
        handover,
        extra,
    })
}

fn read_outcome(v: Json, cx: &mut Cx) -> Option<Outcome> {
    let here = cx.here();
    let mut f = Fields::new(expect_object(v, cx, here, "an outcome criterion")?);
    let name = req_str(&mut f, "name", cx, "the outcome criterion");
    let description = opt_str(&mut f, "description", cx).unwrap_or_default();
    let check = opt_json(&mut f, "check");
    let evaluate_source = opt_str(&mut f, "evaluateSource", cx);
    let extra = f.rest(cx, "the outcome criterion");
    Some(Outcome {
        name: name?,
        description,
        check,
        evaluate_source,
        extra,
    })
}
