"""What one AT-SPI node says of itself: its states, its text, whether it is a list's check
box cell, the label it is labelled by, and a live handle that reads them again later. Each call
may fail with GLib.Error when the node's application is gone."""

from __future__ import annotations

from typing import Any

from .roles import KEPT_STATES

MAX_VALUE_CHARS = 2000        # a field's text read back, at most


class AtspiHandle:
    """A live AT-SPI node (see :class:`~gui_agent.parsing.elements.AccessibleHandle`)."""

    def __init__(self, node: Any) -> None:
        self._node = node

    def states(self) -> frozenset[str] | None:
        try:
            return node_states(self._node.get_state_set())
        except Exception:  # GLib.Error: the node or its application is gone
            return None

    def value(self) -> str | None:
        try:
            return text_of(self._node)
        except Exception:  # GLib.Error: gone
            return None


def node_states(state_set: Any) -> frozenset[str]:
    names = {s.value_nick for s in state_set.get_states()}
    if "sensitive" in names and "enabled" not in names:
        names.add("enabled")
    return frozenset(names & KEPT_STATES)


def text_of(node: Any) -> str | None:
    from gi.repository import Atspi

    if "Text" not in node.get_interfaces():
        return None
    count = Atspi.Text.get_character_count(node)
    return Atspi.Text.get_text(node, 0, min(count, MAX_VALUE_CHARS)) if count > 0 else ""


def toggle_cell(node: Any, role: str) -> bool:
    """A cell of a list or tree that holds a check box (it can be acted on, shows no text)."""
    if role not in ("table cell", "tree item", "list item"):
        return False
    try:
        interfaces = node.get_interfaces()
    except Exception:  # GLib.Error: gone
        return False
    return "Action" in interfaces and "Text" not in interfaces


def labelled_by(node: Any) -> str:
    from gi.repository import Atspi

    try:
        for relation in node.get_relation_set():
            if relation.get_relation_type() == Atspi.RelationType.LABELLED_BY \
                    and relation.get_n_targets():
                return clean_name(relation.get_target(0).get_name())
    except Exception:  # GLib.Error
        return ""
    return ""


def clean_name(text: str | None) -> str:
    """A name as shown: spaces squeezed (GTK pads menu items with spaces for their shortcut)."""
    return " ".join((text or "").split())
