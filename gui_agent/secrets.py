"""Secrets kept off the disk: the values a task marks as secret, masked in everything written.

``TaskSecrets.from_task("log in as ann with password Hunter3Secret")`` finds ``Hunter3Secret``:
the word (or quoted words) after *password*, *passwd*, *passphrase*, *passcode*, *pin*,
*token*, *api key* or *secret* (``password: x``, ``password is x``, ``pin 1234``, ``with
password "p@ss word"``), and whatever :func:`gui_agent.safety.secret_kind` flags (API keys,
card numbers, tokens). Masking replaces each value with :data:`MASK`, longest first, also in
the forms it takes in logs: Python-literal (the action ``type('…')``), JSON-escaped, and the
slug of a folder name. :class:`SecretValues` masks any given values (a skill's secret
parameters); ``mask_step``/``mask_result`` mask every text field of a step or a run record.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .slugs import slugify

MASK = "******"
# A shorter value in a task is not taken for a secret (it would mask ordinary text everywhere);
# values given as secret (a skill's secret parameters) are masked whatever their length.
MIN_LENGTH = 3
T = TypeVar("T")
TextMasker = Callable[[str], str]

# A word that says a field, a label or a parameter holds a secret ("Password:", "secret_pin").
SECRET_WORD_RE = re.compile(
    r"(?<![a-z])(?:pass(?:words?|wd|wort|phrase|code)?|pwd|pins?|secrets?|tokens?|api[ _-]?keys?|"
    r"credentials?)(?![a-z])", re.IGNORECASE)

# What a task names a secret with, and the parameter a secret typed there is called after.
_KEYWORD = (r"passwords?|passwd|passphrase|passcode|pin(?:[ -]?(?:code|number))?|"
            r"(?:api|access|auth|bearer)[ _-]?token|tokens?|api[ _-]?key|secret(?:[ _-]?key)?")
_QUOTED = r"\"(?P<dq>[^\"]+)\"|'(?P<sq>[^']+)'|“(?P<cq>[^”]+)”|‘(?P<sq2>[^’]+)’|`(?P<bq>[^`]+)`"
_SECRET_IN_TASK = re.compile(
    rf"(?<![^\W_])(?P<kw>{_KEYWORD})(?![\w-])"
    r"(?:(?P<sep>(?:\s+for\s+\S+)?(?:\s+(?:is|was)\b\s*[:=]?|\s*[:=])\s*)|\s+)"
    rf"(?:{_QUOTED}|(?P<word>[^\s\"'“”‘’`]+))", re.IGNORECASE)
# Words after a keyword that are part of the sentence, not a value ("the password field").
_NOT_A_VALUE_TEXT = """
    a an the this that these those it its my your his her our their me you him them us i we
    to into onto in on at of for from with without by as and or but then so if when until
    before after is are was were be been being will should must can cannot could would
    field fields box boxes input entry prompt hint hints label text area form page screen
    dialog window tab menu button link option options setting settings list file folder
    manager vault generator reset recovery policy policies rule rules requirement
    requirements strength protected protection required change changed expired expires
    again later now here there too also please twice once yet same new old current shown
    given provided saved stored displayed visible empty blank below above code number
    enter return submit click press type typing login logon signin ok cancel next continue save
    not wrong correct incorrect valid invalid weak strong missing hidden masked set accepted
    rejected right match matches mismatch fine long short out
"""
_NOT_A_VALUE = frozenset(_NOT_A_VALUE_TEXT.split())
_WEAK_KEYWORDS = ("pin", "pins", "token", "tokens", "secret")   # also ordinary words: need more
_TRAILING = ".,;:!?)]}"
_MASKED_KEYWORD = re.compile(
    rf"(?<![^\W_])({_KEYWORD})(?:\s+for\s+\S+)?(?:\s+(?:is|was))?\s*[:=]?\s*[\"'“‘`]?{re.escape(MASK)}",
    re.IGNORECASE)


def _literal_text(value: str) -> str:
    """A value as a skill step writes it inside quotes (see memory.models)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'").replace("\n", "\\n")


def _variants(value: str) -> set[str]:
    """The forms ``value`` takes in logs: as is, Python- and JSON-escaped, and slugged."""
    forms = {value, repr(value)[1:-1], _literal_text(value), json.dumps(value)[1:-1],
             json.dumps(value, ensure_ascii=False)[1:-1]}
    forms |= {json.dumps(f, ensure_ascii=False)[1:-1] for f in list(forms)}
    slug = slugify(value, limit=len(value) + 1)
    if slug != "run" and len(slug) >= MIN_LENGTH + 1:
        forms.add(slug)
    return {f for f in forms if f}


def _pattern(forms: Iterable[str]) -> re.Pattern[str] | None:
    parts = []
    for form in sorted(set(forms), key=lambda f: (-len(f), f)):
        escaped = re.escape(form)
        parts.append(rf"(?<!\d){escaped}(?!\d)" if form.isdigit() else escaped)
    return re.compile("|".join(parts)) if parts else None


def is_secret_name(text: str | None) -> bool:
    """Whether a label, field or parameter name speaks of a secret ("Password", "secret_pin")."""
    return bool(text) and SECRET_WORD_RE.search(text.replace("_", " ")) is not None


def secret_env_var(name: str) -> str:
    """Where a secret parameter's value may come from: ``GUI_AGENT_SECRET_<NAME>``."""
    return "GUI_AGENT_SECRET_" + re.sub(r"^secret_", "", name).upper()


