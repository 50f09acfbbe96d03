"""The offline planner's language, read from ``language.yaml`` (data, shipped in the package).

:func:`language` loads and checks the file once; :mod:`.vocabulary` exposes its words as the
frozen sets, tuples and mappings the readers use. A bad entry is refused with its file and
line ("language.yaml:12: ..."), never half-read. :func:`readme_table` renders the README's
"you write | it does" table from the same file, so the table cannot drift from the examples.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import cast

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import ConfigError
from ..grounding.description import CONTAINER_NOUNS, ROLE_NOUNS, ROLE_WORDS, WEAK_ROLE_WORDS

FILE_NAME = "language.yaml"
ELLIPSIS = " \u2026"  # 'tick …' in the README: the verb alone, its examples are elsewhere


class LanguageFileError(ConfigError):
    """The language file is invalid; the message names the file and line of the bad entry."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class Example:
    """A phrasing and what it plans (canonical actions; see the file's header)."""

    phrasing: str
    plan: str
    where: str  # "language.yaml:LINE"


@dataclass(frozen=True)
class Refusal:
    """A phrasing that must be refused, and words its error message must contain."""

    phrasing: str
    names: tuple[str, ...]
    where: str


@dataclass(frozen=True)
class Verb:
    """A verb kind: the phrases that start its clauses, its examples and its refusals."""

    kind: str
    phrases: tuple[str, ...]
    examples: tuple[Example, ...] = ()
    refusals: tuple[Refusal, ...] = ()


@dataclass(frozen=True)
class ReadmeRow:
    writes: tuple[str, ...]
    does: str


# The word lists of the file: "section.name" -> shape. Phrases keep their order (it matters
# where the first match wins); word sets do not.
PHRASES, WORDS, NAMES, COUNTS, AMOUNTS = "phrases", "words", "names", "counts", "amounts"
SCHEMA: dict[str, str] = {
    "vague_verbs": WORDS,
    "clauses.leading_fillers": PHRASES, "clauses.trailing_fillers": PHRASES,
    "clauses.search_leads": PHRASES, "clauses.strong_connectors": PHRASES,
    "clauses.weak_connectors": PHRASES, "clauses.abbreviations": WORDS,
    "clauses.continuation_words": WORDS, "clauses.purpose_objects": WORDS,
    "rewrites.ing_verbs": NAMES,
    **{f"targets.{name}": WORDS for name in (
        "articles", "possessives", "more_role_words", "not_role_words", "named_roles",
        "dropdown_words", "open_on_screen_words", "name_stop_words", "widget_nouns",
        "closable_containers", "closable_others", "nothing_words", "spinner_words",
        "drag_widgets", "editable_words", "uncounted_words", "directions", "menu_nouns",
        "menu_prepositions", "tree_words", "record_marks", "record_places", "record_field_tails",
        "dialog_exits", "dialog_acknowledgements", "commit_words")},
    "targets.next_page_words": PHRASES, "targets.pager_words": PHRASES, "targets.list_box_words": PHRASES,
    **{f"targets.{name}": PHRASES for name in (
        "app_words", "relation_phrases", "unanchored_places", "naming_words")},
    "targets.widget_kinds": NAMES, "targets.scroll_ends": NAMES,
    "texts.appear_phrases": PHRASES, "texts.text_nouns": PHRASES,
    "texts.generic_text_nouns": WORDS, "texts.field_nouns": WORDS, "texts.empty_objects": WORDS,
    "texts.case_words": NAMES, "texts.value_phrases": PHRASES, "texts.vague_readings": PHRASES,
    "texts.relative_words": WORDS, "texts.each_label_words": PHRASES,
    "texts.value_places": PHRASES, "texts.word_phrases": NAMES, "texts.read_pronouns": PHRASES,
    "texts.style_words": NAMES, "texts.style_keys": NAMES, "texts.colour_verbs": WORDS,
    "sizes.grow": WORDS, "sizes.shrink": WORDS, "sizes.width": WORDS, "sizes.height": WORDS,
    "sizes.links": PHRASES, "sizes.verbs": NAMES,
    "numbers.words": COUNTS, "numbers.times": COUNTS, "numbers.time_units": AMOUNTS,
    "numbers.vague_waits": AMOUNTS, "numbers.scroll_amounts": COUNTS, "numbers.months": COUNTS,
    "keys.modifiers": NAMES, "keys.names": NAMES, "keys.suffixes": PHRASES,
    "keys.symbols": NAMES,
}
_TOP = ("understood", "verbs", "vague_verbs", "clauses", "rewrites", "targets", "texts",
        "sizes", "numbers", "keys", "readme")
