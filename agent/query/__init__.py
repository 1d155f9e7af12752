"""Query understanding: rewriting a turn with the conversation, the wording cues, decomposition into sub-queries,
Query Intents, and where each question's evidence comes from."""
