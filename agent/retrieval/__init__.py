"""Deep retrieval: multi-path candidates, bundling, FinCARDS screening and bootstrap ranking, cross-encoder
reranking and evidence selection, each stage a module, chained by :mod:`agent.retrieval.pipeline`."""

from agent.retrieval.options import RetrievalOptions
from agent.retrieval.pipeline import DeepRetriever, RetrievalResult
from agent.retrieval.trace import AuditTrace

__all__ = ["AuditTrace", "DeepRetriever", "RetrievalOptions", "RetrievalResult"]
