"""The deployment in deploy/ agrees with the code it runs: every finrag setting it sets exists, every command it
runs parses, the image holds every package, and the services the runbook names are there. (Docker itself is not
run here; the shared-store tests run the same processes against a real PostgreSQL.)"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import yaml

from agent.config import _ENV_ALIASES, Settings
from cli.main import build_parser

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
SERVICES = {"postgres", "etcd", "minio", "milvus", "serve", "ingest", "proxy"}


def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def _setting_names() -> set[str]:
    names = {f"FINRAG_{f.name.upper()}" for f in dataclasses.fields(Settings)}
    return names | {alias for aliases in _ENV_ALIASES.values() for alias in aliases}


def test_the_compose_file_has_every_service_and_replicas_share_the_store() -> None:
    compose = _compose()
    assert set(compose["services"]) == SERVICES
    for name in ("serve", "ingest"):
        env = compose["services"][name]["environment"]
        assert env["FINRAG_STORE_URL"].startswith("postgresql://") and "@postgres:5432/" in env["FINRAG_STORE_URL"]
        assert env["FINRAG_SEARCH_BACKEND"] == "milvus" and env["FINRAG_MILVUS_URI"] == "http://milvus:19530"
        assert compose["services"][name]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "ports" not in compose["services"]["serve"]  # replicas sit behind the proxy, so they can be scaled


def test_every_finrag_setting_deploy_sets_exists() -> None:
    compose = _compose()
    named = {key for service in compose["services"].values() for key in (service.get("environment") or {})}
    named |= {line.split("=", 1)[0].lstrip("# ").strip() for line in (DEPLOY / "env.example").read_text().splitlines()
              if "=" in line}
    ours = {n for n in named if n.startswith(("FINRAG_", "OPENAI_"))}
    assert ours and ours <= _setting_names(), sorted(ours - _setting_names())


def test_the_commands_deploy_runs_parse() -> None:
    compose = _compose()
    parser = build_parser()
    serve = compose["services"]["serve"]["command"]
    assert parser.parse_args(serve).command == "serve"
    loop = compose["services"]["ingest"]["command"][0]
    ingest = re.search(r"finrag (ingest [^|;]+?)(?: \|\||;)", loop).group(1).split()
    assert parser.parse_args(ingest).command == "ingest"


def test_the_image_holds_every_package() -> None:
    packages = tomllib.loads((DEPLOY.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    copied = set(re.findall(r"^COPY (\w+) \1$", (DEPLOY / "Dockerfile").read_text(), re.MULTILINE))
    assert {p.rstrip("*") for p in packages["include"]} <= copied
    assert "torch==2.13.0" in (DEPLOY / "Dockerfile").read_text()
