"""Children that are sent Ctrl+C must be able to take it.

A shell without job control starts a background command (`bash installer/test.sh &`, a CI
runner's step) with SIGINT and SIGQUIT ignored; an ignored signal stays ignored across exec, so
every process the tests start would ignore the Ctrl+C they are sent, and Python does not install
its KeyboardInterrupt handler when SIGINT is ignored at start-up.
"""

from __future__ import annotations

import signal


def interruptible() -> None:
    """``preexec_fn`` for a child that a test interrupts: SIGINT back to its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
