"""A Karenina user's first karenina-ld session: a folder of checkpoints and
verification runs in, pass rates per checkpoint and model as a DataFrame and
a plot out.

    pip install .                 # from a clone of karenina-ld
    python examples/first_notebook.py [FOLDER ...]   # default: examples/

Every step below is a notebook cell; nothing contacts the network.
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import karenina_ld as kld

folders = [Path(p) for p in sys.argv[1:]] or [Path(__file__).parent]

# 1. Check the checkpoints against Karenina's own load rules.
for d in kld.validate([f for f in folders]):
    print(d)  # file:line:col: warning[KLD-W…] at /json/path: message

# 2. Load checkpoints and runs (exports, run folders, Karenina's database):
#    each run is bound to the checkpoint it ran. A copy of a run already
#    loaded (its CSV beside its JSON, a renamed copy) is skipped, and says so.
store = kld.Store(folders)
print(store, "-", ", ".join(sorted({g["kind"] for g in store.graphs})))
for g in store.graphs:
    if g["kind"] == "results" and g["benchmark"] is None:
        print("not bound:", g["source"], "-", g["binding_note"])
for s in store.skipped:
    print("skipped:", s["message"])

# 3. Pass rates as Karenina defines them (docs/numbers.md), as a pandas
#    DataFrame: one row per checkpoint graph, run (`results_graph`) and
#    combo (answering model | parsing model, as Karenina's get_summary()
#    keys template_pass_by_combo). `graph` is the checkpoint (its file's
#    URL); `benchmark` is only its name, and several checkpoints may share
#    one, so rows are kept apart by graph, never averaged by name; judges
#    and runs are never pooled. The numbers, on that checkpoint's own
#    questions:
#      results    every result row of that run and combo
#      n          rows whose template verification was performed (the
#                 denominator)
#      passed     of those, verify_result true
#      pass_rate  passed / n: Karenina's template_pass_by_combo
#      content    wrong answers; retry, system: infrastructure failures;
#      no_verdict rows without a verdict (rubric-only, scenario turns)
rates = store.query_named("pass-rate-by-benchmark").to_frame()
rates = rates.dropna(subset=["pass_rate"])
rates["pass_rate"] = rates["pass_rate"].astype(float)
rates["checkpoint"] = [
    f"{name} ({Path(unquote(urlparse(g).path)).name})"
    for name, g in zip(rates["benchmark"], rates["graph"])
]
rates["run_file"] = [Path(unquote(urlparse(g).path)).name for g in rates["results_graph"]]
print(
    rates[["checkpoint", "run_file", "combo", "results", "n", "passed", "pass_rate",
           "content", "retry", "system", "no_verdict"]].to_string(index=False)
)

# 4. One row per verification result, the table to slice any other way
#    (by judge, replicate, question): `graph` is the run, `checkpoint` the
#    checkpoint graph it is bound to.
results = store.results_frame()
print(results.groupby(["checkpoint", "parsing_model_name"], dropna=False).size())

# 5. Any SPARQL: Karenina's prefixes are predeclared; answers are typed.
n = store.query("SELECT (COUNT(?q) AS ?n) WHERE { ?q a schema:Question }")
print("questions loaded:", next(iter(n))["n"])

# 6. A plot (needs matplotlib; the DataFrame above is the result either way):
#    one bar per row of the table above.
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(pip install matplotlib for the plot)")
else:
    rates["bar"] = rates["combo"] + " · " + rates["checkpoint"] + " · " + rates["run_file"]
    ax = rates.plot.barh(x="bar", y="pass_rate", figsize=(8, 4), xlim=(0, 1), legend=False,
                         title="Template pass rate (passed / n), per combo, checkpoint and run")
    ax.set_xlabel("pass rate")
    plt.tight_layout()
    plt.savefig("pass-rates.png")
    print("wrote pass-rates.png")
