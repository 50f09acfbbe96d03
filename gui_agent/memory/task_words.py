"""The words of a task and of a skill's document: values (quotes, e-mail addresses, numbers,
file names) and light-stemmed words, with the stopwords, markers and UI nouns that recall and
parameter filling treat apart."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_TOKEN_RE = re.compile(r"""
    "(?P<dq>[^"]*)" | “(?P<cq>[^”]*)” | ‘(?P<sq2>[^’]*)’ | (?<![\w'])'(?P<sq>[^']*)'(?!\w)
  | (?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<num>-?\d+(?:\.\d+)?)(?!\w|\.\w)
  | (?P<file>[\w-]+(?:\.[A-Za-z0-9]{1,6})+)
  | (?P<word>[^\W_]+(?:['’][^\W_]+)?)
""", re.VERBOSE)
_STOP_TEXT = """
    a an the this that these those it its i me my mine we us our you your he she they them
    please kindly could would can will shall should may might must do does did be is are was
    were been being am to of in on at into onto from with by for as and or then also just now
    so too up there here what which who whom whose when where how than thanks thank hey hi
    go want like need let lets using use via some
"""
STOPWORDS = frozenset(_STOP_TEXT.split())
MARKERS = frozenset({"named", "called", "titled", "as", "to", "for", "under"})
NOT_CONTENT = STOPWORDS | MARKERS
NAMING = frozenset({"named", "called", "titled"})   # "<kind of thing> named <value>"
SAME = {"press": "click", "hit": "click", "tap": "click"}   # UI verbs that mean the same
_UI_TEXT = ("field box button tab menu dialog window page list checkbox dropdown option entry link icon text "
            "area pane panel bar toolbar column row cell")
UI_NOUNS = frozenset(_UI_TEXT.split()) | frozenset(w + "s" for w in _UI_TEXT.split())
_NO_ING = frozenset({"setting", "string", "during", "morning", "evening", "bring", "ring", "spring"})


@dataclass(frozen=True)
class Token:
    kind: str    # quote | email | num | file | word
    text: str    # as written (a quote's inside)
    low: str


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light stemming: plurals, -ing, -ed and a final -e ('saving', 'saved', 'save' -> 'sav').
    Remembered per word: a library's words recur, and indexing stems each many times."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        base = w[:-len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and w not in _NO_ING and not base.endswith(("e", "th")):
            w = base[:-1] if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz" else base
            break
    w = SAME.get(w, w)
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def tokenize(text: str) -> list[Token]:
    """Words and values of ``text`` in order; punctuation is dropped."""
    found = ((m.lastgroup or "word", m.group(m.lastgroup or "word").strip())
             for m in _TOKEN_RE.finditer(text))
    return [Token("quote" if kind in ("dq", "cq", "sq", "sq2") else kind, value, value.lower())
            for kind, value in found if value]


def content_terms(text: str) -> list[str]:
    """Stems of the non-stopword words of ``text``, values masked (what the index compares)."""
    return [stem(t.low) for t in tokenize(text) if t.kind == "word" and t.low not in NOT_CONTENT]
