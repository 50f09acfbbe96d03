"""The offline planner's reading of explicit instructions: phrasing -> actions (canonical text)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_agent.actions import format_action, parse_action
from gui_agent.errors import PlanningError
from gui_agent.planner.instruction_parser import (
    mask_quotes,
    parse_instructions,
    split_clauses,
    wanted_state,
)
from gui_agent.planner.phrases import parse_keys


def plan_text(task: str) -> str:
    """Subtasks separated by ' | ', the actions of one subtask by ' ; '."""
    return " | ".join(" ; ".join(format_action(a) for a in p.actions) for p in parse_instructions(task))


CASES = [
    # click and its kin; quoting styles
    ('click "OK"', 'click(\'"OK"\')'),
    ("click 'OK'", 'click(\'"OK"\')'),
    ("click \u201cOK\u201d", 'click(\'"OK"\')'),
    ("click \u2018OK\u2019", 'click(\'"OK"\')'),
    ("click Save", "click('Save')"),
    ("Click on Save", "click('Save')"),
    ("click the Save button", "click('the Save button')"),
    ("click on the 'Cancel' button", "click('the \"Cancel\" button')"),
    ('double-click "report.txt"', 'click(\'"report.txt"\', clicks=2)'),
    ("double click the folder icon", "click('the folder icon', clicks=2)"),
    ("right-click the file icon", "click('the file icon', button='right')"),
    ("right click on \"a.txt\"", 'click(\'"a.txt"\', button=\'right\')'),
    ('click "+" 3 times', 'click(\'"+"\') ; click(\'"+"\') ; click(\'"+"\')'),
    ('tap "Next"', 'click(\'"Next"\')'),
    # press: a button or a key
    ('press "OK"', 'click(\'"OK"\')'),
    ("press the Save button", "click('the Save button')"),
    ("press Submit", "click('Submit')"),
    ("press Enter", "hotkey('enter')"),
    ("hit Enter", "hotkey('enter')"),
    ("hit Tab", "hotkey('tab')"),
    ("press Ctrl+S", "hotkey('ctrl', 's')"),
    ("hit ctrl-shift-t", "hotkey('ctrl', 'shift', 't')"),
    ("press Alt F4", "hotkey('alt', 'f4')"),
    ("press the Escape key", "hotkey('esc')"),
    ("press Page Down", "hotkey('pagedown')"),
    ("press \u2318S", "hotkey('command', 's')"),
    ('press "ctrl+z"', "hotkey('ctrl', 'z')"),
    ("press Tab twice", "hotkey('tab') ; hotkey('tab')"),
    ("press Down 3 times", "hotkey('down') ; hotkey('down') ; hotkey('down')"),
    # select / choose / pick
    ('select "Blue" from Color', 'click(\'the Color dropdown\') ; click(\'"Blue"\')'),
    ("choose Blue in the Color dropdown", "click('the Color dropdown') ; click('\"Blue\"')"),
    ("pick Red from the Colour menu", "click('the Colour menu') ; click('\"Red\"')"),
    ("select the Advanced tab", "click('the Advanced tab')"),
    ("select the 2nd item in the list", "click('the 2nd item in the list')"),
    ("choose File > Save As", "click('File') ; click('Save As')"),
    ("select all", "hotkey('ctrl', 'a')"),
    # check / uncheck / tick / untick / expand / collapse / focus
    ('check "Remember me"', "click('the \"Remember me\" checkbox')"),
    ("tick Remember me", "click('the Remember me checkbox')"),
    ('uncheck "Send me offers"', "click('the \"Send me offers\" checkbox')"),
    ("untick the box next to Newsletter", "click('the box next to Newsletter')"),
    ("check the 2nd checkbox", "click('the 2nd checkbox')"),
    ('expand "Documents"', 'click(\'"Documents"\')'),
    ("collapse the Advanced section", "click('the Advanced section')"),
    ("focus the Name field", "click('the Name field')"),
    # type / enter / fill / write / input / clear
    ('type "Ann" into the Name field', "type('Ann', into='the Name field')"),
    ("type Ann into Name", "type('Ann', into='the Name field')"),
    ("enter Ann in Name", "type('Ann', into='the Name field')"),
    ("fill the Email field with a@b.c", "type('a@b.c', into='the Email field', clear=True)"),
    ('fill in Name with "Ann Lee"', "type('Ann Lee', into='the Name field', clear=True)"),
    ("write hello", "type('hello')"),
    ('input "42" into the Age box', "type('42', into='the Age box')"),
    ('type "x" and press Enter', "type('x', enter=True)"),
    ('type "Ann" into Name, then press Enter', "type('Ann', into='the Name field', enter=True)"),
    ("type hello world in the Search box", "type('hello world', into='the Search box')"),
    ("type I live in Paris", "type('I live in Paris')"),
    ('type "Zo\u00eb \u6771\u4eac" into Name', "type('Zo\u00eb \u6771\u4eac', into='the Name field')"),
    ("type \u201cHello, world\u201d into Message", "type('Hello, world', into='the Message field')"),
    ("type 'don't' into Name", "type(\"don't\", into='the Name field')"),
    ("type Mr. Smith into Name", "type('Mr. Smith', into='the Name field')"),
    ('type "a, b; c. d" into Notes', "type('a, b; c. d', into='the Notes field')"),
    ("clear the Name field", "type('', into='the Name field', clear=True)"),
    ("clear Name", "type('', into='the Name field', clear=True)"),
    # relations and ordinals pass through verbatim
    ('type "Ann" into the field right of Name', "type('Ann', into='the field right of Name')"),
    ("click the field right of Name", "click('the field right of Name')"),
    ("click the 2nd checkbox", "click('the 2nd checkbox')"),
    ("click the OK button in the Settings dialog", "click('the OK button in the Settings dialog')"),
    # open / launch
    ("open the File menu", "click('the File menu')"),
    ("open Settings", "click('Settings')"),
    ('open "Recent"', 'click(\'"Recent"\')'),
    ("open the Preferences dialog", "click('the Preferences dialog')"),
    ("open gedit", "open_app('gedit')"),
    ("open the app Calculator", "open_app('Calculator')"),
    ("open the Calculator app", "open_app('Calculator')"),
    ("launch firefox", "open_app('firefox')"),
    ("start gnome-calculator", "open_app('gnome-calculator')"),
    # scroll
    ("scroll down", "scroll('down')"),
    ("scroll down 5 times", "scroll('down', amount=5)"),
    ("scroll up four times", "scroll('up', amount=4)"),
    ("scroll up in the list", "scroll('up', at='the list')"),
    ("scroll the list down", "scroll('down', at='the list')"),
    ("scroll down by 10 in the left panel", "scroll('down', amount=10, at='the left panel')"),
    # drag / hover
    ('drag "a.txt" to "Trash"', 'drag(\'"a.txt"\', \'"Trash"\')'),
    ("drag X onto Y", "drag('X', 'Y')"),
    ('drag and drop "a" into "b"', 'drag(\'"a"\', \'"b"\')'),
    ("hover over the Help menu", "move('the Help menu')"),
    # wait
    ("wait 2 seconds", "wait(seconds=2.0)"),
    ("wait for 1.5s", "wait(seconds=1.5)"),
    ("wait 500 ms", "wait(seconds=0.5)"),
    ("wait two minutes", "wait(seconds=120.0)"),
    ("wait a moment", "wait()"),
    ("wait", "wait()"),
    # compound and small verbs
    ("log in as ann with password secret",
     "type('ann', into='the Username field', clear=True) ; "
     "type('secret', into='the Password field', clear=True) ; click('the Log in button')"),
    ('sign in with username "ann@x.com" and password "p w"',
     "type('ann@x.com', into='the Username field', clear=True) ; "
     "type('p w', into='the Password field', clear=True) ; click('the Sign in button')"),
    ("submit", "click('Submit')"),
    ("submit the form", "click('Submit')"),
    ("copy", "hotkey('ctrl', 'c')"),
    ("paste into Name", "click('the Name field') ; hotkey('ctrl', 'v')"),
    ("undo", "hotkey('ctrl', 'z')"),
    ("done", ""),
    # sequences
    ('click "OK", then press Enter', 'click(\'"OK"\') | hotkey(\'enter\')'),
    ("click OK then click Cancel", "click('OK') | click('Cancel')"),
    ("click OK and then click Cancel", "click('OK') | click('Cancel')"),
    ("click OK; click Cancel", "click('OK') | click('Cancel')"),
    ("Click OK. Then press Enter.", "click('OK') | hotkey('enter')"),
    ("click OK, click Cancel", "click('OK') | click('Cancel')"),
    ("click OK after that click Cancel", "click('OK') | click('Cancel')"),
    ('type "a" into Name, press Tab, finally click "Save"',
     'type(\'a\', into=\'the Name field\') | hotkey(\'tab\') | click(\'"Save"\')'),
    ("first click File\nthen click Save", "click('File') | click('Save')"),
    ("please click \"OK\" please", 'click(\'"OK"\')'),
    # "and": inside quotes, and before a word that is no verb, it stays in the phrase
    ('click "Terms and Conditions"', 'click(\'"Terms and Conditions"\')'),
    ('click "Save, then close"', 'click(\'"Save, then close"\')'),
    ("click Terms and Conditions", "click('Terms and Conditions')"),
    ("type Tom and Jerry", "type('Tom and Jerry')"),
    ("click OK and press Enter", "click('OK') | hotkey('enter')"),
    ("type Hello, world into Message", "type('Hello, world', into='the Message field')"),
    ('select "Blue" from Color and check "Remember me"',
     'click(\'the Color dropdown\') ; click(\'"Blue"\') | click(\'the "Remember me" checkbox\')'),
]


# Wider readings of English UI instructions (each a general reading, not a task's rule).
WIDER_CASES = [
    # a preposition after focus/click is not part of the target
    ("Focus into the textbox.", "click('the textbox')"),
    ("Focus into the 2nd input textbox.", "click('the 2nd input textbox')"),
    ("click in the Name field", "click('the Name field')"),
    # 'the <noun> "VALUE"': the noun describes the value (and names the field when none is given)
    ('Enter the password "JOZgP" into both text fields and press submit.',
     "type('JOZgP', into='the 1st text field') ; type('JOZgP', into='the 2nd text field') | "
     "click('submit')"),
    ('type "5" into the three text fields',
     "type('5', into='the 1st text field') ; type('5', into='the 2nd text field') ; "
     "type('5', into='the 3rd text field')"),
    ('Enter the username "nieves" and the password "DL" into the text fields and press login.',
     "type('nieves', into='the username field') ; type('DL', into='the password field') | "
     "click('login')"),
    ('Enter the username "ann", the password "pw", and press login.',
     "type('ann', into='the username field') ; type('pw', into='the password field') | click('login')"),
    ('fill in the username "a" and the password "b"',
     "type('a', into='the username field', clear=True) ; type('b', into='the password field', clear=True)"),
    ('Enter your email "a@b.c"', "type('a@b.c', into='the email field')"),
    ('type the text "hello" into Name', "type('hello', into='the Name field')"),
    ('Check the 3rd radio button, enter the number "-15" into the 1st textbox, and hit submit.',
     "click('the 3rd radio button') | type('-15', into='the 1st textbox') | click('submit')"),
    ("Enter 10/23/2012 as the date and hit submit.",
     "type('10/23/2012', into='the date field') | click('submit')"),
    ('Type "XYZ" in lower case letters in the text input and press Submit.',
     "type('xyz', into='the text input') | click('Submit')"),
    ('type "abc" in all caps', "type('ABC')"),
    # lists of items, and no item
    ("Select 81jioM, aPV, Tr3 and click Submit.",
     "click('\"81jioM\"') ; click('\"aPV\"') ; click('\"Tr3\"') | click('Submit')"),
    ("Select nothing and click Submit.", " | click('Submit')"),
    ("Tick Red, Green and Blue",
     "click('the Red checkbox') ; click('the Green checkbox') ; click('the Blue checkbox')"),
    ('tick "Red" and "Blue"', "click('the \"Red\" checkbox') ; click('the \"Blue\" checkbox')"),
    ("check Terms and Conditions", "click('the Terms and Conditions checkbox')"),
    ("Select Harriette from the list and click Submit.",
     "click('the list') ; click('\"Harriette\"') | click('Submit')"),
    ("Select Ashley, Emma from the scroll list", "click('\"Ashley\"') ; click('\"Emma\"')"),
    ("Select ewuF and click Submit.", "click('\"ewuF\"') | click('Submit')"),
    ("Select Leigh>Maddie>Vina", "click('Leigh') ; click('Maddie') ; click('Vina')"),
    # 'X by clicking Y' is Y; closing a dialog is clicking its close button
    ('Close the dialog box by clicking the "x".', "click('\"x\"')"),
    ("Close the dialog", "click('the close button')"),
    ("dismiss the alert", "click('the close button')"),
    ("close the Settings dialog", "click('the close button in the Settings dialog')"),
    ("Sort the table by clicking the Name column", "click('the Name column')"),
    # looking around plans nothing; 'find and click X' clicks X; a named element is its name
    ('Navigate through the file tree. Find and click on the folder or file named "Myron".',
     " | click('\"Myron\"')"),
    ('Switch between the tabs to find and click on the link "xyz".', " | click('the link \"xyz\"')"),
    ('Expand the pie menu below and click on the item labeled "m".',
     "click('the pie menu') | click('\"m\"')"),
    ('Choose 2 from the dropdown, then click the button labeled "Yes".',
     "click('the dropdown') ; click('\"2\"') | click('the button \"Yes\"')"),
    ("Click on the link labelled Lorem ipsum", "click('the link \"Lorem ipsum\"')"),
    ('Click the button in the dialog box labeled "x".', "click('\"x\"')"),
    ('open the file named "report.txt"', "click('\"report.txt\"', clicks=2)"),
    ('Click on a "textarea" widget.', "click('the text area')"),
    # number inputs are typed into
    ("Select 4 with the spinner and hit Submit.",
     "type('4', into='the spinner', clear=True) | click('Submit')"),
    ("set the Quantity field to 3", "type('3', into='the Quantity field', clear=True)"),
    # an unanchored place word is dropped; a sentence-final period never reaches a target
    ("Expand the section below and click submit.", "click('the section') | click('submit')"),
    ('Click the link labeled "Next" below', "click('the link \"Next\"')"),
    ("Click on Tab #2.", "click('Tab #2')"),
    ("Click the button.", "click('the button')"),
    ("Click Submit.", "click('Submit')"),
    ("Submit the form", "click('Submit')"),
    ('Click on the "OK" button.', "click('the \"OK\" button')"),
    ('Click on the link "Ipsum".', "click('the link \"Ipsum\"')"),
    ('Press the "Next" button', "click('the \"Next\" button')"),
    ('Type "abc" in the text box', "type('abc', into='the text box')"),
    ('Enter "Ann" into the text field and press Submit.', "type('Ann', into='the text field') | click('Submit')"),
    ('Check the box next to "Yes"', "click('the box next to \"Yes\"')"),
    ('Select "Blue" from the dropdown and click Submit', "click('the dropdown') ; click('\"Blue\"') | click('Submit')"),
    ("Choose Red from the menu", "click('the menu') ; click('\"Red\"')"),
    ("Click the 3rd link", "click('the 3rd link')"),
    ("Click button ONE, then click button TWO.", "click('button ONE') | click('button TWO')"),
    # copying the text of an area selects it first; 'use X to type Y' types into X
    ("Copy the text from the area below and paste it into the text box",
     "click('the area') ; hotkey('ctrl', 'a') ; hotkey('ctrl', 'c') | click('the text box') ; "
     "hotkey('ctrl', 'v')"),
    ("copy the text from the paragraph below", "click('the paragraph', clicks=3) ; hotkey('ctrl', 'c')"),
    ("Highlight the text in the paragraph below and click submit.",
     "click('the paragraph', clicks=3) | click('submit')"),
    ('Use the textbox to enter "xyz" and press "Search", then find and click the 7th search result.',
     "type('xyz', into='the textbox') | click('\"Search\"') | click('the 7th search result')"),
]


@pytest.mark.parametrize(("task", "expected"), WIDER_CASES, ids=[c[0][:40] for c in WIDER_CASES])
def test_wider_phrasing_becomes_actions(task: str, expected: str) -> None:
    assert plan_text(task) == expected


def test_a_rewritten_clause_keeps_its_text_as_written() -> None:
    (item,) = parse_instructions('Close the dialog box by clicking the "x".')
    assert item.text == 'Close the dialog box by clicking the "x"'
    first, second = parse_instructions("Navigate through the file tree. Click OK")
    assert (first.text, first.actions) == ("Navigate through the file tree", ())


@pytest.mark.parametrize(("task", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_phrasing_becomes_actions(task: str, expected: str) -> None:
    assert plan_text(task) == expected


def test_there_are_many_phrasings() -> None:
    assert len(CASES) >= 60


def test_every_action_round_trips_through_its_text_form() -> None:
    for task, _ in CASES:
        for item in parse_instructions(task):
            for action in item.actions:
                assert parse_action(format_action(action)) == action


def test_wait_for_text_sets_expect() -> None:
    (item,) = parse_instructions('wait for "Saved" to appear')
    assert item.expect == "Saved"
    assert [format_action(a) for a in item.actions] == ["wait()"]
    (item,) = parse_instructions("wait until the text Saved appears")
    assert item.expect == "Saved"
    (item,) = parse_instructions('check that "Saved" appears')
    assert (item.actions, item.expect) == ((), "Saved")


def test_clause_text_is_kept_as_written() -> None:
    items = parse_instructions("click \u201cOK\u201d, then  press Enter")
    assert [i.text for i in items] == ["click \u201cOK\u201d", "press Enter"]


def test_quotes_are_masked_and_apostrophes_are_not_quotes() -> None:
    masked, quotes = mask_quotes("type 'it's' and don't")
    assert quotes == (("it's", "'it's'"),)
    assert "don't" in masked
    assert len(split_clauses('click "a; b. c, then d"')) == 1


def test_parse_keys() -> None:
    assert parse_keys("Ctrl + Shift + Esc") == ("ctrl", "shift", "esc")
    assert parse_keys("cmd-s") == ("command", "s")
    assert parse_keys("the Return key") == ("enter",)
    assert parse_keys("Save") is None


def test_wanted_state_for_toggles() -> None:
    assert wanted_state('check "Remember me"') is True
    assert wanted_state("untick Newsletter") is False
    assert wanted_state("expand Documents") is True
    assert wanted_state('click "Remember me"') is None


ERRORS = [
    ("make it blue", ["make it blue", "no known action verb", "I understand: click"]),
    ("do my taxes", ["do my taxes", "'do'", "goal"]),
    ("frobnicate the widget", ["frobnicate the widget", "'frobnicate'"]),
    ("click", ['"click"', "what to click"]),
    ('type "unclosed', ["never closed"]),
    ("scroll sideways", ["scroll sideways", "direction"]),
    ("scroll down 500 times", ["'500 times'"]),
    ("press Tab Tab", ["press Tab Tab", "one key combination"]),
    ("press the Frob key", ["'Frob'", "key name"]),
    ("click OK then Cancel", ['"Cancel"', "'Cancel' is not one"]),
    ("drag the file", ["drag the file", "destination"]),
    ("wait for the weekend", ["'the weekend'"]),
    ("open report.txt", ["report.txt", "double-click"]),
    ("log in please as admin", ["log in", "password"]),
    ("copy the whole page", ["'the whole page'"]),
    ("done with everything", ["'with everything'"]),
    ("fill the form", ["fill the form", "which field"]),
    ("type \"\" into Name", ["empty"]),
    ("click \"\"", ["must not be empty"]),
    ("", ["empty"]),
    ("please", ["empty"]),
    ("click OK. and then... hmm", ['"hmm"']),
    ('type "Ann" into the Name field and "Lee" into Surname', ["'into the Name field and \"Lee\"'"]),
    ("drag the slider to the right", ["'the right' is a direction"]),
    ('type "a" into all text fields', ["cannot count 'all text fields'", "1st text field"]),
    ('type "a" into the text fields', ["several text fields", "both text fields"]),
    ('type the username "a" and the password "b" into the Name field', ["2 values but one field"]),
    ("Select words similar to grin, sad", ["'words similar to grin' is not a short item"]),
    ("Select 14 with the slider", ["slider is set by dragging"]),
    ("set the volume slider to 50", ["slider is set by dragging"]),
    ("set up my email", ["'set' without 'to'"]),
    ("close Firefox", ["close dialogs and windows", "Alt+F4"]),
    ('navigate through the tree to find "Myron"', ["is a goal", "click \"Myron\""]),
]


@pytest.mark.parametrize(("task", "fragments"), ERRORS, ids=[e[0][:30] or "empty" for e in ERRORS])
def test_what_it_cannot_understand_is_reported(task: str, fragments: list[str]) -> None:
    with pytest.raises(PlanningError) as info:
        parse_instructions(task)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message


def test_there_are_enough_error_cases() -> None:
    assert len(ERRORS) >= 10


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120))
def test_arbitrary_text_raises_only_planning_errors(text: str) -> None:
    with contextlib.suppress(PlanningError):
        parse_instructions(text)


_WORDS = st.sampled_from([
    "click", "type", "press", "and", "then", ",", ".", ";", '"', "'", "\u201c", "\u201d", "OK",
    "into", "in", "the", "Name", "field", "from", "select", "check", "wait", "for", "2", "s",
    "scroll", "down", "drag", "to", "log", "as", "password", "open", "menu", "Enter", "ctrl+s",
    "times", "twice", "with", "fill", "clear", "by", "app", "\n", "hover", "over", ">",
    "clicking", "both", "all", "fields", "use", "nothing", "spinner", "slider", "named", "below",
    "close", "navigate", "through", "find", "copy", "paste", "it", "as", "lower", "case", "set",
    "highlight", "list", "dialog", "box", "widget", "password", "two", "A>B", '"x"',
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_WORDS, max_size=14))
def test_instruction_like_text_raises_only_planning_errors(words: list[str]) -> None:
    try:
        for item in parse_instructions(" ".join(words)):
            for action in item.actions:
                assert parse_action(format_action(action)) == action
    except PlanningError:
        pass


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("go to Contacts and click the 3rd Edit button",
         "click('Contacts') | click('the 3rd Edit button')"),
        ("switch to the Settings tab", "click('the Settings tab')"),
        ('navigate to "Items"', "click('\"Items\"')"),
        ("go back to the Login tab", "click('the Login tab')"),
    ],
)
def test_go_to_clicks_what_it_names(task: str, expected: str) -> None:
    assert plan_text(task) == expected


def test_go_to_a_web_address_is_refused_plainly() -> None:
    with pytest.raises(PlanningError, match="web address"):
        parse_instructions("go to www.example.com")
