"""Secrets in typed text: API keys, tokens, card numbers, IBANs, private keys."""

from __future__ import annotations

import re

_KEY_PATTERNS = (
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("an API key", re.compile(r"\b(?:sk|rk|pk)[-_](?:live_|test_|proj-)?[A-Za-z0-9_-]{16,}")),
    ("an API key", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|glpat|xox[abpr])[-_][A-Za-z0-9_-]{10,}")),
    ("an API key", re.compile(
        r"\bgithub_pat_[A-Za-z0-9_]{20,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}")),
    ("a token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)
SECRET_FIELD = re.compile(
    r"\bpass(?:word|wd|phrase|code)?\b|\bpin\b|\bsecret\b|\btoken\b|\bapi[ _-]?key\b|\bcvv\b|"
    r"\bcvc\b|security code",
    re.IGNORECASE,
)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iban_ok(text: str) -> bool:
    s = text.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", s):
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _high_entropy_token(word: str) -> bool:
    if len(word) < 24 or not re.fullmatch(r"[A-Za-z0-9_\-+/=.]+", word):
        return False
    classes = sum(bool(re.search(p, word)) for p in (r"[a-z]", r"[A-Z]", r"\d"))
    return classes >= 3 and len(set(word)) >= 12


def secret_kind(text: str) -> str | None:
    """What kind of secret ``text`` looks like ("an API key", "a card number"...), or None."""
    for name, pattern in _KEY_PATTERNS:
        if pattern.search(text):
            return name
    for m in re.finditer(r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)", text):
        if _luhn_ok(re.sub(r"\D", "", m.group(0))):
            return "a card number"
    for m in re.finditer(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}\b", text.upper()):
        if _iban_ok(m.group(0)):
            return "an IBAN"
    if any(_high_entropy_token(w) for w in text.split()):
        return "an access token"
    return None


def in_task(text: str, task: str) -> bool:
    """Whether the task itself names this text (the person gave it on purpose)."""
    t = text.strip()
    if not t:
        return True
    if t in task or " ".join(t.split()) in " ".join(task.split()):
        return True
    digits = re.sub(r"\D", "", t)
    return (len(digits) >= 8 and digits == t.replace(" ", "").replace("-", "")
            and digits in re.sub(r"\D", "", task))
