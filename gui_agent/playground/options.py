"""Command-line options of the playground (no Qt here, so the CLI can validate them cheaply)."""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gui_agent.errors import ConfigError

THEMES = ("light", "dark")
FONT_SCALES = (1.0, 1.25, 1.5)
DEFAULT_SIZE = (1024, 700)
DEFAULT_POS = (0, 0)
MIN_SIZE = (640, 480)


@dataclass(frozen=True)
class PlaygroundOptions:
    state_file: Path | None = None
    theme: str = "light"
    font_scale: float = 1.0
    size: tuple[int, int] = DEFAULT_SIZE
    pos: tuple[int, int] = DEFAULT_POS
    save_dir: Path | None = None
    reorder: bool = False          # the Items list and the Contacts rows in reverse order
    extra_widget: bool = False     # an info bar above the content of every page
    rename: Mapping[str, str] = field(default_factory=dict)   # visible text -> shown instead

    def resolved_save_dir(self) -> Path:
        """The directory Save/Save As write into (a fresh temp dir when none was given)."""
        if self.save_dir is not None:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            return self.save_dir
        return Path(tempfile.mkdtemp(prefix="gui-agent-playground-"))


def _pair(text: str, sep: str, what: str) -> tuple[int, int]:
    parts = text.lower().split(sep)
    try:
        if len(parts) != 2:
            raise ValueError(text)
        return int(parts[0]), int(parts[1])
    except ValueError:
        raise ConfigError(
            f"{what} must look like 'A{sep}B' with two integers, got {text!r}"
        ) from None


def parse_size(text: str) -> tuple[int, int]:
    """'1024x700' -> (1024, 700); refuses sizes too small for the layout."""
    width, height = _pair(text, "x", "--size")
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        raise ConfigError(f"--size must be at least {MIN_SIZE[0]}x{MIN_SIZE[1]}, got {text!r}")
    return width, height


def parse_pos(text: str) -> tuple[int, int]:
    """'10,20' -> (10, 20)."""
    return _pair(text, ",", "--pos")


def parse_font_scale(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"--font-scale must be a number, got {text!r}") from None
    if value not in FONT_SCALES:
        allowed = ", ".join(str(s) for s in FONT_SCALES)
        raise ConfigError(f"--font-scale must be one of {allowed}, got {text!r}")
    return value


def parse_renames(pairs: Sequence[str]) -> dict[str, str]:
    """['Add=Append', 'Log in=Enter'] -> {'Add': 'Append', 'Log in': 'Enter'}."""
    out: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise ConfigError(f"--rename takes OLD=NEW with two non-empty texts, got {pair!r}")
        out[old.strip()] = new.strip()
    return out


DESCRIPTION = "A small, realistic Qt app for gui-agent demos and end-to-end tests."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gui-agent playground", description=DESCRIPTION)
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The playground's options, on its own parser or on `gui-agent playground`'s."""
    parser.add_argument("--state-file", type=Path, metavar="FILE",
                        help="write the app's whole state as JSON here on every change")
    parser.add_argument("--theme", choices=THEMES, default="light", help="colours (default light)")
    parser.add_argument("--font-scale", default="1.0", metavar="SCALE",
                        help="text size: 1.0 (default), 1.25 or 1.5")
    parser.add_argument("--size", default=f"{DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]}", metavar="WxH",
                        help=f"window size (default {DEFAULT_SIZE[0]}x{DEFAULT_SIZE[1]})")
    parser.add_argument("--pos", default=f"{DEFAULT_POS[0]},{DEFAULT_POS[1]}", metavar="X,Y",
                        help="window position (default 0,0)")
    parser.add_argument("--save-dir", type=Path, metavar="DIR",
                        help="where the editor saves (default: a temp dir)")
    parser.add_argument(
        "--reorder", action="store_true", help="show the Items list and the Contacts rows reversed"
    )
    parser.add_argument(
        "--extra-widget", action="store_true", help="an info bar above the content of every page"
    )
    parser.add_argument(
        "--rename", action="append", default=[], metavar="OLD=NEW",
        help="show NEW instead of the visible text OLD (buttons, labels, tabs); repeatable",
    )


def parse_options(argv: Sequence[str] | None) -> PlaygroundOptions:
    """Parse the command line; bad values raise ConfigError (argparse exits on unknown flags)."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    return PlaygroundOptions(
        state_file=args.state_file,
        theme=args.theme,
        font_scale=parse_font_scale(args.font_scale),
        size=parse_size(args.size),
        pos=parse_pos(args.pos),
        save_dir=args.save_dir,
        reorder=args.reorder,
        extra_widget=args.extra_widget,
        rename=parse_renames(args.rename),
    )
