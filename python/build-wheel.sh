#!/usr/bin/env bash
# Builds the karenina_ld wheel once, to install elsewhere (machines without
# Rust): `bash python/build-wheel.sh [OUT_DIR]` (default dist/). One abi3
# wheel for every CPython >= 3.11, in the `wheel` profile (release code,
# stripped), tagged manylinux as far as its glibc symbols allow (maturin
# checks them; the tag says which glibc the target needs at least), or
# linux_x86_64 when they allow none. maturin comes from PyPI into a
# throwaway venv under target/. Needs Rust 1.87+ and python3 >= 3.11.
#   pip install dist/karenina_ld-*.whl      # on the other machine
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
venv=target/wheel-build-venv
[ -x "$venv/bin/maturin" ] || {
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check 'maturin>=1.7,<2'
}
start=$(date +%s)
"$venv/bin/maturin" build --profile wheel --strip -o "$out" \
  || "$venv/bin/maturin" build --profile wheel --strip --compatibility linux -o "$out"
wheel=$(ls -t "$out"/karenina_ld-*.whl | head -1)
echo "build-wheel: $wheel ($(du -h "$wheel" | cut -f1), $(( $(date +%s) - start )) s)"
