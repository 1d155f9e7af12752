"""The optional language model: chat-model factory, validated calls with an offline fallback, usage, calculator.

Every language-model step in finrag goes through :func:`structured_call` (JSON-schema outputs) or
:func:`text_call` (free text). Both take the step's offline twin as ``fallback``: when no model is configured,
or the model's reply is invalid twice (one call plus one retry), the twin's result is returned instead and the
result says so (``fell_back`` / ``reason``), so traces can show which path produced each record. Each model
invocation is recorded in a thread-safe :class:`UsageLog` (LangGraph ``Send`` branches run in parallel
threads) with step, model, tokens and latency.

Token counts come from the server (``usage_metadata`` or ``response_metadata``). Never tiktoken: it downloads
its vocabulary at run time. When a server reports nothing, tokens are estimated as characters / 4 (OpenAI's
rule of thumb for English text) and the record is marked ``estimated``.

Arithmetic is never left to the model: :data:`calculator` is a LangChain tool the answer step binds, backed by
:func:`evaluate_arithmetic`, an ``ast``-based evaluator that accepts numbers, ``+ - * / **``, parentheses and a
few whitelisted functions only.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import urlparse

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, ToolException, tool
from pydantic import BaseModel, Field, PrivateAttr, ValidationError

from agent.config import Settings
from agent.errors import FinragError
from agent.llm.prompts import RETRY_STRUCTURED_PROMPT, RETRY_TEXT_PROMPT

T = TypeVar("T", bound=BaseModel)

CHARS_PER_TOKEN = 4  # OpenAI's rule of thumb for English text; used only when the server reports no usage
MAX_ATTEMPTS = 2  # docs/architecture.md: an invalid reply is retried once, then the offline twin answers
MAX_TOOL_ROUNDS = 4  # an answer needs a few calculations at most; more means the model is looping
MAX_REASON_CHARS = 400  # error text kept in traces: enough to diagnose, short enough to read
NO_MODEL_REASON = "no language model configured"
# Hosts whose API rejects requests that carry both max_tokens and max_completion_tokens (HTTP 400).
_OPENAI_HOSTS = ("api.openai.com",)
_THINK_RE = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)  # reasoning models served raw by llama.cpp/vLLM


# ---------------------------------------------------------------------------------------------------------
# Chat model factory
# ---------------------------------------------------------------------------------------------------------
def get_chat_model(settings: Settings) -> BaseChatModel | None:
    """The configured OpenAI-compatible chat model, or None when no language model is configured.

    Retries are ours (:func:`structured_call` retries once with the validation error, then falls back), so
    the client's own retries are off. ``max_tokens`` goes in the request body for OpenAI-compatible servers
    (llama.cpp ignores ``max_completion_tokens``, which langchain-openai sends), and only as the model
    parameter for OpenAI itself, which rejects requests that carry both.
    """
    if not settings.llm_enabled:
        return None
    from langchain_openai import ChatOpenAI  # imported lazily: the offline path never needs the client

    custom_server = bool(settings.openai_base_url) and not _is_openai_host(settings.openai_base_url)
    return ChatOpenAI(
        model=settings.llm_model,
        api_key=settings.openai_api_key,
        base_url=settings.openai_base_url or None,
        temperature=settings.llm_temperature,
        timeout=settings.llm_timeout_s,
        max_retries=0,
        max_tokens=None if custom_server else settings.llm_max_tokens,
        extra_body={"max_tokens": settings.llm_max_tokens} if custom_server else None,
    )


def _is_openai_host(base_url: str) -> bool:
    host = urlparse(base_url).hostname or ""
    return host in _OPENAI_HOSTS


# ---------------------------------------------------------------------------------------------------------
# Usage accounting
# ---------------------------------------------------------------------------------------------------------
class LLMCallRecord(BaseModel):
    """One model invocation: what it cost and how it ended."""

    step: str
    model: str
    attempt: int = Field(description="1 for the first call, 2 for the retry")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = Field(default=False, description="tokens estimated as chars/4: the server reported none")
    latency_s: float = 0.0
    outcome: Literal["ok", "tool_call", "invalid", "error"] = "ok"
    error: str = ""
    fell_back: bool = Field(default=False, description="the offline twin was used after this call")

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class StepUsage(BaseModel):
    """Totals over a set of calls (one step, or all of them)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    latency_s: float = 0.0
    failed_calls: int = Field(default=0, description="calls whose reply was invalid or raised")
    fallbacks: int = Field(default=0, description="times the offline twin replaced the model")
    estimated_calls: int = Field(default=0, description="calls whose tokens are chars/4 estimates")

    def add(self, record: LLMCallRecord) -> None:
        """Count one call."""
        self.calls += 1
        self.prompt_tokens += record.prompt_tokens
        self.completion_tokens += record.completion_tokens
        self.total_tokens += record.total_tokens
        self.latency_s += record.latency_s
        self.failed_calls += record.outcome in ("invalid", "error")
        self.fallbacks += record.fell_back
        self.estimated_calls += record.estimated


