"""The gui-agent desktop app (PySide6): ``gui-agent-app`` starts ``ui.main:main``.

It only calls the engine's public API (``gui_agent.agent.Agent`` and its hooks); engine
modules are imported when the first task runs, so the window opens fast.
"""
