"""The application registry open_app launches through: fake XDG entries, bundles, shortcuts."""

from __future__ import annotations

import plistlib
import time
from pathlib import Path

import pytest

from gui_agent.actions import OpenApp
from gui_agent.config import Settings
from gui_agent.control.app_registry import (
    AppRefused,
    AppRegistry,
    MacApplications,
    WindowsStartMenu,
    XdgApplications,
)
from gui_agent.control.desktop_entries import exec_argv, read_desktop_entry, xdg_application_dirs
from gui_agent.errors import ConfigError, ControlError
from gui_agent.safety import SafetyContext, SafetyGate, SafetyPolicy

ENTRIES = {
    "share1/applications/org.example.TextPad.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Text Pad
        Name[de]=Textblock
        GenericName=Text Editor
        Exec=textpad --new-window %U
        Categories=Utility;TextEditor;

        [Desktop Action new]
        Name=Shell
        Exec=bash
    """,
    "share1/applications/calc.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Calculator
        GenericName=Calculator
        Exec=env LANG=C galculator-bin %f
    """,
    "share1/applications/secret.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Secret Tool
        Exec=secret-tool
        NoDisplay=true
    """,
    "share1/applications/masked.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Masked
        Hidden=true
        Exec=masked
    """,
    "share2/applications/masked.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Masked
        Exec=masked
    """,
    "share2/applications/gone.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Gone
        TryExec=/nonexistent/gone-app
        Exec=gone-app
    """,
    "share2/applications/kde/writer.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Writer
        GenericName=Text Editor
        Exec="/opt/My Writer/bin/writer" --file "%f" 100%%
    """,
    "share2/applications/workspace.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Workspace
        Exec=fancy-emulator
        Categories=System;TerminalEmulator;
    """,
    "share2/applications/gnome-only.desktop": """
        [Desktop Entry]
        Type=Application
        Name=Gnome Only
        Exec=gnome-only
        OnlyShowIn=GNOME;
    """,
    "share2/applications/link.desktop": """
        [Desktop Entry]
        Type=Link
        Name=Homepage
        URL=https://example.com
    """,
}


def write_entries(root: Path, entries: dict[str, str]) -> None:
    for rel, text in entries.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(line.strip() for line in text.strip().splitlines()) + "\n")


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_entries(tmp_path, ENTRIES)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_DIRS", f"{tmp_path / 'share1'}:{tmp_path / 'share2'}")
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "XFCE")
    return tmp_path


def registry(allow: tuple[str, ...] = (), which=lambda name: None) -> AppRegistry:
    return AppRegistry(XdgApplications(), allow, which=which)


def test_dirs_follow_the_xdg_variables(xdg: Path) -> None:
    assert xdg_application_dirs() == (xdg / "home/applications", xdg / "share1/applications",
                                      xdg / "share2/applications")
    defaults = xdg_application_dirs({"HOME": "/home/ann"})
    assert defaults == (Path("/home/ann/.local/share/applications"),
                        Path("/usr/local/share/applications"), Path("/usr/share/applications"))


@pytest.mark.parametrize("name", ["Text Pad", "text pad", "TEXT-PAD", "Textblock", "textpad",
                                  "org.example.TextPad", "org.example.TextPad.desktop"])
def test_found_by_name_localised_name_program_and_id(xdg: Path, name: str) -> None:
    entry = registry().find(name)
    assert entry.name == "Text Pad"
    assert entry.argv == ("textpad", "--new-window")     # %U removed, no shell
    assert entry.app_id == "org.example.TextPad.desktop"
    assert entry.categories == ("Utility", "TextEditor")
    assert entry.source == str(xdg / "share1/applications/org.example.TextPad.desktop")


def test_program_found_after_env_and_field_codes_removed_inside_quotes(xdg: Path) -> None:
    calc = registry().find("galculator-bin")
    assert calc.name == "Calculator" and calc.argv == ("env", "LANG=C", "galculator-bin")
    writer = registry().find("kde-writer")     # the id of a file in a subfolder
    assert writer.argv == ("/opt/My Writer/bin/writer", "--file", "100%")


