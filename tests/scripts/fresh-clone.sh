#!/usr/bin/env bash
# The fresh-clone check (issue 40), called by .ci/run: `git clone` of this
# checkout's HEAD into a temporary directory (no ../shared beside it), then
# the README's two commands with only Rust and the C toolchain on PATH (no
# python3, node, npm, java, chromium, servers). The clone builds into this
# checkout's target directory (CARGO_TARGET_DIR, overridable) so compiled
# dependencies are reused; the first command runs in the dev profile (see
# .ci/run). Differential reports the clone's tests write are copied back to
# target/differential-reports. Arguments go to `cargo test` (none in CI; e.g.
# `--test library fresh_clone` to try the check quickly).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-hardlinks "$repo" "$tmp/karenina-ld"
test ! -e "$tmp/shared" || { echo "fresh-clone: $tmp/shared exists" >&2; exit 1; }

# PATH: a directory of links to every command on the current PATH except the
# interpreters and tools the interop tier needs (first match on PATH wins).
bin=$tmp/bin
mkdir -p "$bin"
denied='^(python|pip|pytest|maturin|mypy|node|nodejs|npm|npx|corepack|java|javac|jshell|chromium|chromedriver|google-chrome|virtuoso|isql|roqet|riot|rsparql|comunica|oxigraph|pre-commit|jupyter|ipython)'
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    n=${f##*/}
    [ -x "$f" ] && [ ! -d "$f" ] && [ ! -e "$bin/$n" ] || continue
    [[ $n =~ $denied ]] && continue
    ln -s "$f" "$bin/$n"
  done
done
for tool in python3 python node java chromium; do
  if env PATH="$bin" sh -c "command -v $tool" >/dev/null 2>&1; then
    echo "fresh-clone: $tool is still on the clean PATH" >&2
    exit 1
  fi
done
env PATH="$bin" sh -c 'command -v cargo >/dev/null' || { echo "fresh-clone: no cargo on PATH" >&2; exit 1; }

cd "$tmp/karenina-ld"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
# The README's two commands (the first in the dev profile, see .ci/run).
env PATH="$bin" cargo run --locked -- query examples/ --named benchmark-stats >/dev/null
# --no-fail-fast: a failing test binary does not hide the others' results
# (the README's `cargo test` runs the same tests).
env PATH="$bin" cargo test --locked --no-fail-fast "$@"
mkdir -p "$repo/target/differential-reports"
cp -a target/differential-reports/. "$repo/target/differential-reports/" 2>/dev/null || true
echo "fresh-clone: ok (a clone without ../shared, only Rust on PATH)"
