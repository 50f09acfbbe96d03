"""The CLI's commands, one module each (imported only when the command runs)."""
