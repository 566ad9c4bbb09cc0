//! JSON tree → typed checkpoint, applying Karenina's load rules (Karenina `schemas/checkpoint.py`, `benchmark/core/base.py`; codes in `docs/diagnostics.md`).
//!
//! Everything Karenina refuses is an error; members we do not know are kept in
//! `extra` and reported; legacy spellings Karenina still accepts are normalized
//! (with a warning saying what changed).

mod fields;
mod scenario;

pub(crate) use fields::Cx;
use fields::*;
use scenario::read_scenario;

use super::types::*;
use crate::json::{Json, JsonPath};

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
            cx.type_error("@context", "a JSON object", &other);
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
            cx.type_error("creator", "a string or a Person object", &other);
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
    // An explicit null is refused too: pydantic's default applies only to a missing key.
    match f.take("programmingLanguage") {
        None => {}
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
            cx.type_error("additionalType", "a string", &other);
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

pub(super) fn read_property(v: Json, cx: &mut Cx) -> Option<Property> {
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
