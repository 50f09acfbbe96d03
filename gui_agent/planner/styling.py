"""Styling a text in a rich-text editor: bold, italic, underline, a colour.

'bold "cat"', 'make the word cat italic', 'underline "quick brown"', 'give the text "dolor" the
style italics', 'give everything the style bold': the text is selected, then the style's
keyboard shortcut is pressed (Ctrl+B / Ctrl+I / Ctrl+U: web rich-text editors, LibreOffice, Qt
and GTK rich-text widgets all take them), so no toolbar icon has to be recognised. One word is
selected by double-clicking it; several words by a drag from the start of the first to the end
of the last; everything by clicking into the text area and Ctrl+A.

A colour has no key: 'give the text "cat" the color red', 'colour "cat" blue' select the text,
click the editor's text colour button (an "A" over a bar, parsing/colour_controls.py) and then
the swatch of that colour in the palette it opens (the plainest shade of it,
grounding/colours.py). A font is not set this way and is refused, saying so.

'make', 'give', 'apply', 'format' and 'style' plan this only with a style or a colour word and
a text; any other 'make ...' is a goal, refused as before.
"""

from __future__ import annotations

from ..actions import Action, Click, Drag, Hotkey
from ..grounding.description import COLOUR_WORDS
from . import vocabulary as vocab
from .clauses import Clause, render
from .phrases import Tokens, fail, lower_word, parse_keys, quote, vague

# words that only join the style to its text: 'give the text "x" the style bold'
_JOINERS = frozenset({"the", "a", "an", "style", "styles", "font", "to", "as", "in", "and", "with",
                      "text", "word", "words", "phrase", "selection", "formatting", "format", "it", "of",
                      "color", "colour", "colored", "coloured"})
_TEXT_OBJECTS = frozenset({"text", "word", "words", "phrase", "everything", "selection"})
WHOLE_TEXT = "the text area"     # clicked before Ctrl+A when everything is to be styled
COLOUR_CONTROL = "the text color button"    # an editor's text colour button
SWATCH = "the {colour} swatch"              # a colour of the palette that button opens


def read_style(clause: Clause, toks: Tokens) -> list[Action]:
    """The selection of the text and the style shortcuts (or the colour clicks) a styling
    clause asks for."""
    verb = lower_word(clause.tokens[0])
    styles = [vocab.STYLE_WORDS[verb]] if verb in vocab.STYLE_WORDS else []
    colours: list[str] = []
    rest: Tokens = []
    for tok in toks:
        word = lower_word(tok) if clause.quoted(tok) is None else ""
        if word in vocab.STYLE_WORDS:
            styles.append(vocab.STYLE_WORDS[word])
        elif word in COLOUR_WORDS:
            colours.append(word)
        elif word not in _JOINERS:
            rest.append(tok)
    named_text = verb in vocab.COLOUR_VERBS or any(
        clause.quoted(t) is not None or lower_word(t) in _TEXT_OBJECTS for t in toks)
    if len(set(colours)) > 1:
        raise fail(clause, f"one colour at a time: which of {', '.join(dict.fromkeys(colours))}?")
    if not styles and not (colours and named_text):
        raise vague(clause, clause.tokens[0])
    keys: list[Action] = [Hotkey(parse_keys(vocab.STYLE_KEYS[s]) or ()) for s in dict.fromkeys(styles)]
    if colours:
        keys += [Click(COLOUR_CONTROL), Click(SWATCH.format(colour=colours[0]))]
    return [*_select(clause, rest), *keys]


def _select(clause: Clause, rest: Tokens) -> list[Action]:
    """The steps that select the text named by ``rest`` (one word, several, or everything)."""
    if not rest:
        raise fail(clause, "say which text to style: 'bold \"cat\"', 'make everything italic'")
    low = " ".join(lower_word(t) for t in rest)
    if low in vocab.EMPTY_OBJECTS or low in ("whole", "entire", "all of"):
        return [Click(WHOLE_TEXT), Hotkey(("ctrl", "a"))]
    quoted = [clause.quoted(t) for t in rest]
    if len(rest) == 1:
        text = quoted[0] if quoted[0] is not None else rest[0]
    elif all(q is None for q in quoted) and len(rest) <= 3:
        text = " ".join(rest)
    else:
        raise fail(clause, f"could not tell which text to style in {render(rest, clause, original=True)!r}; "
                           "quote it: 'bold \"quick brown\"'")
    if " " not in text.strip() and text.strip()[-1:].isalnum():
        return [Click(quote(text), clicks=2)]        # (a double-click selects no full stop)
    return [Drag(f"the start of {quote(text)}", f"the end of {quote(text)}")]
