"""The model behind one small interface: ``generate(messages, settings, *, deadline) -> text``."""
