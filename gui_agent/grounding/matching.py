"""Text similarity for grounding: robust to case, punctuation, OCR confusions and partial lines.

A description names a UI element by its text ("Save", "Remember me", "+"); the screen parser
reads that text with OCR, which confuses ``0``/``O``, ``1``/``l``/``I``, ``rn``/``m`` ...
(symbols are compared in one spelling: :func:`symbol_fold`)
and often returns a whole line where the target is one word of it. :func:`match_text`
grades a match (exact > case-insensitive > normalised > OCR-folded > fuzzy; a whole-text
match beats a partial one) and tells which characters of the line matched, so that
:func:`sub_box` can narrow the line's box to the matched words.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, replace

from ..geometry import Box

# Scores of whole-text matches, best first.
EXACT = 1.0
CASE_INSENSITIVE = 0.97
NORMALIZED = 0.94
OCR_FOLDED = 0.9
FUZZY_MIN_RATIO = 0.8     # below this, two strings are different words
FUZZY_BASE = 0.55         # a fuzzy match scores FUZZY_BASE + FUZZY_SPAN * ratio (0.79 .. 0.85)
FUZZY_SPAN = 0.3
PARTIAL_FACTOR = 0.86     # a partial (sub-line) match keeps this share of its grade, plus coverage

_PUNCT_RE = re.compile(r"[^\w\s]+", re.UNICODE)
_SPACE_RE = re.compile(r"\s+")
# Symbols written in several ways, each folded onto one spelling: a calculator's "×" key is the
# "*" a person types, its "←" is "<-"; OCR reads "+" as "十" and "-" as "一" (its Chinese
# alphabet). Used only on texts without letters or digits.
SYMBOL_FOLDS = {
    "\u00d7": "*", "\u2715": "*", "\u2716": "*", "\u2217": "*", "\u22c5": "*", "\u00b7": "*",
    "\u00f7": "/", "\u2215": "/",
    "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2012": "-", "\u4e00": "-",
    "\uff0b": "+", "\u5341": "+", "\uff1d": "=",
    "\u00b1": "+/-", "\u2190": "<-", "\u27f5": "<-", "\u2b05": "<-", "\u232b": "<-",
    "\u2192": "->", "\u27f6": "->", "\u27a1": "->",
}
SYMBOL = 0.94             # two spellings of one symbol ("×" and "*")
# Confusable glyphs folded onto one representative (applied to lower-cased text).
_OCR_MULTI = (("rn", "m"), ("vv", "w"))
# An underline (links) cuts the descenders: "v" reads as "y", "q" as "g".
_OCR_SINGLE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "8": "b",
                             "y": "v", "g": "q"})


@dataclass(frozen=True)
class TextMatch:
    """How well a query matches a text; ``start``/``end`` is the matched span of that text."""

    score: float
    grade: str          # "exact", "case", "normalized", "ocr", "fuzzy", "partial-<grade>"
    start: int
    end: int

    @property
    def partial(self) -> bool:
        return self.grade.startswith("partial")


def normalize(text: str) -> str:
    """Lower-case, unify ellipses and quotes, drop punctuation (a label's ':' too), squeeze spaces."""
    text = unicodedata.normalize("NFKC", text).replace("\u2026", "...").lower()
    text = text.replace("&", " and ")
    text = _PUNCT_RE.sub(" ", text)
    return _SPACE_RE.sub(" ", text).strip()


def symbol_fold(text: str) -> str | None:
    """A text of symbols only ("+", "×", "<-") in one spelling of each; None for a text with a
    letter or a digit in it (those are matched as words)."""
    text = unicodedata.normalize("NFC", text).strip()
    if not text or any(c.isalnum() and c not in SYMBOL_FOLDS for c in text):
        return None
    return "".join(SYMBOL_FOLDS.get(c, c) for c in text if not c.isspace())


def ocr_fold(text: str) -> str:
    """Map glyphs OCR confuses onto one representative, after :func:`normalize`."""
    folded = normalize(text)
    for many, one in _OCR_MULTI:
        folded = folded.replace(many, one)
    return folded.translate(_OCR_SINGLE).replace(" ", "")


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute), O(len(a) * len(b))."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _whole_match(query: str, text: str) -> tuple[float, str] | None:
    if query == text:
        return EXACT, "exact"
    if query.strip().lower() == text.strip().lower():
        return CASE_INSENSITIVE, "case"
    sq = symbol_fold(query)
    if sq is not None:
        return (SYMBOL, "symbol") if sq == symbol_fold(text) else None
    nq, nt = normalize(query), normalize(text)
    if not nq or not nt:
        return None
    if nq == nt:
        return NORMALIZED, "normalized"
    fq, ft = ocr_fold(query), ocr_fold(text)
    if fq == ft:
        return OCR_FOLDED, "ocr"
    ratio = max(difflib.SequenceMatcher(None, nq, nt).ratio(),
                difflib.SequenceMatcher(None, fq, ft).ratio())
    # Very short words: one wrong letter is a different word ("Cut" vs "Cat").
    if len(fq) <= 3 and levenshtein(fq, ft) > 0:
        return None
    if not _words_agree(nq.split(), nt.split()):
        return None
    if ratio >= FUZZY_MIN_RATIO:
        return FUZZY_BASE + FUZZY_SPAN * ratio, "fuzzy"
    return None


