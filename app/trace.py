"""Old path of `tokinspect.core.trace`, kept importable: this module is that one."""

import sys

from .core import trace as _moved

sys.modules[__name__] = _moved
