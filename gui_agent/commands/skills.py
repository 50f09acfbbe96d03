"""`gui-agent skills list|show|rename|rm|export|import`: manage the skill library."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import say

if TYPE_CHECKING:
    from .. import Settings


def add_memory_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--memory", type=Path, metavar="PATH",
                   help="the memory database (default: the memory_path setting, else $GUI_AGENT_MEMORY "
                        "or <user data dir>/memory.sqlite3)")


def memory_path(args: argparse.Namespace, settings: Settings | None = None) -> Path:
    """The database a command works on: --memory, else the memory_path setting (what runs use)."""
    if getattr(args, "memory", None):
        return args.memory
    from .. import default_memory_path, load_settings

    settings = settings or load_settings()
    return settings.memory_path or default_memory_path()


def add_skills_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("skills", help="list, show, rename, remove, export and import skills",
                       description="Manage the skills in the experience memory. Errors (an unknown "
                       "skill, a name clash, a malformed file) exit with status 2.")
    ssub = p.add_subparsers(dest="skills_command", metavar="ACTION")
    ssub.required = True
    s = ssub.add_parser("list", help="the skills, with their success statistics")
    s.add_argument("--all", action="store_true", help="also the flagged skills that keep failing")
    s.add_argument("--json", action="store_true", help="print JSON")
    add_memory_flag(s)
    s = ssub.add_parser("show", help="one skill: parameters, steps, anchors, statistics")
    s.add_argument("name")
    s.add_argument("--json", action="store_true", help="print JSON")
    add_memory_flag(s)
    s = ssub.add_parser("rename", help="rename a skill")
    s.add_argument("old")
    s.add_argument("new")
    add_memory_flag(s)
    s = ssub.add_parser("rm", help="remove a skill")
    s.add_argument("name")
    add_memory_flag(s)
    s = ssub.add_parser("export", help="write a skill to one portable file (zip)")
    s.add_argument("name")
    s.add_argument("file", type=Path)
    add_memory_flag(s)
    s = ssub.add_parser("import", help="add a skill from a file written by `skills export`")
    s.add_argument("file", type=Path)
    s.add_argument("--name", help="store it under this name instead")
    s.add_argument("--replace", action="store_true", help="replace a skill of the same name")
    add_memory_flag(s)


def _when(stamp: float | None) -> str:
    return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M") if stamp else "never"


def _skill_json(skill) -> dict:  # noqa: ANN001 - a Skill
    from dataclasses import asdict

    data = asdict(skill)
    data["flagged"] = skill.flagged
    data["stats"]["failures"] = skill.stats.failures
    return data


def _print_skill(skill) -> None:  # noqa: ANN001 - a Skill
    st = skill.stats
    flag = "  [FLAGGED: keeps failing]" if skill.flagged else ""
    say(f"{skill.name}{flag}")
    if skill.description:
        say(f"  {skill.description}")
    say(f"  source: {skill.source}; runs: {st.runs} ({st.successes} ok, {st.failures} failed); "
        f"last run: {_when(st.last_run_at)}")
    if skill.examples:
        say("  examples: " + "; ".join(repr(e) for e in skill.examples))
    for p in skill.parameters:
        extra = f" one of {', '.join(p.choices)}" if p.choices else ""
        default = f" = {p.default!r}" if p.default is not None else ""
        say(f"  param {p.name}: {p.kind}{extra}{default}  {p.description}".rstrip())
    for i, s in enumerate(skill.steps, 1):
        say(f"  {i}. {s.action}   ({s.successes} ok, {s.failures} failed)")
        anchors = [f"target {s.target!r}" if s.target else "", f"text {s.ocr_text!r}" if s.ocr_text else "",
                   f"crop {s.crop}" if s.crop else "",
                   "landmarks " + ", ".join(f"{t!r}{dx:+d}{dy:+d}" for t, dx, dy in s.landmarks)
                   if s.landmarks else ""]
        if any(anchors):
            say("     anchors: " + "; ".join(a for a in anchors if a))
        if s.post_text or s.post_region:
            post = f"text {s.post_text!r} appears" if s.post_text else f"region {s.post_region} changes"
            say(f"     then: {post}")


def skills_command(args: argparse.Namespace) -> int:
    from .. import MemoryStore

    with MemoryStore(memory_path(args)) as store:
        action = args.skills_command
        if action == "list":
            skills = store.list_skills(include_flagged=args.all)
            if args.json:
                say(json.dumps([_skill_json(s) for s in skills], indent=2))
            elif not skills:
                say(f"No skills in {store.path}.")
            else:
                say(f"{'skill':<32} {'steps':>5} {'runs':>5} {'ok':>5}  description")
                for s in skills:
                    mark = " !" if s.flagged else ""
                    say(f"{s.name + mark:<32} {len(s.steps):>5} {s.stats.runs:>5} "
                        f"{s.stats.successes:>5}  {s.description}")
        elif action == "show":
            skill = store.require_skill(args.name)
            if args.json:
                say(json.dumps(_skill_json(skill), indent=2))
            else:
                _print_skill(skill)
        elif action == "rename":
            store.rename_skill(args.old, args.new)
            say(f"renamed {args.old!r} to {args.new!r}")
        elif action == "rm":
            store.delete_skill(args.name)
            say(f"removed {args.name!r}")
        elif action == "export":
            from .. import export_skill

            say(f"wrote {export_skill(store, args.name, args.file)}")
        elif action == "import":
            from .. import import_skill

            skill = import_skill(store, args.file, name=args.name, replace=args.replace)
            say(f"imported {skill.name!r} ({len(skill.steps)} steps)")
    return 0
