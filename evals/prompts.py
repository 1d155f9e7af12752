"""Prompts of the evaluation judges: answer correctness and pairwise preference (multistage_retrieval_reranking
4.6 and 5.2.2) and EMS extraction, matching and scoring (ems_long_answer_evaluation appendix A.3-A.5).

The paper prompts are reproduced as published, with two additions: inputs are wrapped by
:func:`agent.llm.prompts.quote` and the system prompt carries :data:`agent.llm.prompts.UNTRUSTED_DATA_RULE` (answers
under evaluation are untrusted text), and each prompt names the output field it fills, because outputs are
requested through function calling (:func:`agent.llm.models.structured_call`).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from agent.llm.prompts import UNTRUSTED_DATA_RULE, quote

# ---------------------------------------------------------------------------------------------------------
# LLM-as-judge: binary correctness (multistage_retrieval_reranking 4.6)
# ---------------------------------------------------------------------------------------------------------
JUDGE_CORRECTNESS_SYSTEM = (
    "You are a strict grader of answers to questions about corporate filings. You receive the question, the "
    "generated answer, the ground truth answer and, optionally, company context. Apply strict binary "
    "evaluation: CORRECT or INCORRECT only. No partial credit.\n\n"
    "Rules:\n"
    "- If the response includes the ground truth fact(s), mark it as CORRECT\n"
    "- Additional context is allowed\n"
    "- Mark INCORRECT only if the core fact is wrong or missing\n"
    "- Do not infer unstated information\n\n"
    "Numbers written differently are the same fact when they are equal after unit, scale and rounding "
    "(e.g. $1,577 million = $1.577 billion; 12.5% = 0.125). A refusal or 'not found' is INCORRECT when the "
    "ground truth states a fact.\n\n"
    "Put CORRECT or INCORRECT in `verdict` and one sentence saying why in `reason`.\n\n" + UNTRUSTED_DATA_RULE
)
JUDGE_CORRECTNESS_USER = "{question}\n\n{answer}\n\n{ground_truth}{context}"


def judge_correctness_messages(question: str, answer: str, ground_truth: str, context: str = "") -> list[BaseMessage]:
    """Messages for one binary correctness judgement."""
    extra = "\n\n" + quote(context, "evidence", role="company context") if context else ""
    return [
        SystemMessage(JUDGE_CORRECTNESS_SYSTEM),
        HumanMessage(JUDGE_CORRECTNESS_USER.format(
            question=quote(question, "question"),
            answer=quote(answer, "answers", role="generated answer"),
            ground_truth=quote(ground_truth, "answers", role="ground truth answer"),
            context=extra,
        )),
    ]


# ---------------------------------------------------------------------------------------------------------
# LLM-as-judge: pairwise preference (multistage_retrieval_reranking 5.2.2)
# ---------------------------------------------------------------------------------------------------------
JUDGE_PAIRWISE_SYSTEM = (
    "You are given: (1) a question, (2) a ground truth answer, and (3) two candidate responses (Response A "
    "and Response B).\n\n"
    "Your task: Decide which response is *better* relative to the ground truth.\n\n"
    "Rules:\n"
    "- Prefer the response that contains the correct core facts.\n"
    "- If both are correct, prefer the one that is more precise, complete, and grounded in the ground truth.\n"
    "- If both are equally correct (or equally incorrect), you may declare a TIE.\n\n"
    "Put A, B or TIE in `winner` and one sentence saying why in `reason`.\n\n" + UNTRUSTED_DATA_RULE
)
JUDGE_PAIRWISE_USER = "{question}\n\n{ground_truth}\n\n{response_a}\n\n{response_b}"


def judge_pairwise_messages(question: str, ground_truth: str, response_a: str, response_b: str) -> list[BaseMessage]:
    """Messages for one pairwise preference judgement (A and B as shown to the judge)."""
    return [
        SystemMessage(JUDGE_PAIRWISE_SYSTEM),
        HumanMessage(JUDGE_PAIRWISE_USER.format(
            question=quote(question, "question"),
            ground_truth=quote(ground_truth, "answers", role="ground truth answer"),
            response_a=quote(response_a, "answers", role="Response A"),
            response_b=quote(response_b, "answers", role="Response B"),
        )),
    ]


# ---------------------------------------------------------------------------------------------------------
# EMS stage 1: saliency point extraction (appendix A.3, Figure 5)
# ---------------------------------------------------------------------------------------------------------
EMS_EXTRACTION_SYSTEM = (
    "Task Description:\n"
    "You are tasked with extracting bullet points (key points) from the provided Candidate Answer.\n\n"
    "Guidelines:\n"
    "Extraction Task: Focus on extracting the content without evaluating its factual accuracy.\n"
    "Conciseness: Each bullet point must be no longer than two sentences.\n"
    "Include Overlap and Repetition: Ensure that the extracted key points retain all overlapping and repeated "
    "information as presented in the original content. Do not remove or merge redundant details; if similar "
    "information appears multiple times, include it in the extracted key points as is.\n"
    "Remove Summary: Leave out introductions, overviews and conclusions that only restate the body.\n"
    "Format: The output should be a List of Strings in `points`, where each string is a distinct bullet "
    "point.\n\n" + UNTRUSTED_DATA_RULE
)
EMS_EXTRACTION_EXAMPLES = (
    "In-Context Examples:\n\n"
    "Example 1\n"
    "Candidate Answer:\n"
    "Tesla Bot, also known as Optimus, is a humanoid robot developed by Tesla Inc. It is designed to perform "
    "repetitive or unsafe tasks, leveraging Tesla's advancements in AI and robotics. Standing approximately "
    "5'8\" tall and weighing around 125 pounds, Optimus features human-like proportions and a sleek design. It "
    "uses Tesla's AI technology, including computer vision and self-learning algorithms, to navigate and "
    "interact with its environment. The bot is envisioned as a tool to enhance productivity and safety in "
    "industrial, household, and other labor-intensive settings.\n"
    "Bullet Points:\n"
    '["Tesla Bot is a humanoid robot developed by Tesla Inc.", "Tesla Bot is also known as Optimus.", '
    '"Tesla Bot is designed to perform repetitive or unsafe tasks in industrial, household, and other '
    'labor-intensive settings.", "Tesla Bot is approximately 5\'8\\" tall and weighs around 125 pounds, with '
    'human-like proportions and a sleek design.", "Tesla Bot uses AI technology to navigate and interact with '
    'its environment."]\n\n'
    "Example 2\n"
    "Candidate Answer:\n"
    "Lenovo is a global technology company headquartered in Beijing, China, and Morrisville, North Carolina, "
    "USA. Founded in 1984, it is renowned for designing, manufacturing, and selling computers, smartphones, "
    "servers, and other technology products. Lenovo is a market leader in PCs, offering popular ThinkPad and "
    "Yoga series laptops, alongside gaming-focused Legion products. Lenovo is a market leader in PCs, offering "
    "popular ThinkPad and Yoga series laptops, alongside gaming-focused Legion products.\n"
    "Bullet Points:\n"
    '["Lenovo is a global technology company with headquarters in Beijing, China, and Morrisville, North '
    'Carolina, USA.", "Founded in 1984, Lenovo specializes in designing, manufacturing, and selling computers, '
    'smartphones, servers, and other tech products.", "Lenovo is a PC market leader, known for ThinkPad and '
    'Yoga laptops, as well as gaming-focused Legion products.", "Lenovo is a PC market leader, known for '
    'ThinkPad and Yoga laptops, as well as gaming-focused Legion products."]\n'
)
EMS_EXTRACTION_USER = (
    "{examples}\nYour Task:\n"
    "Generate the bullet points for the following candidate answer based on the guidelines above.\n\n"
    "Candidate Answer:\n{answer}\n\nBullet Points:"
)


def ems_extraction_messages(answer: str) -> list[BaseMessage]:
    """Messages that extract the saliency points of one answer (or reference)."""
    return [
        SystemMessage(EMS_EXTRACTION_SYSTEM),
        HumanMessage(EMS_EXTRACTION_USER.format(
            examples=EMS_EXTRACTION_EXAMPLES, answer=quote(answer, "answers", role="candidate answer")
        )),
    ]


# ---------------------------------------------------------------------------------------------------------
# EMS stage 2: matching (appendix A.4, Figure 6)
# ---------------------------------------------------------------------------------------------------------
EMS_MATCHING_SYSTEM = (
    "Task Description:\n"
    "Your task is to identify the most matched keypoint in the provided Candidate Keypoint List for a given "
    "Reference Keypoint. Each item in the candidate keypoint list contains one index and one string "
    "representing the keypoint.\n\n"
    "Matching Criteria:\n"
    "The matched keypoint should represent the same information as the reference keypoint. If no keypoint in "
    "the candidate list matches the reference, return -1.\n"
    "Pay special attention to matching numerical details between the two key points. If both key points "
    "mention the same specific numbers (e.g., \"growth of 30%\"), this significantly increases their "
    "likelihood of being a match. However, ensure the context of the numbers aligns. For example, \"35% "
    "growth\" should not be matched to \"35 people\" as the numbers pertain to entirely different contexts. "
    "Always evaluate numerical information within the broader context of the key points.\n\n"
    "Evaluate each candidate keypoint in turn, then give the index of the best-matched candidate keypoint in "
    "`index` (-1 if none matches).\n\n" + UNTRUSTED_DATA_RULE
)
EMS_MATCHING_EXAMPLES = (
    "In-Context Examples:\n\n"
    "Example 1\n"
    "Reference Keypoint:\n\"Lenovo is a global technology company with headquarters in different countries.\"\n"
    "Candidate Keypoint List:\n"
    '[0: "Lenovo is a global technology company with headquarters in Beijing, China, and Morrisville, North '
    'Carolina, USA.", 1: "Founded in 1984, Lenovo specializes in designing, manufacturing, and selling '
    'computers, smartphones, servers, and other tech products.", 2: "Lenovo is a PC market leader, known for '
    'ThinkPad and Yoga laptops, as well as gaming-focused Legion products."]\n'
    "Matched Index:\n0\n\n"
    "Example 2\n"
    "Reference Keypoint:\n\"The alias of Tesla Bot is Optimus.\"\n"
    "Candidate Keypoint List:\n"
    '[0: "Tesla Bot is a humanoid robot developed by Tesla Inc.", 1: "Tesla Bot is also known as Optimus.", '
    '2: "Tesla Bot is designed to perform repetitive or unsafe tasks in industrial, household, and other '
    'labor-intensive settings.", 3: "Tesla Bot is approximately 5\'8\\" tall and weighs around 125 pounds, with '
    'human-like proportions and a sleek design.", 4: "Tesla Bot uses AI technology to navigate and interact '
    'with its environment."]\n'
    "Matched Index:\n1\n\n"
    "Example 3\n"
    "Reference Keypoint:\n\"PCIe bifurcation allows a single PCIe slot to be divided into multiple lanes.\"\n"
    "Candidate Keypoint List:\n"
    '[0: "Flexible Leasing Options: Offers a variety of leasing solutions, including wet lease, dry lease, and '
    'lease-purchase agreements tailored to meet airline requirements.", 1: "Comprehensive Fleet Management: '
    'Provides access to a wide range of aircraft models, ensuring compatibility with operational needs and '
    'passenger demands.", 2: "Cost-Effective Solutions: Reduces the financial burden of aircraft ownership '
    'through competitive lease terms and efficient asset utilization.", 3: "Global Network: Connects airlines '
    'with a diverse pool of lessors and aircraft owners across the world."]\n'
    "Matched Index:\n-1\n"
)
EMS_MATCHING_USER = (
    "{examples}\nYour Task:\n"
    "Find the best matched keypoint index from the candidate keypoint list for the given reference keypoint.\n\n"
    "Reference Keypoint:\n{reference}\n\nCandidate Keypoint List:\n{candidates}\n\nMatched Index:"
)


def format_candidates(points: Sequence[str]) -> str:
    """The candidate list as the paper writes it: ``[0: "...", 1: "..."]`` (0-based)."""
    return "[" + ", ".join(f"{i}: {p!r}" if '"' in p else f'{i}: "{p}"' for i, p in enumerate(points)) + "]"


def ems_matching_messages(reference_point: str, answer_points: Sequence[str]) -> list[BaseMessage]:
    """Messages that match one reference point against the answer's points."""
    return [
        SystemMessage(EMS_MATCHING_SYSTEM),
        HumanMessage(EMS_MATCHING_USER.format(
            examples=EMS_MATCHING_EXAMPLES,
            reference=quote(f'"{reference_point}"', "answers", role="reference keypoint"),
            candidates=quote(format_candidates(answer_points), "answers", role="candidate keypoint list"),
        )),
    ]


