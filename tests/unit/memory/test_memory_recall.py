"""Skill retrieval: tokens and masking, parameter filling, the confidence rules, the benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_agent.bench.retrieval import evaluate, format_report, load_dataset
from gui_agent.errors import ConfigError
from gui_agent.memory.models import Skill, SkillParameter, SkillStats, SkillStep
from gui_agent.memory.parameter_filling import fill_parameters, skill_entry
from gui_agent.memory.recall import SkillIndex
from gui_agent.memory.task_words import content_terms, stem, tokenize


def make(name: str, examples: list[str], params: tuple[SkillParameter, ...] = (),
         steps: tuple[str, ...] | None = None, description: str = "", flagged: bool = False) -> Skill:
    steps = steps or tuple(f"type('{{{p.name}}}', into='the {p.name} field')" for p in params) \
        or ("click('the OK button')",)
    stats = SkillStats(runs=4, successes=1, recent=(False, False, False, True)) if flagged else SkillStats()
    return Skill(name=name, steps=tuple(SkillStep(action=a) for a in steps), description=description,
                 parameters=params, examples=tuple(examples), stats=stats)


LOGIN = make("log_in", ["log in as ann with password secret", 'sign in as "bob" with password "hunter2"'],
             (SkillParameter("username"), SkillParameter("password")),
             steps=("type('{username}', into='the Username field')",
                    "type('{password}', into='the Password field')", "click('the Log in button')"))
ADD_ITEM = make("add_item", ['add an item named "Apples"', 'add "Milk" to the shopping list'],
                (SkillParameter("item"),))
RETRIES = make("set_retries", ["set retries to 5", "change the retry count to 2"],
               (SkillParameter("retries", kind="number"),))
COLOR = make("set_accent_color", ["set the accent color to Blue", 'change the colour to "Green"'],
             (SkillParameter("color", kind="choice", choices=("Red", "Green", "Blue", "Yellow")),))
FOLDER = make("new_folder", ['create a new folder named "Invoices"',
                             "make a folder called Photos in the file manager"], (SkillParameter("folder"),))
SAVE_AS = make("save_file_as", ["save the file as notes.txt", 'save the document under the name "a.md"'],
               (SkillParameter("filename"),))
NAME_FIELD = make("set_name", ['type "Bob" into the Name field'], (SkillParameter("name"),))


# --- tokens and masking

def test_tokenize_kinds_and_quotes() -> None:
    toks = tokenize('Add “Green tea” to notes.txt, mail ann@x.org 3 times; don\'t \'skip\' it')
    kinds = [(t.kind, t.text) for t in toks]
    assert ("quote", "Green tea") in kinds and ("file", "notes.txt") in kinds
    assert ("email", "ann@x.org") in kinds and ("num", "3") in kinds and ("quote", "skip") in kinds
    assert ("word", "don't") in kinds
    assert [t.kind for t in tokenize("retries to 5.")] == ["word", "word", "num"]


def test_stemming_plurals_ing_ed() -> None:
    assert stem("items") == stem("item") and stem("retries") == stem("retry")
    assert stem("saving") == stem("saved") == stem("save")
    assert stem("logged") == stem("log") and stem("editing") == stem("edit")
    assert stem("settings") == "setting" and stem("setting") != stem("set")
    assert stem("press") == stem("click")


def test_content_terms_mask_values_and_stopwords() -> None:
    assert content_terms('please type "Bob" into the Name field 3 times') == ["typ", "nam", "field", "tim"]


def test_index_masks_example_values_but_keeps_loose_quotes() -> None:
    terms = skill_entry(LOGIN).terms
    assert "ann" not in terms and "secret" not in terms and "hunter2" not in terms
    assert {"log", "password", "sign"} <= set(terms)
    loose = skill_entry(make("log_in_click", ['type "x" into the Username field, then click "Log in"'],
                        (SkillParameter("username"),))).terms
    assert "x" not in loose and "log" in loose  # "Log in" fills nothing: it stays as words


# --- parameter filling

@pytest.mark.parametrize(("skill", "task", "expected"), [
    (ADD_ITEM, 'add an item named "Pears"', {"item": "Pears"}),
    (ADD_ITEM, "add an item called Pears", {"item": "Pears"}),
    (ADD_ITEM, "add ‘Kiwi’ to the shopping list", {"item": "Kiwi"}),
    (LOGIN, "log in as joe with password pa55", {"username": "joe", "password": "pa55"}),
    (LOGIN, 'sign in with password "pw" as "ann"', {"username": "ann", "password": "pw"}),
    (LOGIN, 'type "lee" into the Username field, type "qw" into the Password field',
     {"username": "lee", "password": "qw"}),
    (LOGIN, 'sign in with user name "kim" and password "x9"', {"username": "kim", "password": "x9"}),
    (RETRIES, "set retries to 7", {"retries": 7.0}),
    (RETRIES, "change the retry count to 0 in the advanced settings", {"retries": 0.0}),
    (COLOR, "make the accent colour yellow", {"color": "Yellow"}),
    (COLOR, 'set the color to "blue"', {"color": "Blue"}),
    (SAVE_AS, "please save this file under the name minutes.txt", {"filename": "minutes.txt"}),
])
def test_fill_parameters(skill: Skill, task: str, expected: dict) -> None:
    assert fill_parameters(skill, task) == expected


@pytest.mark.parametrize(("skill", "task"), [
    (LOGIN, "log in as ann"),                       # no password
    (ADD_ITEM, "add an item"),                      # nothing to add
    (RETRIES, "set the retries to many"),           # not a number
    (COLOR, "set the accent color to Purple"),      # not one of the choices
])
def test_fill_parameters_none_when_a_required_value_is_missing_or_unfit(skill: Skill, task: str) -> None:
    assert fill_parameters(skill, task) is None


def test_parameter_with_default_may_stay_unfilled() -> None:
    search = make("web_search", ['search the web for "cats"'],
                  (SkillParameter("query"), SkillParameter("pages", kind="number", default=2)))
    assert fill_parameters(search, 'search the web for "dogs"') == {"query": "dogs", "pages": 2.0}
    assert fill_parameters(search, 'search the web for "dogs" with pages 4') == {"query": "dogs", "pages": 4.0}


# --- confidence

def test_confident_run_with_values_and_why() -> None:
    index = SkillIndex([LOGIN, ADD_ITEM, RETRIES, COLOR, FOLDER, SAVE_AS])
    best = index.best('add an item named "Oranges"')
    assert best is not None and best.skill.name == "add_item" and best.values == {"item": "Oranges"}
    assert best.why.startswith("run:") and "\n" not in best.why
    ranked = index.rank('add an item named "Oranges"', limit=3)
    assert len(ranked) == 3 and ranked[0].score >= ranked[1].score >= ranked[2].score
    assert not any(r.confident for r in ranked[1:])


def test_flagged_skill_is_never_confident() -> None:
    bad = make("empty_trash", ["empty the trash"], flagged=True)
    index = SkillIndex([bad, LOGIN])
    top = index.rank("empty the trash")[0]
    assert top.skill.name == "empty_trash" and not top.confident and "flagged" in top.why
    assert index.best("empty the trash") is None


def test_email_field_does_not_run_a_skill_learned_on_the_name_field() -> None:
    index = SkillIndex([NAME_FIELD])
    assert index.best('type "Ann" into the Name field').values == {"name": "Ann"}
    near_miss = index.rank('type "Ann" into the Email field')[0]
    assert not near_miss.confident and "'email'" in near_miss.why
    assert index.best('type "Ann" into the Email field') is None


@pytest.mark.parametrize(("task", "reason"), [
    ("set retries to 5 and wait 3 seconds", "no parameter for the value '3'"),   # a second value
    ("log in as ann", "no value for password"),                                 # partial task
    ("set the accent color to Purple", "must be one of"),                        # unfit choice
    ("create a new file named notes.txt", "names a 'file'"),                     # another kind of thing
    ('add "Milk" to the shopping list in Excel', "'excel'"),                     # another application
    ('do not add "Milk" to the shopping list', "'not'"),                          # negation is content
    ("add 3 items to the list", "no value for item"),                           # a count, not an item
])
def test_near_misses_are_not_run(task: str, reason: str) -> None:
    index = SkillIndex([LOGIN, ADD_ITEM, RETRIES, COLOR, FOLDER, SAVE_AS])
    top = index.rank(task)[0]
    assert not top.confident and reason in top.why, top.why
    assert index.best(task) is None


def test_two_equally_good_skills_are_too_close_to_run() -> None:
    twin = make("add_item_copy", list(ADD_ITEM.examples), (SkillParameter("item"),))
    index = SkillIndex([ADD_ITEM, twin])
    top = index.rank('add an item named "Pears"')[0]
    assert not top.confident and "too close" in top.why


def test_low_score_is_not_run() -> None:
    index = SkillIndex([make("lock_screen", ["lock the screen", "lock my computer"],
                             description="lock the desktop session")])
    top = index.rank("screen brightness calibration wizard")[0]
    assert not top.confident and "under" in top.why


def test_empty_index_and_empty_task() -> None:
    assert SkillIndex([]).rank("lock the screen") == [] and SkillIndex([]).best("x") is None
    assert SkillIndex([LOGIN]).rank("  ...  ") == []


# --- the benchmark

def _percent(rate: float) -> float:
    """A rate as the README quotes it: a percentage with one decimal."""
    return round(rate * 100, 1)


def test_retrieval_benchmark_quality_gate() -> None:
    """The README's figures for `gui-agent bench retrieval`, at their quoted values: 94 phrasings
    (13 skills, 30 near misses, 18 held out); top-1 98.4 %, parameters 100 %, 0 false runs,
    2 missed runs; held out: top-1 91.7 %, 0 false runs."""
    report = evaluate()
    why = format_report(report)
    assert (report.overall.cases, report.skills, report.held_out.cases) == (94, 13, 18)
    assert sum(r.case.skill is None for r in report.results) == 30
    assert _percent(report.overall.top1) >= 98.4, why
    assert report.overall.parameters == 1.0 and report.overall.wrong_value_runs == 0, why
    assert report.overall.false_runs == 0, why
    assert report.overall.missed_runs <= 2, why
    assert _percent(report.held_out.top1) >= 91.7, why
    assert report.held_out.false_runs == 0, why
    text = format_report(report)
    assert "held out" in text and "false runs" in text


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ds.yaml"
    path.write_text(text, encoding="utf-8")
    return path


SKILL_YAML = """skills:
  - name: lock_screen
    steps:
      - {step}
