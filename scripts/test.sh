#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite: lint, then pytest. Offline; no API keys needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
. .venv/bin/activate
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
ruff check agent tools graphs evals cli tests
lint-imports --no-cache
python -m pytest -q "$@"
