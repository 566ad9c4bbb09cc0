//! Karenina's numbers as `kld info` prints them for people: every rate
//! with its n and the name of the Karenina definition it is
//! (`docs/numbers.md`).

use serde_json::{Map, Value};

fn pct(passed: u64, total: u64) -> String {
    if total == 0 {
        return "-".into();
    }
    let c = crate::stats::Count {
        passed: passed as usize,
        n: total as usize,
    };
    let wilson = crate::stats::interval::wilson(c, 0.95)
        .map(|i| {
            format!(
                ", 95% Wilson [{:.1}%, {:.1}%]",
                i.low * 100.0,
                i.high * 100.0
            )
        })
        .unwrap_or_default();
    format!(
        "{:.1}% ({passed} of {total}{wilson})",
        passed as f64 / total as f64 * 100.0
    )
}

fn count(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or(0)
}

/// The lines for one `get_summary()` object, each indented by `indent`.
pub fn lines(summary: &Value, indent: &str) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(indent);
        out.push_str(&s);
        out.push('\n');
    };
    match summary["template_pass_by_combo"].as_object() {
        Some(by) => {
            line(format!(
                "{} by combo (Karenina template_pass_by_combo: verified true / \
                 results with template verification):",
                super::names::TEMPLATE_PASS_RATE.name
            ));
            for (combo, t) in by {
                line(format!(
                    "  {combo}: {}",
                    pct(count(t, "passed"), count(t, "total"))
                ));
            }
            let o = &summary["template_pass_overall"];
            line(format!(
                "  overall (template_pass_overall): {}",
                pct(count(o, "passed"), count(o, "total"))
            ));
        }
        None => line(format!(
            "{}: none (no result had template verification: \
             Karenina's template_pass_by_combo is null)",
            super::names::TEMPLATE_PASS_RATE.name
        )),
    }
    if let Some(r) = summary["replicate_stats"].as_object() {
        let reps: Vec<String> = r
            .get("replicate_pass_rates")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(Map::iter)
            .map(|(k, t)| format!("{k}: {}", pct(count(t, "passed"), count(t, "total"))))
            .collect();
        let s = &r["replicate_summary"];
        line(format!(
            "by replicate (replicate_stats: the same rate per replicate): {}; mean {:.1}%, sample std {:.1} points",
            reps.join(", "),
            s["mean"].as_f64().unwrap_or(f64::NAN) * 100.0,
            s["std"].as_f64().unwrap_or(f64::NAN) * 100.0
        ));
    }
    if let Some(by) = summary["completion_by_combo"].as_object() {
        line(
            "completed by combo (Karenina completion_by_combo: results without a failure / all results):"
                .into(),
        );
        for (combo, t) in by {
            line(format!(
                "  {combo}: {}",
                pct(count(t, "completed"), count(t, "total"))
            ));
        }
    }
    out
}
