"""Readers of typing clauses: type / enter / fill / set, and the values they name.

Besides 'type X into Y' they read:

- a value described by a noun: 'enter the password "JOZgP"' types JOZgP (into the Password
  field when no field is named; a generic noun such as "the text" names no field);
- several such values: 'enter the username "ann" and the password "pw" into the text
  fields' types each value into the field its noun names;
- a counted plural target: 'into both text fields' types the value into the 1st and the
  2nd text field; 'all/every/each text field' cannot be counted offline and is refused;
- 'enter 10/23/2012 as the date' types into the Date field;
- 'type "ABC" in lower case (letters)' / 'in upper case' / 'in all caps' changes the case;
- a text read off the screen: 'enter the value of Color into the text field' (:mod:`.reading`).
"""

from __future__ import annotations

from ..actions import Action, Hotkey, Type
from . import vocabulary as vocab
from .clauses import Clause, render
from .phrases import (
    Tokens,
    fail,
    is_number,
    lower_word,
    number,
    split_at,
    split_into,
    text_of,
    with_role,
)
from .reading import EACH_LABEL, is_each_label, reading_of
from .slider import several_sliders

_ORDINAL_SUFFIX = {1: "st", 2: "nd", 3: "rd"}


def read_type(clause: Clause, toks: Tokens, clear: bool = False) -> list[Action]:
    toks, case = _take_case(clause, toks)
    text_toks, target = split_into(clause, toks)
    if not target:
        text_toks, target = _as_the(clause, text_toks)
    reading = reading_of(clause, text_toks)
    if reading == EACH_LABEL:   # every labelled field, found when the step is due
        return [Type("", clear=True, read_from=reading)]
    if reading is not None:   # 'the value of Color': read when the step is due (reading.py)
        into = with_role(clause, target, "field") if target else None
        return [Type("", into=into, clear=clear, read_from=reading)]
    entries = _entries(clause, text_toks)
    if entries is None:
        _one_text(clause, text_toks)
        values = [(text_of(clause, text_toks, "the text to type"), None)]
    else:
        values = [(clause.quoted(value) or "", noun) for noun, value in entries]
    values = [(_cased(text, case), noun) for text, noun in values]
    if not values[0][0]:
        raise fail(clause, "the text to type is empty")
    if len(values) > 1:
        if target and _plural(target) is None and not _is_form(target):
            raise fail(clause, f"{len(values)} values but one field ({render(target, clause)!r}); "
                               "type one text into one field per step")
        return [Type(text, into=_noun_field(noun), clear=clear) for text, noun in values]
    text, noun = values[0]
    if not target:
        into = _noun_field(noun) if noun and noun not in vocab.GENERIC_TEXT_NOUNS else None
        return [Type(text, into=into, clear=clear)]
    many = _counted_fields(clause, target)
    if many:
        return [Type(text, into=field, clear=clear) for field in many]
    if _is_form(target) and noun and noun not in vocab.GENERIC_TEXT_NOUNS:
        return [Type(text, into=_noun_field(noun), clear=clear)]
    return [Type(text, into=with_role(clause, target, "field"), clear=clear)]


def read_enter(clause: Clause, toks: Tokens) -> list[Action]:
    if not toks or " ".join(lower_word(t) for t in toks) in ("key", "the key"):
        return [Hotkey(("enter",))]
    return read_type(clause, toks)


def read_fill(clause: Clause, toks: Tokens) -> list[Action]:
    split = split_at(toks, ("with",), last=False)
    if split is not None:
        target, text = split
        return [Type(text_of(clause, text, "the text to fill in"), into=with_role(clause, target, "field"),
                     clear=True)]
    text_toks, target = split_into(clause, toks)
    if not target and _entries(clause, text_toks) is None \
            and not is_each_label([lower_word(t) for t in text_toks]):
        raise fail(clause, "say which field and what to fill in: 'fill the Email field with a@b.c'")
    return read_type(clause, toks, clear=True)


def read_set(clause: Clause, toks: Tokens) -> list[Action]:
    """'set the Quantity field to 4', 'set the spinner to 4': type into it, replacing its text;
    'set the Width field to 4 and the Height field to 5': each in turn."""
    parts = _set_parts(toks)
    if len(parts) > 1:
        return [action for part in parts for action in read_set(clause, part)]
    split = split_at(toks, ("to",))
    if split is None:
        raise fail(clause, "no known action verb: 'set' without 'to' describes a goal; say "
                           "'set the Quantity field to 4' or spell out the clicks")
    target, value = split
    many = several_sliders(clause, target, value)
    if many is not None:
        return many
    low = f" {' '.join(lower_word(t) for t in target)} "
    if any(f" {w} " in low or f" {w}s " in low for w in vocab.DRAG_WIDGETS) and \
            not is_number(text_of(clause, value, "the value")):
        raise fail(clause, f"a slider is set to a number, not to {render(value, clause)!r}")
    return [Type(text_of(clause, value, "the value"), into=with_role(clause, target, "field"),
                 clear=True)]


def _set_parts(toks: Tokens) -> list[Tokens]:
    """'A to 4 and B to 5' -> ['A to 4', 'B to 5']: split at an 'and' or a comma after which
    another 'X to Y' starts; ['the sliders to 3, 7 and 12'] stays whole."""
    low = [t if t == "," else lower_word(t) for t in toks]
    parts: list[Tokens] = []
    start = 0
    for i, w in enumerate(low):
        if w in ("and", ",") and "to" in low[start:i] and "to" in low[i + 1:] and \
                low[i + 1] != "to" and not is_number(low[i + 1]):
            parts.append(toks[start:i])
            start = i + 1
    parts.append(toks[start:])
    return [p for p in parts if p]


