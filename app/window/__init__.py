"""The window's models and workers: everything the window computes, in Qt objects the views
bind to. `document` (the one Document: tokenizer + text -> Analysis, the shared Selection, the
token, chunk, vocabulary and chat table models), `trace_rows` (the trace pane's labels),
`compare`, `audit`, `sampling`, `board` (each tab's model), `workers` (jobs off the UI thread).

Views (tokinspect.widgets) import these; these never import the views.

Does not: draw, or lay out widgets (widgets/ does); open the window (tokinspect.gui does).
"""

from ..core.tokenizer import ENCODERS  # the encoders the window offers (the engine's own list)

__all__ = ["ENCODERS"]