cases:
  - {{task: lock the screen, skill: {label}}}
"""


def test_dataset_errors_name_file_and_line(tmp_path: Path) -> None:
    ok = write(tmp_path, SKILL_YAML.format(step="hotkey('super', 'l')", label="lock_screen"))
    skills, cases = load_dataset(ok)
    assert skills[0].name == "lock_screen" and cases[0].skill == "lock_screen"
    with pytest.raises(ConfigError, match=r"ds\.yaml:6: unknown skill 'lock'"):
        load_dataset(write(tmp_path, SKILL_YAML.format(step="hotkey('super', 'l')", label="lock")))
    with pytest.raises(ConfigError, match=r"ds\.yaml:4: write the step in canonical form: hotkey\('super', 'l'\)"):
        load_dataset(write(tmp_path, SKILL_YAML.format(step='hotkey("super","l")', label="none")))
    with pytest.raises(ConfigError, match="not an action"):
        load_dataset(write(tmp_path, SKILL_YAML.format(step="jump('x')", label="none")))
    with pytest.raises(ConfigError, match="no such retrieval dataset"):
        load_dataset(tmp_path / "missing.yaml")


def test_quoted_values_win_over_a_word_after_a_parameter_name() -> None:
    """Regression (bench skills): a parameter named `text` took 'area' from 'the text area'."""
    skill = Skill("save in editor", (SkillStep("click('the text area')"), SkillStep("type('{text}')"),
                                     SkillStep("hotkey('ctrl', 's')"), SkillStep("type('{text2}', enter=True)")),
                  parameters=(SkillParameter("text"), SkillParameter("text2")),
                  examples=('click the Editor tab, click the text area, type "first note", then press Ctrl+S, '
                            'type "a.txt" and press Enter',))
    task = ('click the Editor tab and click the text area, type "fifth one", press Ctrl+S, then type "e.txt" '
            'and press Enter')
    assert fill_parameters(skill, task) == {"text": "fifth one", "text2": "e.txt"}


def test_a_secret_parameter_is_filled_from_its_environment_variable(monkeypatch) -> None:
    skill = Skill("log in", (SkillStep("type('{username}', into='the Username field')"),
                             SkillStep("type('{secret_password}', into='the Password field')"),
                             SkillStep("click('\"Log in\"')")),
                  parameters=(SkillParameter("username", default="ann"), SkillParameter("secret_password", secret=True)),
                  description="Log in with the Username and Password fields", examples=("log in",))
    monkeypatch.delenv("GUI_AGENT_SECRET_PASSWORD", raising=False)
    assert fill_parameters(skill, "log in") is None
    monkeypatch.setenv("GUI_AGENT_SECRET_PASSWORD", "hunter2")
    assert fill_parameters(skill, "log in") == {"username": "ann", "secret_password": "hunter2"}


# --- the decision thresholds (MIN_SCORE 0.35, MIN_MARGIN 0.05): each case sits between the
# threshold and a materially moved one, so moving the threshold flips a decision below.

LOCK = make("lock_screen", ["lock the screen", "lock my computer"],
            description="lock the desktop session and dim the display")
LOCK_SCREEN = make("lock_screen", ["lock the screen", "lock the computer screen"],
                   description="lock the desktop")
LOCK_COMPUTER = make("lock_computer", ["lock the computer", "lock the computer screen"],
                     description="lock the computer")


def test_a_weak_match_under_the_minimum_score_is_not_run() -> None:
    """Every word is the skill's, nothing objects: only the score (0.27) keeps it from running;
    a minimum cut to 0.20 would run it. A score of 0.44 does run (a minimum of 0.45 would not)."""
    index = SkillIndex([LOCK])
    weak = index.rank("desktop session dim display")[0]
    assert 0.22 < weak.score < 0.33, weak.score
    assert not weak.confident and "under" in weak.why, weak.why
    fair = index.rank("computer desktop")[0]
    assert 0.38 < fair.score < 0.46, fair.score
    assert fair.confident, fair.why


def test_a_lead_under_the_minimum_margin_is_not_run() -> None:
    """Two skills share every word of the task: a lead of 0.04 is too close to run (a margin cut
    to 0.03 or less would run it); a lead of 0.09 runs (a margin of 0.10 would not)."""
    index = SkillIndex([LOCK_SCREEN, LOCK_COMPUTER])
    close = index.rank("lock the computer screen", 2)
    lead = close[0].score - close[1].score
    assert 0.03 < lead < 0.045 and close[0].score > 0.9, (lead, close[0].score)
    assert not close[0].confident and "too close" in close[0].why, close[0].why
    ahead = index.rank("lock the computer desktop screen", 2)
    lead = ahead[0].score - ahead[1].score
    assert 0.06 < lead < 0.1, lead
    assert ahead[0].skill.name == "lock_screen" and ahead[0].confident, ahead[0].why
