//! `kld compare`'s tables for a manuscript: the pairwise comparisons (one
//! table per view: judges averaged, then each judge), the rates with their
//! intervals, judge agreement with Cohen's κ of each judge pair, and the
//! hardest questions, as [`Layout`]s (Markdown, LaTeX, HTML).
//!
//! Why a module of its own: the statistics layer ([`crate::stats`])
//! computes every number and writes them unrounded (JSON, CSV); a paper
//! wants them rounded as the author chooses ([`Digits`]), under a caption
//! that names each rate by the one table of rate names
//! ([`crate::numbers::names`]) with what its n counts. Nothing here
//! computes: each cell is a number of [`Comparison`], rounded, and a
//! statistic that is not defined is `n.d.` with its reason in the caption.

use super::layout::{Align, Layout};
pub use super::numerals::NOT_DEFINED;
use super::numerals::{bracket, level, rounding, signed, Why};
use super::Digits;
use crate::numbers::names::{QUESTION_MEAN, TEMPLATE_PASS_RATE};
use crate::stats::formats::Table;
use crate::stats::report::{Comparison, PairRow, RateRow};

/// The rates table's judge for a model's rows under every judge.
const EVERY_JUDGE: &str = "every judge (rows together)";

/// The agreement table's row over every answer.
const EVERY_MODEL: &str = "all models";

fn model(c: &Comparison, m: u32) -> &str {
    &c.obs.models[m as usize]
}

fn judge(c: &Comparison, j: u32) -> &str {
    &c.obs.judges[j as usize]
}

/// The pairwise tables: judges averaged, then each judge.
pub fn pairs(c: &Comparison, d: Digits) -> Vec<Layout> {
    let mut views: Vec<Option<u32>> = Vec::new();
    for p in &c.pairs {
        if !views.contains(&p.judge) {
            views.push(p.judge);
        }
    }
    views
        .into_iter()
        .map(|v| {
            let rows: Vec<&PairRow> = c.pairs.iter().filter(|p| p.judge == v).collect();
            pairs_view(c, v, &rows, d)
        })
        .collect()
}

fn pairs_view(c: &Comparison, view: Option<u32>, rows: &[&PairRow], d: Digits) -> Layout {
    let lv = level(c.options.confidence);
    let mcnemar = rows.iter().any(|p| p.discordant.is_some());
    let mut head: Vec<String> = ["A", "B", "n", "A (%)", "B (%)", "A − B"]
        .map(String::from)
        .to_vec();
    head.push(format!("{lv} % CI"));
    for h in ["SE", "p", "p Holm", "p BH"] {
        head.push(h.into());
    }
    if mcnemar {
        head.push("Only A/B".into());
        head.push("McNemar p".into());
    }
    let mut align = vec![Align::Left, Align::Left];
    align.extend(std::iter::repeat_n(Align::Right, head.len() - 2));
    let mut why = Why::default();
    let body = rows
        .iter()
        .map(|p| {
            let mut r = vec![model(c, p.a).to_string(), model(c, p.b).to_string()];
            let paired = &p.paired;
            r.push(why.cell(paired, |x| x.n.to_string()));
            r.push(why.cell(paired, |x| d.percent(x.mean_a)));
            r.push(why.cell(paired, |x| d.percent(x.mean_b)));
            r.push(why.cell(paired, |x| signed(d, x.diff)));
            let test = paired
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|x| x.test.clone());
            r.push(why.cell(&test, |t| bracket(d, t.interval.low, t.interval.high)));
            r.push(why.cell(&test, |t| d.percent(t.se)));
            r.push(why.cell(&test, |t| d.p(t.p)));
            for adj in [p.holm, p.bh] {
                r.push(adj.map(|x| d.p(x)).unwrap_or_else(|| NOT_DEFINED.into()));
            }
            if mcnemar {
                r.push(
                    p.discordant
                        .map(|(a, b)| format!("{a} / {b}"))
                        .unwrap_or_else(|| "–".into()),
                );
                r.push(match &p.mcnemar {
                    Some(m) => why.cell(m, |m| d.p(m.p)),
                    None => "–".into(),
                });
            }
            r
        })
        .collect();
    let (title, what, label) = match view {
        None => (
            "Paired differences, judges averaged".to_string(),
            "each question's score the mean of its rows under every judge and replicate".to_string(),
            "pairs".to_string(),
        ),
        Some(j) => (
            format!("Paired differences under the judge {}", judge(c, j)),
            format!(
                "each question's score the mean of its rows under the judge {} (its replicates averaged)",
                judge(c, j)
            ),
            format!("pairs-{}", j + 1),
        ),
    };
    let mut caption = format!(
        "Paired comparison of two answering models, A and B, on the n questions both answered, {what}. A (%) and B (%): each model's {} ({}); n = {}. A − B: the mean of the per-question differences in points, with its {lv} % t interval (CI) and standard error (SE) in points (paired t test, as scipy's ttest_rel); p two-sided, adjusted across this table's {} pair{} by Holm and by Benjamini–Hochberg. Pairs in the order of the models' {} over every judge, best first.",
        QUESTION_MEAN.name,
        QUESTION_MEAN.definition,
        QUESTION_MEAN.n,
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        TEMPLATE_PASS_RATE.name,
    );
    if mcnemar {
        caption.push_str(" Only A/B: the questions only the first model passed / only the second passed, where each model has one row per question; McNemar p: the exact test on them.");
    }
    caption.push_str(&rounding(d, true));
    caption.push_str(&why.sentence());
    Layout {
        title,
        head,
        align,
        rows: body,
        caption,
        label,
        keys: vec![(0, "M", "Answering models"), (1, "M", "Answering models")],
        unkeyed: vec![],
    }
}

