"""Mining: episodes become skills (whole tasks, shortcuts), typed and task-named values parameters."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PIL import Image

from gui_agent.actions import Type, format_action, parse_action
from gui_agent.errors import ConfigError
from gui_agent.memory import Episode, EpisodeStep, MemoryStore, Skill, SkillParameter, SkillStep
from gui_agent.memory.mining import mine_skills, skill_from_episode, update_examples
from gui_agent.trajectory import RunResult, StepLog

ADD = 'type("{}", into="the New item field")'


def ep(eid: int, task: str, actions: list[str], outcome: str = "done", **per_step) -> Episode:
    """An episode whose steps are ok unless listed in per_step['failed'] (indexes)."""
    failed = per_step.get("failed", ())
    expects = per_step.get("expects", {})
    steps = []
    for i, text in enumerate(actions):
        target = parse_action(text).target
        steps.append(EpisodeStep(index=i, action=text, outcome="failed" if i in failed else "ok",
                                 target=None if target is None else str(target), box=(10, 20, 110, 40),
                                 ocr_text="New item" if "New item" in text else None,
                                 landmarks=(("Shopping", 0, -30),), expect=expects.get(i)))
    return Episode(id=eid, task=task, outcome=outcome, created_at=1000.0 + eid, steps=tuple(steps))


def add_item(eid: int, name: str, **kw) -> Episode:
    return ep(eid, f"add item {name}", [ADD.format(name), 'click("Add")'], **kw)


def signin(user: str, password: str) -> list[str]:
    return [format_action(Type(user, into="the Username field")),
            format_action(Type(password, into="the Password field")), 'click("Log in")']


def same_actions(rendered, episode: Episode) -> bool:
    wanted = [parse_action(s.action) for s in episode.steps if s.outcome == "ok"]
    return [parse_action(t) for t in rendered] == wanted


@pytest.fixture()
def store(tmp_path):
    with MemoryStore(tmp_path / "m.sqlite3") as s:
        yield s


def test_three_add_item_episodes_become_one_parameterised_skill(store):
    episodes = [add_item(1, "Bananas"), add_item(2, "Apples"), add_item(3, "Cherries")]
    [skill] = mine_skills(episodes, [], store=store)
    assert skill.name == "add item" and skill.source == "mined"
    assert [(p.name, p.kind, p.default) for p in skill.parameters] == [("new_item", "text", None)]
    assert skill.examples == ("add item Bananas", "add item Apples", "add item Cherries")
    assert [s.action for s in skill.steps] == ["type('{new_item}', into='the New item field')", "click('Add')"]
    assert skill.description == 'Type {new_item} into the New item field, click "Add"'
    assert skill.steps[0].target == "the New item field" and skill.steps[0].ocr_text == "New item"
    assert skill.steps[0].box == (10, 20, 110, 40) and skill.steps[0].landmarks == (("Shopping", 0, -30),)
    for episode, value in zip(episodes, ["Bananas", "Apples", "Cherries"], strict=True):
        assert same_actions(skill.render({"new_item": value}), episode)
    skill.check_actions()
    store.save_skill(skill)
    assert store.require_skill("add item").parameters == skill.parameters


def test_failed_episodes_and_failed_steps_are_not_mined(store):
    broken = ep(9, "add item Dates", [ADD.format("Dates"), 'click("Add")'], outcome="failed")
    assert mine_skills([add_item(1, "Bananas"), broken], [], store=store) == []
    retried = ep(2, "add item Apples", [ADD.format("Apples"), 'click("Ad")', 'click("Add")'], failed=(1,))
    [skill] = mine_skills([add_item(1, "Bananas"), retried, broken], [], store=store)
    assert skill.examples == ("add item Bananas", "add item Apples")
    assert same_actions(skill.render({"new_item": "Apples"}), retried)
    with pytest.raises(ConfigError, match="only a successful run"):
        skill_from_episode(broken, "dates", store=store)


def test_a_sign_in_inside_two_different_longer_tasks_becomes_a_shortcut(store):
    one = ep(1, "log in as ann and open Reports", signin("ann", "secret") + ['click("Reports")'])
    two = ep(2, "log in as bob and add milk", signin("bob", "hunter2") + [ADD.format("milk"), 'click("Add")'])
    [skill] = mine_skills([one, two], [], store=store)
    assert skill.name == "log in" and skill.examples == ()
    assert [p.name for p in skill.parameters] == ["username", "password"]
    assert skill.description == ('Type {username} into the Username field, type {password} into the Password '
                                 'field, click "Log in"')
    assert [parse_action(a) for a in skill.render({"username": "bob", "password": "hunter2"})] == \
        [parse_action(a) for a in signin("bob", "hunter2")]
    skill.check_actions()
    # A third task that is exactly the sign-in lends it its phrasing; still one skill.
    three = ep(3, "log in as cy", signin("cy", "pw"))
    [again] = mine_skills([one, two, three], [], store=store)
    assert again.examples == ("log in as cy",) and len(again.steps) == 3


def test_an_episode_repeating_an_existing_skill_updates_its_examples_instead_of_a_duplicate(store):
    [skill] = mine_skills([add_item(1, "Bananas"), add_item(2, "Apples")], [], store=store)
    store.save_skill(skill)
    existing = store.list_skills()
    more = [add_item(1, "Bananas"), add_item(2, "Apples"), add_item(3, "Dates"), add_item(4, "Figs")]
    [updated] = mine_skills(more, existing, store=store)
    assert updated.name == skill.name and updated.steps == existing[0].steps
    assert updated.examples == ("add item Bananas", "add item Apples", "add item Dates", "add item Figs")
    store.save_skill(updated, replace=updated.name in {s.name for s in existing})
    assert store.require_skill("add item").examples == updated.examples
    assert mine_skills(more, store.list_skills(), store=store) == []   # nothing new the second time
    assert update_examples([add_item(5, "Kiwis")], store.list_skills())[0].examples[-1] == "add item Kiwis"


def test_proposed_names_are_unique_against_existing_skills(store):
    other = Skill("add item", (SkillStep('click("Add")'), SkillStep('click("OK")')))
    [skill] = mine_skills([add_item(1, "Bananas"), add_item(2, "Apples")], [other], store=store)
    assert skill.name == "add item 2"
    twice = [ep(3, "add row 7", ['type("7", into="the Row field")', 'click("Add")']),
             ep(4, "add row 8", ['type("8", into="the Row field")', 'click("Add")'])]
    names = [s.name for s in mine_skills(twice + [add_item(1, "Bananas"), add_item(2, "Apples")], [other],
                                         store=store)]
    assert names == ["add item 2", "add row"]   # in the order of their first episodes


def test_numbers_become_number_parameters_and_other_texts_stay_text(store):
    qty = [ep(i, f"set the quantity to {n}", [f'type("{n}", into="the Quantity field")', 'click("Apply")'])
           for i, n in enumerate(["3", "12", "2.5"], 1)]
    [skill] = mine_skills(qty, [], store=store)
    assert [(p.name, p.kind) for p in skill.parameters] == [("quantity", "number")]
    assert skill.name == "set quantity"
    assert same_actions(skill.render({"quantity": 12}), qty[1])
    assert same_actions(skill.render({"quantity": "2.5"}), qty[2])
    padded = [ep(i, f"set the code to {n}", [f'type("{n}", into="the Code field")', 'click("Apply")'])
              for i, n in enumerate(["007", "3"], 5)]
    assert [p.kind for p in mine_skills(padded, [], store=store)[0].parameters] == ["text"]


def test_a_click_on_what_the_task_names_becomes_a_parameter_and_other_clicks_split(store):
    removes = [ep(i, f"remove {name} from the list", [f'click("{name}")', 'click("Remove")'])
               for i, name in enumerate(["Bananas", "Apples"], 1)]
    [skill] = mine_skills(removes, [], store=store)
    assert skill.name == "remove item" and [p.name for p in skill.parameters] == ["item"]
    assert skill.steps[0].action == "click('{item}')" and skill.steps[0].target == "{item}"
    assert skill.steps[0].box is None and skill.steps[0].landmarks == ()   # that element's look varies
    assert skill.steps[1].action == "click('Remove')" and skill.steps[1].box == (10, 20, 110, 40)
    assert same_actions(skill.render({"item": "Apples"}), removes[1])
    # The same clicks on things the tasks do not name are different procedures: nothing recurs.
    unnamed = [ep(i, f"remove the {n} one", [f'click("{name}")', 'click("Remove")'])
               for i, (n, name) in enumerate([("first", "Bananas"), ("second", "Apples")], 1)]
    assert mine_skills(unnamed, [], store=store) == []


def test_clicking_the_typed_value_reuses_its_parameter_and_post_text_is_templated(store):
    episodes = [ep(i, f"add {name} and tick it", [ADD.format(name), 'click("Add")', f'click("{name}")'],
                   expects={1: f"{name} added"}) for i, name in enumerate(["Kiwi", "Lime", "Plum"], 1)]
    [skill] = mine_skills(episodes, [], store=store)
    assert [p.name for p in skill.parameters] == ["new_item"]
    assert skill.steps[2].action == "click('{new_item}')"
    assert skill.steps[1].post_text == "{new_item} added"
    assert same_actions(skill.render({"new_item": "Lime"}), episodes[1])
    single = skill_from_episode(episodes[0], "add and tick", store=store)   # one run shows it too
    assert single.steps[2].action == "click('{new_item}')" and same_actions(single.render(), episodes[0])
    assert same_actions(single.render({"new_item": "Plum"}), episodes[2])


def test_skill_from_episode_replays_the_run_as_is_with_typed_text_as_defaults(store, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    Image.new("RGB", (80, 20), (30, 90, 200)).save(run / "crop-0.png")
    texts = signin("ann", 'it\'s "quoted"') + ['type("42", into="the Age field")', 'click("Save")']
    logs = tuple(StepLog(index=i, subtask="sign in", action=t, outcome="ok", target=str(parse_action(t).target),
                         box=(5, 5, 85, 25), crop="crop-0.png" if i == 0 else None, expect="Welcome" if i == 2
                         else None) for i, t in enumerate(texts))
    store.record_episode(RunResult(task="log in as ann", outcome="done", steps=logs, run_dir=run))
    [episode] = store.episodes()
    skill = skill_from_episode(episode, "my login", store=store)
    assert (skill.name, skill.source, skill.examples) == ("my login", "manual", ("log in as ann",))
    assert [(p.name, p.kind, p.default) for p in skill.parameters] == [
        ("username", "text", "ann"), ("password", "text", 'it\'s "quoted"'), ("age", "number", 42.0)]
    assert same_actions(skill.render(), episode)
    assert skill.steps[4].action == "click('Save')"                       # one run: clicks stay literal
    assert Path(skill.steps[0].crop).is_file() and Path(skill.steps[0].crop).is_absolute()
    assert skill.steps[1].crop is None and skill.steps[2].post_text == "Welcome"
    skill.check_actions()
    store.save_skill(skill)
    saved = store.require_skill("my login")
    assert saved.steps[0].crop.startswith("crops/") and same_actions(saved.render(), episode)
    described = skill_from_episode(episode, "other", store=store, description="Sign in as usual")
    assert described.description == "Sign in as usual"


def test_skill_from_episode_refuses_what_cannot_be_a_skill(store):
    with pytest.raises(ConfigError, match="no successful steps"):
        skill_from_episode(ep(1, "look", ['click("A")'], failed=(0,)), "look", store=store)
    with pytest.raises(ConfigError, match="braces"):
        skill_from_episode(ep(2, "odd", ['type("x", into="the {weird} field")']), "odd", store=store)
    with pytest.raises(ConfigError, match="invalid skill name"):
        skill_from_episode(add_item(3, "Figs"), "!bad", store=store)


def test_mining_is_deterministic_and_checks_its_threshold(store):
    episodes = [add_item(1, "Bananas"), add_item(2, "Apples"),
                ep(3, "log in as ann and open Reports", signin("ann", "s") + ['click("Reports")']),
                ep(4, "log in as bob and add milk", signin("bob", "t") + [ADD.format("milk"), 'click("Add")'])]
    first = mine_skills(episodes, [], store=store)
    assert [s.name for s in first] == ["add item", "log in"]
    assert mine_skills(list(reversed(episodes)), [], store=store) == first
    assert [s.name for s in mine_skills(episodes[:1], [], store=store, min_support=1)] == ["add item"]
    with pytest.raises(ConfigError, match="min_support"):
        mine_skills(episodes, [], store=store, min_support=0)
    for skill in first:
        skill.check_actions()
    renamed = dataclasses.replace(first[1], name="sign in")
    assert [s.name for s in mine_skills(episodes, [renamed], store=store)] == ["add item"]


def test_instruction_like_tasks_are_named_from_their_steps_and_described_in_plain_words(store):
    def run(eid: int, name: str) -> Episode:
        return ep(eid, f'type "{name}" into the Name field, then save', [
            format_action(Type(name, into="the Name field", enter=True)), "hotkey('ctrl', 's')",
            "scroll('down', at='the list')", "click('Save', clicks=2)", "wait(0.5)"])

    [skill] = mine_skills([run(1, "Ann"), run(2, "Bob")], [], store=store)
    assert skill.name == "save name"
    assert skill.description == ("Type {name} into the Name field and press Enter, press Ctrl+S, "
                                 'scroll down over the list, double-click "Save", wait 0.5 s')


def test_values_that_do_not_fit_a_skills_parameters_do_not_count_as_that_skill(store):
    qty = [ep(i, f"set the quantity to {n}", [f'type("{n}", into="the Quantity field")', 'click("Apply")'])
           for i, n in enumerate(["3", "4"], 1)]
    [skill] = mine_skills(qty, [], store=store)
    many = ep(7, "set the quantity to many", ['type("many", into="the Quantity field")', 'click("Apply")'])
    assert update_examples([many], [skill]) == []
    assert update_examples([ep(8, "make it 9", ['type("9", into="the Quantity field")', 'click("Apply")'])],
                           [skill])[0].examples == ("set the quantity to 3", "set the quantity to 4", "make it 9")


def test_a_save_hotkey_names_the_skill_after_saving_where_it_happened() -> None:
    from gui_agent.memory.wording import name_from_steps

    skill = Skill("x", (SkillStep("click('the Editor tab')"), SkillStep("type('{text}')"),
                        SkillStep("hotkey('ctrl', 's')"), SkillStep("type('{text2}', enter=True)")),
                  parameters=(SkillParameter("text"), SkillParameter("text2")))
    assert name_from_steps(skill) == "save in editor"


def test_a_quoted_target_is_quoted_once_in_the_description() -> None:
    from gui_agent.memory.wording import describe

    skill = Skill("x", (SkillStep("click('\"Items\"')"), SkillStep("click('Add')")))
    assert describe(skill) == 'Click "Items", click "Add"'
