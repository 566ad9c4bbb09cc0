"""A Karenina user's first karenina-ld session: a folder of checkpoints and
verification runs in, pass rates per model as a DataFrame and a plot out.

    pip install .                 # from a clone of karenina-ld
    python examples/first_notebook.py [FOLDER ...]   # default: examples/

Every step below is a notebook cell; nothing contacts the network.
"""

from __future__ import annotations

import sys
from pathlib import Path

import karenina_ld as kld

folders = [Path(p) for p in sys.argv[1:]] or [Path(__file__).parent]

# 1. Check the checkpoints against Karenina's own load rules.
for d in kld.validate([f for f in folders]):
    print(d)  # file:line:col: warning[KLD-W…] at /json/path: message

# 2. Load checkpoints and runs (exports, run folders, Karenina's database):
#    each run is bound to the checkpoint it ran.
store = kld.Store(folders)
print(store, "-", ", ".join(sorted({g["kind"] for g in store.graphs})))

# 3. Pass rates per benchmark and answering model, as a pandas DataFrame.
rates = store.query_named("pass-rate-by-benchmark").to_frame()
rates = rates.dropna(subset=["pass_rate"])
rates["pass_rate"] = rates["pass_rate"].astype(float)
print(rates[["benchmark", "interface", "model_name", "results", "pass_rate"]])

# 4. Any SPARQL: Karenina's prefixes are predeclared; answers are typed.
n = store.query("SELECT (COUNT(?q) AS ?n) WHERE { ?q a schema:Question }")
print("questions loaded:", next(iter(n))["n"])

# 5. A plot (needs matplotlib; the DataFrame above is the result either way).
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(pip install matplotlib for the plot)")
else:
    table = rates.pivot_table(index="model_name", columns="benchmark", values="pass_rate")
    ax = table.plot.barh(figsize=(8, 4), xlim=(0, 1), title="Pass rate by model")
    ax.set_xlabel("pass rate")
    plt.tight_layout()
    plt.savefig("pass-rates.png")
    print("wrote pass-rates.png")
