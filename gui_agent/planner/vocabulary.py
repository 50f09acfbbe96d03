"""The words the offline planner knows: verbs, key names, numbers, role words (data only)."""

from __future__ import annotations

# Verb phrase (lower case, words separated by one space) -> the handler that reads the clause.
# Longer phrases are tried first, so "double click" wins over "double" and "fill in" over "fill".
VERBS: dict[str, str] = {
    "click": "click", "click on": "click", "left click": "click", "left-click": "click",
    "double click": "double_click", "double-click": "double_click", "doubleclick": "double_click",
    "double click on": "double_click", "double-click on": "double_click",
    "triple click": "triple_click", "triple-click": "triple_click",
    "right click": "right_click", "right-click": "right_click", "rightclick": "right_click",
    "right click on": "right_click", "right-click on": "right_click",
    "context-click": "right_click",
    "middle click": "middle_click", "middle-click": "middle_click",
    "press": "press", "hit": "press", "tap": "press", "push": "press",
    "press on": "press", "tap on": "press",
    "select all": "select_all",
    "select": "select", "choose": "select", "pick": "select",
    "check": "check", "tick": "check", "uncheck": "uncheck", "untick": "uncheck",
    "check that": "verify", "verify": "verify", "verify that": "verify",
    "make sure": "verify", "make sure that": "verify", "ensure": "verify", "ensure that": "verify",
    "expand": "expand", "collapse": "collapse",
    "focus": "focus", "focus on": "focus", "focus into": "focus", "focus onto": "focus",
    "focus in": "focus", "click into": "click", "click onto": "click", "click inside": "click",
    "click in": "click",
    "type": "type", "type in": "type", "write": "type", "input": "type", "key in": "type",
    "enter": "enter",
    "fill": "fill", "fill in": "fill", "fill out": "fill",
    "clear": "clear",
    "open": "open", "launch": "launch", "start": "launch",
    "scroll": "scroll",
    "drag": "drag", "drag and drop": "drag",
    "hover": "hover", "hover over": "hover", "hover on": "hover", "mouse over": "hover",
    "move the mouse to": "hover", "move the mouse over": "hover",
    "move the cursor to": "hover", "move the pointer to": "hover",
    "wait": "wait", "wait for": "wait", "wait until": "wait", "pause": "wait", "sleep": "wait",
    "log in": "login", "login": "login", "log on": "login", "sign in": "login",
    "submit": "submit",
    "close": "close", "dismiss": "close",
    "navigate through": "browse", "navigate around": "browse", "navigate in": "browse",
    "navigate within": "browse", "browse": "browse", "browse through": "browse",
    "browse around": "browse", "look through": "browse", "look around": "browse",
    "explore": "browse", "switch between": "browse", "look at": "browse",
    "set": "set", "highlight": "highlight",
    "copy": "copy", "paste": "paste", "cut": "cut", "undo": "undo", "redo": "redo",
    "done": "done", "finish": "done", "stop": "done",
    "go to": "go_to", "switch to": "go_to", "navigate to": "go_to", "return to": "go_to",
    "go back to": "go_to",
}

# The verbs named in "I understand: ..." messages.
VERB_SUMMARY = (
    "click, double-click, right-click, press/hit/tap (a button or a key), select/choose/pick, "
    "check/uncheck/tick/untick, expand, collapse, focus, type/enter/fill/write/input, clear, "
    "open/launch, go to/switch to, scroll, drag, hover, wait, log in, submit, close/dismiss, "
    "set (a field or spinner), highlight, copy, paste, undo, done"
)

# Goals rather than steps: the offline planner politely declines them.
VAGUE_VERBS = frozenset({
    "do", "make", "help", "fix", "organize", "organise", "sort", "find", "search", "book",
    "buy", "order", "plan", "handle", "manage", "figure", "solve", "change", "go",
    "get", "create", "edit", "rename", "save", "delete", "remove", "send", "reply", "update",
    "install", "download", "upload", "prepare", "arrange", "tidy", "clean", "empty", "tell", "explain", "check out", "look", "i", "we", "can", "could", "would", "what",
    "how", "why",
})

# Words that may open a clause before its verb, or join two clauses.
LEADING_FILLERS = ("please", "kindly", "now", "first", "firstly", "next", "then", "finally",
                   "lastly", "also", "and", "after that", "afterwards", "and then",
                   "and finally", "once done", "after this")
TRAILING_FILLERS = ("please", "for me", "now")
# "Find and click X": a search that is done by the verb that follows; dropped before it.
SEARCH_LEADS = ("find and", "locate and", "look for and", "search for and", "go ahead and",
                "try to")

# Connectors that always end a clause, and ones that end it only when a known verb follows.
STRONG_CONNECTORS = ("and then", "and finally", "after that", "afterwards", "then", "finally",
                     "to find and", "in order to find and", "to locate and")
WEAK_CONNECTORS = ("and", "also", ",")
# A word ending with a full stop that does not end a sentence.
ABBREVIATIONS = frozenset({"mr.", "mrs.", "ms.", "dr.", "e.g.", "i.e.", "etc.", "vs.", "st.",
                           "no.", "jr.", "sr.", "approx."})

