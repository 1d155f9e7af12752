"""Derived-file helpers: atomic writes (temp file, fsync, ``os.replace``), checksums, and FAISS loaded once
with its thread count set.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

FAISS_THREADS = 1  # searches are one query at a time: OpenMP start-up costs 10-300x the work (measured)


_FAISS_READY = False


def _faiss() -> Any:
    """The faiss module, imported on first use (pure-SQLite work never pays for it) and set single-threaded."""
    global _FAISS_READY
    import faiss

    if not _FAISS_READY:
        faiss.omp_set_num_threads(FAISS_THREADS)
        _FAISS_READY = True
    return faiss


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never a torn one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Persist the rename itself (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
