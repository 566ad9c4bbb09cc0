"""Karenina's own summary of verification-results exports: for each file, the
`template_pass_by_combo` of `load_result_set_from_json(file).get_summary()`.
Prints one JSON object, {file name: template_pass_by_combo}.

usage: VENV/bin/python karenina_board_summary.py EXPORT.json..."""
import json
import sys
from pathlib import Path

from karenina.benchmark.core.results_io import ResultsIOManager

out = {}
for f in sys.argv[1:]:
    summary = ResultsIOManager.load_result_set_from_json(Path(f)).get_summary()
    out[Path(f).name] = summary["template_pass_by_combo"] or {}
print(json.dumps(out))