def test_nodisplay_hidden_tryexec_type_and_onlyshowin_are_honoured(
        xdg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    apps = registry()
    for name in ("Secret Tool", "secret-tool", "Masked", "Gone", "Gnome Only", "Homepage"):
        with pytest.raises(AppRefused, match="no application of that name"):
            apps.find(name)
    assert apps.lookup("Masked") is None
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")
    assert registry().find("Gnome Only").argv == ("gnome-only",)


def test_a_generic_name_of_one_app_finds_it_of_several_is_ambiguous(xdg: Path) -> None:
    assert registry().find("calculator").name == "Calculator"
    with pytest.raises(AppRefused, match=r"generic name of 2 applications \(Text Pad, Writer\)"):
        registry().find("Text Editor")


@pytest.mark.parametrize("name", ["/tmp/evil.sh", "/usr/bin/textpad", "..\\evil.exe", "./textpad",
                                  "~/bin/x"])
def test_a_path_is_refused_with_the_reason(xdg: Path, name: str) -> None:
    with pytest.raises(AppRefused, match="never a program by its path") as caught:
        registry(("textpad",), which=lambda n: "/usr/bin/textpad").find(name)
    assert isinstance(caught.value, ControlError) and "allow_apps" in str(caught.value)


def test_an_unknown_program_is_refused_saying_where_it_looked_and_how_to_allow_it(
        xdg: Path) -> None:
    with pytest.raises(AppRefused) as caught:
        registry().find("evil-tool")
    message = str(caught.value)
    assert "no application of that name" in message
    assert str(xdg / "share1/applications") in message
    assert str(xdg / "share2/applications") in message
    assert 'allow_apps = ["evil-tool"]' in message and "config path" in message


def test_allow_apps_lets_a_name_through(xdg: Path) -> None:
    found = {"my-tool": "/opt/bin/my-tool"}
    apps = registry(("my-tool",), which=found.get)
    entry = apps.find("My-Tool")
    assert entry.argv == ("/opt/bin/my-tool",) and "allow_apps" in entry.source
    with pytest.raises(AppRefused, match="in allow_apps, but no program named 'ghost' is on PATH"):
        registry(("ghost",), which=found.get).find("ghost")


def test_a_new_entry_is_seen_without_restarting(xdg: Path) -> None:
    apps = registry()
    assert apps.lookup("Fresh") is None
    time.sleep(0.01)
    write_entries(xdg, {"home/applications/fresh.desktop":
                        "[Desktop Entry]\nType=Application\nName=Fresh\nExec=fresh"})
    assert apps.find("Fresh").argv == ("fresh",)


def test_a_user_entry_overrides_the_system_one(xdg: Path) -> None:
    write_entries(xdg, {"home/applications/calc.desktop":
                        "[Desktop Entry]\nType=Application\nName=My Calc\nExec=mycalc"})
    assert registry().find("calc").name == "My Calc"
    assert registry().lookup("Calculator") is None


def test_the_safety_gate_sees_what_the_registry_would_start(xdg: Path) -> None:
    refuse = SafetyPolicy("refuse")
    by_name = SafetyGate(refuse).check(OpenApp("Workspace"), SafetyContext())
    assert by_name.decision == "allow"            # "Workspace" says nothing by itself
    verdict = SafetyGate(refuse, registry()).check(OpenApp("Workspace"), SafetyContext())
    assert verdict.decision == "refuse" and "TerminalEmulator" in verdict.reason
    assert SafetyGate(refuse, registry()).check(OpenApp("Text Pad"), SafetyContext()
                                                ).decision == "allow"


def test_the_engine_judges_and_launches_through_one_registry_with_allow_apps(xdg: Path) -> None:
    from gui_agent import Engine, live_desktop

    settings = Settings(allow_apps=("my-tool",))
    engine = Engine.from_settings(settings, live_desktop(settings, AppRegistry.for_platform(), dry_run=True),
                                  dry_run=True, use_memory=False)
    assert isinstance(engine.safety.apps, AppRegistry) and engine.safety.apps.allow_apps == ("my-tool",)


@pytest.mark.parametrize("bad", [("/usr/bin/x",), ("two words",), ("",), ("..",), ("a;b",)])
def test_allow_apps_is_validated(bad: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError, match="allow_apps"):
        Settings(allow_apps=bad)


def test_allow_apps_from_the_config_file_and_environment(tmp_path: Path) -> None:
    from gui_agent.config import load_settings

    path = tmp_path / "config.toml"
    path.write_text('[agent]\nallow_apps = ["my-tool", "other"]\n')
    assert load_settings(path, env={}).allow_apps == ("my-tool", "other")
    assert load_settings(path, env={"GUI_AGENT_ALLOW_APPS": "x1,y2"}).allow_apps == ("x1", "y2")
    path.write_text('[agent]\nallow_apps = ["/tmp/evil.sh"]\n')
    with pytest.raises(ConfigError, match="not a program name"):
        load_settings(path, env={})


def test_desktop_entry_parsing_details() -> None:
    keys = read_desktop_entry("# c\n[Other]\nName=No\n[Desktop Entry]\nName=A\\sB\nExec=x\n")
    assert keys == {"Name": "A B", "Exec": "x"}
    assert exec_argv('app %f %F %u %U %i %c %k --x=%u "a b"') == ("app", "--x=", "a b")
    assert exec_argv('app "unbalanced') == ()


def test_macos_bundles(tmp_path: Path) -> None:
    bundle = tmp_path / "Text Pad.app"
    (bundle / "Contents").mkdir(parents=True)
    with (bundle / "Contents" / "Info.plist").open("wb") as fh:
        plistlib.dump({"CFBundleIdentifier": "org.example.textpad", "CFBundleName": "TextPad"}, fh)
    (tmp_path / "Broken.app").mkdir()
    apps = AppRegistry(MacApplications([tmp_path]))
    for name in ("Text Pad", "textpad", "org.example.textpad", "Text Pad.app"):
        assert apps.find(name).argv == ("open", "-a", str(bundle))
    assert apps.find("Broken").argv == ("open", "-a", str(tmp_path / "Broken.app"))
    with pytest.raises(AppRefused, match=r"application bundles \(.app\)"):
        apps.find("Terminal2")


def test_windows_start_menu(tmp_path: Path) -> None:
    menu = tmp_path / "Microsoft/Windows/Start Menu/Programs"
    (menu / "Accessories").mkdir(parents=True)
    (menu / "Accessories" / "Notepad.lnk").write_bytes(b"L\x00")
    apps = AppRegistry(WindowsStartMenu(env={"APPDATA": str(tmp_path)}))
    entry = apps.find("notepad")
    assert entry.open_with_shell and entry.argv == (str(menu / "Accessories" / "Notepad.lnk"),)
    with pytest.raises(AppRefused, match="Start menu shortcuts"):
        apps.find("regedit")
