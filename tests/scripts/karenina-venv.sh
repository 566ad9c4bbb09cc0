#!/usr/bin/env bash
# Karenina itself in a venv, the oracle of the differential tests (interop tier).
#
#   bash tests/scripts/karenina-venv.sh [VENV_DIR]     (default: target/karenina-venv)
#
# Installs the vendored source snapshot vendor/karenina/karenina-9851a770.tar.gz
# (biocypher/karenina at 9851a770, MIT; `git archive` of src/, pyproject.toml and
# README.md: Karenina is not on PyPI) with the pins of
# ../shared/tools/karenina-constraints.txt (PyPI only, ~3 min). Idempotent: does
# nothing when the venv already imports that snapshot. Tests find the venv through
# $KLD_KARENINA_VENV, else target/karenina-venv.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VENV=${1:-$ROOT/target/karenina-venv}
TARBALL=$ROOT/vendor/karenina/karenina-9851a770.tar.gz
CONSTRAINTS=$ROOT/../shared/tools/karenina-constraints.txt
want="9851a770 $(sha256sum "$TARBALL" | cut -c1-16) $(sha256sum "$CONSTRAINTS" | cut -c1-16)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.karenina-snapshot" 2>/dev/null)" = "$want" ] \
   && "$VENV/bin/python" -c "import karenina" >/dev/null 2>&1; then
  echo "karenina-venv: $VENV already has karenina 9851a770"; exit 0
fi
src=$(mktemp -d); trap 'rm -rf "$src"' EXIT
tar -xzf "$TARBALL" -C "$src"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check -c "$CONSTRAINTS" "$src/karenina-9851a770" \
  >"$VENV/pip-install.log" 2>&1 \
  || { tail -20 "$VENV/pip-install.log"; echo "karenina-venv: pip install failed" >&2; exit 1; }
"$VENV/bin/python" -c "import karenina"
echo "$want" >"$VENV/.karenina-snapshot"
echo "karenina-venv: installed karenina 9851a770 into $VENV"