ARTICLES = frozenset({"the", "a", "an"})

# Words in a target description that name what kind of element it is (plural "s" allowed).
ROLE_WORDS = frozenset({
    "button", "btn", "field", "box", "textbox", "textfield", "input", "entry", "checkbox",
    "tickbox", "radio", "option", "tab", "dropdown", "drop-down", "combo", "combobox", "select",
    "menu", "link", "hyperlink", "icon", "label", "item", "list", "tree", "row", "cell",
    "column", "dialog", "dialogue", "window", "panel", "pane", "section", "toolbar", "sidebar",
    "area", "bar", "switch", "toggle", "slider", "spinner", "node",
})
# Role words after which "select X in <container>" means: open the drop-down, then pick X.
DROPDOWN_WORDS = frozenset({"dropdown", "drop-down", "combo", "combobox", "select", "menu",
                            "popup", "picker", "chooser"})
# Role words that make "open X" a click on something on the screen rather than an application.
OPEN_ON_SCREEN_WORDS = frozenset({
    "menu", "tab", "dialog", "dialogue", "window", "settings", "preferences", "options",
    "panel", "pane", "section", "page", "dropdown", "drop-down", "list", "folder", "link",
    "item", "submenu", "sidebar", "toolbar", "popup", "tray",
})
APP_WORDS = ("the application", "the app", "the program", "application", "app", "program")

# Phrases that make a description relational: it is passed on verbatim, never given a role.
RELATION_PHRASES = ("right of", "left of", "below", "above", "underneath", "under", "next to",
                    "near", "beside", "close to", "labelled", "labeled", "named", "called",
                    "for", "of")
# "wait for X to appear": the endings that make X a text to wait for.
APPEAR_PHRASES = ("to appear on the screen", "appears on the screen", "to appear", "appears",
                  "to show up", "shows up", "to be shown", "is shown", "to be visible",
                  "is visible", "to be displayed", "is displayed", "is on the screen", "shows",
                  "exists", "is there", "to load", "loads")
# "wait for the text X": leading words that are not part of X.
TEXT_NOUNS = ("the text", "the word", "the message", "the label", "text", "message")
# Words that may follow a verb without meaning anything ("copy it", "submit the form").
EMPTY_OBJECTS = frozenset({"", "it", "that", "this", "the text", "text", "the selection",
                           "selection", "the selected text", "the form", "form", "everything",
                           "all", "all text", "all the text"})

NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "a": 1, "an": 1, "a couple of": 2, "a few": 3, "several": 5,
}
TIMES_WORDS: dict[str, int] = {"once": 1, "twice": 2, "thrice": 3}
# Seconds per unit for "wait N <unit>".
TIME_UNITS: dict[str, float] = {
    "ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "msec": 0.001,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "m": 60.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
}
# "wait a moment", "wait a bit": how long a vague wait is.
VAGUE_WAITS: dict[str, float] = {
    "a moment": 1.0, "a bit": 1.0, "a little": 1.0, "a second": 1.0, "a sec": 1.0,
    "briefly": 1.0, "a while": 3.0, "a few seconds": 3.0,
}
SCROLL_AMOUNT_WORDS: dict[str, int] = {"a bit": 3, "a little": 3, "a lot": 10, "a page": 10}

# Key names as people write them -> pyautogui key names.
MODIFIER_KEYS: dict[str, str] = {
    "ctrl": "ctrl", "control": "ctrl", "ctl": "ctrl", "strg": "ctrl",
    "alt": "alt", "option": "alt", "opt": "alt", "altgr": "altright",
    "shift": "shift",
    "cmd": "command", "command": "command", "super": "win", "win": "win", "windows": "win",
    "meta": "win",
}
KEYS: dict[str, str] = {
    "enter": "enter", "return": "enter", "ret": "enter",
    "esc": "esc", "escape": "esc",
    "tab": "tab", "space": "space", "spacebar": "space", "space bar": "space",
    "backspace": "backspace", "back space": "backspace", "bksp": "backspace",
    "delete": "delete", "del": "delete", "insert": "insert", "ins": "insert",
    "home": "home", "end": "end",
    "pageup": "pageup", "page up": "pageup", "pgup": "pageup",
    "pagedown": "pagedown", "page down": "pagedown", "pgdn": "pagedown",
    "up": "up", "down": "down", "left": "left", "right": "right",
    "up arrow": "up", "down arrow": "down", "left arrow": "left", "right arrow": "right",
    "arrow up": "up", "arrow down": "down", "arrow left": "left", "arrow right": "right",
    "print screen": "printscreen", "printscreen": "printscreen", "prtsc": "printscreen",
    "caps lock": "capslock", "capslock": "capslock", "num lock": "numlock",
    "menu": "apps", "plus": "+", "minus": "-",
    **{f"f{n}": f"f{n}" for n in range(1, 25)},
}
KEY_SUFFIXES = ("keys", "key")
KEY_SYMBOLS = {"\u2318": "command", "\u2325": "alt", "\u21e7": "shift", "\u2303": "ctrl"}
# Where a drag would go that is a direction, not a place on the screen.
DIRECTIONS = frozenset({"right", "left", "up", "down", "top", "bottom", "the right", "the left",
                        "the top", "the bottom", "the end", "the start"})

