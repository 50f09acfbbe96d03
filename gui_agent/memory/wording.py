"""Plain words for skills: step descriptions, proposed skill names, parameter names from targets.

Heuristics over English task text, used by :mod:`.mining`; every result is checked or sanitised
so that a strange task gives a dull name, never an invalid one.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..actions import (
    Action,
    Click,
    Drag,
    Hotkey,
    Move,
    OpenApp,
    Resize,
    RunSkill,
    Scroll,
    Type,
    Wait,
    format_action,
    parse_action,
)
from ..errors import GuiAgentError
from ..geometry import Box, Point
from .models import PLACEHOLDER_RE, Skill, check_skill_name

ARTICLES = {"the", "a", "an", "my", "our", "your", "this", "that", "some", "please"}
WIDGETS = {"field", "box", "input", "textbox", "textfield", "area", "entry", "bar", "edit", "control",
           "button", "link", "tab", "menu", "icon", "text"}
GUI_VERBS = {"type", "click", "press", "enter", "write", "fill", "tap", "hit", "select", "choose", "double",
             "right", "then", "first", "scroll", "wait", "put", "input", "drag", "move", "check", "tick"}
CONFIRMS = {"ok", "cancel", "yes", "no", "apply", "close", "done", "next", "continue", "submit", "confirm"}
PARTICLES = {"in", "up", "out", "on", "off", "down", "back", "over"}
HOTKEY_VERBS = {("ctrl", "s"): "save", ("ctrl", "o"): "open", ("ctrl", "n"): "new", ("ctrl", "p"): "print",
                ("ctrl", "shift", "s"): "save as", ("ctrl", "f"): "find", ("ctrl", "z"): "undo"}


def named_in(value: str, task: str) -> bool:
    """Whether the task names ``value`` (as whole words, any case)."""
    value = value.strip()
    return bool(value) and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", task, re.I) is not None


def is_number(text: str) -> bool:
    """A plain number that a number parameter renders back identically ('3', '2.5'; not '007')."""
    return re.fullmatch(r"-?\d+(\.\d+)?", text) is not None and number_text(float(text)) == text


def number_text(x: float) -> str:
    """How a skill renders a number (as models.SkillStep.render does)."""
    return str(int(x)) if x.is_integer() else repr(x)


def ascii_text(text: str) -> str:
    """Accents dropped ('élan' -> 'elan'; letters with no ASCII form vanish), for names that must be ASCII."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def unique(base: str, taken: set[str], sep: str = "") -> str:
    name, n = base, 2
    while name.casefold() in taken:
        name, n = f"{base}{sep}{n}", n + 1
    taken.add(name.casefold())
    return name


def words(desc: str) -> list[str]:
    """The meaningful words of a target description ('the New item field' -> new, item)."""
    found = re.findall(r"[a-z0-9]+", ascii_text(desc).lower())
    while found and found[0] in ARTICLES:
        found.pop(0)
    while len(found) > 1 and found[-1] in WIDGETS:
        found.pop()
    return found[:4]


def templated(text: str | None, values: dict[str, str]) -> str | None:
    """``text`` with each parameter's value (as a whole word) replaced by its ``{name}``."""
    pairs = sorted(((v, n) for n, v in values.items() if v.strip()), key=lambda p: -len(p[0]))
    if text is None or not pairs:
        return text
    lookup = dict(pairs)
    pattern = "|".join(re.escape(v) for v, _ in pairs)
    return re.sub(rf"(?<!\w)(?:{pattern})(?!\w)", lambda m: "{" + lookup[m.group(0)] + "}", text)


def _ref(t: Any) -> str:
    if isinstance(t, Point):
        return f"({t.x}, {t.y})"
    if isinstance(t, Box):
        return "the box ({}, {}, {}, {})".format(*t.corners)
    t = str(t)
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":   # already quoted: '"Items"'
        return f'"{t[1:-1]}"'
    return t if PLACEHOLDER_RE.fullmatch(t) or t.split(" ")[0].lower() in ARTICLES else f'"{t}"'


