"""The application registry: which programs ``open_app`` may start, and how.

``open_app`` never runs a path, nor whatever program of that name is on PATH. A name is
looked up first in the platform's registry of installed desktop applications, then in the
user's ``allow_apps`` (config file); anything else is refused, saying where it looked and
how to allow it.

- **Linux and other XDG desktops**: the ``.desktop`` entries in ``$XDG_DATA_HOME/applications``
  then each of ``$XDG_DATA_DIRS/applications`` (a desktop file id found first hides the same id
  further on). A name matches, in this order, the desktop file id, ``Name``, the basename of
  the ``Exec`` program, then ``GenericName`` (localised variants too; one ``GenericName``
  naming several applications is ambiguous and refused). Entries that are ``Hidden``,
  ``NoDisplay``, not ``Type=Application``, whose ``TryExec`` is not installed, or whose
  ``OnlyShowIn``/``NotShowIn`` exclude ``$XDG_CURRENT_DESKTOP`` are not launchable. The
  ``Exec`` line is split as the specification says (shlex), its field codes (``%f %U`` ...)
  removed, and run without a shell.
- **macOS**: ``.app`` bundles in /Applications, /Applications/Utilities, /System/Applications,
  /System/Applications/Utilities and ~/Applications, matched by the bundle's name and its
  Info.plist names and identifier; started with ``open -a <bundle>``. Only the bundle's
  existence and names are checked.
- **Windows**: Start menu shortcuts (``.lnk``) of the user and of the machine, matched by the
  shortcut's name; opened by the shell (``os.startfile``) as the Start menu does. The
  shortcut's target is not read: what it starts is what its installer chose.
"""

from __future__ import annotations

import logging
import os
import plistlib
import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import ControlError
from ..safety.commands import program_of
from .desktop_entries import (
    entry_list,
    entry_true,
    exec_argv,
    read_desktop_entry,
    xdg_application_dirs,
)

log = logging.getLogger(__name__)

MAX_ENTRY_BYTES = 256 * 1024
_ALLOW_HINT = ("To allow it, add its program name to allow_apps in the [agent] table of the "
               "config file (gui-agent config path prints where it is), e.g. allow_apps = [{}]")


class AppRefused(ControlError):
    """``open_app`` named something that is not an application it may start."""


@dataclass(frozen=True)
class AppEntry:
    """An application the registry may start, and what starting it runs."""

    name: str                      # its name in the registry
    argv: tuple[str, ...]          # run without a shell
    source: str                    # where it was found: a .desktop file, a bundle, allow_apps
    app_id: str = ""               # desktop file id, bundle identifier, shortcut name
    categories: tuple[str, ...] = ()
    terminal: bool = False         # Terminal=true: the program runs inside a terminal
    workdir: str | None = None     # Path= of a desktop entry
    open_with_shell: bool = False  # Windows: argv[0] is a shortcut for os.startfile


class AppSource(Protocol):
    """One platform's registry of installed applications."""

    @property
    def description(self) -> str: ...

    def find(self, name: str) -> AppEntry | None: ...


class AppFinder(Protocol):
    """What a controller launches through (:class:`AppRegistry`)."""

    def find(self, name: str) -> AppEntry: ...

    def lookup(self, name: str) -> AppEntry | None: ...


def fold_name(name: str) -> str:
    """Case, spaces, '-' and '_' do not matter: 'GNOME-Calculator' == 'gnome calculator'."""
    text = name.strip().casefold().removesuffix(".desktop")
    return re.sub(r"[\s_-]+", " ", text).strip()


def check_app_name(name: str) -> str:
    """The name stripped; AppRefused for what is no application name (a path, empty, control
    characters)."""
    if not isinstance(name, str) or not name.strip():
        raise AppRefused(f"open_app needs an application name, got {name!r}")
    text = name.strip()
    if "/" in text or "\\" in text:
        raise AppRefused(
            f"cannot open {text!r}: open_app starts installed applications by their name, never "
            "a program by its path. Use the application's name as the desktop's application "
            "menu shows it. " + _ALLOW_HINT.format('"program-name"'))
    if re.search(r"[\x00-\x1f\x7f]", text):
        raise AppRefused(f"cannot open {text!r}: an application name has no control characters")
    return text


# -- XDG desktop entries ---------------------------------------------------------------------

@dataclass(frozen=True)
class _Desktop:
    entry: AppEntry
    names: frozenset[str]
    generic: frozenset[str]
    program: str
    bare: bool   # Exec has no argument besides field codes


