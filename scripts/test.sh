#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite: lint, then pytest. Offline; no API keys needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
# The browser test drives Debian's Chromium, the thread-store test runs a real PostgreSQL and the model-path tests a
# llama.cpp server: CI (a root shell with CI=true) installs what is missing; a user's machine without them skips
# those tests with the reason.
if [ "${CI:-}" = "true" ] && [ "$(id -u)" = 0 ]; then
  need=()
  command -v chromedriver >/dev/null 2>&1 || need+=(chromium chromium-driver)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
if [ "${CI:-}" = "true" ]; then
  bash scripts/bootstrap.sh llm-server  # llama.cpp's server for the real model-path tests: compiled, so CI only
fi
. .venv/bin/activate
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# One process per core (at most 4: each holds the embedding model), one thread each: torch's own threads in two
# workers on two cores spin against each other and cost more than they give.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
ruff check agent tools graphs evals cli tests
lint-imports --no-cache
python -m pytest -q -n auto --maxprocesses 4 "$@"