def _words_agree(a: list[str], b: list[str]) -> bool:
    """With the same number of words, each word must be close to its partner ("now" != "to")."""
    if len(a) != len(b) or len(a) < 2:
        return True
    for wa, wb in zip(a, b, strict=True):
        fa, fb = ocr_fold(wa), ocr_fold(wb)
        if fa == fb:
            continue
        if min(len(fa), len(fb)) <= 3 or difflib.SequenceMatcher(None, fa, fb).ratio() < 0.75:
            return False
    return True


def _word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the whitespace-separated words of ``text``."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def match_text(query: str, text: str) -> TextMatch | None:
    """Grade how well ``query`` names ``text``; ``None`` when it does not.

    A whole-text match scores 0.79..1.0; when the query is a run of consecutive words of a
    longer text, the match is partial and scores lower (more so the smaller the share of
    the line it covers), with ``start``/``end`` giving the words' character span.
    """
    if not query.strip() or not text.strip():
        return None
    found = _match(query, text)
    sigil = query.strip()[0]
    if found is not None and sigil in HANDLE_SIGILS and sigil not in text[found.start:found.end]:
        # '@ann' is a handle or '#42' a number: a line that reads "Ann" alone may be it with its
        # sign unread, less surely; a word "ann" inside a sentence is no handle at all
        before = text[:found.start].rstrip()[-1:]
        if found.partial and (not before or before not in SIGIL_LOOKALIKES):
            return None
        found = replace(found, score=found.score * SIGIL_FACTOR)
    return found


COMPOUND_JOINS = ("-", "/", "_", "\\")   # a word joined so is part of a compound or a path
COMPOUND_FACTOR = 0.85
HANDLE_SIGILS = "@#"
SIGIL_LOOKALIKES = "@#©®"     # what OCR may read a handle's sign as, apart from the word
SIGIL_FACTOR = 0.85


def _match(query: str, text: str) -> TextMatch | None:
    whole = _whole_match(query, text)
    if whole is not None and whole[1] != "fuzzy":
        return TextMatch(whole[0], whole[1], 0, len(text))
    partial = _partial_match(query, text)
    if whole is not None and (partial is None or whole[0] >= partial.score):
        return TextMatch(whole[0], whole[1], 0, len(text))
    return partial