class UsageLog(BaseModel):
    """Every model call of a run. Appends are thread-safe: parallel graph branches share one log."""

    records: list[LLMCallRecord] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def add(self, record: LLMCallRecord) -> None:
        """Append one call record."""
        with self._lock:
            self.records.append(record)

    def extend(self, other: UsageLog) -> None:
        """Append all of another log's records (e.g. a branch's log into the run's)."""
        incoming = other.snapshot()
        with self._lock:
            self.records.extend(incoming)

    def snapshot(self) -> list[LLMCallRecord]:
        """A copy of the records, safe to iterate while other threads append."""
        with self._lock:
            return list(self.records)

    def by_step(self) -> dict[str, StepUsage]:
        """Totals per step, in the order steps first appeared."""
        totals: dict[str, StepUsage] = {}
        for record in self.snapshot():
            totals.setdefault(record.step, StepUsage()).add(record)
        return totals

    def total(self) -> StepUsage:
        """Totals over every call."""
        overall = StepUsage()
        for record in self.snapshot():
            overall.add(record)
        return overall

    # A lock cannot be copied or pickled: give each copy its own (LangGraph deep-copies and serialises state).
    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> UsageLog:
        return UsageLog(records=[r.model_copy() for r in self.snapshot()])

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["__pydantic_private__"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._lock = threading.Lock()


# ---------------------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------------------
class StructuredResult(BaseModel, Generic[T]):
    """A validated structured output and which path produced it."""

    value: T
    step: str
    source: Literal["llm", "offline"] = Field(description="llm: the model's output; offline: the twin's")
    fell_back: bool = Field(default=False, description="a model was configured but its output was not usable")
    reason: str = Field(default="", description="why the offline twin answered; empty when the model did")
    attempts: int = Field(default=0, description="model invocations made (0 when no model is configured)")


class ToolCallRecord(BaseModel):
    """A tool the model called during a text step (e.g. a calculation), for the trace."""

    name: str
    arguments: str = Field(description="the call's arguments as JSON text")
    output: str
    ok: bool = True


class TextResult(BaseModel):
    """A free-text output (answer, summary, HyDE passage) and which path produced it."""

    text: str
    step: str
    source: Literal["llm", "offline"]
    fell_back: bool = False
    reason: str = ""
    attempts: int = 0
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)


