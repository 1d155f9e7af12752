"""The optional language model: chat-model factory and validated structured calls (:mod:`agent.llm.models`),
prompts, and the output schemas of every model step."""
