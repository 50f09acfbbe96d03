"""The gate: what is risky about an action (:func:`assess`) and what the mode does with it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..actions import Action, AskUser, Click, Done, Drag, Fail, Hotkey, OpenApp, RunSkill, Type
from ..errors import ConfigError
from .commands import command_risks, program_of
from .programs import (
    AppLookup,
    LaunchFacts,
    fold_keys,
    is_terminal_title,
    program_kind,
    terminal_hotkey,
)
from .secrets import SECRET_FIELD, in_task, secret_kind

if TYPE_CHECKING:
    from ..config import Settings

SAFETY_MODES = ("ask", "refuse", "allow")

_DESTRUCTIVE = re.compile(
    r"\b(?:replace all|empty (?:the )?(?:trash|recycle bin|bin|wastebasket)|place (?:your )?order|"
    r"check out|submit payment|confirm deletion|pay now|factory reset|delete|remove|erase|"
    r"discard|overwrite|format|uninstall|purchase|buy|pay|checkout|send|transfer|wipe|destroy|"
    r"shred|permanently)\b",
    re.IGNORECASE,
)
_BIN = re.compile(r"\b(?:trash|recycle bin|wastebasket|rubbish bin|bin)\b", re.IGNORECASE)
_SHELL_WORDS = ("shell", "terminal")


@dataclass(frozen=True)
class SafetyPolicy:
    """``mode`` for risky actions: "ask", "refuse" or "allow"; limits (None = no limit)."""

    mode: str = "ask"
    allow_words: tuple[str, ...] = ()
    max_steps: int | None = 30
    max_seconds: float | None = 300.0

    def __post_init__(self) -> None:
        if self.mode not in SAFETY_MODES:
            raise ConfigError(f"safety mode must be one of {', '.join(SAFETY_MODES)}, "
                              f"not {self.mode!r}")
        words = tuple(w.strip().lower() for w in self.allow_words if w and w.strip())
        object.__setattr__(self, "allow_words", words)

    @classmethod
    def for_batch(cls, allow_words: tuple[str, ...] = (), **limits: Any) -> SafetyPolicy:
        """Unattended runs: refuse what is risky unless pre-approved."""
        return cls("refuse", allow_words, **limits)


@dataclass(frozen=True)
class SafetyContext:
    """What the gate knows about the moment: the task, the resolved target's visible text
    (the caption of the button about to be clicked), the active window's title, the steps
    taken so far, the seconds elapsed, and ``typed_before``: the text typed into the same
    place by the immediately preceding consecutive ``type`` actions (a command split over
    several steps is judged whole)."""

    task: str = ""
    target_text: str | None = None
    window_title: str | None = None
    steps_taken: int = 0
    elapsed: float = 0.0
    typed_before: str = ""


@dataclass(frozen=True)
class Risk:
    category: str             # destructive | terminal | command | secret | shell | launch | limit
    words: tuple[str, ...]    # what matched ("delete", "send feedback" ...), lower case
    reason: str


@dataclass(frozen=True)
class Verdict:
    decision: str             # allow | ask | refuse
    reason: str
    risk: Risk | None = None

    @property
    def is_limit(self) -> bool:
        return self.risk is not None and self.risk.category == "limit"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _destructive(texts: list[str], what: str) -> Risk | None:
    for text in texts:
        words = tuple(dict.fromkeys(m.group(0).lower() for m in _DESTRUCTIVE.finditer(text)))
        if words:
            return Risk("destructive", words,
                        f"{what} {_short(text)!r}, which may {words[0]} something irreversibly")
    return None


def _type_risk(action: Type, ctx: SafetyContext, in_terminal: bool) -> Risk | None:
    text = action.text
    if in_terminal and (text or action.enter):
        return Risk("terminal", ("terminal",),
                    f"typing {_short(text)!r} into the terminal {_short(ctx.window_title or '')!r} "
                    "runs commands")
    whole = ctx.typed_before + text
    if text and whole.strip():
        # What the earlier text already held was judged when it was typed: only a command this
        # text makes dangerous, or more dangerous, counts (by position and reason).
        earlier = {(r.index, r.why) for r in command_risks(ctx.typed_before)}
        new = [r for r in command_risks(whole) if (r.index, r.why) not in earlier]
        if new:
            after = f" after {_short(ctx.typed_before)!r}" if ctx.typed_before else ""
            return Risk("command", ("command",),
                        f"typing {_short(text)!r}{after} looks like a dangerous shell command: "
                        f"{new[0]}")
    if not text or in_task(text, ctx.task):
        return None
    where = " ".join(str(t) for t in (action.into, ctx.target_text) if isinstance(t, str))
    if SECRET_FIELD.search(where):
        return Risk("secret", ("secret", "password"),
                    "typing a password the task did not give into a password field")
    kind = secret_kind(text)
    if kind:
        return Risk("secret", ("secret",),
                    f"typing what looks like {kind} that the task did not give")
    return None


def _hotkey_risk(action: Hotkey, ctx: SafetyContext, in_terminal: bool) -> Risk | None:
    combo = "+".join(action.keys)
    if in_terminal:
        return Risk("terminal", ("terminal",),
                    f"pressing {combo} in the terminal {_short(ctx.window_title or '')!r}")
    why = terminal_hotkey(action.keys)
    if why:
        return Risk("shell", _SHELL_WORDS, f"pressing {combo} {why}")
    if fold_keys(action.keys) in ({"shift", "delete"}, {"shift", "del"}):
        return Risk("destructive", ("delete",), "Shift+Delete deletes permanently")
    return None


def _launch_kind(facts: LaunchFacts) -> str | None:
    """Why a registry entry gives a command line (its categories, Terminal=true, its program)."""
    category = next((c for c in facts.categories
                     if c.lower() in ("terminalemulator", "shell", "consoleonly")), None)
    if category:
        return f"a command line (its registry entry is in the {category} category)"
    if facts.terminal:
        return "a program that runs inside a terminal (Terminal=true in its desktop entry)"
    program, _ = program_of(facts.argv)
    kind = program_kind(program) if program else None
    return f"{kind} (it starts {program!r})" if kind else None


def _open_app_risk(action: OpenApp, apps: AppLookup | None) -> Risk | None:
    app = action.app.strip()
    kind = program_kind(app)
    if kind:
        return Risk("shell", _SHELL_WORDS, f"opening {app!r} gives {kind}")
    if re.search(r"[/\\]", app):
        return Risk("launch", ("launch", "path"),
                    f"opening {_short(app)!r} would start a program by its path; open_app only "
                    "opens installed applications by their name")
    if apps is None:
        return None
    entry = apps.lookup(app)
    if entry is None:
        return Risk("launch", ("launch", "program"),
                    f"{_short(app)!r} is not an application this desktop lists (to allow it "
                    "always, add it to allow_apps in the config file)")
    why = _launch_kind(entry)
    if why:
        return Risk("shell", _SHELL_WORDS, f"opening {app!r} gives {why}")
    return None


def assess(action: Action, ctx: SafetyContext, apps: AppLookup | None = None) -> Risk | None:
    """What is risky about ``action`` in this context, or None (limits are not checked here).

    ``apps``, the application registry, lets an ``open_app`` be judged by what its entry
    starts (a TerminalEmulator, Terminal=true, a shell or interpreter on its Exec line), not
    only by its name.
    """
    in_terminal = is_terminal_title(ctx.window_title)
    if isinstance(action, Click):
        if action.button == "right":
            return None  # opens a context menu; the item picked from it is checked then
        texts = [t for t in (action.target, ctx.target_text) if isinstance(t, str)]
        return _destructive(texts, "clicking")
    if isinstance(action, Drag):
        dest = [t for t in (action.destination,) if isinstance(t, str)]
        bins = [t for t in dest if _BIN.search(t)]
        if bins:
            return Risk("destructive", ("delete",), f"dragging onto {_short(bins[0])!r} deletes it")
        return _destructive(dest, "dropping onto")
    if isinstance(action, Type):
        return _type_risk(action, ctx, in_terminal)
    if isinstance(action, Hotkey):
        return _hotkey_risk(action, ctx, in_terminal)
    if isinstance(action, OpenApp):
        return _open_app_risk(action, apps)
    if isinstance(action, RunSkill):
        described = " ".join([action.skill, *(str(v) for _, v in action.params)]).replace("_", " ")
        return _destructive([described], "running the skill")
    return None


class SafetyGate:
    """Applies a :class:`SafetyPolicy` to actions; ``check`` never raises on its own.

    ``apps`` is the application registry ``open_app`` launches through; with it a launch is
    judged by what the registry would start (see :func:`assess`).
    """

    def __init__(self, policy: SafetyPolicy | None = None, apps: AppLookup | None = None) -> None:
        self.policy = policy or SafetyPolicy()
        self.apps = apps

    @classmethod
    def from_settings(cls, settings: Settings, apps: AppLookup | None = None) -> SafetyGate:
        """From :class:`gui_agent.config.Settings` (safety, allow, max_steps, max_seconds) and the
        application registry the controller launches through (the composition root gives it;
        None: a launch is judged by its name alone)."""
        return cls(SafetyPolicy(settings.safety, tuple(settings.allow), settings.max_steps,
                                settings.max_seconds), apps)

    def check(self, action: Action, context: SafetyContext) -> Verdict:
        if not isinstance(action, Done | Fail | AskUser):
            limit = self._limit(context)
            if limit is not None:
                return Verdict("refuse", limit.reason, limit)
        risk = assess(action, context, self.apps)
        if risk is None:
            return Verdict("allow", "nothing risky found")
        # A note only: the mode decides, never the task's wording.
        asked = (" (the task asks for it)" if any(w in context.task.lower() for w in risk.words)
                 else "")
        approved = next((w for w in self.policy.allow_words if self._approves(w, risk)), None)
        if approved:
            return Verdict("allow", f"{risk.reason}; pre-approved with --allow {approved}", risk)
        if self.policy.mode == "allow":
            return Verdict("allow", f"{risk.reason}; allowed by the 'allow' safety mode", risk)
        if self.policy.mode == "ask":
            return Verdict("ask", f"{risk.reason}{asked}", risk)
        hint = risk.words[0] if risk.words else risk.category
        return Verdict("refuse", f"{risk.reason}{asked}; refused in the 'refuse' safety mode "
                                 f"(pre-approve it with --allow {hint})", risk)

    def approved(self, action: Action, verdict: Verdict) -> None:
        """The person allowed a risky ``action`` when asked: a program this desktop does not
        list may then be started, for this run (the registry is the controller's)."""
        if (isinstance(action, OpenApp) and verdict.risk is not None
                and verdict.risk.category == "launch" and self.apps is not None
                and not re.search(r"[/\\]", action.app)):
            self.apps.allow_once(action.app.strip())

    @staticmethod
    def _approves(word: str, risk: Risk) -> bool:
        if word in (risk.category, f"{risk.category}s"):
            return True
        return any(word == w or word in w.split() for w in risk.words)

    def _limit(self, ctx: SafetyContext) -> Risk | None:
        p = self.policy
        if p.max_steps is not None and ctx.steps_taken >= p.max_steps:
            return Risk("limit", (), f"the step limit of {p.max_steps} steps is reached")
        if p.max_seconds is not None and ctx.elapsed >= p.max_seconds:
            return Risk("limit", (), f"the time limit of {p.max_seconds:g} s is reached")
        return None
