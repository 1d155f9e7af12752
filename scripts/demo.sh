#!/usr/bin/env bash
# Set up (if needed) and run the main job offline on the embedded defaults: ingest the sample filing and search it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
. .venv/bin/activate
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export FINRAG_HOME=${FINRAG_HOME:-$PWD/.finrag}
finrag ingest agent/samples/NORTHWIND_2024_10K.md
finrag search "capital expenditures 2024" -k 3