_SECTION_EXTRAS = {"clauses": ("examples", "refused"), "keys": ("function_keys",)}
_KIND = re.compile(r"[a-z][a-z_]*")


@dataclass(frozen=True)
class Language:
    """The checked contents of the language file."""

    understood: str
    verbs: tuple[Verb, ...]
    clause_examples: tuple[Example, ...]
    clause_refusals: tuple[Refusal, ...]
    readme: tuple[ReadmeRow, ...]
    lists: Mapping[str, object] = field(repr=False)  # "section.name" -> its value (SCHEMA)
    function_keys: int = 0

    @property
    def verb_phrases(self) -> Mapping[str, str]:
        """Verb phrase -> verb kind."""
        return MappingProxyType({p: v.kind for v in self.verbs for p in v.phrases})

    def examples(self) -> Iterator[Example]:
        """Every example of the file: each verb's, then the clause-cutting ones."""
        for verb in self.verbs:
            yield from verb.examples
        yield from self.clause_examples

    def refusals(self) -> Iterator[Refusal]:
        for verb in self.verbs:
            yield from verb.refusals
        yield from self.clause_refusals

    def phrases(self, name: str) -> tuple[str, ...]:
        return cast("tuple[str, ...]", self._get(name, PHRASES))

    def words(self, name: str) -> frozenset[str]:
        return cast("frozenset[str]", self._get(name, WORDS))

    def names(self, name: str) -> Mapping[str, str]:
        return cast("Mapping[str, str]", self._get(name, NAMES))

    def counts(self, name: str) -> Mapping[str, int]:
        return cast("Mapping[str, int]", self._get(name, COUNTS))

    def amounts(self, name: str) -> Mapping[str, float]:
        return cast("Mapping[str, float]", self._get(name, AMOUNTS))

    def _get(self, name: str, shape: str) -> object:
        if SCHEMA.get(name) != shape:
            raise KeyError(f"{name!r} is not a list of {shape} in the language file")
        return self.lists[name]


@functools.cache
def language() -> Language:
    """The planner's language, loaded from the package's data file once."""
    text = resources.files(__package__).joinpath(FILE_NAME).read_text(encoding="utf-8")
    return parse_language(text, FILE_NAME)


def load_language(path: Path | str) -> Language:
    """Load and check a language file (a copy being edited, in tests)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LanguageFileError(str(path), f"cannot be read: {exc}") from exc
    return parse_language(text, str(path))


def parse_language(text: str, name: str = FILE_NAME) -> Language:
    """Check the text of a language file and return its contents."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise LanguageFileError(f"{name}:{line}", f"not valid YAML: {problem}") from exc
    return _Reader(name).language(root)


