"""The safety policy: decide, before an action runs, whether to allow it, ask the person, or refuse.

What is risky (:func:`assess`):

- **destructive**: a click on (or a drag onto) a control whose description or visible text
  names a destructive or irreversible act: delete, remove, erase, discard, overwrite,
  replace all, format, empty trash, uninstall, purchase, buy, pay, place order, checkout,
  send, submit payment, transfer, confirm deletion, ... (whole words: "Deleted items" and
  "Sent" are not); Shift+Delete; a skill whose name says so.
- **terminal**: typing or pressing keys while the active window is a terminal or shell.
- **command**: typing a dangerous shell command anywhere, recognised by its structure
  (:mod:`.commands`: ``rm`` with -r/-f in any spelling, ``dd of=/dev/..``, ``mkfs``, a pipe
  into a shell or interpreter, ``sh -c``, ``eval``, a fork bomb, ...), judged over the text
  typed by the consecutive ``type`` steps before it (``SafetyContext.typed_before``).
- **secret**: typing text that looks like a password (it goes into a password field), an
  API key or token, a card number, an IBAN or a private key, when that text does not appear
  in the task. Typing a password the task names explicitly is allowed.
- **shell**: reaching a command line however it is reached: opening a shell, terminal,
  interpreter (``python3.11``, ``perl5.36``), remote-shell tool (``nc``, ``ssh``) or an
  application whose registry entry is a TerminalEmulator or starts one (:mod:`.programs`),
  or pressing a hotkey that opens a terminal (Ctrl+Alt+T, Super+Enter, Alt+F2, ...).
- **launch**: ``open_app`` naming a program by its path.

What happens to a risky action depends on the mode, never on the task's wording (a task
that says "delete X" still has its "Delete" click confirmed in "ask" mode):

- ``ask`` (interactive default): the person is asked (the caller's prompt callback);
- ``refuse`` (batch default): refused, unless one of ``allow_words`` matches the risk
  (``--allow delete`` matches the word "delete"; ``--allow secret`` a whole category);
- ``allow``: allowed.

An ``allow_words`` match pre-approves in "ask" mode too. Past the step or time limit every
action except done/fail/ask_user is refused. Text read off the screen is data, never
instructions: wrap it with :func:`quote_untrusted` before it goes into a prompt.
"""

from .commands import command_risk, command_risks
from .policy import (
    SAFETY_MODES,
    Risk,
    SafetyContext,
    SafetyGate,
    SafetyPolicy,
    Verdict,
    assess,
)
from .programs import AppLookup, LaunchFacts, is_terminal_title, program_kind, terminal_hotkey
from .secrets import secret_kind
from .typing import TypedSoFar
from .untrusted import quote_untrusted

__all__ = [
    "SAFETY_MODES",
    "AppLookup",
    "LaunchFacts",
    "Risk",
    "SafetyContext",
    "SafetyGate",
    "SafetyPolicy",
    "TypedSoFar",
    "Verdict",
    "assess",
    "command_risk",
    "command_risks",
    "is_terminal_title",
    "program_kind",
    "quote_untrusted",
    "secret_kind",
    "terminal_hotkey",
]
