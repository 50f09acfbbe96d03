"""`python -m gui_agent.batch.capture PREFIX -- COMMAND ...`: run an application and keep its
answer for a suite's checks: what it printed in ``PREFIX.out`` and, once it ends, its exit
status in ``PREFIX.status`` (a dialog prints the choice made and exits 0 on OK, 1 on Cancel).
Ended by a signal (the batch worker stopping it), it leaves no status: the dialog was never
answered."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or args[1] != "--":
        print("usage: python -m gui_agent.batch.capture PREFIX -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    prefix, command = Path(args[0]), args[2:]
    with Path(f"{prefix}.out").open("w", encoding="utf-8") as out:
        try:
            proc = subprocess.Popen(command, stdout=out, stdin=subprocess.DEVNULL)
        except OSError as exc:
            print(f"cannot run {command[0]}: {exc}", file=sys.stderr)
            return 127

        def forward(signum: int, frame: object) -> None:
            proc.send_signal(signum)

        signal.signal(signal.SIGTERM, forward)
        code = proc.wait()
    if code >= 0:
        Path(f"{prefix}.status").write_text(f"{code}\n", encoding="utf-8")
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
