"""Old path of `tokinspect.core.tokenizer`, kept importable: this module is that one."""

import sys

from .core import tokenizer as _moved

sys.modules[__name__] = _moved
