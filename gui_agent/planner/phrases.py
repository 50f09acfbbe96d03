"""Small readers of the parts of a clause: target descriptions, texts, numbers, repeats,
key combinations, durations and expected texts.

A target that is only a quoted text stays quoted ('“OK”' -> '"OK"') so that the grounder
matches it literally (a quoted "Items" is a caption, not the role word "item"); quoted texts
inside a longer description keep straight double quotes too ('the "OK" button'); anything else is passed
on as written, relations and ordinals included. ``with_role`` adds the role a verb implies to
a bare label ('Name' -> 'the Name field').
"""

from __future__ import annotations

import re

from ..errors import PlanningError
from ..grounding.target_forms import quote
from . import vocabulary as vocab
from .clauses import Clause, render

Tokens = list[str]
MAX_REPEAT = 20


def fail(clause: Clause, detail: str) -> PlanningError:
    """The error for a clause that cannot be read; it names the clause and what went wrong."""
    text = clause.text if len(clause.text) <= 160 else clause.text[:157] + "..."
    return PlanningError(f'I could not understand "{text}": {detail}')


def vague(clause: Clause, word: str) -> PlanningError:
    """The refusal of a clause that names a goal ('make it blue'), not a step."""
    return fail(clause, f"no known action verb: {word!r} describes a goal, not a step I can follow. The offline planner "
                        "only follows explicit steps; please spell them out (for example "
                        "'click \"File\", then click \"Save\"') or use a model-backed planner. "
                        f"I understand: {vocab.VERB_SUMMARY}.")


def lower_word(tok: str) -> str:
    return tok.lower().strip(",:")


def desc(clause: Clause, toks: Tokens) -> str:
    """A target description: a lone quoted text kept quoted, anything else as written.

    Two readings make it plainer for the grounder: a trailing place word without an anchor
    is dropped ('the section below' -> 'the section'), and a named element becomes its name
    ('the folder or file named "Myron"' -> '"Myron"'; 'the link labelled Ipsum' ->
    'the link "Ipsum"'; 'a "button" widget' -> 'the button').
    """
    toks = drop_unanchored(toks)
    if len(toks) == 2 and lower_word(toks[0]) in vocab.ARTICLES and clause.quoted(toks[1]) is not None:
        toks = toks[1:]  # 'the "x"' is the text "x"
    if len(toks) == 1 and clause.quoted(toks[0]) is not None:
        return quote(clause.quoted(toks[0]) or "")
    return _named(clause, toks) or _widget(clause, toks) or words_of(clause, toks)


def drop_unanchored(toks: Tokens) -> Tokens:
    """'the section below' -> 'the section': a place word at the end with nothing to anchor it."""
    low = [lower_word(t) for t in toks]
    for place in sorted(vocab.UNANCHORED_PLACES, key=len, reverse=True):
        n = len(place.split())
        if len(toks) > n and low[-n:] == place.split():
            return toks[:-n]
    return toks


def _named(clause: Clause, toks: Tokens) -> str | None:
    low = [lower_word(t) if clause.quoted(t) is None else "" for t in toks]
    for i in range(len(toks)):
        n = next((len(p.split()) for p in sorted(vocab.NAMING_WORDS, key=len, reverse=True)
                  if low[i:i + len(p.split())] == p.split()), 0)
        if not n:
            continue
        name = toks[i + n:]
        plain = [w for w in low[i + n:] if w]
        lone_quote = len(name) == 1 and clause.quoted(name[0]) is not None
        if not name or not (lone_quote or (len(name) <= 4 and len(plain) == len(name) and not any(
                w in vocab.NAME_STOP_WORDS for w in plain))):
            return None
        head = [t for t in toks[:i] if lower_word(t) not in vocab.ARTICLES | vocab.POSSESSIVES]
        named = quote(clause.quoted(name[0]) or "") if lone_quote else quote(render(name, clause))
        head_low = [lower_word(t) for t in head]
        keeps_role = head and all(clause.quoted(t) is None for t in head) and (
            head_low[-1] in vocab.NAMED_ROLES or " ".join(head_low[-2:]) in vocab.NAMED_ROLES)
        return f"the {render(head, clause)} {named}" if keeps_role else named
    return None


