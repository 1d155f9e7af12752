"""A figure a sentence states of a segment ('Marine catastrophe losses were $140 million') is the segment's, as a
segment table's figure is: it answers a question naming the segment and never the company's. The company's own
sentence ('Catastrophe losses, net of reinsurance, were $385 million in 2024') answers for the company even where a
row of percentages names a word of the question ('Loss ratio'). Typeset filing: a specialty insurer's 10-K whose
segment tables stand under the segments' names, each followed by a sentence."""

from __future__ import annotations

import pytest
from support import ask_once, ask_thread, ingested_typeset, stated

from agent.config import Settings
from agent.ingest.parts import sentence_parts
from agent.schemas import Chunk, NumericValue, SentenceFigures, TableRecord
from evals.metrics.answers import is_refusal

FILING = """# Kestrel Specialty Holdings, Inc.

FORM 10-K

For the fiscal year ended December 31, 2024

Kestrel writes specialty insurance through two segments: Marine and Property.

## Item 7. Management's Discussion and Analysis

### Consolidated Results

(Dollars in millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums earned | 6,240 | 5,810 |
| Loss ratio | 61.4% | 63.0% |
| Combined ratio | 93.1% | 95.2% |

Catastrophe losses, net of reinsurance, were $385 million in 2024 and $301 million in 2023. We manage our capital
conservatively and our reserves are reviewed quarterly by our actuaries.

### Marine

(Dollars in millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums earned | 2,410 | 2,205 |
| Combined ratio | 91.8% | 94.0% |

Marine catastrophe losses were $140 million in 2024 compared with $96 million in 2023.

### Property

(Dollars in millions)

| | 2024 | 2023 |
|---|---|---|
| Net premiums earned | 3,830 | 3,605 |
| Combined ratio | 93.9% | 95.9% |

Property catastrophe losses were $245 million in 2024 compared with $205 million in 2023.
"""


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("kestrel"), "KESTREL_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Kestrel's catastrophe losses in 2024?", "$385 million"),
    ("What were Kestrel's Marine catastrophe losses in 2023?", "$96 million"),
    ("Kestrel Property catastrophe losses 2024", "$245 million"),
])
def test_a_sentences_figure_is_of_the_part_its_words_name(kestrel: Settings, question: str, figure: str) -> None:
    assert figure in stated(ask_once(kestrel, question))


def test_no_segments_sentence_answers_for_the_company(kestrel: Settings) -> None:
    answer = stated(ask_once(kestrel, "What were Kestrel's catastrophe losses in 2023?"))
    assert "$301 million" in answer and "$96 million" not in answer and "$205 million" not in answer
    assert is_refusal(ask_once(kestrel, "What were Kestrel's catastrophe losses in 2022?"))


def test_the_part_is_read_at_ingest_from_the_words_before_the_figure() -> None:
    text = "Marine catastrophe losses were $140 million in 2024, led by Property."
    figure = NumericValue(text="$140 million", value=140, scale=1e6, unit="USD", start=text.index("$140"),
                          end=text.index("$140") + 12)
    late = "Revenue was $9 million, led by Marine."
    after = NumericValue(text="$9 million", value=9, scale=1e6, unit="USD", start=late.index("$9"),
                         end=late.index("$9") + 10)
    table = Chunk(chunk_id="d:0", doc_id="d", ordinal=0, section_id=0, page=0, page_end=0, char_start=0,
                  char_end=0, text="", is_table=True, table=TableRecord(table_id="d:t0", part="Marine"))
    prose = [Chunk(chunk_id=f"d:{i}", doc_id="d", ordinal=i, section_id=0, page=0, page_end=0, char_start=0,
                   char_end=len(t), text=t, sentences=[SentenceFigures(start=0, end=len(t), figures=[f])])
             for i, (t, f) in enumerate(((text, figure), (late, after)), start=1)]
    read = sentence_parts([table, *prose])
    assert read[1].sentences[0].figures[0].part == "Marine"
    assert read[2].sentences[0].figures[0].part == ""  # named after the figure: the company's revenue


def test_a_follow_up_names_another_part_of_a_subject_the_lexicon_does_not_name(kestrel: Settings) -> None:
    turns = ask_thread(kestrel, ["What were Kestrel's Marine net premiums earned in 2024?", "and Property?",
                                 "what's the sum of the two?"])
    assert "$2,410 million" in stated(turns[0]) and "$3,830 million" in stated(turns[1])
    assert "$6,240 million" in stated(turns[2])