/// The rates: per answering model over every judge's rows, then per
/// answering model × judge (Karenina's template pass rate by combo), two
/// tables (one would not fit a printed page).
pub fn rates(c: &Comparison, d: Digits) -> Vec<Layout> {
    // Models best first (kld compare's ranking), each model's judges in
    // the run's order.
    let order: Vec<u32> = c.ranking.iter().map(|r| r.model).collect();
    let by_model: Vec<RateRow> = order.iter().map(|&m| c.rates[m as usize].clone()).collect();
    let mut combos = c.combos.clone();
    combos.sort_by_key(|r| order.iter().position(|&m| m == r.model));
    vec![
        rates_of(c, &by_model, d, false),
        rates_of(c, &combos, d, true),
    ]
}

fn rates_of(c: &Comparison, of: &[RateRow], d: Digits, by_judge: bool) -> Layout {
    let lv = level(c.options.confidence);
    let mut head: Vec<String> = vec![
        "Answering model".into(),
        "Judge".into(),
        "Rate (%)".into(),
        "Passed".into(),
        "n".into(),
        "Wilson CI".into(),
        "SE".into(),
        "Questions".into(),
        "t CI".into(),
    ];
    let mut align = vec![Align::Left, Align::Left];
    align.extend(std::iter::repeat_n(Align::Right, head.len() - 2));
    let mut why = Why::default();
    let mut rows: Vec<Vec<String>> = of
        .iter()
        .map(|r| {
            let mut x = vec![
                model(c, r.model).to_string(),
                r.judge
                    .map(|j| judge(c, j).to_string())
                    .unwrap_or_else(|| EVERY_JUDGE.into()),
            ];
            x.push(why.cell(&r.count.rate(), |v| d.percent(*v)));
            x.push(r.count.passed.to_string());
            x.push(r.count.n.to_string());
            x.push(why.cell(&r.wilson, |i| bracket(d, i.low, i.high)));
            x.push(why.cell(&r.clustered, |k| d.percent(k.se)));
            x.push(why.cell(&r.clustered, |k| k.clusters.to_string()));
            x.push(why.cell(&r.clustered, |k| {
                bracket(d, k.interval.low, k.interval.high)
            }));
            x
        })
        .collect();
    if !by_judge {
        // Every row's judge is every judge: the title says so.
        head.remove(1);
        align.remove(1);
        for r in &mut rows {
            r.remove(1);
        }
    }
    let karenina = TEMPLATE_PASS_RATE
        .karenina
        .map(|k| format!(" (Karenina's {k})"))
        .unwrap_or_default();
    let whose = if by_judge {
        "under each judge (parsing model) alone"
    } else {
        "over every judge's rows together (the judges' rows pooled, as kld compare's per-model rate and its intervals pool them; the leaderboard's mean of judges does not)"
    };
    let caption = format!(
        "The {} of each answering model {whose}, best first: {}{karenina}; n = {}. Wilson CI: the {lv} % Wilson interval, the rows taken as independent; SE: the standard error in points with each question a cluster (replicates and judges repeat a question), Questions the clusters, and t CI its {lv} % t interval on (questions − 1) degrees of freedom, which can reach past 0 or 100 % on few questions.{}{}",
        TEMPLATE_PASS_RATE.name,
        TEMPLATE_PASS_RATE.definition,
        TEMPLATE_PASS_RATE.n,
        rounding(d, false),
        why.sentence()
    );
    Layout {
        title: if by_judge {
            format!("Template pass rates by answering model and judge, {lv} % intervals")
        } else {
            format!("Template pass rates by answering model, {lv} % intervals")
        },
        head,
        align,
        rows,
        caption,
        label: if by_judge { "rates-by-judge" } else { "rates" }.into(),
        keys: if by_judge {
            vec![(0, "M", "Answering models"), (1, "J", "Judges")]
        } else {
            vec![(0, "M", "Answering models")]
        },
        unkeyed: vec![],
    }
}

