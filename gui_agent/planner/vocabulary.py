"""The words the offline planner knows, as the readers use them.

All of them come from ``language.yaml`` (loaded and checked once by :mod:`.language`); the
role words are the description grammar's (:mod:`gui_agent.grounding.description`), shared with
grounding. Every value here is immutable.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..grounding.description import ROLE_NOUNS
from .language import language

_L = language()

# Verb phrase (lower case, words separated by one space) -> the verb kind that reads the clause.
# Longer phrases are tried first, so "double click" wins over "double" and "fill in" over "fill".
VERBS: Mapping[str, str] = _L.verb_phrases
# The verbs named in "I understand: ..." messages.
VERB_SUMMARY: str = _L.understood
# Goals rather than steps: the offline planner politely declines them.
VAGUE_VERBS: frozenset[str] = _L.words("vague_verbs")

# Cutting a task into clauses.
LEADING_FILLERS: tuple[str, ...] = _L.phrases("clauses.leading_fillers")
TRAILING_FILLERS: tuple[str, ...] = _L.phrases("clauses.trailing_fillers")
SEARCH_LEADS: tuple[str, ...] = _L.phrases("clauses.search_leads")
STRONG_CONNECTORS: tuple[str, ...] = _L.phrases("clauses.strong_connectors")
WEAK_CONNECTORS: tuple[str, ...] = _L.phrases("clauses.weak_connectors")
ABBREVIATIONS: frozenset[str] = _L.words("clauses.abbreviations")
CONTINUATION_WORDS: frozenset[str] = _L.words("clauses.continuation_words")
PURPOSE_OBJECTS: frozenset[str] = _L.words("clauses.purpose_objects")
ING_VERBS: Mapping[str, str] = _L.names("rewrites.ing_verbs")

# Target descriptions.
ARTICLES: frozenset[str] = _L.words("targets.articles")
POSSESSIVES: frozenset[str] = _L.words("targets.possessives")
# Words that name what kind of element a description is about (plural "s" allowed).
ROLE_WORDS: frozenset[str] = (
    ROLE_NOUNS - _L.words("targets.not_role_words")) | _L.words("targets.more_role_words")
NAMED_ROLES: frozenset[str] = _L.words("targets.named_roles")
DROPDOWN_WORDS: frozenset[str] = _L.words("targets.dropdown_words")
OPEN_ON_SCREEN_WORDS: frozenset[str] = _L.words("targets.open_on_screen_words")
APP_WORDS: tuple[str, ...] = _L.phrases("targets.app_words")
RELATION_PHRASES: tuple[str, ...] = _L.phrases("targets.relation_phrases")
UNANCHORED_PLACES: tuple[str, ...] = _L.phrases("targets.unanchored_places")
NAMING_WORDS: tuple[str, ...] = _L.phrases("targets.naming_words")
NAME_STOP_WORDS: frozenset[str] = _L.words("targets.name_stop_words")
WIDGET_NOUNS: frozenset[str] = _L.words("targets.widget_nouns")
WIDGET_KINDS: Mapping[str, str] = _L.names("targets.widget_kinds")
CLOSABLE_CONTAINERS: frozenset[str] = _L.words("targets.closable_containers")
CLOSABLE_OTHERS: frozenset[str] = _L.words("targets.closable_others")
NOTHING_WORDS: frozenset[str] = _L.words("targets.nothing_words")
SPINNER_WORDS: frozenset[str] = _L.words("targets.spinner_words")
DRAG_WIDGETS: frozenset[str] = _L.words("targets.drag_widgets")
EDITABLE_WORDS: frozenset[str] = _L.words("targets.editable_words")
UNCOUNTED_WORDS: frozenset[str] = _L.words("targets.uncounted_words")
DIRECTIONS: frozenset[str] = _L.words("targets.directions")
MENU_NOUNS: frozenset[str] = _L.words("targets.menu_nouns")
MENU_PREPOSITIONS: frozenset[str] = _L.words("targets.menu_prepositions")
TREE_WORDS: frozenset[str] = _L.words("targets.tree_words")
# A record named first ('find Ann in the list', 'the email by Ann'): scoping.py.
RECORD_MARKS: frozenset[str] = _L.words("targets.record_marks")
RECORD_PLACES: frozenset[str] = _L.words("targets.record_places")
RECORD_FIELD_TAILS: frozenset[str] = _L.words("targets.record_field_tails")

# Texts typed, waited for or worked on.
APPEAR_PHRASES: tuple[str, ...] = _L.phrases("texts.appear_phrases")
TEXT_NOUNS: tuple[str, ...] = _L.phrases("texts.text_nouns")
GENERIC_TEXT_NOUNS: frozenset[str] = _L.words("texts.generic_text_nouns")
STYLE_WORDS: Mapping[str, str] = _L.names("texts.style_words")
STYLE_KEYS: Mapping[str, str] = _L.names("texts.style_keys")
COLOUR_VERBS: frozenset[str] = _L.words("texts.colour_verbs")
FIELD_NOUNS: frozenset[str] = _L.words("texts.field_nouns")
# No words at all are an empty object too ('copy', 'submit').
EMPTY_OBJECTS: frozenset[str] = _L.words("texts.empty_objects") | {""}
CASE_WORDS: Mapping[str, str] = _L.names("texts.case_words")
# Texts read off the screen to be typed: 'the value of Color', and where such a value lies
# relative to its name; 'the last word of the paragraph' (which word: first, ..., last).
VALUE_PHRASES: tuple[str, ...] = _L.phrases("texts.value_phrases")
VALUE_PLACES: tuple[str, ...] = _L.phrases("texts.value_places")
WORD_PHRASES: Mapping[str, str] = _L.names("texts.word_phrases")
VAGUE_READINGS: tuple[str, ...] = _L.phrases("texts.vague_readings")
EACH_LABEL_WORDS: tuple[str, ...] = _L.phrases("texts.each_label_words")
RELATIVE_WORDS: frozenset[str] = _L.words("texts.relative_words")
LIST_BOX_WORDS: tuple[str, ...] = _L.phrases("targets.list_box_words")
READ_PRONOUNS: frozenset[str] = frozenset(_L.phrases("texts.read_pronouns"))
NEXT_PAGE_WORDS: tuple[str, ...] = _L.phrases("targets.next_page_words")
PAGER_WORDS: tuple[str, ...] = _L.phrases("targets.pager_words")

# Resizing: which way a size goes, which size, the words that join the element to how, and
# the verbs that say it themselves ('enlarge': both larger).
GROW_WORDS: frozenset[str] = _L.words("sizes.grow")
SHRINK_WORDS: frozenset[str] = _L.words("sizes.shrink")
WIDTH_WORDS: frozenset[str] = _L.words("sizes.width")
HEIGHT_WORDS: frozenset[str] = _L.words("sizes.height")
SIZE_LINKS: tuple[str, ...] = _L.phrases("sizes.links")
SIZE_VERBS: Mapping[str, str] = _L.names("sizes.verbs")

# Counts and durations.
NUMBER_WORDS: Mapping[str, int] = _L.counts("numbers.words")
TIMES_WORDS: Mapping[str, int] = _L.counts("numbers.times")
TIME_UNITS: Mapping[str, float] = _L.amounts("numbers.time_units")
VAGUE_WAITS: Mapping[str, float] = _L.amounts("numbers.vague_waits")
SCROLL_AMOUNT_WORDS: Mapping[str, int] = _L.counts("numbers.scroll_amounts")

# Key names as people write them -> pyautogui key names.
MODIFIER_KEYS: Mapping[str, str] = _L.names("keys.modifiers")
KEYS: Mapping[str, str] = MappingProxyType({
    **_L.names("keys.names"), **{f"f{n}": f"f{n}" for n in range(1, _L.function_keys + 1)}})
KEY_SUFFIXES: tuple[str, ...] = _L.phrases("keys.suffixes")
KEY_SYMBOLS: Mapping[str, str] = _L.names("keys.symbols")
# Month names of a calendar's heading -> 1..12.
MONTHS: Mapping[str, int] = _L.counts("numbers.months")
# The harmless ways out of a dialog the task does not mention (planner/dialogs.py).
DIALOG_EXITS: frozenset[str] = _L.words("targets.dialog_exits")
DIALOG_ACKNOWLEDGEMENTS: frozenset[str] = _L.words("targets.dialog_acknowledgements")
# Names of a form's committing button ('press login' may click the form's one "OK").
COMMIT_WORDS: frozenset[str] = _L.words("targets.commit_words")
# 'scroll to the bottom of X': the end -> the direction that reaches it.
SCROLL_ENDS: Mapping[str, str] = _L.names("targets.scroll_ends")