def _widget(clause: Clause, toks: Tokens) -> str | None:
    core = toks[1:] if toks and lower_word(toks[0]) in vocab.ARTICLES else toks
    if len(core) != 2 or lower_word(core[1]) not in vocab.WIDGET_NOUNS:
        return None
    kind = (clause.quoted(core[0]) or "").strip().lower()
    if kind in vocab.WIDGET_KINDS or kind.rstrip("s") in vocab.ROLE_WORDS or kind in vocab.NAMED_ROLES:
        # 'a "checkbox" widget': any one of them (the grounder picks the first, not an ambiguity)
        article = "a" if toks and lower_word(toks[0]) in ("a", "an") else "the"
        return f"{article} {vocab.WIDGET_KINDS.get(kind, kind)}"
    return None


def words_of(clause: Clause, toks: Tokens) -> str:
    """The words as written; a lone quoted text without its quotes."""
    if len(toks) == 1 and clause.quoted(toks[0]) is not None:
        return clause.quoted(toks[0]) or ""
    return render(toks, clause).strip(" ,:")


def text_of(clause: Clause, toks: Tokens, what: str) -> str:
    """Text to type: a lone quoted text exactly, otherwise the words as written."""
    text = words_of(clause, toks) if toks else ""
    if not text:
        raise fail(clause, f"{what} is empty")
    return text


def has_role(clause: Clause, toks: Tokens) -> bool:
    plain = [lower_word(t) for t in toks if clause.quoted(t) is None]
    if any(w in vocab.ROLE_WORDS or w.rstrip("s") in vocab.ROLE_WORDS for w in plain):
        return True
    joined = f" {' '.join(plain)} "
    return any(f" {p} " in joined for p in vocab.RELATION_PHRASES)


def with_role(clause: Clause, toks: Tokens, role: str) -> str:
    """'Name' -> 'the Name field'; a description with a role word or relation stays as is."""
    toks = drop_unanchored(toks)
    if not toks:
        raise fail(clause, f"it does not say which {role}")
    if has_role(clause, toks):
        return desc(clause, toks)
    core = toks[1:] if lower_word(toks[0]) in vocab.ARTICLES and len(toks) > 1 else toks
    return f"the {render(core, clause)} {role}"


def split_at(toks: Tokens, words: tuple[str, ...], last: bool = True) -> tuple[Tokens, Tokens] | None:
    idx = [i for i, t in enumerate(toks) if lower_word(t) in words and 0 < i < len(toks) - 1]
    if not idx:
        return None
    i = idx[-1] if last else idx[0]
    return toks[:i], toks[i + 1:]


def is_number(text: str) -> bool:
    """Whether a text is a number as written ('37', '-15', '2.5')."""
    return re.fullmatch(r"[-\u2212]?\d+(?:\.\d+)?", text.strip()) is not None


def number(words: list[str]) -> float | None:
    phrase = " ".join(words)
    if re.fullmatch(r"\d+(\.\d+)?", phrase):
        return float(phrase)
    value = vocab.NUMBER_WORDS.get(phrase, vocab.TIMES_WORDS.get(phrase))
    return float(value) if value is not None else None


def take_repeat(clause: Clause, toks: Tokens) -> tuple[int, Tokens]:
    """'... twice' / '... 3 times' at the end -> (count, the rest)."""
    low = [lower_word(t) for t in toks]
    if low and low[-1] in vocab.TIMES_WORDS:
        count, rest = vocab.TIMES_WORDS[low[-1]], toks[:-1]
    elif len(low) >= 2 and low[-1] in ("times", "time") and number(low[-2:-1]) is not None:
        count, rest = int(number(low[-2:-1]) or 0), toks[:-2]
    else:
        return 1, toks
    if not 1 <= count <= MAX_REPEAT:
        raise fail(clause, f"I repeat an action 1 to {MAX_REPEAT} times, not {count}")
    return count, rest


