#!/usr/bin/env bash
# Create .venv and install finrag with its test extras. Idempotent: a second run only checks.
# torch is pinned to the 2.13.0 CPU wheel first, so no resolver ever pulls the multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
stamp=.venv/.finrag-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  python -m pip install --quiet --upgrade pip
  python -m pip install --quiet "torch==2.13.0"
  python -m pip install --quiet -e ".[test]"
  touch "$stamp"
fi
