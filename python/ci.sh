#!/usr/bin/env bash
# The Python package's tests: the module built with maturin into a virtual environment, the
# command `spinflip` of the same source beside it (the tests compare their run directories),
# then pytest. The command is built with the `test` profile, as `cargo test` built it already;
# the module with `dev` (maturin's `--profile test` would build the test harness), whose
# dependencies are compiled once (opt-level 2, as for every profile here).
# SPINFLIP_VENV names the environment (default python/.venv, kept between runs).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SPINFLIP_VENV:-python/.venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.7,<2" numpy pytest

# The crate's format and lints (pyo3's build script asks the environment's Python).
cargo fmt -p spinflip-python --check
PYO3_PYTHON="$venv/bin/python" cargo clippy -p spinflip-python --all-targets -- -D warnings

cargo build --profile test --bin spinflip
VIRTUAL_ENV="$(cd "$venv" && pwd)" "$venv/bin/maturin" develop -m python/Cargo.toml
target_dir="$(cargo metadata --format-version 1 --no-deps | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
SPINFLIP_BIN="$target_dir/debug/spinflip" "$venv/bin/python" -m pytest python/tests -q
