"""The field's reference implementations of every statistic `kld compare`
prints: the oracle of crates/cli/tests/cli/differential/stats.rs.

    python3 tests/scripts/stats_reference.py EXPORT.json ...

Reads each results export's rows (plain JSON; the rows Karenina's template pass
rate counts: `template.template_verification_performed` true; a row scores 1
when `verify_result` is true) and prints one JSON object: file → an object
mapping a flat key
(`rates|MODEL|JUDGE|wilson_low`, `pairs|A|B|*|p_holm`, …) to the reference
value, or null where the reference gives no number (NaN, inf, an exception,
or a case the statistic leaves undefined: see docs/numbers.md). Keys name the
same rows as `kld compare --format json`.

    python3 tests/scripts/stats_reference.py --vectors

prints the published test vectors (Krippendorff's docstring, Fleiss' Wikipedia
example, scikit-learn's Cohen test) as computed by the reference libraries.

References: statsmodels (proportion_confint wilson/beta, OLS cov_type="cluster",
mcnemar, multipletests holm/fdr_bh, fleiss_kappa, aggregate_raters,
cohens_kappa), scipy (ttest_rel, t.ppf, norm.ppf, binomtest, binom.pmf,
pearsonr), krippendorff.alpha(level_of_measurement="nominal"), scikit-learn
cohen_kappa_score.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections import defaultdict
from itertools import combinations

import numpy as np
import krippendorff
import statsmodels.api as sm
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

warnings.filterwarnings("ignore")
CONF = 0.95
ALPHA = 1 - CONF


def num(f):
    """f() as a float, or None for NaN, inf or an exception."""
    try:
        v = float(f())
    except Exception:  # noqa: BLE001 - the reference gave no number
        return None
    return v if math.isfinite(v) else None


def display(ident: dict) -> str:
    s = f"{ident['interface']}:{ident['model_name']}"
    if ident.get("config_id"):
        s += f" ({ident['config_id']})"
    if ident.get("tools"):
        s += " +[" + ", ".join(ident["tools"]) + "]"
    return s


def rows_of(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = doc["results"] if isinstance(doc, dict) else doc
    out = []
    for r in rows:
        t = r.get("template") or {}
        if t.get("template_verification_performed") is not True:
            continue
        m = r["metadata"]
        v = t.get("verify_result")
        out.append(
            dict(
                q=m.get("question_id", ""),
                a=display(m["answering"]),
                j=display(m["parsing"]),
                rep=m.get("replicate"),
                run=m.get("run_name"),
                verdict=v if isinstance(v, bool) else None,
                score=1.0 if v is True else 0.0,
            )
        )
    return out


def rates(out: dict, rows: list[dict]) -> None:
    groups = defaultdict(list)
    for r in rows:
        groups[(r["a"], "*")].append(r)
        groups[(r["a"], r["j"])].append(r)
    for (a, j), rs in groups.items():
        k = f"rates|{a}|{j}|"
        y = np.array([r["score"] for r in rs])
        n, passed = len(y), int(y.sum())
        out[k + "passed"], out[k + "n"], out[k + "rate"] = passed, n, passed / n
        wl, wh = proportion_confint(passed, n, alpha=ALPHA, method="wilson")
        out[k + "wilson_low"], out[k + "wilson_high"] = float(wl), float(wh)
        bl, bh = proportion_confint(passed, n, alpha=ALPHA, method="beta")
        out[k + "exact_low"], out[k + "exact_high"] = float(bl), float(bh)
        qs = sorted({r["q"] for r in rs})
        codes = np.array([qs.index(r["q"]) for r in rs])
        if len(qs) < 2:
            for f in ["clustered_se", "clusters", "t_low", "t_high"]:
                out[k + f] = None
            continue
        fit = sm.OLS(y, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": codes})
        se = float(fit.bse[0])
        tq = stats.t.ppf(1 - ALPHA / 2, len(qs) - 1)
        out[k + "clustered_se"] = se
        out[k + "clusters"] = len(qs)
        out[k + "t_low"] = num(lambda: y.mean() - tq * se)
        out[k + "t_high"] = num(lambda: y.mean() + tq * se)


def order_models(rows: list[dict]) -> list[str]:
    tally = defaultdict(lambda: [0, 0])
    for r in rows:
        tally[r["a"]][0] += r["score"]
        tally[r["a"]][1] += 1
    return sorted(tally, key=lambda m: (-tally[m][0] / tally[m][1], m))


def pairs(out: dict, rows: list[dict], models: list[str]) -> None:
    judges = sorted({r["j"] for r in rows})
    for judge in ["*"] + judges:
        cells = defaultdict(list)
        for r in rows:
            if judge == "*" or r["j"] == judge:
                cells[(r["a"], r["q"])].append(r["score"])
        view = []
        for i, a in enumerate(models):
            for b in models[i + 1 :]:
                qs = sorted({q for (m, q) in cells if m == a} & {q for (m, q) in cells if m == b})
                k = f"pairs|{a}|{b}|{judge}|"
                if not qs:
                    continue
                x = np.array([np.mean(cells[(a, q)]) for q in qs])
                y = np.array([np.mean(cells[(b, q)]) for q in qs])
                d = x - y
                out[k + "questions"] = len(qs)
                out[k + "mean_a"], out[k + "mean_b"], out[k + "diff"] = x.mean(), y.mean(), d.mean()
                res = stats.ttest_rel(x, y)
                t, p = num(lambda: res.statistic), num(lambda: res.pvalue)
                defined = t is not None and p is not None and len(qs) >= 2
                se = num(lambda: d.std(ddof=1) / math.sqrt(len(qs))) if defined else None
                tq = num(lambda: stats.t.ppf(1 - ALPHA / 2, len(qs) - 1))
                out[k + "t"], out[k + "p"], out[k + "se"] = (t, p, se) if defined else (None, None, None)
                out[k + "df"] = len(qs) - 1 if defined else None
                out[k + "low"] = d.mean() - tq * se if defined else None
                out[k + "high"] = d.mean() + tq * se if defined else None
                out[k + "correlation"] = num(lambda: stats.pearsonr(x, y).statistic) if len(qs) >= 2 else None
                z = stats.norm.ppf(1 - ALPHA / 2) + stats.norm.ppf(0.8)
                out[k + "detectable"] = z * se if defined else None
                if defined:
                    view.append((k, p))
                single = all(len(cells[(m, q)]) == 1 for q in qs for m in (a, b))
                if single:
                    only_a = int(sum((x == 1) & (y == 0)))
                    only_b = int(sum((x == 0) & (y == 1)))
                    out[k + "mcnemar_only_a"], out[k + "mcnemar_only_b"] = only_a, only_b
                    if only_a + only_b == 0:
                        out[k + "mcnemar_p"] = out[k + "mcnemar_mid_p"] = None
                    else:
                        table = [[0, only_a], [only_b, 0]]
                        pm = mcnemar(table, exact=True).pvalue
                        pb = stats.binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue
                        assert abs(pm - pb) < 1e-12, (pm, pb)
                        out[k + "mcnemar_p"] = float(pm)
                        pmf = stats.binom.pmf(min(only_a, only_b), only_a + only_b, 0.5)
                        out[k + "mcnemar_mid_p"] = float(min(1.0, 2 * stats.binom.cdf(min(only_a, only_b), only_a + only_b, 0.5) - pmf))
        if view:
            ps = [p for _, p in view]
            holm = multipletests(ps, method="holm")[1]
            bh = multipletests(ps, method="fdr_bh")[1]
            for (k, _), h, b in zip(view, holm, bh):
                out[k + "p_holm"], out[k + "p_bh"] = float(h), float(b)


def units_of(rows: list[dict], judges: list[str]):
    units = {}
    for r in rows:
        key = (r["q"], r["a"], r["rep"], r["run"])
        u = units.setdefault(key, [None] * len(judges))
        i = judges.index(r["j"])
        if u[i] is None and r["verdict"] is not None:
            u[i] = int(r["verdict"])
    return units


def agreement(out: dict, rows: list[dict], models: list[str], judges: list[str]) -> None:
    units = units_of(rows, judges)
    for scope in ["*"] + models:
        us = [u for (q, a, _, _), u in units.items() if scope == "*" or a == scope]
        k = f"agreement|{scope}|"
        pw, un = [], []
        for u in us:
            v = [x for x in u if x is not None]
            if len(v) < 2:
                continue
            c = np.bincount(v, minlength=2)
            pw.append((c * (c - 1)).sum() / (len(v) * (len(v) - 1)))
            un.append(float((c > 0).sum() == 1))
        out[k + "pairwise_agreement"] = float(np.mean(pw)) if pw else None
        out[k + "unanimous"] = float(np.mean(un)) if un else None
        complete = [u for u in us if all(x is not None for x in u)]
        if len(judges) >= 2 and complete:
            table, _ = aggregate_raters(np.array(complete))
            out[k + "fleiss_kappa"] = num(lambda: fleiss_kappa(table, method="fleiss"))
        else:
            out[k + "fleiss_kappa"] = None
        data = np.array([[np.nan if u[j] is None else u[j] for u in us] for j in range(len(judges))], dtype=float)
        out[k + "krippendorff_alpha"] = num(lambda: krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    all_units = list(units.values())
    for i, j in combinations(range(len(judges)), 2):
        both = [(u[i], u[j]) for u in all_units if u[i] is not None and u[j] is not None]
        k = f"cohen|{judges[i]}|{judges[j]}|"
        if not both:
            out[k + "kappa"] = None
            continue
        a, b = [p[0] for p in both], [p[1] for p in both]
        out[k + "n"] = len(both)
        out[k + "agreement"] = float(np.mean(np.array(a) == np.array(b)))
        kap = num(lambda: cohen_kappa_score(a, b))
        if kap is not None:
            t = np.zeros((2, 2))
            for x, y in both:
                t[x, y] += 1
            sk = cohens_kappa(t).kappa
            assert abs(sk - kap) < 1e-12, (sk, kap)
        out[k + "kappa"] = kap
    for j, name in enumerate(judges):
        diffs = []
        for u in all_units:
            if u[j] is None:
                continue
            others = [u[i] for i in range(len(judges)) if i != j and u[i] is not None]
            if others:
                diffs.append(u[j] - np.mean(others))
        out[f"bias|{name}|bias"] = float(np.mean(diffs)) if diffs else None


def questions(out: dict, rows: list[dict], models: list[str]) -> None:
    per = defaultdict(list)
    per_m = defaultdict(list)
    model_tot = defaultdict(list)
    for r in rows:
        per[r["q"]].append(r["score"])
        per_m[(r["q"], r["a"])].append(r["score"])
        model_tot[r["a"]].append(r["score"])
    for q, ys in per.items():
        k = f"questions|{q}|"
        out[k + "passed"], out[k + "n"], out[k + "rate"] = int(sum(ys)), len(ys), sum(ys) / len(ys)
        x, y = [], []
        for m in models:
            if (q, m) in per_m:
                mine = per_m[(q, m)]
                rest_n = len(model_tot[m]) - len(mine)
                if rest_n == 0:
                    continue
                x.append(np.mean(mine))
                y.append((sum(model_tot[m]) - sum(mine)) / rest_n)
        out[k + "discrimination"] = num(lambda: stats.pearsonr(x, y).statistic) if len(x) >= 3 else None


def replicates(out: dict, rows: list[dict]) -> None:
    cells = defaultdict(list)
    reps = defaultdict(lambda: defaultdict(list))
    for r in rows:
        cells[(r["q"], r["a"], r["j"], r["run"])].append(r["score"])
        if r["rep"] is not None:
            reps[r["a"]][r["rep"]].append(r["score"])
    combo, ques = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    for (q, a, j, _), s in cells.items():
        if len(s) < 2:
            continue
        dis = int(len(set(s)) > 1)
        for c in (combo[(a, j)], ques[q]):
            c[0] += 1
            c[1] += dis
    for (a, j), (n, d) in combo.items():
        out[f"replicates_combo|{a}|{j}|share"] = d / n
    for q, (n, d) in ques.items():
        out[f"replicates_question|{q}|share"] = d / n
    for a, by in reps.items():
        rates = [np.mean(v) for v in by.values()]
        out[f"replicates_sd|{a}|sd"] = float(np.std(rates, ddof=1)) if len(rates) >= 2 else None


def vectors() -> dict:
    nan = np.nan
    kd = [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
    fl = np.array([
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ])
    y1 = [0] * 46 + [1] * 44 + [2] * 10
    y2 = [0] * 50 + [1] * 40 + [2] * 10
    return {
        "krippendorff_docstring": krippendorff.alpha(reliability_data=kd, level_of_measurement="nominal"),
        "fleiss_wikipedia": fleiss_kappa(fl, method="fleiss"),
        "cohen_sklearn": cohen_kappa_score(y1, y2),
    }


def main() -> None:
    if sys.argv[1] == "--vectors":
        print(json.dumps({k: float(v) for k, v in vectors().items()}))
        return
    # One process for every file (the references take seconds to import).
    print(json.dumps({f: reference(f) for f in sys.argv[1:]}))


def reference(path: str) -> dict:
    rows = rows_of(path)
    out: dict = {}
    models = order_models(rows)
    judges = []
    for r in rows:
        if r["j"] not in judges:
            judges.append(r["j"])
    rates(out, rows)
    pairs(out, rows, models)
    agreement(out, rows, models, judges)
    questions(out, rows, models)
    replicates(out, rows)
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else (float(v) if hasattr(v, "item") else v)) for k, v in out.items()}


if __name__ == "__main__":
    main()
