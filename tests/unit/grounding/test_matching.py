import pytest

from gui_agent.geometry import Box
from gui_agent.grounding.matching import levenshtein, match_text, normalize, ocr_fold, sub_box


def test_grades_are_ordered():
    exact = match_text("Save", "Save")
    case = match_text("save", "Save")
    punct = match_text("Email", "Email:")
    ocr = match_text("OK", "0K")
    fuzzy = match_text("Preferences", "Preferenses")
    partial = match_text("Save", "Save As")
    assert exact.score > case.score > punct.score > ocr.score > fuzzy.score
    assert partial.partial and partial.score < case.score


@pytest.mark.parametrize("query, text", [
    ("Bold", "8old"), ("Modem", "Modern"), ("Save", "5ave"), ("Hello", "HeIlo"), ("Window", "Wlndow"),
    ("wave", "vvave"), ("Open…", "Open..."), ("Name", "Name:"), ("Remember me", "Rememberme"),
])
def test_ocr_confusions_match(query, text):
    m = match_text(query, text)
    assert m is not None and m.score >= 0.9 and not m.partial


@pytest.mark.parametrize("query, text", [
    ("Cut", "Cat"), ("Delete", "Select"), ("Subscribe now", "Subscribe to newsletter"), ("OK", "Cancel"),
])
def test_different_words_do_not_match(query, text):
    assert match_text(query, text) is None


def test_partial_span_and_sub_box():
    line = "Do you want to save changes"
    m = match_text("changes", line)
    assert m.partial and line[m.start:m.end] == "changes"
    box = Box(100, 10, 270, 20)
    sub = sub_box(box, line, m.start, m.end)
    assert box.left + box.width * 0.6 < sub.center.x < box.right
    words = [Box(100 + 40 * i, 10, 35, 20) for i in range(6)]
    assert sub_box(box, line, m.start, m.end, words) == words[5]


def test_helpers():
    assert normalize("  Save   As… ") == "save as"
    assert ocr_fold("C0ntro1") == ocr_fold("Control")
    assert levenshtein("kitten", "sitting") == 3


# -- words OCR glued together, and what a match in a sentence is worth -------------------------

from gui_agent.grounding.text_evidence import is_mention, prose_factor  # noqa: E402


@pytest.mark.parametrize("text, word", [
    ("Egestas eleifend et lacus,.Ipsum", "Ipsum"),
    ("Malesuada enim. Diam.Vel amet,.", "Vel"),
])
def test_word_glued_to_punctuation_matches(text, word):
    m = match_text(word, text)
    assert m is not None and m.partial and text[m.start:m.end] == word


def test_capital_i_read_as_small_l_still_matches():
    assert match_text("Ipsum", "lpsum").grade == "ocr"
    m = match_text("Ipsum", 'Click on the link "lpsum".')
    assert m is not None and m.grade == "partial-ocr"


def test_prose_factor_falls_with_other_words_of_the_line():
    whole = prose_factor("Section #19", 0, 7)
    sentence = prose_factor("Expand the section below and", 11, 18)
    assert 1.0 > whole > sentence >= 0.8


@pytest.mark.parametrize("text, word, mention", [
    ('Click on the link "Cras".', "Cras", True),
    ("named \u201cKenda\u201d.", "Kenda", True),
    ('"Kenda"', "Kenda", True),
    ("Cras vitae nunc.", "Cras", False),
    ("Don't save", "Don't", False),
    ("Tab #2", "Tab #2", False),
])
def test_quoted_words_are_a_mention(text, word, mention):
    start = text.index(word)
    assert is_mention(text, start, start + len(word)) is mention


def test_a_symbol_is_found_in_a_row_of_keys_read_without_spaces():
    # a pager "1 2 3 >" or a keypad row "7 8 9 +" read as one run: each symbol is one key
    for query, text, at in ((">", "123>", 3), ("+", "789+", 3), (">", "１２З>", 3), ("»", "« 1 2 »", 6)):
        m = match_text(query, text)
        assert m is not None and m.partial and (m.start, m.end) == (at, at + 1), (query, text, m)
    assert match_text(">", "value > 3 and more") is not None   # a spaced symbol is a word
    assert match_text("+", "cats+dogs") is None                # words, not a row of keys
    assert match_text("3", "123>") is None                     # digits stay parts of numbers


def test_a_word_glued_to_an_icon_read_as_an_ideograph_is_found():
    # a tree's boxed plus read as "申" and glued to the item's name
    m = match_text("Joye", "申Joye")
    assert m is not None and m.partial and (m.start, m.end) == (1, 5)
    assert match_text("Joy", "申Joye") is None            # still whole words only
    assert match_text("ヘルプ", "ヘルプ") is not None


def test_a_handle_names_the_handle_more_than_the_bare_word():
    """'@malesuada' is a user's handle: a post by "@malesuada" beats a line that reads
    "Malesuada" alone (its sign may be unread), and a word of a sentence is no handle at all (the
    body "laoreet pellentesque." passed for the user @pellentesque, not on the screen)."""
    handle = match_text("@malesuada", "Tally @malesuada · 18h ago")
    alone = match_text("@malesuada", "Malesuada")
    assert handle is not None and alone is not None and handle.score > alone.score
    assert match_text("@malesuada", "Malesuada libero.") is None
    assert match_text("@pellentesque", "laoreet pellentesque.") is None
    assert match_text("@non", "Mooney © non · 1h ago") is not None     # its sign misread
    assert match_text("#42", "Issue #42").score > match_text("#42", "42").score
    assert match_text("#42", "Issue 42") is None


def test_a_word_of_a_path_or_compound_is_weaker_than_the_word_itself():
    """A link's URL shown in the browser's status bubble ("/.../phone-book") is no "phone"
    label: the word joined to others by '-' or '/' matches below the label "Phone:"."""
    path = match_text("phone", "/contacts/phone-book")
    label = match_text("phone", "Phone: 345-881-3581")
    assert path is not None and label is not None and label.score > path.score
    assert match_text("Load", "Save/Load") is not None          # still found where nothing else is
