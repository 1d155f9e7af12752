"""A reading step in a process of its own, within a time and a memory budget.

Some readers build their whole result in one C call (an HTML parse tree takes ~15x its file): no check between
steps can stop them, so a large input is read by a child process whose address space is capped and which is
killed when its time is up. The child starts fresh (``spawn``): no copy of the caller's models and threads.
"""

from __future__ import annotations

import importlib
import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

from agent.errors import IngestError


def bounded_call(func: Callable[..., Any], args: tuple[Any, ...], *, where: str, seconds: float, memory_mb: float,
                 preload: Sequence[str] = ()) -> Any:
    """``func(*args)`` (a module-level function) in a child process that may take ``seconds`` and use ``memory_mb``
    more than it holds once the ``preload`` modules are imported; IngestError about ``where`` naming the budget it
    ran past, or carrying the message of what the function raised."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, func, args, memory_mb, tuple(preload)), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(seconds):
            raise IngestError(where, f"reading took over max_parse_seconds={seconds:g}")
        try:
            outcome, value = receive.recv()
        except EOFError:
            outcome, value = "memory", ""  # the child died: the allocator failed outside Python's reach
    finally:
        child.kill()
        child.join()
        receive.close()
    if outcome == "memory":
        raise IngestError(where, f"reading needs more than max_parse_memory_mb={memory_mb:g} MB of memory")
    if outcome == "error":
        raise IngestError(where, value)
    return value


def _child(send: Any, func: Callable[..., Any], args: tuple[Any, ...], memory_mb: float,
           preload: tuple[str, ...]) -> None:
    """Import ``preload`` (the libraries are not the budget's), cap the address space at what is used now plus
    ``memory_mb``, run, and send ('ok', result), ('memory', '') or ('error', reason)."""
    import resource

    for name in preload:
        importlib.import_module(name)
    with open("/proc/self/status", encoding="ascii") as status:
        used_kb = next((int(line.split()[1]) for line in status if line.startswith("VmSize:")), 0)
    cap = used_kb * 1024 + int(memory_mb * 1024 * 1024)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        send.send(("ok", func(*args)))
    except MemoryError:
        send.send(("memory", ""))
    except IngestError as exc:
        send.send(("error", exc.reason))
    except Exception as exc:  # noqa: BLE001 - the parent raises it as one IngestError
        send.send(("error", str(exc)))