# ---------------------------------------------------------------------------------------------------------
# EMS stage 3: alignment scoring (appendix A.5, Figure 7)
# ---------------------------------------------------------------------------------------------------------
EMS_SCORING_SYSTEM = (
    "Task Description:\n"
    "Evaluate the similarity between two key points provided by a language model and assign a score between "
    "0 and {max_score} based on the following criteria:\n"
    "Score {max_score}: If the two key points are exactly matched, including all details.\n"
    "Intermediate Score: If the two key points share some information but are not fully matched. The more "
    "they match, the closer the score should be to {max_score}.\n"
    "Score 0: If the two key points are entirely irrelevant to each other.\n"
    "Judge completeness (does keypoint 2 capture all essential aspects of keypoint 1?), accuracy (is its "
    "information contextually correct?) and level of detail (does it match the depth of keypoint 1?).\n\n"
    "Guidelines:\n"
    "The higher the similarity, the higher the score (closer to {max_score}). The lower the similarity, the "
    "lower the score (closer to 0). The score must be a single integer from 0 to {max_score}, given in "
    "`score`. Do not provide any explanations or reasoning.\n\n"
)
EMS_SCORING_EXAMPLES = (
    "In-Context Examples:\n\n"
    "Example 1:\nInput:\n"
    "Keypoint 1: The Gemini model supports over 2 billion monthly users across products like Search, Google "
    "Cloud, YouTube, and Google Maps, with API calls increasing 14x in six months.\n"
    "Keypoint 2: Sundar Pichai mentions that Gemini is now available on GitHub Copilot, with over 2 billion "
    "monthly users across all seven products.\n"
    "Output: 7\n\n"
    "Example 2:\nInput:\n"
    "Keypoint 1: Google Cloud revenue increased 35% YoY to $11.4 billion, with a 17% operating margin, driven "
    "by AI solutions like Vertex AI and BigQuery.\n"
    "Keypoint 2: Alphabet's Cloud revenue grew 35% year-over-year, with operating margins increasing to 17%.\n"
    "Output: 10\n\n"
    "Example 3:\nInput:\n"
    "Keypoint 1: AI-driven features like AI Overviews and Google Lens are transforming user experiences and "
    "increasing engagement.\n"
    "Keypoint 2: The executives discuss the benefits of GenAI, including reduced costs, greater customer "
    "engagement, and faster response times.\n"
    "Output: 5\n\n"
    "Example 4:\nInput:\n"
    "Keypoint 1: Alphabet plans to advance its AI portfolio with the next-generation Gemini model and broader "
    "enterprise integrations.\n"
    "Keypoint 2: The executives discuss various AI-powered products and services, including Gemini, Google "
    "Cloud AI, and Google DeepMind.\n"
    "Output: 1\n"
)
EMS_SCORING_USER = "{examples}\nInput:\n\nKeypoint 1:\n{kp1}\n\nKeypoint 2:\n{kp2}\n\nOutput:\n\nMatching Score:"


def ems_scoring_messages(reference_point: str, answer_point: str, max_score: int) -> list[BaseMessage]:
    """Messages that score one matched pair (keypoint 1 = reference, keypoint 2 = answer)."""
    return [
        SystemMessage(EMS_SCORING_SYSTEM.format(max_score=max_score) + UNTRUSTED_DATA_RULE),
        HumanMessage(EMS_SCORING_USER.format(
            examples=EMS_SCORING_EXAMPLES,
            kp1=quote(reference_point, "answers", role="keypoint 1"),
            kp2=quote(answer_point, "answers", role="keypoint 2"),
        )),
    ]
