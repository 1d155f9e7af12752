"""EMS (extract, match, score): the paper's worked example, the metric equations, and the model path."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from langchain_core.messages import AIMessage
from scripted import ScriptedChatModel

from agent.llm.models import UsageLog
from evals.metrics.ems import (
    EmbeddingCache,
    ems_scores,
    evaluate_ems,
    evaluate_points,
    extract_points_offline,
    match_points_offline,
)

# A worked example in the shape of the paper's Figure 2: four reference points, three of which match
# answer points 4, 2 and 3 (1-based), and one that nothing in the answer covers.
REF = [
    "Google Cloud revenue increased 35% year over year to $11.4 billion.",
    "YouTube advertising revenue grew 12% to $8.9 billion.",
    "Operating margin expanded to 32%.",
    "The board approved a new $70 billion share buyback.",
]
ANS = [
    "Alphabet hired new engineers across its AI teams.",
    "YouTube ads revenue rose 12% to $8.9 billion.",
    "Operating margin improved to 32% this quarter.",
    "Cloud revenue grew 35% to $11.4 billion.",
    "Alphabet opened a new data center in Ohio.",
]
FIGURE_2_MATCHES = [4, 2, 3, -1]

# A deterministic stand-in for a sentence embedding: one dimension per topic word.
_TOPICS = {"cloud": 0, "youtube": 1, "ads": 1, "advertising": 1, "margin": 2, "buyback": 3, "engineers": 4,
           "hired": 4, "data": 5, "center": 5}


def topic_embed(texts: list[str]) -> np.ndarray:
    out = np.zeros((len(texts), 6))
    for i, text in enumerate(texts):
        for word in text.lower().replace(".", " ").split():
            if word in _TOPICS:
                out[i, _TOPICS[word]] += 1.0
    return out


def tool_reply(name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{name}"}])


# --- metrics: equations 6-9 -------------------------------------------------------------------------------
def test_figure_2_metrics_by_hand() -> None:
    # s_ref = [1.0, 0.7, 0.5, 0]; recall = 2.2 / 4; s_ans = [0, 0.7, 0.5, 1.0, 0]; precision = 2.2 / 5.
    scores = ems_scores([1.0, 0.7, 0.5, 0.9], FIGURE_2_MATCHES, 5)  # the unmatched point's 0.9 is ignored
    assert scores.recall == pytest.approx(0.55)
    assert scores.answer_scores == pytest.approx([0.0, 0.7, 0.5, 1.0, 0.0])
    assert scores.precision == pytest.approx(0.44)
    assert scores.f1 == pytest.approx(2 * 0.55 * 0.44 / (0.55 + 0.44))  # 0.48889


def test_precision_takes_the_max_over_reference_points_mapped_to_one_answer_point() -> None:
    scores = ems_scores([0.4, 0.9, 0.7], [2, 2, -1], 3)
    assert scores.answer_scores == pytest.approx([0.0, 0.9, 0.0])
    assert scores.precision == pytest.approx(0.3)
    assert scores.recall == pytest.approx(1.3 / 3)
    assert scores.f1 == pytest.approx(2 * 0.3 * (1.3 / 3) / (0.3 + 1.3 / 3))


def test_metric_edge_cases() -> None:
    assert ems_scores([], [], 3).recall == 0.0
    assert ems_scores([0.5], [-1], 0).precision == 0.0
    assert ems_scores([0.0], [1], 1).f1 == 0.0
    with pytest.raises(ValueError):
        ems_scores([0.5], [4], 3)


# --- offline matcher reproduces Figure 2 --------------------------------------------------------------------
@pytest.mark.parametrize("embed", [None, topic_embed], ids=["lexical", "embedding"])
def test_offline_matching_reproduces_figure_2(embed: Any) -> None:
    matches = match_points_offline(REF, ANS, embed)
    assert [m.answer_index for m in matches] == FIGURE_2_MATCHES
    assert matches[0].numbers_agree is True  # 35% and $11.4 billion on both sides


def test_offline_pipeline_with_rouge_scorer() -> None:
    result = evaluate_points(REF, ANS, scorer="rouge")
    assert result.matches == FIGURE_2_MATCHES
    assert result.matcher == "lexical"
    # ref 3 vs answer 3: tokens [operating margin expanded to 32%] and [operating margin improved to 32% this
    # quarter]; LCS 4; P = 4/7, R = 4/5, F1 = 2/3.
    assert result.alignment[2].score == pytest.approx(2 / 3)
    assert result.alignment[3].answer_index == -1 and result.alignment[3].score == 0.0
    assert result.recall == pytest.approx(sum(result.ref_scores) / 4)
    assert result.precision == pytest.approx(sum(result.answer_scores) / 5)


def test_embedding_scorer_is_clipped_cosine() -> None:
    result = evaluate_points(REF, ANS, scorer="embedding", embed=topic_embed)
    assert result.matcher == "embedding"
    assert result.ref_scores == pytest.approx([1.0, 1.0, 1.0, 0.0])
    with pytest.raises(ValueError):
        evaluate_points(REF, ANS, scorer="embedding")


# --- extraction -----------------------------------------------------------------------------------------
def test_offline_extraction_keeps_repeats_and_drops_summaries() -> None:
    text = (
        "Here are the key points about 3M's results:\n"
        "- Sales grew 5% to $35 billion.\n"
        "- Operating margin was 20%.\n"
        "- Operating margin was 20%.\n"
        "In summary, sales grew and margins held. Let me know if you need more."
    )
    assert extract_points_offline(text) == [
        "Sales grew 5% to $35 billion.", "Operating margin was 20%.", "Operating margin was 20%."
    ]


def test_offline_extraction_drops_a_restating_overview() -> None:
    text = (
        "Cloud revenue and YouTube revenue both grew. "
        "Cloud revenue grew 35% to $11.4 billion. YouTube revenue grew 12% to $8.9 billion. "
        "Operating margin was 32%."
    )
    assert extract_points_offline(text) == [
        "Cloud revenue grew 35% to $11.4 billion.", "YouTube revenue grew 12% to $8.9 billion.",
        "Operating margin was 32%.",
    ]


# --- the paper's model path ---------------------------------------------------------------------------------
def _paper_model(bad_match: bool = False) -> ScriptedChatModel:
    rules: list[tuple[tuple[str, ...], AIMessage]] = [
        (("Generate the bullet points", "REFERENCE TEXT"), tool_reply("SaliencyPoints", points=REF)),
        (("Generate the bullet points", "ANSWER TEXT"), tool_reply("SaliencyPoints", points=ANS)),
    ]
    for ref, idx in zip(REF, [3, 1, 2, -1], strict=True):  # the prompt's candidate list is 0-based
        reply = tool_reply("MatchedIndex", index=9 if bad_match and idx == 1 else idx)
        rules.append((("Find the best matched keypoint", ref), reply))
    for ref, score in zip(REF[:3], [10, 7, 5], strict=True):
        rules.append((("Matching Score", f"Keypoint 1:\n<answers role=\"keypoint 1\">\n{ref}"),
                      tool_reply("AlignmentScore", score=score)))
    return ScriptedChatModel(rules=rules)


def test_model_pipeline_reproduces_figure_2() -> None:
    model = _paper_model()
    usage = UsageLog()
    result = evaluate_ems("ANSWER TEXT", "REFERENCE TEXT", scorer="model", model=model, usage=usage)
    assert result.extractor == "model" and result.matcher == "model" and result.scorer == "model"
    assert result.ref_points == REF and result.answer_points == ANS
    assert result.matches == FIGURE_2_MATCHES
    assert result.ref_scores == pytest.approx([1.0, 0.7, 0.5, 0.0])
    assert result.recall == pytest.approx(0.55)
    assert result.precision == pytest.approx(0.44)
    assert result.f1 == pytest.approx(0.48889, abs=1e-5)
    assert result.notes == []
    assert [p.matched_by for p in result.alignment] == ["model"] * 4
    steps = [r.step for r in usage.records]
    assert steps.count("ems_extract") == 2 and steps.count("ems_match") == 4 and steps.count("ems_score") == 3


def test_invalid_match_is_retried_then_falls_back_offline() -> None:
    model = _paper_model(bad_match=True)
    usage = UsageLog()
    result = evaluate_ems("ANSWER TEXT", "REFERENCE TEXT", scorer="model", model=model, usage=usage)
    # Reference point 2 got index 9 twice (one retry): the offline matcher decided it, and it agrees.
    assert result.matches == FIGURE_2_MATCHES
    assert result.alignment[1].matched_by == "offline"
    assert any("reference point 2" in n and "outside" in n for n in result.notes)
    match_calls = [r for r in usage.records if r.step == "ems_match"]
    assert len(match_calls) == 5 and match_calls[2].attempt == 2 and match_calls[2].fell_back


def test_model_scorer_without_model_uses_rouge_and_says_so() -> None:
    result = evaluate_points(REF, ANS, scorer="model")
    assert result.scorer == "rouge"
    assert any("ROUGE-L" in n for n in result.notes)


def test_embedding_cache_encodes_each_text_once() -> None:
    calls: list[list[str]] = []

    def counting_embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        return topic_embed(texts)

    cache = EmbeddingCache(counting_embed)
    first = cache(["cloud revenue", "youtube ads", "cloud revenue"])
    second = cache(["youtube ads", "margin"])
    assert calls == [["cloud revenue", "youtube ads"], ["margin"]]
    assert np.allclose(first[0], first[2]) and np.allclose(second[0], first[1])
