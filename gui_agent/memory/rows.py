"""Conversions between the memory's records and its database rows (JSON for small structures)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from .models import FLAG_WINDOW, Episode, EpisodeStep, Skill, SkillParameter, SkillStats, SkillStep

# Column orders of the rows built below (INSERTs name them, so later migrations may add columns).
STEP_COLUMNS = ("episode_id, idx, subtask, action, outcome, target, source, point, screen_point, box, "
                "score, error, verification, before_shot, after_shot, timings, crop, ocr_text, landmarks, "
                "expect")
PARAM_COLUMNS = "skill_id, position, name, kind, default_value, choices, description, secret"
SKILL_STEP_COLUMNS = ("skill_id, position, action, target, ocr_text, crop, landmarks, post_text, "
                      "post_region, successes, failures, box")


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def _tuple(text: str | None) -> tuple[Any, ...] | None:
    return None if text is None else tuple(json.loads(text))


def step_row(episode_id: int, step: Any, before: str | None, after: str | None,
             crop: str | None = None) -> tuple[Any, ...]:
    """One ``episode_steps`` row from a StepLog (or anything with its fields)."""
    g = lambda name, default=None: getattr(step, name, default)  # noqa: E731
    timings = g("timings") or {}
    verification = g("verification")
    return (episode_id, int(g("index")), g("subtask", "") or "", str(g("action")), str(g("outcome")),
            g("target"), g("source"), _json(g("point")), _json(g("screen_point")), _json(g("box")),
            g("score"), g("error", "") or "", None if verification is None else str(verification),
            before, after, json.dumps(dict(timings)), crop, g("ocr_text"),
            json.dumps([list(m) for m in (g("landmarks") or ())]), g("expect"))


def episode_from_rows(row: sqlite3.Row, steps: Sequence[sqlite3.Row]) -> Episode:
    return Episode(
        id=row["id"], task=row["task"], outcome=row["outcome"], reason=row["reason"],
        answer=row["answer"], model=row["model"], seconds=row["seconds"],
        created_at=row["created_at"], run_dir=row["run_dir"],
        steps=tuple(EpisodeStep(
            index=s["idx"], action=s["action"], outcome=s["outcome"], subtask=s["subtask"],
            target=s["target"], source=s["source"], point=_tuple(s["point"]),
            screen_point=_tuple(s["screen_point"]), box=_tuple(s["box"]), score=s["score"],
            error=s["error"], verification=s["verification"], before=s["before_shot"],
            after=s["after_shot"], timings=tuple(json.loads(s["timings"]).items()),
            crop=s["crop"], ocr_text=s["ocr_text"],
            landmarks=tuple(tuple(m) for m in json.loads(s["landmarks"] or "[]")), expect=s["expect"],
        ) for s in steps),
    )


def skill_rows(skill_id: int, skill: Skill, crops: Sequence[str | None]
               ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Rows for ``skill_parameters``, ``skill_steps`` and ``skill_examples``."""
    params = [(skill_id, i, p.name, p.kind, _json(p.default), json.dumps(list(p.choices)), p.description,
               int(p.secret))
              for i, p in enumerate(skill.parameters)]
    steps = [(skill_id, i, s.action, s.target, s.ocr_text, crop, json.dumps([list(m) for m in s.landmarks]),
              s.post_text, _json(s.post_region), s.successes, s.failures, _json(s.box))
             for i, (s, crop) in enumerate(zip(skill.steps, crops, strict=True))]
    examples = [(skill_id, i, text) for i, text in enumerate(skill.examples)]
    return params, steps, examples


def skill_from_rows(row: sqlite3.Row, params: Sequence[Mapping[str, Any]],
                    steps: Sequence[Mapping[str, Any]],
                    examples: Sequence[str], stats: SkillStats) -> Skill:
    return Skill(
        name=row["name"], description=row["description"], source=row["source"],
        created_at=row["created_at"], updated_at=row["updated_at"], stats=stats,
        examples=tuple(examples),
        parameters=tuple(SkillParameter(
            name=p["name"], kind=p["kind"],
            default=None if p["default_value"] is None else json.loads(p["default_value"]),
            choices=tuple(json.loads(p["choices"])), description=p["description"],
            secret=bool(p["secret"])) for p in params),
        steps=tuple(SkillStep(
            action=s["action"], target=s["target"], ocr_text=s["ocr_text"], crop=s["crop"],
            landmarks=tuple(tuple(m) for m in json.loads(s["landmarks"])), post_text=s["post_text"],
            post_region=_tuple(s["post_region"]), successes=s["successes"], failures=s["failures"],
            box=_tuple(s["box"]),
        ) for s in steps),
    )


# Every skill with its parameters, steps, examples and run statistics in one row (the parts as
# JSON arrays, in position order): loading a library is one query, not five per skill.
SKILLS_QUERY = f"""
SELECT s.id, s.name, s.description, s.source, s.created_at, s.updated_at,
  (SELECT json_group_array(json_array(name, kind, default_value, choices, description, secret))
     FROM (SELECT * FROM skill_parameters WHERE skill_id = s.id ORDER BY position)) AS params,
  (SELECT json_group_array(json_array(action, target, ocr_text, crop, landmarks, post_text,
                                      post_region, successes, failures, box))
     FROM (SELECT * FROM skill_steps WHERE skill_id = s.id ORDER BY position)) AS steps,
  (SELECT json_group_array(text)
     FROM (SELECT text FROM skill_examples WHERE skill_id = s.id ORDER BY position)) AS examples,
  (SELECT json_array(count(*), coalesce(sum(ok), 0)) FROM skill_runs WHERE skill_id = s.id)
     AS runs,
  (SELECT max(created_at) FROM skill_runs WHERE skill_id = s.id) AS last_run,
  (SELECT json_group_array(ok)
     FROM (SELECT ok FROM skill_runs WHERE skill_id = s.id ORDER BY id DESC LIMIT {FLAG_WINDOW}))
     AS recent
FROM skills s"""
_PARAM_KEYS = ("name", "kind", "default_value", "choices", "description", "secret")
_STEP_KEYS = ("action", "target", "ocr_text", "crop", "landmarks", "post_text", "post_region",
              "successes", "failures", "box")


def skill_from_json_row(row: sqlite3.Row) -> Skill:
    """A skill from one row of :data:`SKILLS_QUERY`."""
    runs, successes = json.loads(row["runs"])
    recent = tuple(bool(ok) for ok in json.loads(row["recent"]))
    return skill_from_rows(
        row, [dict(zip(_PARAM_KEYS, p, strict=True)) for p in json.loads(row["params"])],
        [dict(zip(_STEP_KEYS, s, strict=True)) for s in json.loads(row["steps"])],
        json.loads(row["examples"]), SkillStats(runs, successes, recent, row["last_run"]))


def skill_to_json(skill: Skill, crop_names: Sequence[str | None]) -> dict[str, Any]:
    """The portable form of a skill (crops named inside the export file); no statistics."""
    return {
        "name": skill.name, "description": skill.description, "source": skill.source,
        "examples": list(skill.examples),
        "parameters": [{"name": p.name, "kind": p.kind, "default": p.default,
                        "choices": list(p.choices), "description": p.description, "secret": p.secret}
                       for p in skill.parameters],
        "steps": [{"action": s.action, "target": s.target, "ocr_text": s.ocr_text, "crop": crop,
                   "landmarks": [list(m) for m in s.landmarks], "post_text": s.post_text,
                   "post_region": list(s.post_region) if s.post_region else None,
                   "box": list(s.box) if s.box else None}
                  for s, crop in zip(skill.steps, crop_names, strict=True)],
    }
