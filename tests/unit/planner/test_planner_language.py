"""The offline planner's language file: it validates, it covers every verb phrase with an
example, a broken copy is refused naming its line, and the README's table is made from it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from gui_agent.errors import ConfigError, PlanningError
from gui_agent.grounding.description import ROLE_NOUNS
from gui_agent.planner import vocabulary as vocab
from gui_agent.planner.clauses import match_verb, split_clauses
from gui_agent.planner.language import (
    LanguageFileError,
    language,
    load_language,
    parse_language,
    readme_table,
)
from gui_agent.planner.more_verbs import rewrite
from gui_agent.planner.verbs import VERB_KINDS, read_clause
from tests.support.paths import REPO

README = REPO / "README.md"
TEXT = resources.files("gui_agent.planner").joinpath("language.yaml").read_text(encoding="utf-8")


def _verb_of(clause) -> tuple[str, str] | None:
    """(verb kind, verb phrase as written, lower case) the clause starts with, after rewrites."""
    clause = rewrite(clause)
    found = match_verb(clause.tokens)
    if found is None:
        return None
    return found[0], " ".join(t.lower().rstrip(":") for t in clause.tokens[:found[1]])


def test_the_language_file_validates_and_is_loaded_once() -> None:
    lang = language()
    assert lang is language()
    assert parse_language(TEXT) == lang
    assert {v.kind for v in lang.verbs} <= VERB_KINDS, "a verb kind without a reader in verbs.py"
    assert all(v.examples for v in lang.verbs), [v.kind for v in lang.verbs if not v.examples]


def test_every_verb_phrase_has_an_example() -> None:
    used = set()
    for example in language().examples():
        for clause in split_clauses(example.phrasing):
            found = _verb_of(clause)
            if found:
                used.add(found[1])
    assert set(vocab.VERBS) - used == set()


def test_each_example_is_filed_under_the_verb_it_starts_with() -> None:
    for verb in language().verbs:
        for example in verb.examples:
            found = _verb_of(split_clauses(example.phrasing)[0])
            assert found and found[0] == verb.kind, example.where


def test_each_refusal_is_filed_under_the_verb_of_the_clause_refused() -> None:
    for verb in language().verbs:
        for refusal in verb.refusals:
            refused = []
            for clause in split_clauses(refusal.phrasing):
                try:
                    read_clause(clause)
                except PlanningError:
                    refused.append(_verb_of(clause))
            assert refused and refused[0] and refused[0][0] == verb.kind, refusal.where


def test_the_readme_table_is_generated_from_the_language_file() -> None:
    lines = README.read_text(encoding="utf-8").split("\n")
    top = lines.index("| you write | it does |")
    end = top + 2
    while end < len(lines) and lines[end].startswith("| `"):
        end += 1
    assert "\n".join(lines[top:end]) + "\n" == readme_table()


def test_the_vocabulary_is_immutable_and_its_role_words_are_the_grammars() -> None:
    with pytest.raises(TypeError):
        vocab.VERBS["frobnicate"] = "click"  # type: ignore[index]
    assert isinstance(vocab.ARTICLES, frozenset)
    assert "button" in vocab.ROLE_WORDS and "column" in vocab.ROLE_WORDS
    assert ROLE_NOUNS - {"text", "textarea", "listbox", "spinbox"} <= vocab.ROLE_WORDS
    assert {f"f{n}" for n in range(1, 25)} <= set(vocab.KEYS)


def _line_of(text: str, fragment: str) -> int:
    return text[:text.index(fragment)].count("\n") + 1


# (what is broken, the text replaced, its replacement, words the message must hold)
BROKEN = [
    ("a verb phrase of two verbs", "    phrases: [double click,", "    phrases: [click,",
     ["'click' of 'double_click' is already a phrase of 'click'"]),
    ("an unknown key", "  trailing_fillers:", "  trailing_filers:",
     ["unknown key 'trailing_filers'"]),
    ("a phrase in upper case", "  widget_nouns: [component,", "  widget_nouns: [Component,",
     ["'Component' is not lower case"]),
    ("a README phrasing without an example", "  - write: [clear the Name field]",
     "  - write: [clear the Nome field]", ["'clear the Nome field' is not an example"]),
    ("a count that is no number", "  times: {once: 1,", "  times: {once: one,",
     ["numbers.times.once", "not a whole number"]),
    ("a phrasing given twice", "      wait a moment: wait()", "      wait 2 seconds: wait()",
     ["'wait 2 seconds' is given twice"]),
    ("a role word the grammar does not know", "  not_role_words: [listbox,",
     "  not_role_words: [lisbox,", ["'lisbox' is not a one-word role word"]),
    ("a refusal naming nothing", "      fill the form: [fill the form, which field]",
     "      fill the form: []", ["must name at least one word"]),
    ("YAML that does not parse", "  suffixes: [keys, key]", "  suffixes: [keys, key",
     ["not valid YAML"]),
]


@pytest.mark.parametrize(("what", "old", "new", "words"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_copy_is_refused_naming_its_line(tmp_path: Path, what: str, old: str, new: str,
                                                  words: list[str]) -> None:
    assert TEXT.count(old) == 1, old
    broken = TEXT.replace(old, new)
    path = tmp_path / "language.yaml"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(LanguageFileError) as info:
        load_language(path)
    message = str(info.value)
    assert isinstance(info.value, ConfigError)
    for word in words:
        assert word in message, message
    if what != "YAML that does not parse":  # the parser names the line where it noticed
        assert message.startswith(f"{path}:{_line_of(TEXT, old)}: "), message


def test_an_empty_or_missing_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "language.yaml"
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(LanguageFileError, match="is empty"):
        load_language(empty)
    with pytest.raises(LanguageFileError, match="cannot be read"):
        load_language(tmp_path / "absent.yaml")
    with pytest.raises(LanguageFileError, match=r"language.yaml:1: .*missing 'verbs'"):
        parse_language("understood: click\n")