def parse_keys(text: str) -> tuple[str, ...] | None:
    """'Ctrl+S', 'ctrl-shift-t', 'Alt F4', 'the Escape key' -> pyautogui key names, else None."""
    for symbol, name in vocab.KEY_SYMBOLS.items():
        text = text.replace(symbol, f" {name} + ")
    words = [w for w in re.split(r"\s*\+\s*|\s+|(?<=\w)-(?=\w)", text.strip().lower()) if w]
    if words and words[0] in vocab.ARTICLES:
        words = words[1:]
    if words and words[-1] in vocab.KEY_SUFFIXES:
        words = words[:-1]
    keys: list[str] = []
    i = 0
    while i < len(words):
        pair = " ".join(words[i:i + 2])
        if i + 1 < len(words) and pair in vocab.KEYS:
            keys.append(vocab.KEYS[pair])
            i += 2
            continue
        w = words[i]
        key = vocab.MODIFIER_KEYS.get(w) or vocab.KEYS.get(w) or (w if len(w) == 1 and w.isprintable() else None)
        if key is None:
            return None
        keys.append(key)
        i += 1
    if not keys:
        return None
    return tuple(keys)


def is_combo(keys: tuple[str, ...]) -> bool:
    mods = set(vocab.MODIFIER_KEYS.values())
    return all(k in mods for k in keys[:-1])


def split_into(clause: Clause, toks: Tokens) -> tuple[Tokens, Tokens]:
    split = split_at(toks, ("into",))
    if split is not None:
        return split
    split = split_at(toks, ("in", "inside"))
    if split is not None:
        text, target = split
        lone = len(text) == 1
        looks_target = lower_word(target[0]) in vocab.ARTICLES or clause.quoted(target[0]) is not None
        if lone or looks_target or has_role(clause, target):
            return split
    return toks, []


def seconds(words: list[str]) -> float | None:
    """'2 seconds', '1.5s', 'for 500 ms', 'two minutes', 'a moment' -> seconds; else None."""
    phrase = " ".join(words)
    for prefix in ("for ", "about ", "up to "):
        phrase = phrase.removeprefix(prefix)
    if phrase in vocab.VAGUE_WAITS:
        return vocab.VAGUE_WAITS[phrase]
    m = re.fullmatch(r"(\d+(?:\.\d+)?) ?([a-z]+)?", phrase)
    if m:
        unit = vocab.TIME_UNITS.get(m.group(2) or "s")
        return float(m.group(1)) * unit if unit is not None else None
    parts = phrase.split()
    if len(parts) >= 2 and parts[-1] in vocab.TIME_UNITS:
        value = number(parts[:-1])
        return value * vocab.TIME_UNITS[parts[-1]] if value is not None else None
    return None


def expect_text(clause: Clause, toks: Tokens) -> str | None:
    """'"Saved" to appear' / 'the text Saved appears' -> 'Saved'; None if not such a phrase."""
    quoted = [clause.quoted(t) for t in toks if clause.quoted(t) is not None]
    low = " ".join(lower_word(t) for t in toks)
    ending = next((p for p in sorted(vocab.APPEAR_PHRASES, key=len, reverse=True)
                   if low == p or low.endswith(" " + p)), None)
    if len(quoted) == 1:
        rest = [t for t in toks if clause.quoted(t) is None]
        rest_text = " ".join(lower_word(t) for t in rest)
        for p in (*vocab.TEXT_NOUNS, ending or ""):
            rest_text = rest_text.replace(p, " ")
        return quoted[0] if not rest_text.strip(" ,") else None
    if ending is None:
        return None
    body = toks[:len(toks) - len(ending.split())]
    k = next((len(n.split()) for n in vocab.TEXT_NOUNS
              if [lower_word(t) for t in body[:len(n.split())]] == n.split()), 0)
    body = body[k:]
    return render(body, clause) if body else None
