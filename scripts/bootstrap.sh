#!/usr/bin/env bash
# Create .venv and install finrag: `bootstrap.sh` installs what the main job needs, `bootstrap.sh test` adds the
# test extras (pytest, ruff, import-linter, the LangGraph CLI, Selenium, Milvus Lite, PostgreSQL's client), and
# `bootstrap.sh llm-server` llama.cpp's server with a small GGUF model (compiled; the test command adds it in CI).
# Idempotent: a second run only checks. torch is pinned to the 2.13.0 CPU wheel first, so no resolver ever
# pulls the multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
extras=${1:-}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
stamp=.venv/.finrag-installed${extras:+-$extras}
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  # torch through pip, so pip's own configuration (an index or a folder of CPU wheels) chooses the build; the rest
  # through uv, which resolves and installs the ~180 packages in seconds where pip takes a minute.
  python -m pip install --quiet "torch==2.13.0" "uv>=0.5"
  python -m uv pip install --quiet -e ".${extras:+[$extras]}"
  touch "$stamp"
fi
