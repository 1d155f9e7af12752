"""One scripted chat model for every test of a language-model step.

Replies are chosen by prompt content, never by call order, because ``Send`` branches run in parallel: each rule
is ``(keys, reply)`` and fires when every key occurs in the conversation; the rule with the most keys wins. A
reply is an ``AIMessage``, a list of them (given in turn each time the rule fires, as a sampling judge varies
between runs), or a callable from the prompt text to an ``AIMessage``. No matching rule raises, like a server
that is down. ``bind_tools`` returns the model itself, so tool-calling code paths run unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

Reply = AIMessage | list[AIMessage] | Callable[[str], AIMessage]
Rule = tuple[tuple[str, ...], Reply]

# Appended to the prompt text when the last message is a tool result, so a rule can answer "after the tool".
TOOL_RESULT_MARK = "TOOL_RESULT"


class ScriptedChatModel(GenericFakeChatModel):
    """A chat model whose replies are keyed by prompt content."""

    # Typed loosely on purpose: pydantic would try to coerce callables and lists into AIMessage.
    rules: list[tuple[tuple[str, ...], Any]] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    used: dict[int, int] = Field(default_factory=dict)
    messages: Any = iter(())  # GenericFakeChatModel's order-based script: unused here
    model_name: str = "scripted-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        text = "\n".join(str(m.content) for m in messages)
        self.prompts.append(text)
        if messages and isinstance(messages[-1], ToolMessage):
            text += f"\n{TOOL_RESULT_MARK}"
        matching = [i for i, (keys, _) in enumerate(self.rules) if all(k in text for k in keys)]
        if not matching:
            raise ConnectionError("scripted model has no reply for this prompt")
        index = max(matching, key=lambda i: len(self.rules[i][0]))
        reply = self.rules[index][1]
        if callable(reply):
            message = reply(text)
        elif isinstance(reply, list):
            turn = self.used.get(index, 0)
            self.used[index] = turn + 1
            message = reply[turn % len(reply)].model_copy(deep=True)
        else:
            message = reply.model_copy(deep=True)
        return ChatResult(generations=[ChatGeneration(message=message)])