# ---------------------------------------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------------------------------------
def structured_call(
    model: BaseChatModel | None,
    schema: type[T],
    messages: Sequence[BaseMessage],
    *,
    fallback: Callable[[], T],
    step: str,
    usage: UsageLog | None = None,
    check: Callable[[T], str | None] | None = None,
) -> StructuredResult[T]:
    """Ask ``model`` for a ``schema`` object via function calling; retry once; else use ``fallback()``.

    ``check`` is an optional semantic validator run after schema validation; it returns a reason string to
    reject the output (e.g. "ranking omits chunk c7") or None to accept it. A rejected or unparsable reply is
    retried once with the reason appended to the conversation, then the offline twin answers and the result
    carries ``fell_back=True`` and the reason. With ``model=None`` the twin answers directly (``source``
    'offline', ``fell_back`` False): that is the configured offline mode, not a failure. A model output
    whose schema has a ``source`` field (ChunkCard, QueryIntent) gets ``source='llm'``, whatever it wrote.
    Exceptions raised by ``fallback`` itself propagate: a broken offline twin is a bug, not a model failure.
    """
    result_type = StructuredResult[schema]  # type: ignore[valid-type]
    if model is None:
        return result_type(value=schema.model_validate(fallback()), step=step, source="offline",
                           reason=NO_MODEL_REASON)
    runnable = model.with_structured_output(schema, method="function_calling", include_raw=True)
    conversation = list(messages)
    reason = ""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        started = time.perf_counter()
        raw: BaseMessage | None = None
        value: T | None = None
        try:
            out = runnable.invoke(conversation)
            raw = out.get("raw") if isinstance(out, dict) else None
            value, reason = _validated(schema, out, raw, check)
            outcome: Literal["ok", "invalid", "error"] = "ok" if value is not None else "invalid"
        except Exception as exc:  # any client/server failure is a failed attempt, never a crashed run
            reason, outcome = _describe(exc), "error"
        last = value is None and attempt == MAX_ATTEMPTS
        _record(usage, model, step, attempt, conversation, raw, time.perf_counter() - started, outcome,
                "" if value is not None else reason, fell_back=last)
        if value is not None:
            if "source" in schema.model_fields:  # ChunkCard/QueryIntent say which twin produced them
                value = value.model_copy(update={"source": "llm"})
            return result_type(value=value, step=step, source="llm", attempts=attempt)
        conversation = [*messages, HumanMessage(RETRY_STRUCTURED_PROMPT.format(
            schema=schema.__name__, reason=reason))]
    return result_type(value=schema.model_validate(fallback()), step=step, source="offline", fell_back=True,
                       reason=reason, attempts=MAX_ATTEMPTS)


def text_call(
    model: BaseChatModel | None,
    messages: Sequence[BaseMessage],
    *,
    fallback: Callable[[], str],
    step: str,
    usage: UsageLog | None = None,
    tools: Sequence[BaseTool] = (),
    check: Callable[[str], str | None] | None = None,
    max_tool_rounds: int = MAX_TOOL_ROUNDS,
) -> TextResult:
    """Ask ``model`` for free text (answer, summary, HyDE passage); retry once; else use ``fallback()``.

    With ``tools`` (e.g. ``[calculator]``) the model may call them for up to ``max_tool_rounds`` rounds; each
    call runs here and is kept in ``TextResult.tool_calls`` so the trace shows the arithmetic. An empty
    reply, one ``check`` rejects, an exception, or a model still calling tools after the last round is a
    failed attempt. Accounting and fallback semantics are those of :func:`structured_call`.
    """
    if model is None:
        return TextResult(text=fallback(), step=step, source="offline", reason=NO_MODEL_REASON)
    runnable = model.bind_tools(list(tools)) if tools else model
    by_name = {t.name: t for t in tools}
    conversation = list(messages)
    reason = ""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        tool_log: list[ToolCallRecord] = []
        text, reason = _tool_loop(runnable, model, conversation, by_name, tool_log, step, attempt, usage,
                                  max_tool_rounds, check)
        if text is not None:
            return TextResult(text=text, step=step, source="llm", attempts=attempt, tool_calls=tool_log)
        conversation = [*messages, HumanMessage(RETRY_TEXT_PROMPT.format(reason=reason))]
    return TextResult(text=fallback(), step=step, source="offline", fell_back=True, reason=reason,
                      attempts=MAX_ATTEMPTS)


def _tool_loop(
    runnable: Any,
    model: BaseChatModel,
    conversation: list[BaseMessage],
    by_name: dict[str, BaseTool],
    tool_log: list[ToolCallRecord],
    step: str,
    attempt: int,
    usage: UsageLog | None,
    max_tool_rounds: int,
    check: Callable[[str], str | None] | None,
) -> tuple[str | None, str]:
    """One attempt of a text step: invoke, run requested tools, repeat; (text, '') or (None, reason)."""
    convo = list(conversation)
    for round_ in range(max_tool_rounds + 1):
        final_round = round_ == max_tool_rounds
        started = time.perf_counter()
        try:
            reply: BaseMessage = runnable.invoke(convo)
        except Exception as exc:  # any client/server failure is a failed attempt, never a crashed run
            reason = _describe(exc)
            _record(usage, model, step, attempt, convo, None, time.perf_counter() - started, "error", reason,
                    fell_back=attempt == MAX_ATTEMPTS)
            return None, reason
        latency = time.perf_counter() - started
        calls = reply.tool_calls if isinstance(reply, AIMessage) else []
        if calls and by_name and not final_round:
            _record(usage, model, step, attempt, convo, reply, latency, "tool_call", "")
            convo.append(reply)
            convo.extend(_run_tool(call, by_name, tool_log) for call in calls)
            continue
        text = _THINK_RE.sub("", _message_text(reply)).strip()
        if calls and not text:
            reason = f"still calling tools after {max_tool_rounds} rounds" if by_name else "replied with a tool call"
        elif not text:
            reason = "empty reply"
        else:
            reason = (check(text) if check else None) or ""
        failed = bool(reason)
        _record(usage, model, step, attempt, convo, reply, latency, "invalid" if failed else "ok", reason,
                fell_back=failed and attempt == MAX_ATTEMPTS)
        return (None, reason) if failed else (text, "")
    raise AssertionError("unreachable: the final round always returns")  # pragma: no cover


