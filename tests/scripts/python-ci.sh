#!/usr/bin/env bash
# The Python package's CI steps (called by .ci/run after `cargo test`):
#  0. the extension crate's Rust unit tests;
#  1. `maturin develop` into target/py-venv (dev profile: cargo test's
#     compiled dependencies are reused) and the pytest suite in python/tests;
#  2. a wheel (`maturin build`) installed into a fresh venv whose PATH has
#     no Rust, where `kld --version` must equal karenina_ld.__version__.
# (--profile dev: pyproject.toml names the `wheel` profile, a release
# build; the dev profile reuses cargo test's compiled dependencies.)
# Wheels to install elsewhere: python/build-wheel.sh (see docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

# The extension crate's own Rust tests (python/src/lock.rs: the Store's
# read/write lock); `cargo test` at the top runs the default members'
# (the library and crates/*), not python/'s.
cargo test --locked --quiet -p karenina-ld-python --lib

python3 -m venv --system-site-packages target/py-venv
# shellcheck disable=SC1091
(. target/py-venv/bin/activate && maturin develop --quiet --profile dev)
KLD_KARENINA_VENV="${KLD_KARENINA_VENV:-$PWD/target/karenina-venv}" \
  target/py-venv/bin/python -m pytest -q python/tests

rm -rf target/wheels/ci target/wheel-venv
maturin build --quiet --profile dev -o target/wheels/ci
python3 -m venv target/wheel-venv
target/wheel-venv/bin/python -m pip install -q --disable-pip-version-check target/wheels/ci/*.whl
# No cargo, rustc or ~/.cargo/bin on PATH: the wheel alone.
clean_path="$PWD/target/wheel-venv/bin:/usr/local/bin:/usr/bin:/bin"
if env PATH="$clean_path" sh -c 'command -v cargo || command -v rustc' >/dev/null; then
  echo "python-ci: Rust is on the clean PATH ($clean_path)" >&2
  exit 1
fi
got=$(env PATH="$clean_path" kld --version)
want="kld $(env PATH="$clean_path" python -c 'import karenina_ld; print(karenina_ld.__version__)')"
if [ "$got" != "$want" ]; then
  echo "python-ci: the wheel's kld says '$got', its module '$want'" >&2
  exit 1
fi
env PATH="$clean_path" python -c '
import karenina_ld, sys
s = karenina_ld.Store(sys.argv[1:])
assert len(s.query_named("benchmark-stats")) > 0
' examples/
echo "python-ci: ok ($got from the wheel, no Rust on PATH)"