def _say(a: Action) -> str:
    if isinstance(a, Type):
        into = f" into {_ref(a.into)}" if a.into is not None else ""
        return f"type {_ref(a.text)}{into}" + (" and press Enter" if a.enter else "")
    if isinstance(a, Click):
        verb = {1: "click", 2: "double-click", 3: "triple-click"}[a.clicks]
        return f"{'right-' if a.button == 'right' else ''}{verb} {_ref(a.target_)}"
    if isinstance(a, Hotkey):
        return "press " + "+".join(k.title() for k in a.keys)
    if isinstance(a, Scroll):
        return f"scroll {a.direction}" + (f" over {_ref(a.at)}" if a.at is not None else "")
    if isinstance(a, Wait):
        return f"wait {a.seconds:g} s"
    if isinstance(a, OpenApp):
        return f"open {a.app}"
    if isinstance(a, Drag):
        return f"drag {_ref(a.source)} to {_ref(a.destination)}"
    if isinstance(a, Resize):
        return f"resize {_ref(a.target_)} to {a.width:g} x its width, {a.height:g} x its height"
    if isinstance(a, Move):
        return f"move to {_ref(a.target_)}"
    if isinstance(a, RunSkill):
        return f'run skill "{a.skill}"'
    return format_action(a)


def describe(skill: Skill) -> str:
    """The steps in plain words: 'Type {username} into the Username field, click "Log in"'."""
    said = []
    for step in skill.steps:
        try:
            said.append(_say(parse_action(step.action)))
        except GuiAgentError:
            said.append(step.action)
    if len(said) > 6:
        said = said[:5] + [f"and {len(said) - 5} more steps"]
    text = ", ".join(said)
    return text[:1].upper() + text[1:]


def name_from_task(task: str, values: dict[str, str]) -> str | None:
    """'log in as ann' -> 'log in', 'add item Bananas' -> 'add item', 'save the note as x' -> 'save note as';
    None for a task that spells out clicks and typing."""
    marked = templated(task, values) or ""
    tokens = [t if t.startswith("{") else t.lower() for t in re.findall(r"\{\w+\}|[^\W\d_][\w'-]*|\S", marked)]
    while tokens and tokens[0] in ARTICLES:
        tokens.pop(0)
    if not tokens or not tokens[0].isalpha() or tokens[0] in GUI_VERBS:
        return None
    out = [tokens.pop(0)]
    if tokens and tokens[0] in PARTICLES:
        out.append(tokens.pop(0))
    verb = len(out)
    for t in tokens:
        if t in ARTICLES:
            continue
        if t.startswith("{"):
            if len(out) == verb:
                out.append(t.strip("{}").replace("_", " "))
            break
        if t == "as" and len(out) > verb:
            out.append(t)
            break
        if not t.isalpha() or t in PARTICLES or t in {"to", "into", "at", "for", "with", "from", "of", "by",
                                                         "and", "then", "as", "using", "via", "onto"}:
            break
        out.append(t)
        if len(out) >= verb + 2:
            break
    return " ".join(out)


def name_from_steps(skill: Skill) -> str:
    """From the last literal click that is not a mere confirmation ('Log in' -> 'log in'; 'Save' with a
    Note field -> 'save note'), else the fields typed into, else the last click of any kind."""
    typed = [p.name.replace("_", " ") for p in skill.parameters
             if p.description.startswith("text typed") and not re.fullmatch(r"text\d*", p.name)]
    clicks, verbs = [], []
    for step in skill.steps:
        a = parse_action(step.action)
        if isinstance(a, Click) and isinstance(a.target_, str) and not PLACEHOLDER_RE.search(a.target_):
            clicks.append(words(a.target_))
        if isinstance(a, Hotkey) and tuple(k.lower() for k in a.keys) in HOTKEY_VERBS:
            verbs.append(HOTKEY_VERBS[tuple(k.lower() for k in a.keys)])
    if verbs and not any(c and c[0] == verbs[-1] for c in clicks):   # Ctrl+S in the Editor: "save in editor"
        place = next((c for c in clicks if c), [])
        return f"{verbs[-1]} in {' '.join(place)}" if place else verbs[-1]
    for ws in reversed([c for c in clicks if " ".join(c) not in CONFIRMS and 0 < len(c) <= 3]):
        return " ".join(ws + typed[:1] if len(ws) == 1 else ws)
    if typed:
        return "enter " + " and ".join(typed[:2])
    if clicks and clicks[-1]:
        return " ".join(clicks[-1])
    # Nothing to name it after (typing and keys only): its first words, "type text press enter".
    said = re.sub(r"[{}\"'(),]", " ", describe(skill)).lower().split()
    return " ".join(said[:5]) or "shortcut"


def clean_name(text: str, taken: set[str]) -> str:
    name = re.sub(r"\s+", " ", re.sub(r"[^A-Za-z0-9 _.\-]+", " ", ascii_text(text))).strip()[:60].strip()
    if not name or not name[0].isalnum():
        name = "skill"
    return check_skill_name(unique(name, taken, " "))