class _Reader:
    """Turns the composed YAML nodes into a Language, naming the line of every problem."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.readme_writes: list[ScalarNode] = []

    def at(self, node: Node) -> str:
        return f"{self.name}:{node.start_mark.line + 1}"

    def fail(self, node: Node, problem: str) -> LanguageFileError:
        return LanguageFileError(self.at(node), problem)

    def mapping(self, node: Node, what: str, keys: tuple[str, ...] | None = None,
                required: tuple[str, ...] = ()) -> dict[str, tuple[Node, Node]]:
        """key -> (key node, value node); duplicate and (with ``keys``) unknown keys refused."""
        if not isinstance(node, MappingNode):
            raise self.fail(node, f"{what} must be a mapping")
        out: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node, f"a key of {what}")
            if key in out:
                first = self.at(out[key][0])
                raise self.fail(key_node, f"{what}: {key!r} is given twice (first at {first})")
            if keys is not None and key not in keys:
                raise self.fail(key_node, f"{what}: unknown key {key!r} (known: {', '.join(keys)})")
            out[key] = (key_node, value_node)
        missing = [k for k in required if k not in out]
        if missing:
            raise self.fail(node, f"{what}: missing {', '.join(repr(k) for k in missing)}")
        return out

    def scalar(self, node: Node, what: str) -> str:
        if not isinstance(node, ScalarNode):
            raise self.fail(node, f"{what} must be a single value, not a list or mapping")
        return str(node.value)

    def sequence(self, node: Node, what: str) -> list[Node]:
        if not isinstance(node, SequenceNode):
            raise self.fail(node, f"{what} must be a list")
        return list(node.value)

    def phrase(self, node: Node, what: str) -> str:
        value = self.scalar(node, what)
        if not value or value != value.lower() or " ".join(value.split()) != value:
            raise self.fail(node, f"{what}: {value!r} is not lower case words separated by "
                                  "single spaces")
        return value

    def number(self, node: Node, what: str, kind: type[int] | type[float]) -> float:
        value = self.scalar(node, what)
        try:
            number = kind(value)
        except ValueError:
            expected = "a whole number" if kind is int else "a number"
            raise self.fail(node, f"{what}: {value!r} is not {expected}") from None
        if not math.isfinite(number) or number < 0:
            raise self.fail(node, f"{what}: {value!r} must be a number from 0 up")
        return number

    # -- the file ------------------------------------------------------------------------

    def language(self, root: Node | None) -> Language:
        if root is None:
            raise LanguageFileError(f"{self.name}:1", "the file is empty")
        top = self.mapping(root, "the language file", _TOP, _TOP)
        understood = " ".join(self.scalar(top["understood"][1], "understood").split())
        lists: dict[str, object] = {}
        for section in dict.fromkeys(name.split(".")[0] for name in SCHEMA if "." in name):
            self.section(section, top[section][1], lists)
        lists["vague_verbs"] = self.word_list(top["vague_verbs"][1], "vague_verbs", WORDS)
        verbs = self.verbs(top["verbs"][1])
        clauses = self.mapping(top["clauses"][1], "clauses")
        examples = self.examples(clauses["examples"][1], "clauses.examples")
        refusals = self.refusals(clauses["refused"][1], "clauses.refused")
        keys = self.mapping(top["keys"][1], "keys")
        function_keys = int(self.number(keys["function_keys"][1], "keys.function_keys", int))
        readme = self.readme(top["readme"][1])
        found = Language(understood, verbs, examples, refusals, readme,
                         MappingProxyType(lists), function_keys)
        self.check(found, top)
        return found

    def section(self, section: str, node: Node, lists: dict[str, object]) -> None:
        names = tuple(n.split(".", 1)[1] for n in SCHEMA if n.startswith(section + "."))
        extras = _SECTION_EXTRAS.get(section, ())
        entries = self.mapping(node, section, names + extras, names + extras)
        for name in names:
            path = f"{section}.{name}"
            lists[path] = self.word_list(entries[name][1], path, SCHEMA[path])

    def word_list(self, node: Node, path: str, shape: str) -> object:
        if shape in (PHRASES, WORDS):
            items = [(item, self.phrase(item, path)) for item in self.sequence(node, path)]
            seen: dict[str, Node] = {}
            for item, value in items:
                if value in seen:
                    raise self.fail(item, f"{path}: {value!r} is given twice")
                seen[value] = item
            values = [value for _, value in items]
            return tuple(values) if shape == PHRASES else frozenset(values)
        entries = self.mapping(node, path)
        out: dict[str, object] = {}
        for key, (key_node, value_node) in entries.items():
            self.phrase(key_node, path)
            if shape == NAMES:
                value = self.scalar(value_node, f"{path}.{key}")
                if not value:
                    raise self.fail(value_node, f"{path}.{key} is empty")
                out[key] = value
            else:
                kind = int if shape == COUNTS else float
                out[key] = self.number(value_node, f"{path}.{key}", kind)
        return MappingProxyType(out)

    def verbs(self, node: Node) -> tuple[Verb, ...]:
        verbs: list[Verb] = []
        owner: dict[str, tuple[str, Node]] = {}
        for kind, (key_node, value_node) in self.mapping(node, "verbs").items():
            if not _KIND.fullmatch(kind):
                raise self.fail(key_node, f"verb kind {kind!r} must be lower case letters and '_'")
            what = f"verbs.{kind}"
            entry = self.mapping(value_node, what, ("phrases", "examples", "refused"), ("phrases",))
            phrases = self.sequence(entry["phrases"][1], f"{what}.phrases")
            if not phrases:
                raise self.fail(entry["phrases"][1], f"{what}.phrases is empty")
            for item in phrases:
                phrase = self.phrase(item, f"{what}.phrases")
                if phrase in owner:
                    other, first = owner[phrase]
                    raise self.fail(item, f"verb phrase {phrase!r} of {kind!r} is already a phrase "
                                          f"of {other!r} ({self.at(first)})")
                owner[phrase] = (kind, item)
            examples = entry.get("examples")
            refused = entry.get("refused")
            verbs.append(Verb(
                kind, tuple(self.scalar(p, what) for p in phrases),
                self.examples(examples[1], f"{what}.examples") if examples else (),
                self.refusals(refused[1], f"{what}.refused") if refused else (),
            ))
        return tuple(verbs)

    def examples(self, node: Node, what: str) -> tuple[Example, ...]:
        entries = self.mapping(node, what).items()
        return tuple(Example(phrasing, self.scalar(plan, f"{what}: {phrasing!r}"), self.at(key))
                     for phrasing, (key, plan) in entries)

    def refusals(self, node: Node, what: str) -> tuple[Refusal, ...]:
        out: list[Refusal] = []
        for phrasing, (key_node, value) in self.mapping(node, what).items():
            names = tuple(self.scalar(n, f"{what}: {phrasing!r}") for n in self.sequence(
                value, f"{what}: {phrasing!r} (the words its message names)"))
            if not names or not all(names):
                raise self.fail(value, f"{what}: {phrasing!r} must name at least one word of "
                                       "its message, none empty")
            out.append(Refusal(phrasing, names, self.at(key_node)))
        return tuple(out)

    def readme(self, node: Node) -> tuple[ReadmeRow, ...]:
        rows: list[ReadmeRow] = []
        for item in self.sequence(node, "readme"):
            row = self.mapping(item, "a readme row", ("write", "does"), ("write", "does"))
            nodes = self.sequence(row["write"][1], "readme.write")
            writes = tuple(self.scalar(w, "readme.write") for w in nodes)
            self.readme_writes.extend(w for w in nodes if isinstance(w, ScalarNode))
            does = " ".join(self.scalar(row["does"][1], "readme.does").split())
            if not writes or not does:
                raise self.fail(item, "a readme row needs phrasings to 'write' and what it 'does'")
            rows.append(ReadmeRow(writes, does))
        return tuple(rows)

    # -- checks across entries -------------------------------------------------------------

    def check(self, found: Language, top: dict[str, tuple[Node, Node]]) -> None:
        seen: dict[str, str] = {}
        for item in (*found.examples(), *found.refusals()):
            if item.phrasing in seen:
                raise LanguageFileError(item.where, f"the phrasing {item.phrasing!r} is given "
                                                    f"twice (first at {seen[item.phrasing]})")
            seen[item.phrasing] = item.where
        examples = {e.phrasing for e in found.examples()}
        for write in self.readme_writes:
            text = write.value
            verb = text.removesuffix(ELLIPSIS) if text.endswith(ELLIPSIS) else None
            if text not in examples and (verb is None or verb not in found.verb_phrases):
                raise self.fail(write, f"the README phrasing {text!r} is not an example of this "
                                       "file (nor a verb phrase followed by ' \u2026')")
        targets = self.mapping(top["targets"][1], "targets")
        grammar = frozenset({*ROLE_WORDS, *WEAK_ROLE_WORDS})
        for name, allowed, problem in (
            ("not_role_words", ROLE_NOUNS,
             "is not a one-word role word of the description grammar"),
            ("named_roles", grammar, "is not a role phrase of the description grammar"),
            ("closable_containers", frozenset(CONTAINER_NOUNS),
             "is not a container noun of the description grammar"),
        ):
            for item in self.sequence(targets[name][1], f"targets.{name}"):
                if item.value not in allowed:
                    raise self.fail(item, f"targets.{name}: {item.value!r} {problem}")
        for item in self.sequence(targets["more_role_words"][1], "targets.more_role_words"):
            if item.value in ROLE_NOUNS:
                raise self.fail(item, f"targets.more_role_words: {item.value!r} is already a "
                                      "role word of the description grammar")


def readme_table() -> str:
    """The README's "What the offline planner understands" table, rendered from the file."""
    lines = ["| you write | it does |", "| --- | --- |"]
    for row in language().readme:
        lines.append(f"| {', '.join(f'`{w}`' for w in row.writes)} | {row.does} |")
    return "\n".join(lines) + "\n"