def _run_tool(call: dict[str, Any], by_name: dict[str, BaseTool], tool_log: list[ToolCallRecord]) -> ToolMessage:
    """Run one requested tool call; errors go back to the model as the tool's output, never raise."""
    name, args, call_id = call.get("name", ""), call.get("args", {}), call.get("id") or ""
    chosen = by_name.get(name)
    if chosen is None:
        message = ToolMessage(content=f"error: unknown tool {name!r}; available: {', '.join(sorted(by_name))}",
                              tool_call_id=call_id, name=name, status="error")
    else:
        try:
            # Invoked with the whole tool call, a tool answers with a ToolMessage whose status says whether
            # it failed (tools with handle_tool_error report errors that way instead of raising).
            message = chosen.invoke({"name": name, "args": args, "id": call_id, "type": "tool_call"})
        except Exception as exc:  # a tool's failure is information for the model, not a crash
            message = ToolMessage(content=f"error: {_describe(exc)}", tool_call_id=call_id, name=name,
                                  status="error")
    output = message.content if isinstance(message.content, str) else json.dumps(message.content)
    tool_log.append(ToolCallRecord(name=name, arguments=json.dumps(args, sort_keys=True), output=output,
                                   ok=message.status != "error"))
    return message


def _validated(
    schema: type[T], out: Any, raw: BaseMessage | None, check: Callable[[T], str | None] | None
) -> tuple[T | None, str]:
    """The reply as a valid ``schema`` object, or (None, reason it is not)."""
    parsed = out.get("parsed") if isinstance(out, dict) else out
    error = out.get("parsing_error") if isinstance(out, dict) else None
    value: T | None = parsed if isinstance(parsed, schema) else None
    reason = ""
    if value is None:
        # Some OpenAI-compatible servers answer with the JSON in the message text instead of a tool call.
        value = _salvage_json(schema, raw)
        if value is None:
            reason = _describe(error) if error is not None else _missing_reason(raw)
    if value is not None and check is not None:
        rejected = check(value)
        if rejected:
            return None, rejected
    return value, reason


def _salvage_json(schema: type[T], raw: BaseMessage | None) -> T | None:
    text = _message_text(raw) if raw is not None else ""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        return schema.model_validate_json(text[start : end + 1])
    except ValidationError:
        return None


def _missing_reason(raw: BaseMessage | None) -> str:
    if isinstance(raw, AIMessage) and raw.invalid_tool_calls:
        bad = raw.invalid_tool_calls[0]
        return _clip(f"invalid tool-call arguments: {bad.get('error') or bad.get('args')}")
    text = _message_text(raw) if raw is not None else ""
    return _clip(f"no tool call in reply: {text!r}" if text else "no tool call in reply")


# ---------------------------------------------------------------------------------------------------------
# Accounting helpers
# ---------------------------------------------------------------------------------------------------------
def _record(
    usage: UsageLog | None,
    model: BaseChatModel,
    step: str,
    attempt: int,
    prompt: Sequence[BaseMessage],
    reply: BaseMessage | None,
    latency_s: float,
    outcome: Literal["ok", "tool_call", "invalid", "error"],
    error: str,
    *,
    fell_back: bool = False,
) -> None:
    if usage is None:
        return
    prompt_tokens, completion_tokens, estimated = token_counts(prompt, reply)
    usage.add(LLMCallRecord(
        step=step, model=_model_name(model, reply), attempt=attempt, prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens, estimated=estimated, latency_s=round(latency_s, 4),
        outcome=outcome, error=error, fell_back=fell_back,
    ))


