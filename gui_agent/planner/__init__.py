"""Planners: the Manager turns a task into subtasks, the Worker a subtask into actions."""

from .base import Manager, Planner, StepRecord, Subtask, Worker
from .instruction_parser import ParsedInstruction, parse_instructions
from .offline import OfflineManager, OfflineWorker, StateReader, ValueReader, offline_planner

__all__ = [
    "Manager", "OfflineManager", "OfflineWorker", "ParsedInstruction", "Planner", "StateReader", "ValueReader",
    "StepRecord", "Subtask", "Worker", "offline_planner", "parse_instructions",
]
