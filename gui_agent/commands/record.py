"""`gui-agent record NAME` and `gui-agent compile DEMO`: teach a skill by demonstration."""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from .. import say
from .skills import add_memory_flag, memory_path


def add_record_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("record", help="record a demonstration with your mouse and keyboard, "
                       "compile it into a skill", description=(
                           "Record what you do on the screen (mouse, keyboard, and a screenshot "
                           "before and after each input) into a demonstration folder, then compile "
                           "it into a skill saved in the memory. Stop with the stop hotkey or Ctrl+C. "
                           "Text typed into password fields is kept only as a secret parameter."))
    p.add_argument("name", help="the skill's name (also the demonstration's)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="the demonstration folder (default: <user data dir>/recordings/NAME-DATE-TIME)")
    p.add_argument("--stop-hotkey", metavar="KEYS",
                   help="key combination that ends the recording, pynput style (default: the "
                   "stop_hotkey setting, <ctrl>+<alt>+<esc>)")
    p.add_argument("--secret-field", action="append", default=[], metavar="LABEL",
                   help="treat text typed into the field labelled LABEL as a secret; repeatable "
                   "(password, passcode and PIN fields always are)")
    p.add_argument("--secret-hotkey", metavar="KEYS",
                   help="a key combination that marks the text being typed (or typed next) as secret")
    p.add_argument("--monitor", type=int, help="monitor to record: 1, 2, ... (default: the monitor setting)")
    p.add_argument("--max-seconds", type=float, metavar="N", help="stop recording after N seconds")
    p.add_argument("--no-compile", action="store_true", help="only record; compile later with `gui-agent compile`")
    p.add_argument("--replace", action="store_true", help="replace a skill of the same name")
    add_memory_flag(p)

    p = sub.add_parser("compile", help="compile a demonstration folder into a skill",
                       description="Turn a recorded demonstration into an anchored skill (targets, "
                       "image crops, landmarks, parameters, postconditions) and save it in the memory.")
    p.add_argument("demo", type=Path, help="the demonstration folder (holds meta.json and events.jsonl)")
    p.add_argument("--name", help="the skill's name (default: the demonstration's)")
    p.add_argument("--replace", action="store_true", help="replace a skill of the same name")
    p.add_argument("--json", action="store_true", help="print the skill as JSON")
    add_memory_flag(p)


def _default_folder(name: str) -> Path:
    from .. import user_data_dir

    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "demo"
    return user_data_dir() / "recordings" / f"{slug}-{time.strftime('%Y%m%d-%H%M%S')}"


def _save_and_print(skill, store, replace: bool, as_json: bool) -> None:  # noqa: ANN001
    from .skills import _print_skill, _skill_json

    store.save_skill(skill, replace=replace)
    saved = store.require_skill(skill.name)
    if as_json:
        say(json.dumps(_skill_json(saved), indent=2))
        return
    say(f"saved skill {saved.name!r} in {store.path}")
    _print_skill(saved)
    secrets = [p.name for p in saved.parameters if p.name.startswith("secret_")]
    if secrets:
        say("secret parameters (no value stored): " + ", ".join(
            f"{n} (--param {n}=... or GUI_AGENT_SECRET_{n.removeprefix('secret_').upper()})" for n in secrets))


def _check_free(store, name: str, replace: bool) -> None:  # noqa: ANN001
    from .. import SkillNameTaken, check_skill_name

    name = check_skill_name(name)
    if not replace and store.skill(name) is not None:
        raise SkillNameTaken(name)


def record_command(args: argparse.Namespace) -> int:
    from .. import MemoryStore, Recorder, compile_demo, load_settings
    from .run import print_wayland_notice

    settings = load_settings()
    folder = args.out or _default_folder(args.name)
    stop_hotkey = args.stop_hotkey or settings.stop_hotkey
    with MemoryStore(memory_path(args, settings)) as store:
        if not args.no_compile:
            _check_free(store, args.name, args.replace)
        print_wayland_notice()  # what is recorded is what the agent can see and drive
        recorder = Recorder(folder, args.name, stop_hotkey=stop_hotkey, secret_fields=args.secret_field,
                            secret_hotkey=args.secret_hotkey, monitor=args.monitor or settings.monitor,
                            max_seconds=args.max_seconds)

        def ready() -> None:
            say(f"Recording {args.name!r} into {folder}. Do the task now; press {stop_hotkey} "
                "(or Ctrl+C here) to stop.", flush=True)

        demo = recorder.record(on_ready=ready)
        secrets = [p.name for p in demo.meta.parameters if p.secret]
        say(f"Recorded {len(demo.events)} event(s) in {demo.meta.duration:.1f}s "
            f"(stopped: {demo.meta.stop_reason}).")
        for event in demo.events:
            say(f"  {event.index}. {event.describe()}")
        if secrets:
            say("secret (not stored): " + ", ".join(secrets))
        for error in recorder.errors:
            say(f"warning: {error}")
        if args.no_compile:
            say(f"compile it with: gui-agent compile {folder}")
            return 0
        skill = compile_demo(demo, name=args.name)
        _save_and_print(skill, store, args.replace, as_json=False)
    return 0


def compile_command(args: argparse.Namespace) -> int:
    from .. import MemoryStore, compile_demo, load_demo, load_settings

    settings = load_settings()
    demo = load_demo(args.demo)
    with MemoryStore(memory_path(args, settings)) as store:
        _check_free(store, args.name or demo.meta.name, args.replace)
        skill = compile_demo(demo, name=args.name)
        _save_and_print(skill, store, args.replace, as_json=args.json)
    return 0