def masked_keyword(text: str) -> str | None:
    """The parameter name for the first masked value of ``text`` ("… with pin ******" -> "pin")."""
    m = _MASKED_KEYWORD.search(text)
    if m is None:
        return None
    word = m.group(1).lower()
    for start, name in (("passwor", "password"), ("passwd", "password"), ("pin", "pin"),
                        ("api", "api_key" if "key" in word else "token"), ("secret", "secret")):
        if word.startswith(start):
            return name
    return "token" if "token" in word else re.sub(r"\W+", "_", word)


@dataclass(frozen=True)
class SecretValues:
    """Masks given secret values, and their escaped forms, in any text (also as ``self(text)``)."""

    values: tuple[str, ...] = ()
    _regex: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kept = {v for v in (str(v) for v in self.values) if v.strip() and v.strip("*")}
        object.__setattr__(self, "values", tuple(sorted(kept, key=lambda v: (-len(v), v))))
        object.__setattr__(self, "_regex", _pattern(f for v in kept for f in _variants(v)))

    def __bool__(self) -> bool:
        return bool(self.values)

    def mask(self, text: str) -> str:
        """``text`` with every secret (in any of its logged forms) replaced by :data:`MASK`."""
        if self._regex is None or not text:
            return text
        return self._regex.sub(MASK, text)

    __call__ = mask

    def mask_step(self, step: T) -> T:
        return mask_step(step, self.mask)

    def mask_result(self, result: T) -> T:
        return mask_result(result, self.mask)


@dataclass(frozen=True)
class TaskSecrets(SecretValues):
    """The secrets a task names; ``TaskSecrets.from_task(task)``."""

    @classmethod
    def from_task(cls, task: str) -> TaskSecrets:
        return cls(tuple(find_secrets(task)))


def find_secrets(task: str) -> list[str]:
    """The values ``task`` marks as secret, in order (see the module docstring)."""
    found: list[str] = []
    for m in _SECRET_IN_TASK.finditer(task or ""):
        quoted = next((m.group(g) for g in ("dq", "sq", "cq", "sq2", "bq") if m.group(g)), None)
        if quoted is not None:
            found.append(quoted)
            continue
        raw = m.group("word")
        value = raw.rstrip(_TRAILING)
        if value.lower() in _NOT_A_VALUE or not value.strip("*"):
            continue
        weak = m.group("kw").lower() in _WEAK_KEYWORDS
        labelled = re.search(r"[:=]", m.group("sep") or "") is not None
        if weak and not (labelled or any(c.isdigit() for c in value)):
            continue   # "pin the note", "a secret message": a verb or an adjective, not a label
        found.append(value)
        if raw[len(value):].strip(".,;"):   # "Hunter3!": the mark may be part of it
            found.append(raw)
    found.extend(_flagged(task or ""))
    return list(dict.fromkeys(v for v in found if len(v.strip()) >= MIN_LENGTH))


def _flagged(task: str) -> list[str]:
    """The parts of ``task`` that the safety policy's detector takes for a secret."""
    from .safety import secret_kind

    if secret_kind(task) is None:
        return []
    spans = (r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
             r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)",                 # a card number
             r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}\b")           # an IBAN
    candidates = [m.group(0) for span in spans for m in re.finditer(span, task, re.S)]
    candidates += [next(g for g in m.groups() if g) for m in re.finditer(_QUOTED, task)]
    for word in task.split():
        word = word.strip(_TRAILING + "([{\"'“”‘’`")
        candidates.append(word)
        candidates += [p.strip(_TRAILING + "\"'") for p in re.split(r"[=:,;]", word) if p]
    return [c for c in dict.fromkeys(candidates) if c and secret_kind(c) is not None]


# -- records ------------------------------------------------------------------------------------
# Fields that hold file names or a fixed vocabulary, not text: never masked.
KEEP_FIELDS = frozenset({"before", "after", "crop", "run_dir", "outcome", "source"})


def _mask_value(value: Any, mask: TextMasker) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, tuple):
        return tuple(_mask_value(v, mask) for v in value)
    if isinstance(value, list):
        return [_mask_value(v, mask) for v in value]
    if isinstance(value, dict):
        return {k: _mask_value(v, mask) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return mask_record(value, mask)
    return value


def mask_record(record: T, mask: TextMasker) -> T:
    """A copy of a frozen record with every text field (and text inside tuples, dicts and nested
    records) masked; file names and fixed vocabularies (``KEEP_FIELDS``) stay as they are."""
    changes = {}
    for f in dataclasses.fields(record):  # type: ignore[arg-type]
        if f.name in KEEP_FIELDS or not f.init:
            continue
        old = getattr(record, f.name)
        new = _mask_value(old, mask)
        if new != old:
            changes[f.name] = new
    return dataclasses.replace(record, **changes) if changes else record  # type: ignore[type-var]


def mask_step(step: T, mask: TextMasker) -> T:
    """The step with its action, target, why, error, OCR text, landmarks... masked."""
    return mask_record(step, mask)


def mask_result(result: T, mask: TextMasker) -> T:
    """The run with its task, reason, answer and every step masked."""
    return mask_record(result, mask)


def chain(*maskers: TextMasker | None) -> TextMasker:
    """One masker applying each given one in turn (None is skipped)."""
    used = [m for m in maskers if m is not None]

    def mask(text: str) -> str:
        for m in used:
            text = m(text)
        return text

    return mask