/// Judge agreement over every answer, then per answering model.
pub fn agreement(c: &Comparison, d: Digits) -> Layout {
    let head: Vec<String> = [
        "Answers of",
        "n",
        "Rated ≥ 2",
        "Pairwise (%)",
        "Unanimous (%)",
        "Fleiss' κ",
        "All judges",
        "Kripp. α",
    ]
    .map(String::from)
    .to_vec();
    let mut align = vec![Align::Left];
    align.extend(std::iter::repeat_n(Align::Right, head.len() - 1));
    let mut why = Why::default();
    let rows = c
        .agreement
        .iter()
        .map(|a| {
            vec![
                a.model
                    .map(|m| model(c, m).to_string())
                    .unwrap_or_else(|| EVERY_MODEL.into()),
                a.answers.to_string(),
                why.cell(&a.percent, |p| p.units.to_string()),
                why.cell(&a.percent, |p| d.percent(p.pairwise)),
                why.cell(&a.percent, |p| d.percent(p.unanimous)),
                why.cell(&a.fleiss, |k| d.coefficient(k.0)),
                why.cell(&a.fleiss, |k| k.1.to_string()),
                why.cell(&a.alpha, |k| d.coefficient(k.0)),
            ]
        })
        .collect();
    let caption = format!(
        "Agreement of the {} judges (parsing models) on each answer's template verdict (verify_result). An answer is a question × answering model × replicate × run; a null verdict is a missing rating, not a failed one; n = answers with at least one rating; Rated ≥ 2: those rated twice or more. Pairwise: over those, the mean share of judge pairs that agree; unanimous: the share on which every judge agrees. Fleiss' κ over the answers every judge rated (All judges; as statsmodels' fleiss_kappa); Kripp. α: Krippendorff's α, nominal, over every answer rated twice or more (as krippendorff.alpha).{}{}",
        c.obs.judges.len(),
        rounding(d, true),
        why.sentence()
    );
    Layout {
        title: "Judge agreement".into(),
        head,
        align,
        rows,
        caption,
        label: "agreement".into(),
        keys: vec![(0, "M", "Answering models")],
        unkeyed: vec![EVERY_MODEL.into()],
    }
}

