"""tokinspect: a token inspector for LLMs on embedded boards.

The engine is native (`tokinspect._tokcore`, built from native/); this
package wraps it: `Tokenizer`, `Encoding`, `Trace`.
"""

from importlib import metadata as _metadata

from .core.encoding import Encoding
from .core.tokenizer import Tokenizer, TokenizerError
from .core.trace import GreedyStep, MergeStep, Trace, TraceChunk

__all__ = ["Encoding", "GreedyStep", "MergeStep", "Tokenizer", "TokenizerError", "Trace", "TraceChunk"]
__version__ = _metadata.version("tokinspect")   # pyproject.toml is the one place it is set
