//! A [`Comparison`] as text for people: the rates with intervals, the
//! pairwise table (judges averaged) with adjusted p-values, the ranking,
//! judge agreement and the hardest questions.

use super::formats::{RATE_DEFINITION, RATE_NAME};
use super::report::Comparison;
use super::{Count, Stat};
use crate::numbers::names::QUESTION_MEAN;
use std::fmt::Write as _;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn pts(x: f64) -> String {
    format!("{:+.1}", x * 100.0)
}

fn pval(p: f64) -> String {
    if p < 0.001 {
        "<0.001".into()
    } else {
        format!("{p:.3}")
    }
}

fn or_why<T>(s: &Stat<T>, f: impl Fn(&T) -> String) -> String {
    match s {
        Ok(v) => f(v),
        Err(e) => format!("not defined: {}", e.0),
    }
}

fn rate(c: Count) -> String {
    or_why(&c.rate(), |r| format!("{} (n={})", pct(*r), c.n))
}

impl Comparison {
    /// The report as text; `hardest`: how many questions to list.
    pub fn to_text(&self, hardest: usize) -> String {
        let mut s = String::new();
        let conf = format!("{:.0}%", self.options.confidence * 100.0);
        let _ = writeln!(s, "{RATE_NAME}: {RATE_DEFINITION}.");
        let _ = writeln!(
            s,
            "{} rows ({} left out: no template verification) over {} questions, {} answering x {} parsing models.\n",
            self.obs.rows.len(),
            self.obs.left_out,
            self.obs.questions.len(),
            self.obs.models.len(),
            self.obs.judges.len()
        );
        let _ = writeln!(
            s,
            "{RATE_NAME} by answering model (every judge), {conf} intervals: Wilson over rows; t over questions (clustered SE); #: 1 + the models significantly better (Holm)"
        );
        for r in &self.ranking {
            let row = &self.rates[r.model as usize];
            let w = or_why(&row.wilson, |i| {
                format!("[{}, {}]", pct(i.low), pct(i.high))
            });
            let c = or_why(&row.clustered, |c| {
                format!(
                    "SE {:.1} pts over {} questions, [{}, {}]",
                    c.se * 100.0,
                    c.clusters,
                    pct(c.interval.low),
                    pct(c.interval.high)
                )
            });
            let _ = writeln!(
                s,
                "  #{} {}  {}  Wilson {}  clustered {}",
                r.rank,
                self.obs.models[r.model as usize],
                rate(row.count),
                w,
                c
            );
            if !r.same_as.is_empty() {
                let names: Vec<&str> = r
                    .same_as
                    .iter()
                    .map(|&m| self.obs.models[m as usize].as_str())
                    .collect();
                let _ = writeln!(s, "      not distinguishable from: {}", names.join(", "));
            }
        }
        let _ = writeln!(
            s,
            "\npaired comparisons of the {} in points (judges and replicates averaged per question; paired t over question means; Holm and BH across pairs)",
            QUESTION_MEAN.name
        );
        let _ = writeln!(
            s,
            "  {:<40} {:>7} {:>6} {:>17} {:>7} {:>7} {:>7} {:>6} {:>6} {:>4}",
            "A vs B",
            "diff",
            "SE",
            conf.clone() + " interval",
            "p",
            "Holm",
            "BH",
            "corr",
            "MDD",
            "n"
        );
        for p in self.pairs.iter().filter(|p| p.judge.is_none()) {
            let name = format!(
                "{} vs {}",
                self.obs.models[p.a as usize], self.obs.models[p.b as usize]
            );
            let line = match &p.paired {
                Err(e) => format!("not defined: {}", e.0),
                Ok(x) => match &x.test {
                    Err(e) => format!("{:>7} not defined: {} (n={})", pts(x.diff), e.0, x.n),
                    Ok(t) => format!(
                        "{:>7} {:>6.1} {:>17} {:>7} {:>7} {:>7} {:>6} {:>6} {:>4}",
                        pts(x.diff),
                        t.se * 100.0,
                        format!(
                            "[{:.1}, {:.1}]",
                            t.interval.low * 100.0,
                            t.interval.high * 100.0
                        ),
                        pval(t.p),
                        p.holm.map_or("-".into(), pval),
                        p.bh.map_or("-".into(), pval),
                        or_why(&x.correlation, |c| format!("{c:.2}"))
                            .chars()
                            .take(6)
                            .collect::<String>(),
                        or_why(&x.detectable, |d| format!("{:.1}", d * 100.0)),
                        x.n
                    ),
                },
            };
            let _ = writeln!(s, "  {name:<40} {line}");
        }
        let _ = writeln!(
            s,
            "\njudge agreement (unit: an answer = question x answering model x replicate; raters: parsing models; a missing verdict is a missing rating)"
        );
        let _ = writeln!(
            s,
            "  {:<34} {:>7} {:>9} {:>9} {:>9} {:>12}",
            "answers of", "n", "pairwise", "unanimous", "Fleiss k", "Krippendorff a"
        );
        // A cell that is not defined reads "n/d"; its reason follows once.
        let mut reasons: Vec<String> = Vec::new();
        let mut cell = |s: Result<String, &super::NotDefined>| match s {
            Ok(v) => v,
            Err(e) => {
                if !reasons.contains(&e.0) {
                    reasons.push(e.0.clone());
                }
                "n/d".into()
            }
        };
        for a in &self.agreement {
            let who = a
                .model
                .map_or("every model", |m| self.obs.models[m as usize].as_str());
            let line = format!(
                "  {:<34} {:>7} {:>9} {:>9} {:>9} {:>12}",
                who,
                a.answers,
                cell(a.percent.as_ref().map(|p| pct(p.pairwise))),
                cell(a.percent.as_ref().map(|p| pct(p.unanimous))),
                cell(a.fleiss.as_ref().map(|k| format!("{:.3}", k.0))),
                cell(a.alpha.as_ref().map(|k| format!("{:.3}", k.0))),
            );
            let _ = writeln!(s, "{line}");
        }
        for r in reasons {
            let _ = writeln!(s, "  n/d (not defined): {r}");
        }
        let _ = writeln!(
            s,
            "\njudge bias (judge's pass rate minus the other judges' on the same answers; {conf} bootstrap over questions, {} resamples, seed {})",
            self.options.resamples, self.options.seed
        );
        for (j, b) in &self.bias {
            let line = or_why(b, |b| {
                format!(
                    "{} pts [{}] over {} answers",
                    pts(b.bias),
                    or_why(&b.interval, |i| format!(
                        "{:+.1}, {:+.1}",
                        i.low * 100.0,
                        i.high * 100.0
                    )),
                    b.n
                )
            });
            let _ = writeln!(s, "  {:<40} {line}", self.obs.judges[*j as usize]);
        }
        if let Some((r, rows)) = &self.reference {
            let _ = writeln!(
                s,
                "\nagreement with the reference judge {}",
                self.obs.judges[*r as usize]
            );
            for x in rows {
                let line = or_why(&x.cohen, |c| {
                    format!(
                        "agree {} kappa {} rate {} pts (n={})",
                        pct(c.agreement),
                        or_why(&c.kappa, |k| format!("{k:.3}")),
                        or_why(&x.rate_diff, |d| pts(*d)),
                        c.n
                    )
                });
                let _ = writeln!(s, "  {:<40} {line}", self.obs.judges[x.judge as usize]);
            }
        }
        let _ = writeln!(
            s,
            "\nthe {} hardest questions ({RATE_NAME} over every model, judge and replicate; discrimination: item-rest correlation across models)",
            hardest.min(self.questions.len())
        );
        for q in self.questions.iter().take(hardest) {
            let _ = writeln!(
                s,
                "  {:<50} {:>16}  discrimination {}",
                self.obs.questions[q.question as usize],
                rate(q.overall),
                or_why(&q.discrimination, |d| format!("{d:.2}"))
            );
        }
        let rep = &self.replicates;
        if !rep.by_combo.is_empty() {
            let shares: Vec<f64> = rep
                .by_combo
                .values()
                .map(|&(c, d)| d as f64 / c as f64)
                .collect();
            let lo = shares.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let _ = writeln!(
                s,
                "\nreplicates: cells (question x judge) whose replicates disagree: {} to {} across the {} combos",
                pct(lo),
                pct(hi),
                rep.by_combo.len()
            );
            for (m, (n, sd)) in &rep.sd_by_model {
                let _ = writeln!(
                    s,
                    "  {:<40} SD of per-replicate {RATE_NAME}: {} ({} replicates)",
                    self.obs.models[*m as usize],
                    or_why(sd, |v| format!("{:.1} pts", v * 100.0)),
                    n
                );
            }
        }
        s
    }
}