def token_counts(prompt: Sequence[BaseMessage], reply: BaseMessage | None) -> tuple[int, int, bool]:
    """(prompt tokens, completion tokens, estimated): server-reported when available, else chars / 4."""
    if isinstance(reply, AIMessage) and reply.usage_metadata:
        meta = reply.usage_metadata
        return int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)), False
    if reply is not None:
        reported = reply.response_metadata.get("token_usage") or reply.response_metadata.get("usage")
        if isinstance(reported, dict) and ("prompt_tokens" in reported or "completion_tokens" in reported):
            return int(reported.get("prompt_tokens") or 0), int(reported.get("completion_tokens") or 0), False
    prompt_chars = sum(len(_message_text(m)) for m in prompt)
    completion_chars = 0
    if reply is not None:
        completion_chars = len(_message_text(reply))
        if isinstance(reply, AIMessage):
            completion_chars += sum(len(json.dumps(c.get("args", {}))) for c in reply.tool_calls)
    return estimate_tokens(prompt_chars), estimate_tokens(completion_chars), True


def estimate_tokens(chars: int) -> int:
    """Tokens in ``chars`` characters of English text by the chars/4 rule (rounded up)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def _model_name(model: BaseChatModel, reply: BaseMessage | None) -> str:
    if reply is not None and reply.response_metadata.get("model_name"):
        return str(reply.response_metadata["model_name"])
    for attr in ("model_name", "model"):
        name = getattr(model, attr, None)
        if isinstance(name, str) and name:
            return name
    return type(model).__name__


def _message_text(message: BaseMessage | None) -> str:
    """The text parts of a message's content (content may be a string or a list of blocks)."""
    if message is None:
        return ""
    content = message.content
    if isinstance(content, str):
        return content
    parts = [b if isinstance(b, str) else str(b.get("text", "")) for b in content
             if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")]
    return "".join(parts)


def _describe(exc: BaseException | Any) -> str:
    """One line for traces and the retry note; validation errors as 'field: problem (got value)'."""
    if isinstance(exc, ValidationError):
        problems = [f"{'.'.join(str(p) for p in e['loc']) or 'output'}: {e['msg']} (got {e.get('input')!r})"
                    for e in exc.errors(include_url=False)]
        return _clip(f"{exc.title} failed validation: " + "; ".join(problems))
    return _clip(f"{type(exc).__name__}: {exc}")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 3] + "..."


# ---------------------------------------------------------------------------------------------------------
# Calculator: the model never does arithmetic itself
# ---------------------------------------------------------------------------------------------------------
MAX_EXPRESSION_CHARS = 500  # a real calculation is a line; longer input is a model pasting text
MAX_EXPONENT = 100  # covers compounding over any horizon; blocks 9**9**9-style resource exhaustion
MAX_NODES = 200  # expression-tree size cap, same reason
RESULT_DIGITS = 15  # significant digits shown: all a float holds, so no spurious ...0000001 tails


class CalculatorError(FinragError):
    """An expression the calculator refuses or cannot evaluate."""


def _pct_change(old: float, new: float) -> float:
    """Percentage change from old to new, relative to |old|."""
    if old == 0:
        raise CalculatorError("pct_change: the old value is zero, so the change has no percentage")
    return (new - old) / abs(old) * 100.0


def _pct(part: float, whole: float) -> float:
    """part as a percentage of whole (margins, shares, ratios in %)."""
    if whole == 0:
        raise CalculatorError("pct: the whole is zero")
    return part / whole * 100.0


def _cagr(start: float, end: float, years: float) -> float:
    """Compound annual growth rate in percent."""
    if start <= 0 or end <= 0 or years <= 0:
        raise CalculatorError("cagr needs positive start, end and years")
    return ((end / start) ** (1.0 / years) - 1.0) * 100.0


def _avg(values: Sequence[float]) -> float:
    if not values:
        raise CalculatorError("avg of an empty list")
    return sum(values) / len(values)


