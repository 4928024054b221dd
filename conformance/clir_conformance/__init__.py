"""clir's adapter for the `datalog-conformance` suite (see conformance/README.md)."""

from .adapter import ClirError, ClirEvaluator
from .translate import NotMappable

__all__ = ["ClirError", "ClirEvaluator", "NotMappable"]
