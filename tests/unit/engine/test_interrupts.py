"""Ctrl+C is a flag as well as an exception: a KeyboardInterrupt that a library takes where it
lands still stops the command at its loop's next turn; outside the block nothing is changed."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from gui_agent.interrupts import stop_signals


def test_a_signal_whose_exception_was_swallowed_is_still_seen() -> None:
    before = signal.getsignal(signal.SIGINT)
    with stop_signals() as flag:
        assert not flag.is_set()
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            threading.Event().wait(1.0)
        except KeyboardInterrupt:
            pass                       # a library took it
        assert flag.is_set() and flag.signal == signal.SIGTERM
        with pytest.raises(KeyboardInterrupt):
            flag.raise_if_set()
    assert signal.getsignal(signal.SIGINT) is before


def test_off_the_main_thread_the_handlers_are_left_alone() -> None:
    seen = []

    def body() -> None:
        with stop_signals() as flag:
            seen.append((flag.is_set(), signal.getsignal(signal.SIGINT)))

    before = signal.getsignal(signal.SIGINT)
    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == [(False, before)]