def _partial_match(query: str, text: str) -> TextMatch | None:
    found = _partial_over(query, text, _word_spans(text))
    if found is None and _GLUED_RE.search(text):
        # OCR often drops the space after punctuation ("lacus,.Ipsum", "Diam.Vel"): try again
        # with words cut at punctuation too
        found = _partial_over(query, text, [(m.start(), m.end()) for m in _TOKEN_RE.finditer(text)])
    if found is None and _SCRIPT_CHANGE_RE.search(text):
        # an icon read as a look-alike ideograph glued to the word after it ("申Joye" for a
        # tree's boxed plus and "Joye"): a change of script cuts words too
        found = _partial_over(query, text, [(m.start(), m.end()) for m in _SCRIPT_RUN_RE.finditer(text)])
    if found is None and symbol_fold(query) is not None and not _WORD_RE.search(text):
        # A row of keys or a pager read as one run without its spaces ("789+", "123>", with a
        # digit misread as a letter: "12З>"): each symbol in it is one key
        found = _partial_over(query, text, [(i, i + 1) for i, c in enumerate(text)
                                            if not c.isalnum() and not c.isspace()])
    return found


_GLUED_RE = re.compile(r"\w[^\w\s]+\w")
_WORD_RE = re.compile(r"[^\W\d_]{2}")   # two letters in a row: a word, not a row of keys
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_SCRIPT_CHANGE_RE = re.compile(rf"[{_CJK}][A-Za-z0-9]|[A-Za-z0-9][{_CJK}]")
_SCRIPT_RUN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_TOKEN_RE = re.compile(r"[^\W_]+")


def _partial_over(query: str, text: str, words: list[tuple[int, int]]) -> TextMatch | None:
    n = len(normalize(query).split()) or 1
    best: TextMatch | None = None
    for size in {n, n + 1, max(1, n - 1)}:
        for i in range(0, len(words) - size + 1):
            start, end = words[i][0], words[i + size - 1][1]
            if start == 0 and end == len(text):
                continue
            graded = _whole_match(query, text[start:end])
            if graded is None or (size != n and graded[1] == "fuzzy"):
                continue  # other word counts only for words OCR merged or split, not fuzzily
            coverage = len(normalize(text[start:end])) / max(1, len(normalize(text)))
            score = graded[0] * PARTIAL_FACTOR + 0.04 * coverage
            if text[start - 1:start] in COMPOUND_JOINS or text[end:end + 1] in COMPOUND_JOINS:
                score *= COMPOUND_FACTOR    # "phone" of a path ".../phone-book": not the word itself
            if best is None or score > best.score:
                best = TextMatch(score, f"partial-{graded[1]}", start, end)
    return best


def sub_box(box: Box, text: str, start: int, end: int, word_boxes: list[Box] | None = None) -> Box:
    """The part of a text line's ``box`` that holds ``text[start:end]``.

    With per-word boxes (one per whitespace-separated word) the union of the matched words'
    boxes is exact; without them, the span is estimated from the characters' share of the
    line, narrow glyphs (i, l, punctuation) counting less than wide ones.
    """
    if start <= 0 and end >= len(text):
        return box
    spans = _word_spans(text)
    if word_boxes is not None and len(word_boxes) == len(spans):
        chosen = [b for (s, e), b in zip(spans, word_boxes, strict=True) if s < end and e > start]
        if chosen:
            left = min(b.left for b in chosen)
            right = max(b.right for b in chosen)
            top = min(b.top for b in chosen)
            bottom = max(b.bottom for b in chosen)
            return Box(left, top, right - left, bottom - top)
    widths = [_glyph_width(c) for c in text]
    total = sum(widths) or 1.0
    x0 = box.left + box.width * sum(widths[:start]) / total
    x1 = box.left + box.width * sum(widths[:end]) / total
    return Box(round(x0), box.top, max(1, round(x1 - x0)), box.height)


def _glyph_width(char: str) -> float:
    """Rough advance width of a glyph in proportional UI fonts, in units of an average letter."""
    if char in "iljtfrI|!.,:;'`":
        return 0.5
    if char == " ":
        return 0.55
    if char in "mwMW":
        return 1.5
    if char.isupper() or char.isdigit():
        return 1.2
    return 1.0