def _one_text(clause: Clause, text_toks: Tokens) -> None:
    """'type "Ann" into Name and "Lee" into Surname' is two steps: say so, do not guess."""
    if len(text_toks) > 1 and clause.quoted(text_toks[0]) is not None:
        extra = render(text_toks[1:], clause, original=True)
        raise fail(clause, f"could not place {extra!r} after the quoted text; type one text "
                           "into one field per step ('type \"Ann\" into Name, then type \"Lee\" "
                           "into Surname')")


def _entries(clause: Clause, toks: Tokens) -> list[tuple[str, str]] | None:
    """'the username "a" and the password "b"' -> [('username', a-token), ('password', b-token)].

    Each entry is an article or possessive, one to three plain words and one quoted value
    (without an article the noun must be a common field name: 'username "ann"'). None when
    the tokens are not such a list.
    """
    entries: list[tuple[str, str]] = []
    current: Tokens = []
    for tok in [*toks, ","]:
        if tok == "," or lower_word(tok) == "and":
            if current:
                entry = _entry(clause, current)
                if entry is None:
                    return None
                entries.append(entry)
                current = []
            continue
        current.append(tok)
    return entries or None


def _entry(clause: Clause, toks: Tokens) -> tuple[str, str] | None:
    if len(toks) < 2 or clause.quoted(toks[-1]) is None:
        return None
    words = toks[:-1]
    had_article = lower_word(words[0]) in vocab.ARTICLES | vocab.POSSESSIVES
    if had_article:
        words = words[1:]
    low = [lower_word(t) for t in words]
    if not 1 <= len(words) <= 3 or any(clause.quoted(t) is not None for t in words):
        return None
    noun = " ".join(low)
    if not had_article and noun not in vocab.FIELD_NOUNS:
        return None
    return noun, toks[-1]


def _noun_field(noun: str | None) -> str | None:
    if noun is None:
        return None
    last = noun.split()[-1]
    return f"the {noun}" if last in vocab.ROLE_WORDS else f"the {noun} field"


def _plural(target: Tokens) -> str | None:
    """'the text fields' -> 'text field'; None when the last word is no plural role word."""
    low = [lower_word(t) for t in target]
    if not low or target[-1] != target[-1].lower():
        return None  # 'into Items' names a field; 'into the items' would be several
    last = low[-1]
    for cut, add in (("ies", "y"), ("xes", "x"), ("es", ""), ("s", "")):
        if last.endswith(cut) and last[:-len(cut)] + add in vocab.ROLE_WORDS:
            singular = last[:-len(cut)] + add
            break
    else:
        return None
    if len(low) >= 2 and low[-2] in ("text", "input", "entry", "check", "radio", "edit"):
        return f"{low[-2]} {singular}"
    return singular


def _is_form(target: Tokens) -> bool:
    return bool(target) and lower_word(target[-1]) in ("form", "forms", "page", "dialog", "window")


def _counted_fields(clause: Clause, target: Tokens) -> list[str]:
    """'both text fields' -> ['the 1st text field', 'the 2nd text field']; [] when singular."""
    role = _plural(target)
    if role is None:
        return []
    low = [lower_word(t) for t in target if lower_word(t) not in ("the", "of")]
    if low and low[0] in vocab.UNCOUNTED_WORDS:
        raise fail(clause, f"I cannot count '{render(target, clause)}' without seeing the screen; "
                           f"name each one ('type \"x\" into the 1st {role}, then type \"x\" into "
                           f"the 2nd {role}') or use a model-backed planner")
    count = 2 if low and low[0] == "both" else None
    if count is None and len(low) >= 2:
        value = number(low[:1])
        count = int(value) if value is not None and value == int(value) else None
    if count is None or not 1 <= count <= 10:
        raise fail(clause, f"'{render(target, clause)}' names several {role}s; say how many "
                           f"('both {role}s') or type into one {role} per step")
    return [f"the {k}{_ORDINAL_SUFFIX.get(k, 'th')} {role}" for k in range(1, count + 1)]


def _as_the(clause: Clause, toks: Tokens) -> tuple[Tokens, Tokens]:
    """'10/23/2012 as the date' -> (['10/23/2012'], ['the', 'date', 'field'])."""
    split = split_at(toks, ("as",))
    if split is None:
        return toks, []
    text, role = split
    if lower_word(role[0]) not in vocab.ARTICLES | vocab.POSSESSIVES or not 2 <= len(role) <= 4:
        return toks, []
    if any(clause.quoted(t) is not None for t in role):
        return toks, []
    return text, ["the", *role[1:]]


def _take_case(clause: Clause, toks: Tokens) -> tuple[Tokens, str | None]:
    """'"ABC" in lower case letters ...' -> the tokens without the phrase, and 'lower'."""
    low = [lower_word(t) for t in toks]
    for i in range(1, len(toks)):
        if low[i] != "in" or clause.quoted(toks[i - 1]) is None:
            continue
        j = i + 1
        if j < len(low) and low[j] in ("all", "only"):
            j += 1
        if j >= len(low) or low[j] not in vocab.CASE_WORDS:
            continue
        case, word = vocab.CASE_WORDS[low[j]], low[j]
        j += 1
        if j < len(low) and low[j] in ("case", "cases"):
            j += 1
        if j < len(low) and low[j] in ("letters", "characters", "letter", "capitals"):
            j += 1
        elif word in ("capital", "small", "block"):
            continue  # 'in capital' alone is no case phrase
        return [*toks[:i], *toks[j:]], case
    return toks, None


def _cased(text: str, case: str | None) -> str:
    if case == "lower":
        return text.lower()
    if case == "upper":
        return text.upper()
    return text