/// Cohen's κ of each pair of judges.
pub fn kappa(c: &Comparison, d: Digits) -> Layout {
    let head: Vec<String> = [
        "Judge A",
        "Judge B",
        "Answers both rated",
        "Agreement (%)",
        "Cohen's κ",
    ]
    .map(String::from)
    .to_vec();
    let align = vec![
        Align::Left,
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
    ];
    let mut why = Why::default();
    let rows = c
        .cohen
        .iter()
        .map(|(i, j, k)| {
            let kappa = k
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|k| k.kappa.clone());
            vec![
                judge(c, *i).to_string(),
                judge(c, *j).to_string(),
                why.cell(k, |k| k.n.to_string()),
                why.cell(k, |k| d.percent(k.agreement)),
                why.cell(&kappa, |k| d.coefficient(*k)),
            ]
        })
        .collect();
    let caption = format!(
        "Agreement of each pair of judges (parsing models) on the template verdicts of the answers both rated (n: Answers both rated; an answer is a question × answering model × replicate × run, a null verdict a missing rating): the share of equal verdicts and Cohen's κ (unweighted, as scikit-learn's cohen_kappa_score).{}{}",
        rounding(d, true),
        why.sentence()
    );
    Layout {
        title: "Cohen's κ of each pair of judges".into(),
        head,
        align,
        rows,
        caption,
        label: "kappa".into(),
        keys: vec![(0, "J", "Judges"), (1, "J", "Judges")],
        unkeyed: vec![],
    }
}

/// The `hardest` questions with the lowest template pass rate.
pub fn questions(c: &Comparison, d: Digits, hardest: usize) -> Layout {
    let head: Vec<String> = [
        "Rank",
        "Question",
        "Rate (%)",
        "Passed",
        "n",
        "Models",
        "Discrimination r",
    ]
    .map(String::from)
    .to_vec();
    let align = vec![
        Align::Right,
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
    ];
    let mut why = Why::default();
    let shown = c.questions.len().min(hardest);
    let rows = c.questions[..shown]
        .iter()
        .enumerate()
        .map(|(i, q)| {
            vec![
                (i + 1).to_string(),
                c.obs.questions[q.question as usize].clone(),
                why.cell(&q.overall.rate(), |r| d.percent(*r)),
                q.overall.passed.to_string(),
                q.overall.n.to_string(),
                q.by_model.len().to_string(),
                why.cell(&q.discrimination, |r| d.coefficient(*r)),
            ]
        })
        .collect();
    let caption = format!(
        "The {shown} hardest of the run's {} questions: each question's {} over every answering model, judge and replicate (its rows together; {}), lowest first, ties by question ID; n = {}. Models: the answering models that answered it. Discrimination: Pearson's r, across those models, of a model's rate on this question and its rate on every other question (item-rest correlation).{}{}",
        c.questions.len(),
        TEMPLATE_PASS_RATE.name,
        TEMPLATE_PASS_RATE.definition,
        TEMPLATE_PASS_RATE.n,
        rounding(d, true),
        why.sentence()
    );
    Layout {
        title: format!("The {shown} hardest questions"),
        head,
        align,
        rows,
        caption,
        label: "questions".into(),
        keys: vec![(1, "Q", "Questions")],
        unkeyed: vec![],
    }
}

