"""Read a target description a person (or a planner) writes into a structured query.

'the "Save" button', 'Save button', 'OK', 'the 2nd text field', 'the last link',
'the field right of Email', 'the checkbox next to Remember me', 'the Name field',
'the field for Name', 'the OK button in the Settings dialog', 'the "Share" button after
"@ann"' (the first one that follows Ann's name in reading order: in her post, her row) ... become a
:class:`TargetQuery`: the text to match, the element kinds the role words allow, an
ordinal, geometric relations to anchor elements, and a container. Pure string work:
regular expressions only, never ``eval``.

The role vocabulary (:data:`ROLE_WORDS`, :data:`WEAK_ROLE_WORDS`) and the quotation marks
(:data:`QUOTES`) live here, low in the flow, and are the ones the offline planner reads
tasks with: a description is read with the same words wherever it is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..parsing.elements import ElementKind

K = ElementKind
# Role phrases, longest first so that "text field" wins over "text" and "field".
ROLE_WORDS: dict[str, frozenset[ElementKind]] = {
    "input text field": frozenset({K.TEXT_FIELD}),
    "input text box": frozenset({K.TEXT_FIELD}),
    "input textbox": frozenset({K.TEXT_FIELD}),
    "input field": frozenset({K.TEXT_FIELD}),
    "input box": frozenset({K.TEXT_FIELD}),
    "radio button": frozenset({K.RADIO}),
    "check box": frozenset({K.CHECKBOX}),
    "tick box": frozenset({K.CHECKBOX}),
    "text area": frozenset({K.TEXT_FIELD}),
    "text field": frozenset({K.TEXT_FIELD}),
    "text box": frozenset({K.TEXT_FIELD}),
    "text input": frozenset({K.TEXT_FIELD}),
    "edit box": frozenset({K.TEXT_FIELD}),
    "entry field": frozenset({K.TEXT_FIELD}),
    "combo box": frozenset({K.COMBO}),
    "drop-down menu": frozenset({K.COMBO}),
    "drop down menu": frozenset({K.COMBO}),
    "dropdown menu": frozenset({K.COMBO}),
    "drop-down list": frozenset({K.COMBO}),
    "drop-down": frozenset({K.COMBO}),
    "drop down": frozenset({K.COMBO}),
    "list item": frozenset({K.TEXT}),
    "menu item": frozenset({K.MENU_ITEM, K.MENU, K.TEXT}),
    "menu entry": frozenset({K.MENU_ITEM, K.MENU, K.TEXT}),
    "submenu": frozenset({K.MENU, K.MENU_ITEM, K.TEXT}),
    "button": frozenset({K.BUTTON}),
    "btn": frozenset({K.BUTTON}),
    "search result": frozenset({K.LINK}),
    "link": frozenset({K.LINK}),
    "hyperlink": frozenset({K.LINK}),
    "result": frozenset({K.LINK}),
    "field": frozenset({K.TEXT_FIELD}),
    "textfield": frozenset({K.TEXT_FIELD}),
    "textarea": frozenset({K.TEXT_FIELD}),
    "textbox": frozenset({K.TEXT_FIELD}),
    "box": frozenset({K.TEXT_FIELD}),
    "input": frozenset({K.TEXT_FIELD}),
    "entry": frozenset({K.TEXT_FIELD}),
    "checkbox": frozenset({K.CHECKBOX}),
    "tickbox": frozenset({K.CHECKBOX}),
    "radio": frozenset({K.RADIO}),
    "option": frozenset({K.RADIO, K.TEXT}),
    "tab": frozenset({K.TAB}),
    "swatch": frozenset({K.CHECKBOX, K.BUTTON, K.ICON}),     # a palette's square of one colour
    "dropdown": frozenset({K.COMBO}),
    "combobox": frozenset({K.COMBO}),
    "combo": frozenset({K.COMBO}),
    "select": frozenset({K.COMBO}),
    "menu": frozenset({K.MENU, K.COMBO, K.TEXT}),
    "icon": frozenset({K.ICON, K.CLOSE}),
    "label": frozenset({K.TEXT}),
    "paragraph": frozenset({K.TEXT}),
    "text": frozenset({K.TEXT}),
    "item": frozenset({K.TEXT}),
}
# Nouns that name a kind only when nothing else in the description does ('the list', 'the
# spinner'); after another role word they are part of a name ('the Shopping list button').
WEAK_ROLE_WORDS: dict[str, frozenset[ElementKind]] = {
    "list box": frozenset({K.COMBO}),
    "listbox": frozenset({K.COMBO}),
    "list": frozenset({K.COMBO}),
    "spin box": frozenset({K.TEXT_FIELD}),
    "spinbox": frozenset({K.TEXT_FIELD}),
    "spinner": frozenset({K.TEXT_FIELD}),
}
# The role words of one word (strong and weak): 'the Save button', 'the list'.
ROLE_NOUNS: frozenset[str] = frozenset(p for p in (*ROLE_WORDS, *WEAK_ROLE_WORDS) if " " not in p)
# Role words of a list of results ('the 3rd search result').
RESULT_ROLES = frozenset({"result", "search result"})


def is_pager_text(text: str) -> bool:
    """Whether a link reads as a results list's pager ("1 2 3 >", "»"; OCR may read "12З>"):
    short, and mostly digits or arrows."""
    chars = "".join(text.split())
    marks = sum(c.isdigit() or c in "<>\u00ab\u00bb\u2039\u203a\u2026" for c in chars)
    return 0 < len(chars) <= 12 and marks >= len(chars) / 2

# Kinds whose name in a description is usually the text of a label beside them.
LABELLED_KINDS = frozenset({K.TEXT_FIELD, K.CHECKBOX, K.RADIO, K.COMBO})

ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "last": -1,
}
# Colour adjectives ('the red button') -> the colour names (grounding.colours.colour_name) each
# accepts of an element's face or ink.
COLOUR_WORDS: dict[str, frozenset[str]] = {
    "red": frozenset({"red"}),
    "orange": frozenset({"orange"}),
    "yellow": frozenset({"yellow"}),
    "green": frozenset({"green"}),
    "cyan": frozenset({"cyan"}),
    "blue": frozenset({"blue"}),
    "purple": frozenset({"purple", "magenta"}),
    "violet": frozenset({"purple"}),
    "magenta": frozenset({"magenta", "pink"}),
    "pink": frozenset({"pink", "magenta"}),
    "brown": frozenset({"brown"}),
    "black": frozenset({"black"}),
    "white": frozenset({"white"}),
    "grey": frozenset({"grey"}),
    "gray": frozenset({"grey"}),
}
RELATIONS = ("right_of", "left_of", "below", "above", "next_to", "near", "after")
CONTAINER_NOUNS = ("dialog", "dialogue", "window", "panel", "section", "pane", "popup", "group",
                   "form", "sidebar", "toolbar")


@dataclass(frozen=True)
class Quote:
    """A quotation mark that opens a quoted text, and the marks that may close it."""

    opener: str
    closers: str             # the first one is its own pair
    word_start: bool = False  # opens only where a word starts ("don't" holds no quote)


# Every quotation mark a task or a description may use, in the order they are tried.
QUOTES: tuple[Quote, ...] = (
    Quote('"', '"\u201d\u201c'),
    Quote("\u201c", '\u201d"'),
    Quote("\u201e", '\u201c\u201d"'),
    Quote("\u00ab", "\u00bb"),
    Quote("\u2018", "\u2019'", word_start=True),
    Quote("'", "'\u2019", word_start=True),
    Quote("`", "`", word_start=True),
)
QUOTE_MARKS: frozenset[str] = frozenset("".join(q.opener + q.closers for q in QUOTES))
# Marks that may also be an apostrophe inside or at the end of a word ("don't", "users'").
APOSTROPHES: frozenset[str] = frozenset("'\u2019")
# Marks that end a quoted text and are no apostrophe ('"', '”', '“' closing „…“, '»', '`').
CLOSING_MARKS: frozenset[str] = frozenset("".join(q.closers for q in QUOTES)) - APOSTROPHES


def _quote_pattern(quote: Quote) -> re.Pattern[str]:
    """A quoted part of a description: the opener up to its own closing mark."""
    if quote.opener == "'":  # an apostrophe inside a word ("don't") does not close it
        return re.compile(r"(?<![\w])'((?:[^']|(?<=\w)'(?=\w))+)'(?![\w])")
    opener, closer = re.escape(quote.opener), re.escape(quote.closers[0])
    return re.compile(f"{opener}([^{closer}]+){closer}")


_QUOTE_PATTERNS = tuple(_quote_pattern(q) for q in QUOTES)
_ARTICLES = {"the", "a", "an", "this", "that"}
_FILLER = re.compile(
    r"^(?:(?:double-?|right-?)?click(?:\s+on)?|tap(?:\s+on)?)\s+|"
    r"\b(?:labell?ed|named|called|titled|that\s+says|saying|with\s+(?:the\s+)?(?:text|label|caption))\b",
    re.IGNORECASE,
)
_REL_PATTERNS: tuple[tuple[str, str], ...] = (
    ("right_of", r"(?:(?:just|immediately|directly)\s+)?(?:to\s+the\s+|on\s+the\s+)?right\s+(?:of|to)"),
    ("left_of", r"(?:(?:just|immediately|directly)\s+)?(?:to\s+the\s+|on\s+the\s+)?left\s+(?:of|to)"),
    ("below", r"(?:(?:just|immediately|directly)\s+)?(?:below|under|underneath|beneath)"),
    ("above", r"(?:(?:just|immediately|directly)\s+)?above"),
    ("next_to", r"(?:next\s+to|beside|besides|alongside)"),
    ("near", r"(?:near(?:\s+to)?|close\s+to|nearby)"),
    ("after", r"(?:(?:just|immediately|directly|right)\s+)?after"),
)
_REL_RE = re.compile(
    r"\b(?:" + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _REL_PATTERNS) + r")\b",
    re.IGNORECASE,
)
_CONTAINER_PREP_RE = re.compile(r"\b(?:in|inside|within|on)\s+", re.IGNORECASE)
_CONTAINER_TAIL_RE = re.compile(
    r"^(?:the\s+|a\s+)?(?P<title>.*?)\s*\b(?P<noun>" + "|".join(CONTAINER_NOUNS) + r")\s*$",
    re.IGNORECASE,
)
_FOR_RE = re.compile(r"^(?P<head>.*?)\bfor\s+(?P<label>.+)$", re.IGNORECASE)
_ORDINAL_RE = re.compile(
    r"\b(?:(?P<word>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)"
    r"(?:[\s-]+(?:to[\s-]+)?(?P<last>last))?|(?P<num>\d{1,2})(?:st|nd|rd|th)(?:[\s-]+(?:to[\s-]+)?(?P<last2>last))?"
    r"|(?P<onlylast>last)|(?:number|no\.?|#)\s*(?P<nr>\d{1,2}))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Relation:
    """``kind`` of :data:`RELATIONS` relative to the element that ``anchor`` describes."""

    kind: str
    anchor: TargetQuery


@dataclass(frozen=True)
class TargetQuery:
    raw: str
    text: str = ""                                  # what the element's text (or label) should read
    quoted: bool = False                            # text was quoted: match it literally
    kinds: frozenset[ElementKind] = frozenset()     # allowed kinds (empty: any)
    ordinal: int | None = None                      # 1-based; -1 is the last, -2 the one before
    relations: tuple[Relation, ...] = ()
    container: str | None = None                    # title of the dialog/window/panel ("" = untitled)
    by_label: bool = False                          # the text names a label beside the element
    role_words: tuple[str, ...] = field(default=())
    spelled: str = ""                               # the name with its role words kept ('Tab #2'),
                                                    # when role words were taken out of it
    any_one: bool = False                           # 'a checkbox': any one of those found will do
    colour: str = ""                                # 'the red button': a word of COLOUR_WORDS

    @property
    def wants_labelled(self) -> bool:
        """True when the text may be a label next to the element rather than its own text."""
        return bool(self.text) and (self.by_label or bool(self.kinds & LABELLED_KINDS))


_INDEFINITE_RE = re.compile(r"^(?:a|an)\s", re.IGNORECASE)
def parse_description(description: str) -> TargetQuery:
    """Parse a free-form target description; see the module docstring for the forms."""
    raw = description.strip()
    text, quoted_parts = _protect_quotes(raw)
    container, text = _take_container(text, quoted_parts)
    relations: list[Relation] = []
    rel_matches = list(_REL_RE.finditer(text))
    if rel_matches:
        head_end = rel_matches[0].start()
        for i, rm in enumerate(rel_matches):
            end = rel_matches[i + 1].start() if i + 1 < len(rel_matches) else len(text)
            anchor_text = _restore(text[rm.end():end].strip(" ,"), quoted_parts)
            kind = next(name for name in RELATIONS if rm.group(name))
            if anchor_text:
                relations.append(Relation(kind, parse_description(anchor_text)))
        text = text[:head_end].strip(" ,")
    by_label = False
    fm = _FOR_RE.match(text)
    if fm and _roles_in(fm.group("head").strip()):
        by_label = True
        text = f"{fm.group('label')} {fm.group('head')}"
    any_one = _INDEFINITE_RE.match(text) is not None
    ordinal, text = _take_ordinal(text)
    text = _strip_articles(_FILLER.sub(" ", text))
    colour, text = _take_colour(text)
    whole = text
    kinds, role_words, text = _take_roles(text)
    text = _strip_articles(text)
    quoted = bool(quoted_parts) and text.strip() in {f"\x00{i}\x00" for i in range(len(quoted_parts))}
    spelled = _restore(whole, quoted_parts).strip(" ,.") if role_words and not by_label else ""
    text = _restore(text, quoted_parts).strip(" ,.")
    return TargetQuery(raw=raw, text=text, quoted=quoted, kinds=kinds, ordinal=ordinal,
                       relations=tuple(relations), container=container,
                       by_label=by_label and bool(text), role_words=role_words,
                       spelled=spelled if spelled != text else "",
                       any_one=any_one and ordinal is None, colour=colour)


def _protect_quotes(text: str) -> tuple[str, list[str]]:
    """Replace quoted parts by placeholders so that their words are never read as keywords."""
    parts: list[str] = []

    def keep(match: re.Match[str]) -> str:
        parts.append(match.group(1))
        return f" \x00{len(parts) - 1}\x00 "

    for pattern in _QUOTE_PATTERNS:
        text = pattern.sub(keep, text)
    return " ".join(text.split()), parts


def _restore(text: str, parts: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: parts[int(m.group(1))], text).strip()


def _strip_articles(text: str) -> str:
    return " ".join(w for w in text.split() if w.lower() not in _ARTICLES)


def _roles_in(text: str) -> bool:
    return bool(_take_roles(text)[0])


def _take_container(text: str, parts: list[str]) -> tuple[str | None, str]:
    """'... in the Settings dialog' -> ("Settings", '...'); the last such phrase wins."""
    for prep in reversed(list(_CONTAINER_PREP_RE.finditer(text))):
        tail = _CONTAINER_TAIL_RE.match(text[prep.end():])
        if tail and text[: prep.start()].strip():
            return _restore(_strip_articles(tail.group("title")), parts), text[: prep.start()].strip()
    return None, text


def _take_colour(text: str) -> tuple[str, str]:
    """'red button' -> ("red", 'button'); 'green \x000\x00 button' -> ("green", ...): a colour
    word in lower case before a role word or a quoted name. Else it is part of a name ('green
    tea', 'the Red button', 'Red')."""
    words = text.split()
    if len(words) >= 2 and words[0] in COLOUR_WORDS:
        rest = " ".join(words[1:])
        if "\x00" in rest or _roles_in(rest):
            return words[0], rest
    return "", text


def _take_ordinal(text: str) -> tuple[int | None, str]:
    m = next((m for m in _ORDINAL_RE.finditer(text) if _is_ordinal(text, m)), None)
    if not m:
        return None, text
    if m.group("onlylast"):
        value = -1
    elif m.group("nr"):
        value = int(m.group("nr"))
    else:
        value = ORDINAL_WORDS[m.group("word").lower()] if m.group("word") else int(m.group("num"))
        if m.group("last") or m.group("last2"):
            value = -value
    if value == 0:
        return None, text
    rest = (text[: m.start()] + " " + text[m.end():]).strip()
    return value, " ".join(rest.split())


def _is_ordinal(text: str, m: re.Match[str]) -> bool:
    """'the last button' is an ordinal; 'the Last name field' and 'First name' are labels."""
    after = text[m.end():].split()
    if after and after[0].lower().strip(",") == "name":
        return False
    word = m.group(0)
    capitalised = word[:1].isupper() and m.start() > 0
    return not capitalised or (bool(after) and _take_roles(" ".join(after[:2]))[0] != frozenset())


def _take_roles(text: str) -> tuple[frozenset[ElementKind], tuple[str, ...], str]:
    """Strip role phrases from the end, then from the start, of ``text``.

    A role word is kept as text when it is all that would remain after another role word was
    already taken ('the Text button' is a button reading "Text").
    """
    kinds: set[ElementKind] = set()
    found: list[str] = []
    roles = {**WEAK_ROLE_WORDS, **ROLE_WORDS}
    phrases = sorted(roles, key=len, reverse=True)
    for anchor_at_end in (True, False):
        progress = True
        while progress and text:
            progress = False
            for phrase in phrases:
                body = re.escape(phrase).replace(r"\ ", r"[\s-]+") + r"(?:e?s)?"
                pattern = (r"(?:^|\s)" + body + r"$") if anchor_at_end else (r"^" + body + r"(?:\s|$)")
                m = re.search(pattern, text, flags=re.IGNORECASE)
                if not m:
                    continue
                rest = (text[: m.start()] + " " + text[m.end():]).strip()
                if (not rest or phrase in WEAK_ROLE_WORDS) and found:
                    continue
                kinds |= roles[phrase]
                found.append(phrase)
                text = rest
                progress = True
                break
    return frozenset(kinds), tuple(found), " ".join(text.split())


def ordinal_word(n: int) -> str:
    """'1st', '2nd', '11th', '23rd': how a description writes the n-th."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
