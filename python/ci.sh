#!/usr/bin/env bash
# The Python package's tests: the module built with maturin into a virtual environment, the
# command `spinflip` of the same source beside it (the tests compare their run directories),
# then pytest. Both are built with the `dev` profile in one feature resolution, so that they
# share one build of the dependencies (opt-level 2; `cargo test`'s cannot be shared: its
# dev-dependencies change their features, and maturin's `--profile test` builds a test harness).
# Its lints are `.ci/run`'s (`cargo clippy --workspace`), where the library's are checked anyway.
# SPINFLIP_VENV names the environment (default python/.venv, kept between runs).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SPINFLIP_VENV:-python/.venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.7,<2" numpy pytest
# pyo3's build script asks this Python for its version and ABI.
export PYO3_PYTHON="$venv/bin/python"

cargo fmt -p spinflip-python --check
cargo build -p spinflip -p spinflip-python --bin spinflip
VIRTUAL_ENV="$(cd "$venv" && pwd)" "$venv/bin/maturin" develop -m python/Cargo.toml
target_dir="$(cargo metadata --format-version 1 --no-deps | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
SPINFLIP_BIN="$target_dir/debug/spinflip" "$venv/bin/python" -m pytest python/tests -q