/// The layouts of one of `kld compare`'s tables (`--table`).
pub fn compare_tables(c: &Comparison, table: Table, d: Digits, hardest: usize) -> Vec<Layout> {
    match table {
        Table::Pairs => pairs(c, d),
        Table::Rates => rates(c, d),
        Table::Agreement if c.obs.judges.len() < 2 => vec![agreement(c, d)],
        Table::Agreement => vec![agreement(c, d), kappa(c, d)],
        Table::Kappa => vec![kappa(c, d)],
        Table::Questions => vec![questions(c, d, hardest)],
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::stats::{compare, Observation, Observations, Options};

    /// Three models, two judges, four questions, one replicate: enough for
    /// every statistic and a few that are not defined.
    pub(crate) fn comparison() -> Comparison {
        let mut obs = Observations {
            questions: (1..=4).map(|q| format!("q{q}")).collect(),
            models: vec!["m_a".into(), "m|b".into(), "m&c".into()],
            judges: vec!["j1".into(), "j2".into()],
            runs: vec![None],
            ..Default::default()
        };
        // verdicts[model][judge][question]
        let v = [
            [[1, 1, 1, 0], [1, 1, 0, 0]],
            [[1, 0, 0, 0], [1, 0, 1, 0]],
            [[1, 1, 1, 1], [1, 1, 1, 1]],
        ];
        for (m, js) in v.iter().enumerate() {
            for (j, qs) in js.iter().enumerate() {
                for (q, &x) in qs.iter().enumerate() {
                    obs.rows.push(Observation {
                        question: q as u32,
                        model: m as u32,
                        judge: j as u32,
                        replicate: None,
                        run: 0,
                        verdict: Some(x == 1),
                    });
                }
            }
        }
        compare(obs, Options::default()).unwrap()
    }

    #[test]
    fn the_pairs_table_rounds_as_asked_and_names_its_rate_and_n() {
        let c = comparison();
        let t = pairs(&c, Digits(1));
        assert_eq!(t.len(), 3, "averaged, then each judge");
        let first = &t[0];
        // m&c (100 %) − m_a (62.5 %) over 4 questions: +37.5 points.
        assert_eq!(
            &first.rows[0][..6],
            ["m&c", "m_a", "4", "100.0", "62.5", "+37.5"]
        );
        let p = c.pairs[0].paired.as_ref().unwrap();
        let t0 = p.test.as_ref().unwrap();
        assert_eq!(
            first.rows[0][6],
            format!(
                "[{:.1}, {:.1}]",
                t0.interval.low * 100.0,
                t0.interval.high * 100.0
            )
        );
        assert_eq!(first.rows[0][8], format!("{:.3}", t0.p));
        assert!(first.caption.contains(QUESTION_MEAN.name));
        assert!(first.caption.contains("n = questions"));
        assert!(first.caption.contains("rounded to 1 decimal;"));
        let two = pairs(&c, Digits(2));
        assert_eq!(two[0].rows[0][5], "+37.50");
        // Under one judge, one row per question: McNemar's columns.
        assert!(t[1].head.contains(&"McNemar p".to_string()));
        assert_eq!(t[1].title, "Paired differences under the judge j1");
    }

    #[test]
    fn what_is_not_defined_is_n_d_with_its_reason_in_the_caption() {
        let c = comparison();
        // m&c passed every question under both judges: one category, no κ.
        let a = agreement(&c, Digits(1));
        let row = a.rows.iter().find(|r| r[0] == "m&c").unwrap();
        assert_eq!(row[5], NOT_DEFINED);
        assert_eq!(row[7], NOT_DEFINED);
        assert!(
            a.caption.contains(
                "n.d.: not defined, because one category observed: every verdict is the same."
            ),
            "{}",
            a.caption
        );
        let every = &a.rows[0];
        assert_eq!(every[0], "all models");
        assert_ne!(every[5], NOT_DEFINED);
    }

    #[test]
    fn rates_kappa_and_questions_hold_the_comparison_s_numbers() {
        let c = comparison();
        let r = &rates(&c, Digits(1))[0];
        // Best first: m&c (100 %), m_a, m|b.
        let firsts: Vec<&str> = r.rows.iter().map(|x| x[0].as_str()).collect();
        assert_eq!(firsts, ["m&c", "m_a", "m|b"]);
        assert_eq!(&r.rows[1][..4], ["m_a", "62.5", "5", "8"]);
        let by = &rates(&c, Digits(1))[1];
        assert_eq!(&by.rows[2][..5], ["m_a", "j1", "75.0", "3", "4"]);
        assert!(r
            .caption
            .contains("rows with template verification performed"));
        let k = kappa(&c, Digits(1));
        let cohen = c.cohen[0].2.as_ref().unwrap();
        assert_eq!(k.rows[0][2], cohen.n.to_string());
        assert_eq!(
            k.rows[0][4],
            format!("{:.3}", cohen.kappa.as_ref().unwrap())
        );
        let q = questions(&c, Digits(0), 2);
        assert_eq!(q.rows.len(), 2);
        assert_eq!(q.rows[0][1], "q4");
        assert_eq!(q.rows[0][2], "33");
        assert!(q
            .caption
            .starts_with("The 2 hardest of the run's 4 questions"));
    }
}