def _round(value: float, digits: float = 0) -> float:
    return round(value, int(digits))


_FUNCTIONS: dict[str, Callable[..., float]] = {
    "round": _round,
    "abs": abs,
    "min": min,
    "max": max,
    "sum": sum,
    "avg": _avg,
    "pct_change": _pct_change,
    "pct": _pct,
    "cagr": _cagr,
}
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_PERCENT_LITERAL_RE = re.compile(r"(\d+(?:\.\d+)?|\.\d+)%")  # "12.5%" means 0.125, never modulo


def evaluate_arithmetic(expression: str) -> float:
    """Evaluate an arithmetic expression safely and return a float.

    Accepts numbers, ``+ - * / **``, parentheses, unary minus, ``12.5%`` (= 0.125), ``$`` signs (ignored),
    lists inside calls, and the functions round, abs, min, max, sum, avg, pct_change(old, new),
    pct(part, whole) and cagr(start, end, years). Rejects names, attributes, other calls, comparisons,
    exponents above :data:`MAX_EXPONENT`, and comma-separated numbers at the top level (``1,577`` would be
    a tuple). Raises :class:`CalculatorError` with a one-line reason.
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    cleaned = _PERCENT_LITERAL_RE.sub(r"(\1/100)", expression.replace("$", "")).strip()
    try:
        tree = ast.parse(cleaned, mode="eval")
    except SyntaxError as exc:
        raise CalculatorError(f"not an arithmetic expression: {exc.msg}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculatorError(f"expression has more than {MAX_NODES} parts")
    if isinstance(tree.body, ast.Tuple):
        raise CalculatorError("write numbers without thousands separators (1577, not 1,577)")
    try:
        result = _eval(tree.body)
    except ZeroDivisionError:
        raise CalculatorError("division by zero") from None
    except OverflowError:
        raise CalculatorError("result too large") from None
    if not math.isfinite(result):
        raise CalculatorError("result is not a finite number")
    return result


def _eval(node: ast.AST, *, as_argument: bool = False) -> Any:
    """Evaluate one node; lists are legal only as direct function arguments (``sum([a, b])``)."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalculatorError(f"only numbers are allowed, not {node.value!r}")
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise CalculatorError(f"exponent larger than {MAX_EXPONENT}")
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, complex):
            raise CalculatorError("result is not a real number")
        return result
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            allowed = ", ".join(sorted(_FUNCTIONS))
            raise CalculatorError(f"only these functions are allowed: {allowed}")
        if node.keywords:
            raise CalculatorError("keyword arguments are not allowed")
        args = [_eval(a, as_argument=True) for a in node.args]
        try:
            return float(_FUNCTIONS[node.func.id](*args))
        except TypeError as exc:
            raise CalculatorError(f"{node.func.id}: {exc}") from None
    if isinstance(node, ast.List | ast.Tuple):
        if not as_argument:
            raise CalculatorError("lists are only allowed as function arguments, e.g. sum([1, 2])")
        return [_eval(e) for e in node.elts]
    if isinstance(node, ast.Name):
        raise CalculatorError(f"unknown name {node.id!r}: use numbers only")
    if isinstance(node, ast.Attribute):
        raise CalculatorError("attributes are not allowed")
    raise CalculatorError(f"{type(node).__name__} is not allowed in an arithmetic expression")


def format_result(value: float) -> str:
    """A calculator result as text: up to 15 significant digits, no float noise, no exponent for money."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return format(value, f".{RESULT_DIGITS}g")


@tool("calculator", parse_docstring=False)
def calculator(expression: str) -> str:
    """Evaluate arithmetic exactly. Use it for every sum, difference, ratio, margin or growth rate.

    Write plain numbers without thousands separators or currency symbols, e.g. '(1577 - 1200) / 1200 * 100'.
    Operators: + - * / ** and parentheses; '12.5%' means 0.125. Functions: round(x, n), abs, min, max,
    sum([..]), avg([..]), pct_change(old, new) (percent), pct(part, whole) (percent), cagr(start, end, years)
    (percent). Returns the result as text.
    """
    try:
        return format_result(evaluate_arithmetic(expression))
    except CalculatorError as exc:
        raise ToolException(f"error: {exc}") from None


calculator.handle_tool_error = True  # the model reads the error and can correct its expression