class XdgApplications:
    """The desktop's applications from XDG ``.desktop`` entries (see the module docstring).

    Parsed entries are cached and read again when a folder or an entry changes (their
    modification times), so an application installed while the agent runs is found.
    """

    def __init__(self, dirs: Sequence[Path] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.dirs = tuple(Path(d) for d in dirs) if dirs is not None else xdg_application_dirs(env)
        self.desktops = {d.strip().casefold() for d in env.get("XDG_CURRENT_DESKTOP", "").split(":")
                         if d.strip()}
        self.path = env.get("PATH", os.defpath)
        self._cache: tuple[tuple[tuple[str, int], ...], list[_Desktop]] | None = None

    @property
    def description(self) -> str:
        where = ", ".join(str(d) for d in self.dirs) or "no folder"
        return f"the desktop's applications (XDG .desktop entries in {where})"

    def _signature(self) -> tuple[tuple[str, int], ...]:
        stamps: list[tuple[str, int]] = []
        for root in self.dirs:
            for folder, _subdirs, files in os.walk(root):
                for path in [folder, *(os.path.join(folder, f) for f in files)]:
                    try:
                        stamps.append((path, os.stat(path).st_mtime_ns))
                    except OSError:
                        continue
        return tuple(stamps)

    def entries(self) -> list[_Desktop]:
        signature = self._signature()
        if self._cache is None or self._cache[0] != signature:
            self._cache = (signature, self._scan())
        return self._cache[1]

    def _scan(self) -> list[_Desktop]:
        seen: set[str] = set()
        out: list[_Desktop] = []
        for root in self.dirs:
            if not root.is_dir():
                continue
            for path in sorted(root.rglob("*.desktop")):
                desktop_id = path.relative_to(root).as_posix().replace("/", "-")
                if desktop_id in seen:
                    continue   # an earlier folder's entry of the same id wins
                seen.add(desktop_id)
                parsed = self._parse(path, desktop_id)
                if parsed is not None:
                    out.append(parsed)
        return out

    def _parse(self, path: Path, desktop_id: str) -> _Desktop | None:
        try:
            if path.stat().st_size > MAX_ENTRY_BYTES:
                return None
            keys = read_desktop_entry(path.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            log.debug("cannot read %s: %s", path, exc)
            return None
        if (keys.get("Type") != "Application" or entry_true(keys.get("Hidden"))
                or entry_true(keys.get("NoDisplay")) or not self._shown_here(keys)
                or not self._installed(keys.get("TryExec"))):
            return None
        argv = exec_argv(keys.get("Exec", ""))
        name = keys.get("Name", "").strip()
        if not argv or not name:
            return None
        program, args = program_of(argv)
        entry = AppEntry(name=name, argv=argv, source=str(path), app_id=desktop_id,
                         categories=entry_list(keys.get("Categories")),
                         terminal=entry_true(keys.get("Terminal")), workdir=keys.get("Path") or None)
        names = {fold_name(v) for k, v in keys.items() if k == "Name" or k.startswith("Name[")}
        generic = {fold_name(v) for k, v in keys.items()
                   if k == "GenericName" or k.startswith("GenericName[")}
        return _Desktop(entry, frozenset(names), frozenset(generic - {""}), fold_name(program),
                        not args)

    def _shown_here(self, keys: Mapping[str, str]) -> bool:
        if not self.desktops:
            return True
        only = {d.casefold() for d in entry_list(keys.get("OnlyShowIn"))}
        hidden = {d.casefold() for d in entry_list(keys.get("NotShowIn"))}
        return (not only or bool(only & self.desktops)) and not hidden & self.desktops

    def _installed(self, try_exec: str | None) -> bool:
        if not try_exec:
            return True
        if "/" in try_exec:
            return os.access(try_exec, os.X_OK)
        return shutil.which(try_exec, path=self.path) is not None

    def find(self, name: str) -> AppEntry | None:
        """The entry ``name`` names (id, Name, Exec program, then GenericName), or None."""
        key = fold_name(name)
        entries = self.entries()
        by_id = [d for d in entries if fold_name(d.entry.app_id) == key]
        by_name = [d for d in entries if key in d.names]
        by_program = sorted((d for d in entries if d.program == key), key=lambda d: not d.bare)
        for tier in (by_id, by_name, by_program):
            if tier:
                return tier[0].entry
        generic = [d for d in entries if key in d.generic]
        if len(generic) > 1:
            names = ", ".join(sorted({d.entry.name for d in generic}))
            raise AppRefused(f"cannot open {name!r}: it is the generic name of {len(generic)} "
                             f"applications ({names}); open one of them by its name")
        return generic[0].entry if generic else None


# -- macOS and Windows -----------------------------------------------------------------------

class MacApplications:
    """Application bundles (``.app``) in the usual folders, started with ``open -a``."""

    def __init__(self, roots: Sequence[Path] | None = None) -> None:
        self.roots = tuple(roots) if roots is not None else (
            Path("/Applications"), Path("/Applications/Utilities"), Path("/System/Applications"),
            Path("/System/Applications/Utilities"), Path.home() / "Applications")

    @property
    def description(self) -> str:
        return f"the application bundles (.app) in {', '.join(str(r) for r in self.roots)}"

    def find(self, name: str) -> AppEntry | None:
        key = fold_name(name.removesuffix(".app"))
        for root in self.roots:
            for bundle in sorted(root.glob("*.app")) if root.is_dir() else ():
                info = _bundle_info(bundle)
                names = {fold_name(bundle.stem), *(fold_name(str(info.get(k, ""))) for k in (
                    "CFBundleName", "CFBundleDisplayName", "CFBundleIdentifier"))}
                if key in names:
                    category = str(info.get("LSApplicationCategoryType", ""))
                    return AppEntry(name=bundle.stem, argv=("open", "-a", str(bundle)),
                                    source=str(bundle),
                                    app_id=str(info.get("CFBundleIdentifier", "")),
                                    categories=(category,) if category else ())
        return None


def _bundle_info(bundle: Path) -> dict[str, object]:
    try:
        with (bundle / "Contents" / "Info.plist").open("rb") as fh:
            data = plistlib.load(fh)
    except (OSError, plistlib.InvalidFileException, ValueError) as exc:
        log.debug("no readable Info.plist in %s: %s", bundle, exc)
        return {}
    return data if isinstance(data, dict) else {}


class WindowsStartMenu:
    """Start menu shortcuts (``.lnk``) of the user and the machine, opened by the shell."""

    def __init__(self, roots: Sequence[Path] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        menu = Path("Microsoft", "Windows", "Start Menu", "Programs")
        self.roots = tuple(roots) if roots is not None else tuple(
            Path(env[v]) / menu for v in ("APPDATA", "PROGRAMDATA") if env.get(v))

    @property
    def description(self) -> str:
        return f"the Start menu shortcuts in {', '.join(str(r) for r in self.roots) or 'no folder'}"

    def find(self, name: str) -> AppEntry | None:
        key = fold_name(name.removesuffix(".lnk"))
        for root in self.roots:
            for link in sorted(root.rglob("*.lnk")) if root.is_dir() else ():
                if fold_name(link.stem) == key:
                    return AppEntry(name=link.stem, argv=(str(link),), source=str(link),
                                    app_id=link.stem, open_with_shell=True)
        return None


# -- the registry ----------------------------------------------------------------------------

def platform_source(platform: str | None = None) -> AppSource:
    """This platform's application registry."""
    platform = platform or sys.platform
    if platform == "darwin":
        return MacApplications()
    if platform.startswith("win"):
        return WindowsStartMenu()
    return XdgApplications()


class AppRegistry:
    """The applications ``open_app`` may start: the platform's, then ``allow_apps`` (program
    names looked up on PATH). :meth:`find` refuses anything else with the reason."""

    def __init__(self, source: AppSource, allow_apps: Sequence[str] = (),
                 which: Callable[[str], str | None] = shutil.which) -> None:
        self.source = source
        self.allow_apps = tuple(allow_apps)
        self._which = which

    @classmethod
    def for_platform(cls, allow_apps: Sequence[str] = (), platform: str | None = None
                     ) -> AppRegistry:
        return cls(platform_source(platform), allow_apps)

    def find(self, name: str) -> AppEntry:
        """The application ``name`` names; AppRefused (what was searched, how to allow it)."""
        text = check_app_name(name)
        entry = self.source.find(text)
        if entry is not None:
            return entry
        allowed = next((a for a in self.allow_apps if fold_name(a) == fold_name(text)), None)
        if allowed is not None:
            exe = self._which(allowed)
            if exe is None:
                raise AppRefused(f"cannot open {text!r}: it is in allow_apps, but no program "
                                 f"named {allowed!r} is on PATH")
            return AppEntry(name=allowed, argv=(exe,), source="allow_apps in the config file",
                            app_id=allowed)
        listed = f" (allow_apps: {', '.join(self.allow_apps)})" if self.allow_apps else ""
        raise AppRefused(
            f"cannot open {text!r}: no application of that name in {self.source.description}, "
            f"and it is not in allow_apps{listed}. " + _ALLOW_HINT.format(f'"{text}"'))

    def allow_once(self, name: str) -> None:
        """Let this registry start ``name`` (a program on PATH) from now on: the person approved
        it when asked. Not saved: the config's allow_apps keeps what is always allowed."""
        text = check_app_name(name)
        if all(fold_name(a) != fold_name(text) for a in self.allow_apps):
            self.allow_apps = (*self.allow_apps, text)

    def lookup(self, name: str) -> AppEntry | None:
        """Like :meth:`find`, None instead of a refusal (the safety policy's view)."""
        try:
            return self.find(name)
        except AppRefused:
            return None
