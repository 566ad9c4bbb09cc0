"""Writes a .pre-commit-config.yaml that runs this repository's hooks, read
from .pre-commit-hooks.yaml, as `repo: local` hooks on an already built kld.

The published hooks are `language: system` (they run the `kld` on PATH); here
`kld` becomes the path of the built binary, so the test needs nothing
installed. The hooks' ids, entries, language and file patterns are taken from
the published file, only the binary's path changes, so the test exercises the
real definitions through the real framework."""
import sys

import yaml

hooks_file, kld, out = sys.argv[1], sys.argv[2], sys.argv[3]
with open(hooks_file, encoding="utf-8") as f:
    hooks = yaml.safe_load(f)
local = []
for h in hooks:
    assert h["language"] == "system", h
    assert h["entry"].startswith("kld "), h
    local.append(
        {
            "id": h["id"],
            "name": h["name"],
            "entry": kld + h["entry"][len("kld"):],
            "language": h["language"],
            "files": h["files"],
        }
    )
with open(out, "w", encoding="utf-8") as f:
    yaml.safe_dump({"repos": [{"repo": "local", "hooks": local}]}, f)
