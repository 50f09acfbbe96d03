"""Secrets a task names: found in many phrasings, never in ordinary tasks, masked in every form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_agent.memory.models import Skill, SkillParameter, SkillStep
from gui_agent.recording.secrets import is_secret_label
from gui_agent.replay.result import Masker, is_secret
from gui_agent.secrets import (
    MASK,
    SecretValues,
    TaskSecrets,
    chain,
    is_secret_name,
    mask_result,
    mask_step,
    masked_keyword,
    secret_env_var,
)
from gui_agent.trajectory import RunResult, StepLog, slugify

FOUND = [
    ("log in as ann with password Hunter3Secret", "Hunter3Secret"),
    ('log in as ann with password "p@ss word"', "p@ss word"),
    ("password: Hunter3Secret", "Hunter3Secret"),
    ("password=Hunter3Secret", "Hunter3Secret"),
    ("enter pin 1234 on the keypad", "1234"),
    ("call the service using the token abcdef123", "abcdef123"),
    ("the password is hunter2", "hunter2"),
    ("unlock it with the passphrase 'correct horse battery'", "correct horse battery"),
    ("passcode: 9876", "9876"),
    ("paste the api key sk-live_abcdefghijklmnop1234 into Settings", "sk-live_abcdefghijklmnop1234"),
    ("sign in with username dave and password letmein, then click OK", "letmein"),
    ("the password for ann is Hunter3Secret", "Hunter3Secret"),
    ("type the password “Hunter3Secret” into the Password field", "Hunter3Secret"),
    ("enter the pin code 4321", "4321"),
    ("log in as ann with password secret", "secret"),
    ("PASSWORD Hunter3Secret", "Hunter3Secret"),
    ("enter the password hunter2.", "hunter2"),
    ("set db_password=s3cr3tvalue in the form", "s3cr3tvalue"),
    ("with secret: swordfish", "swordfish"),
    ("log in with passwd `tr0ub4dor`", "tr0ub4dor"),
    ("the access token is eyJabc123def", "eyJabc123def"),
    # no keyword: what the safety policy's detector flags
    ("paste ghp_abcdefghijklmnopqrstuvwxyz into the box", "ghp_abcdefghijklmnopqrstuvwxyz"),
    ("pay with card 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("set key=sk-live_ABCDEFGHIJKLMNOP9876 in the config", "sk-live_ABCDEFGHIJKLMNOP9876"),
]

BENIGN = [
    "type the pin code hint into the Notes field",
    "open the password manager",
    "click Forgot password?",
    "type the password into the Password field",
    "reset my password",
    "enter the password and press Enter",
    "pin the note to the top",
    "pin notes.txt to the taskbar",
    "write a secret message to bob",
    "click the Show token button",
    "rename report.txt to final.txt",
    "go to the API key settings page",
    "the password field is empty",
    "log in as ann",
    "change the password policy in Settings",
    "fill the form with name Ann and age 42",
    "check that the password is correct",
    "make sure the pin is not shown",
    "the secret is out",
]


@pytest.mark.parametrize(("task", "secret"), FOUND)
def test_the_secret_a_task_names_is_found_and_masked(task, secret):
    secrets = TaskSecrets.from_task(task)
    assert secret in secrets.values
    masked = secrets.mask(task)
    assert secret not in masked and MASK in masked


def test_fifteen_or_more_phrasings_are_covered():
    assert len(FOUND) >= 15 and len({t.split()[0] for t, _ in FOUND}) >= 8


@pytest.mark.parametrize("task", BENIGN)
def test_an_ordinary_task_has_no_secret(task):
    secrets = TaskSecrets.from_task(task)
    assert not secrets and secrets.values == () and secrets.mask(task) == task


def test_two_secrets_in_one_task_and_the_longest_is_masked_first():
    secrets = TaskSecrets.from_task("log in with password abc123xyz and pin 9999, token abc123")
    assert set(secrets.values) >= {"abc123xyz", "9999"}
    assert SecretValues(("abc123", "abc123xyz")).mask("typed abc123xyz") == f"typed {MASK}"


def test_masking_covers_the_python_json_and_slug_forms():
    value = "it's \"q\" \\ p@ss"
    secrets = SecretValues((value,))
    action = f"type({value!r}, into='Password')"
    assert value not in secrets.mask(action) and secrets.mask(action) == f"type('{MASK}', into='Password')"
    as_json = json.dumps({"action": value})
    assert "p@ss" not in secrets.mask(as_json)
    slug = slugify(f"log in with {value}", limit=200)
    assert slugify(value, limit=200) in slug and "p-ss" not in secrets.mask(slug)


def test_a_digit_secret_is_not_masked_inside_a_longer_number():
    secrets = SecretValues(("1234",))
    assert secrets.mask("pin 1234, click (12345, 80)") == f"pin {MASK}, click (12345, 80)"


def test_a_masked_task_yields_nothing_new():
    masked = TaskSecrets.from_task("log in with password Hunter3Secret").mask(
        "log in with password Hunter3Secret")
    assert TaskSecrets.from_task(masked).values == ()


def _step(secret: str) -> StepLog:
    return StepLog(index=1, subtask=f"type {secret}", action=f"type({secret!r}, into='Password')",
                   outcome="ok", target=f"the field showing {secret}", why=f"the task gives {secret}",
                   error=f"oops {secret}", alternatives=(f"{secret} box", "other"), ocr_text=secret,
                   landmarks=((f"near {secret}", 10, 0),), expect=f"welcome {secret}",
                   before="shots/001-before.png", timings={"ground": 0.5}, point=(1, 2))


def test_mask_step_and_mask_result_mask_every_text_field_and_keep_file_names():
    secret = "Hunter3Secret"
    mask = TaskSecrets.from_task(f"log in with password {secret}").mask
    step = mask_step(_step(secret), mask)
    assert secret not in json.dumps(step.to_json())
    assert step.before == "shots/001-before.png" and step.point == (1, 2) and step.timings == {"ground": 0.5}
    assert step.landmarks == ((f"near {MASK}", 10, 0),)
    result = RunResult(task=f"log in with password {secret}", outcome="done", reason=f"done {secret}",
                       answer=secret, steps=(_step(secret),), run_dir=Path("/tmp/run"))
    masked = mask_result(result, mask)
    assert secret not in json.dumps(masked.to_json()) and masked.run_dir == Path("/tmp/run")
    assert masked.outcome == "done" and TaskSecrets.from_task(result.task).mask_result(result) == masked


def test_chain_applies_every_masker():
    both = chain(SecretValues(("alpha1",)).mask, None, SecretValues(("beta22",)))
    assert both("alpha1 beta22") == f"{MASK} {MASK}"


def test_the_keyword_before_a_mask_names_the_parameter():
    assert masked_keyword(f"log in with password {MASK}") == "password"
    assert masked_keyword(f"enter the pin code {MASK}") == "pin"
    assert masked_keyword(f"use the api key {MASK}") == "api_key"
    assert masked_keyword(f"the access token is {MASK}") == "token"
    assert masked_keyword("no secret here") is None
    assert secret_env_var("secret_password") == secret_env_var("password") == "GUI_AGENT_SECRET_PASSWORD"


def test_one_list_of_secret_words_for_labels_and_parameter_names():
    assert is_secret_name("secret_password") and is_secret_name("API key") and is_secret_name("Your PIN")
    assert is_secret_label("Access token") and is_secret_label("Passwort")
    assert not is_secret_name("passenger_name") and not is_secret_name("Spinner") and not is_secret_name("")
    assert not is_secret(SkillParameter("passenger"))   # was taken for a password ("pass...")
    assert is_secret(SkillParameter("user_pin")) and is_secret(SkillParameter("x", secret=True))


def test_the_replay_masker_also_masks_a_secret_written_as_a_python_literal():
    """Regression: a secret with a quote was logged in the escaped form the action text has."""
    skill = Skill("login", (SkillStep('type("{password}", into="Password")'),),
                  parameters=(SkillParameter("password", secret=True),))
    value = "it's\\ok"
    mask = Masker(skill, {"password": value})
    logged = mask(f"step 1 (type({value!r}, into='Password')): failed")
    assert "ok" not in logged and MASK in logged
    assert mask.fill({"password": value}) == {"password": MASK}


def test_a_run_folder_masks_its_name_its_record_and_an_extra_maskers_values(tmp_path):
    from gui_agent.trajectory import RunFolder, load_run

    task = 'log in with password "Hunter3 Secret" then use the skill'
    folder = RunFolder(tmp_path / "runs", task, masker=SecretValues(("skillSecret9",)))
    folder.append_step(StepLog(0, task, "type('Hunter3 Secret')", "ok", why="typed skillSecret9 too"))
    folder.finish(RunResult(task, "done", reason="done with skillSecret9", steps=()))
    written = "".join(p.read_text() for p in folder.path.glob("*.json*")) + folder.path.name
    assert "Hunter3" not in written and "hunter3" not in written and "skillSecret9" not in written
    back = load_run(folder.path)
    assert back.task == f'log in with password "{MASK}" then use the skill' and folder.task == back.task
    assert back.steps[0].action == f"type('{MASK}')" and back.reason == f"done with {MASK}"
