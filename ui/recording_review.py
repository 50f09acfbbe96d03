"""Reviewing a freshly compiled recording before it joins the skill library: its name, an
example task (what recall and the task box's suggestions match), its description, and its
parameters. It is the library's edit form (:class:`ui.skill_forms.SkillEditDialog`, which renames
a parameter's ``{placeholder}`` in every step) with a name, an example and a live list of steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QWidget

from gui_agent import GuiAgentError, Skill, check_skill_name

from .skill_forms import SkillEditDialog


class RecordingReview(SkillEditDialog):
    """``save(skill)`` stores the reviewed skill; what it raises (a name already taken, a bad
    parameter) is shown in the dialog, which stays open."""

    def __init__(self, skill: Skill, save: Callable[[Skill], None], parent: QWidget | None = None,
                 folder: Any = None) -> None:
        super().__init__(skill, save, parent)
        self.setWindowTitle("Review the recorded skill")
        self.name_edit = QLineEdit(skill.name)
        self.name_edit.setPlaceholderText("e.g. log in to Acme")
        self.example = QLineEdit(skill.examples[0] if skill.examples else "")
        self.example.setPlaceholderText("optional: how you would ask for it, e.g. log in as ann")
        self.steps_label = QLabel()
        self.steps_label.setWordWrap(True)
        self.steps_label.setStyleSheet("color: #374151; font-family: monospace;")
        form = QFormLayout()
        form.addRow("Name", self.name_edit)
        form.addRow("Example task", self.example)
        layout = self.layout()
        layout.insertLayout(0, form)
        layout.insertWidget(1, QLabel(f"Recorded steps ({len(skill.steps)})"
                                      + (f" — demonstration in {folder}" if folder else "")))
        layout.insertWidget(2, self.steps_label)
        self.save_button.setText("Save skill")
        self.table.itemChanged.connect(lambda _item: self.update_steps())
        self.update_steps()
        self.name_edit.setFocus()
        self.name_edit.selectAll()

    def set_name(self, name: str) -> None:
        self.name_edit.setText(name)

    def update_steps(self) -> None:
        """The steps as they will be saved (placeholders renamed as the table says)."""
        try:
            steps = super().build().steps
        except GuiAgentError:
            steps = self.skill.steps
        self.steps_label.setText("\n".join(f"{i}. {s.action}" for i, s in enumerate(steps, 1)))

    def build(self) -> Skill:
        skill = super().build()
        example = self.example.text().strip()
        rest = skill.examples[1:]   # the field shows (and replaces) the first example
        examples = (example, *rest) if example else rest
        return replace(skill, name=check_skill_name(self.name_edit.text()), examples=examples)
