"""The Sampling tab wired to its model: file dialogs, the bigram demo, views into the pane.

The window gives it the current text of the Inspect tab (`inspector_text`)
for the bigram demo; everything computed runs in app/window/sampling.py's workers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QVBoxLayout, QWidget

from tokinspect.window.i18n import tr
from tokinspect.window.sampling import SamplingModel
from tokinspect.window.workers import read_text_file

from .sampling_pane import SamplingPane

LOGITS_FILTER = "Logits (*.npy *.bin *.f32 *.f16 *.bf16 *.raw *.txt);;All files (*)"


class SamplingTab(QWidget):
    def __init__(self, model: SamplingModel, inspector_text: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.inspector_text = inspector_text
        self.pane = SamplingPane()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.pane)
        p, m = self.pane, model
        p.settingsChanged.connect(m.set_settings)
        p.stepChanged.connect(m.set_step)
        p.topNChanged.connect(m.set_top_n)
        p.openLogits.connect(self.open_logits)
        p.bigramFromInspector.connect(self.bigram_from_inspector)
        p.bigramFromFile.connect(self.bigram_from_file)
        p.drawRequested.connect(m.draw)
        m.changed.connect(lambda: m.view is not None and p.show_view(m.view))
        m.enginesChanged.connect(lambda: m.engines is not None and p.show_engines(m.engines))
        m.drew.connect(lambda: m.draw_view is not None and p.show_draw(m.draw_view))
        m.sourceChanged.connect(self._on_source)
        m.failed.connect(lambda msg: QMessageBox.critical(self, tr("Sampling"), msg))
        m.set_settings(p.settings())

    def activate(self, on: bool) -> None:
        """The tab became visible (or hidden); the first visit starts the bigram demo."""
        self.model.set_active(on)
        if on and self.model.source is None and self.model.tokenizer is not None:
            if self.inspector_text().strip():
                self.bigram_from_inspector()
            else:
                self.pane.source_label.setText(tr("no logits: open a logits file, or type a text in the Inspect tab "
                                               "for the bigram demo"))

    def open_logits(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Open logits"), "", LOGITS_FILTER)
        if path:
            self.model.load(path)

    def bigram_from_inspector(self) -> None:
        self.model.load_bigram(self.inspector_text(), tr("the Inspect tab's text"))

    def bigram_from_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, tr("Text for the bigram demo"), "", "Text (*.txt);;All files (*)")
        if not path:
            return
        try:
            text = read_text_file(Path(path))
        except OSError as exc:
            QMessageBox.critical(self, tr("Sampling"), tr("cannot read {path}: {reason}").format(path=path, reason=exc))
            return
        self.model.load_bigram(text, Path(path).name)

    def _on_source(self) -> None:
        src = self.model.source
        if src is None:
            self.pane.set_source(tr("no logits"), 0)
            return
        self.pane.set_source(f"{src.label} — {src.steps:,} × {src.vocab:,}", src.steps)
