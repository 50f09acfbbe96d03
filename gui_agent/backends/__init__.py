"""The model behind one small interface: ``generate(messages, settings) -> text``."""
