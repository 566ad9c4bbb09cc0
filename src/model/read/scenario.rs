//! Scenarios in the root `hasPart` (Karenina `src/karenina/scenario/checkpoint.py`, `karenina:Scenario`).

use super::fields::*;
use super::read_question;
use crate::json::{Json, Object};
use crate::model::types::*;

fn object_or_default(f: &mut Fields, key: &str, cx: &mut Cx) -> Json {
    match f.take(key) {
        None => Json::Object(Object::new()),
        Some(Json::Object(o)) => Json::Object(o),
        Some(other) => {
            cx.type_error(key, "an object", &other);
            Json::Null
        }
    }
}

pub(super) fn read_scenario(v: Json, cx: &mut Cx) -> Option<Scenario> {
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
            cx.type_error("nodes", "an object", &other);
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
