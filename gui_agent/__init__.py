"""gui-agent: a local-first desktop computer-use agent."""

__version__ = "0.1.0"