# "close the dialog by clicking X": the -ing forms after "by" that name the real step.
ING_VERBS: dict[str, str] = {
    "clicking": "click", "clicking on": "click on", "double-clicking": "double-click",
    "double clicking": "double click", "right-clicking": "right-click", "tapping": "tap",
    "pressing": "press", "hitting": "hit", "pushing": "push", "typing": "type",
    "entering": "enter", "selecting": "select", "choosing": "choose", "picking": "pick",
    "checking": "check", "ticking": "tick", "unchecking": "uncheck", "scrolling": "scroll",
    "dragging": "drag", "filling in": "fill in", "filling": "fill", "hovering over": "hover over",
}
# Words that only say where a target is without an anchor ("the section below"): dropped.
UNANCHORED_PLACES = ("below", "above", "here", "there", "beneath", "underneath",
                     "on the page", "on this page", "on the screen", "on screen", "shown",
                     "provided")
# "the folder or file named X": the words that introduce an element's name.
NAMING_WORDS = ("named", "called", "labelled", "labeled", "titled", "entitled", "captioned",
                "that says", "which says", "saying", "reading", "with the text",
                "with the label", "with text", "with label")
# Words that end a name after "named"; with them the description is passed on as written.
NAME_STOP_WORDS = frozenset({"in", "on", "of", "at", "to", "next", "below", "above", "under",
                             "near", "inside", "within", "right", "left", "beside", "and"})
# Role words kept in front of a quoted name ('the link labelled X' -> 'the link "X"').
NAMED_ROLES = frozenset({
    "button", "link", "hyperlink", "tab", "checkbox", "check box", "radio", "radio button",
    "field", "text field", "textbox", "text box", "input", "dropdown", "menu", "icon",
})
# 'a "textarea" widget': a quoted kind followed by one of these means an element of that kind.
WIDGET_NOUNS = frozenset({"widget", "element", "control", "component"})
WIDGET_KINDS: dict[str, str] = {"text": "text field", "textarea": "text area", "input": "text field"}
# What a 'close' verb closes by its close button; the grounder knows the first group as
# containers ('the close button in the Settings dialog').
CLOSABLE_CONTAINERS = frozenset({"dialog", "dialogue", "window", "popup", "panel", "pane",
                                 "sidebar", "toolbar"})
CLOSABLE_OTHERS = frozenset({"pop-up", "modal", "alert", "message", "notification", "banner",
                             "overlay", "prompt", "box", "dialog box", "message box",
                             "alert box", "popup window", "pop-up window", "lightbox", "toast"})
# "the password "X"": nouns that only say what the typed text is, not where it goes.
GENERIC_TEXT_NOUNS = frozenset({"text", "word", "words", "phrase", "string", "value",
                                "characters", "letters", "sentence", "number", "following",
                                "following text", "answer", "term", "line"})
# Bare (article-less) nouns that may name a field before a quoted value: 'username "ann"'.
FIELD_NOUNS = frozenset({"username", "user name", "user", "password", "email", "e-mail",
                         "name", "first name", "last name", "address", "phone", "date", "time",
                         "code", "city", "country", "zip", "title", "comment", "query",
                         "search term", "message", "subject", "amount", "quantity", "age"})
POSSESSIVES = frozenset({"your", "my", "his", "her", "their", "our", "its"})
# "select nothing": a selection of no item.
NOTHING_WORDS = frozenset({"nothing", "none", "no items", "no item", "no checkboxes",
                           "no options", "none of them", "none of the items", "nothing at all"})
# Number inputs: set by typing into them ('select 4 with the spinner').
SPINNER_WORDS = frozenset({"spinner", "spinbox", "spin box", "spin button", "number field",
                           "number input", "number box", "stepper", "numeric field",
                           "numeric input"})
# Widgets that cannot be set by typing or clicking a name.
DRAG_WIDGETS = frozenset({"slider", "scrollbar", "scroll bar", "range", "knob", "dial"})
# Fields that hold editable text: 'copy the text from the text area' selects it with Ctrl+A.
EDITABLE_WORDS = frozenset({"area", "textarea", "field", "box", "textbox", "textfield",
                            "input", "entry", "editor"})
# "all/every/each text field": a count the offline planner cannot know.
UNCOUNTED_WORDS = frozenset({"all", "every", "each"})
# 'type "abc" in lower case letters': how the text is to be written.
CASE_WORDS: dict[str, str] = {"lower": "lower", "lowercase": "lower", "small": "lower",
                              "upper": "upper", "uppercase": "upper", "capital": "upper",
                              "capitals": "upper", "caps": "upper", "block": "upper"}
