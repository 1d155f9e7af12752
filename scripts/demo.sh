#!/usr/bin/env bash
# Set up (if needed) and run the main job offline on the embedded defaults: ingest the sample filing, then
# answer questions about it with citations (a follow-up on the same thread shows the conversation memory).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
. .venv/bin/activate
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export FINRAG_HOME=${FINRAG_HOME:-$PWD/.finrag}
finrag ingest agent/samples/NORTHWIND_2024_10K.md
finrag ask "What were Northwind's capital expenditures in 2024, and its free cash flow?" --thread demo
finrag ask "what about 2023?" --thread demo
