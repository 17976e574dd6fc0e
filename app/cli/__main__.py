"""`python -m tokinspect.cli` (as `python -m tokinspect`)."""

import sys

from . import main

sys.exit(main())
