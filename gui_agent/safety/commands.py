"""Dangerous shell commands, recognised by their structure rather than by one spelling.

Text is read the way a shell would read it: tokenised with :mod:`shlex` (tolerant of
unbalanced quotes), split into simple commands at ``;``, ``&&``, ``||``, ``|``, ``&``,
newlines, ``$(...)``, ``<(...)`` and backticks. For each command the program is found
(its basename, after ``VAR=value`` assignments and ``sudo``/``env``/``nohup``/``xargs``/
``busybox``... prefixes with their options) and judged with its flags and operands, so
``rm -rf ~``, ``rm -fr ~``, ``/bin/rm --recursive --force ~`` and ``sudo xargs rm -R`` are
one rule. A quoted argument that itself holds a command line (``ssh host "rm -rf ~"``) is
judged too. Nothing is ever executed or expanded beyond plain ``$NAME`` variables set in
the same text and ``{a,b}`` braces.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from .programs import PRIVILEGE_TOOLS, fold_program, runs_code_from_input

MAX_DEPTH = 3
_REDIRECTS = frozenset({">", ">>", "<", ">&", "&>", "&>>", "<<", "<<<", "<>", ">|", "<&"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_BRACES = re.compile(r"^\{([^{}\s]*,[^{}\s]*)\}$")
_FORK_BOMB = re.compile(r"([\w:.]{1,40})\s*\(\)\s*\{[^}]{0,200}?\1\s*\|\s*\1\s*&|%0\s*\|\s*%0")
# prefix program -> its options that take a separate argument
_PREFIXES: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"}),
    "doas": frozenset({"-u", "-C"}),
    "pkexec": frozenset({"--user"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "nohup": frozenset(), "exec": frozenset({"-a"}), "command": frozenset(),
    "builtin": frozenset(), "time": frozenset({"-f", "-o"}), "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}), "setsid": frozenset(), "stdbuf": frozenset(),
    "chronic": frozenset(), "unbuffer": frozenset(), "busybox": frozenset(),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-a", "-s", "--arg-file",
                        "--delimiter", "--max-args", "--max-procs", "--replace"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}), "watch": frozenset({"-n"}),
    "flatpak-spawn": frozenset(), "torsocks": frozenset(), "proxychains": frozenset(),
    "proxychains4": frozenset(), "strace": frozenset({"-o", "-e", "-p"}), "catchsegv": frozenset(),
}
_TAKES_OPERAND = frozenset({"timeout"})  # timeout DURATION COMMAND
_DISK = re.compile(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|mem$|kmem$|port$)")
_NET_DEVICE = re.compile(r"^/dev/(?:tcp|udp)/")
_SYSTEM_FILE = re.compile(r"^/(?:etc|boot|bin|sbin|lib|lib64|usr|sys|proc)(?:/|$)")
_BROAD = re.compile(r"^(?:/|/\*|~|~/|~/\*|\*|\.|\.\.|\./\*|\.\*|\$HOME/?\*?|\$\{HOME\}/?\*?|"
                    r"/home/?\*?|[a-zA-Z]:[\\/]?\*?)$")
# interpreter family -> short option letters that run code given on the command line
_INLINE_CODE = (
    (frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "csh", "tcsh", "fish", "ash", "yash",
                "busybox", "rbash", "nu", "xonsh", "elvish"}), "c"),
    (frozenset({"python", "pypy", "ipython"}), "c"),
    (frozenset({"perl", "ruby", "jruby", "node", "nodejs", "deno", "bun", "lua", "luajit",
                "julia", "osascript", "rscript", "r"}), "eEp"),
    (frozenset({"php", "php-cli"}), "rR"),
)
_EVALUATORS = frozenset({"eval", "iex", "invoke-expression"})
_DISK_TOOLS = frozenset({"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "gdisk", "parted",
                         "shred", "blkdiscard", "mkntfs", "mkdosfs", "diskpart", "bcdedit"})
_POWER = frozenset({"shutdown", "reboot", "poweroff", "halt", "kexec"})
_POWER_ARG = re.compile(r"^(?:-\S*|/\S*|now|\+?\d+|\d{1,2}:\d{2})$", re.IGNORECASE)


@dataclass(frozen=True)
class Command:
    """One simple command of a command line."""

    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...] = ()   # (operator, target)
    piped: bool = False                           # its input is the previous command's output
    given_substitution: bool = False              # an argument is a <(...) process substitution

    @property
    def text(self) -> str:
        return " ".join(self.words)


def _tokens(text: str) -> list[str]:
    text = re.sub(r"\$\{?IFS\}?", " ", text).replace("`", " ; ")
    text = text.replace("\r", "\n").replace("\n", " ; ")
    for tail in ("", '"', "'", "'\"", "\"'"):
        lexer = shlex.shlex(text + tail, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            return list(lexer)
        except ValueError:
            continue
    return re.findall(r"[();<>|&]+|[^\s();<>|&]+", text)


def _is_operator(token: str) -> bool:
    return bool(token) and all(ch in "();<>|&" for ch in token)


def split_commands(text: str) -> list[Command]:
    """The simple commands in ``text``, in order (see the module docstring)."""
    commands: list[Command] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    piped = False
    tokens = _tokens(text)
    i = 0

    def flush(next_piped: bool, substituted: bool = False) -> None:
        nonlocal words, redirects, piped
        if words or redirects:
            commands.append(Command(tuple(words), tuple(redirects), piped, substituted))
        words, redirects, piped = [], [], next_piped

    while i < len(tokens):
        token = tokens[i]
        if not _is_operator(token):
            words.append(token)
        elif token in _REDIRECTS:
            if words and re.fullmatch(r"\d", words[-1]):
                words.pop()  # "2>&1": a file descriptor, not an argument
            if i + 1 < len(tokens) and not _is_operator(tokens[i + 1]):
                redirects.append((token, tokens[i + 1]))
                i += 1
        elif token.startswith("<("):
            flush(False, substituted=True)   # "bash <(curl ...)": bash runs what curl prints
        else:
            stripped = token.rstrip("(")
            flush(stripped.endswith("|") and not stripped.endswith("||") or stripped.endswith("|&"))
        i += 1
    flush(False)
    return commands


def _expand(words: Sequence[str], variables: dict[str, str]) -> list[str]:
    out: list[str] = []
    for word in words:
        word = _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), word)
        braces = _BRACES.match(word)
        out.extend(braces.group(1).split(",") if braces else [word])
    return out


@dataclass(frozen=True)
class _Call:
    program: str                 # folded basename ("rm", "python3.11")
    exact: str                   # the basename as written ("Halt", "su")
    args: tuple[str, ...]
    prefixes: tuple[str, ...]    # wrappers before it ("sudo", "env", "xargs" ...)


def _parse(words: Sequence[str]) -> _Call:
    i = 0
    prefixes: list[str] = []
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word):
            i += 1
            continue
        name = fold_program(word)
        options = _PREFIXES.get(name)
        if options is None:
            exact = word.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
            return _Call(name, exact, tuple(words[i + 1:]), tuple(prefixes))
        prefixes.append(name)
        i += 1
        while i < len(words) and words[i].startswith("-") and words[i] != "-":
            option = words[i]
            i += 1
            if option == "--":
                break
            if option in options:
                i += 1
        if name in _TAKES_OPERAND and i < len(words):
            i += 1
    if prefixes:   # "sudo -i", "env": the wrapper is the program
        return _Call(prefixes[-1], prefixes[-1], (), tuple(prefixes[:-1]))
    return _Call("", "", (), ())


def program_of(words: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """(program, its arguments) of one command's words: the folded basename after
    ``VAR=value`` assignments and wrapper prefixes (``sudo -u x``, ``env``, ``xargs -0`` ...)."""
    call = _parse(words)
    return call.program, call.args


def _short_flags(args: Sequence[str]) -> tuple[set[str], set[str], list[str]]:
    """(letters of short options, long options, operands) up to ``--``."""
    letters: set[str] = set()
    longs: set[str] = set()
    operands: list[str] = []
    options_done = False
    for arg in args:
        if options_done or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            options_done = True
        elif arg.startswith("--"):
            longs.add(arg.split("=", 1)[0].lower())
        else:
            letters.update(arg[1:])
    return letters, longs, operands


def _family(program: str) -> str:
    m = re.match(r"^([a-z][a-z-]*?)-?\d+(?:\.\d+)*[a-z]?$", program)
    return m.group(1) if m else program


def _rm(args: Sequence[str]) -> str | None:
    letters, longs, operands = _short_flags(args)
    recursive = bool(letters & {"r", "R"}) or "--recursive" in longs
    force = "f" in letters or "--force" in longs
    broad = [o for o in operands if _BROAD.match(o.rstrip("/") or "/")]
    if "--no-preserve-root" in longs:
        return "deletes everything from the root of the file system (--no-preserve-root)"
    what = f" {broad[0]!r}" if broad else ""
    if recursive or force:
        how = " and ".join(w for w, on in (("recursively", recursive), ("without asking", force))
                           if on)
        return f"deletes{what or ' files'} {how} (rm -r/-f)"
    if broad:
        return f"deletes{what}, a whole folder's contents"
    return None


def _windows_delete(program: str, args: Sequence[str]) -> str | None:
    flags = {a.lower() for a in args if a.startswith(("/", "-"))}
    if program in ("del", "erase") and flags & {"/s", "/q", "/f"}:
        return "deletes files without asking (del /s /q)"
    if program in ("rd", "rmdir") and "/s" in flags:
        return "deletes a folder tree (rd /s)"
    if program in ("remove-item", "ri") and any(
            f.startswith("-r") or f.startswith("-fo") for f in flags):
        return "deletes recursively (Remove-Item -Recurse)"
    if program == "format" and any(re.fullmatch(r"[a-z]:", a.lower()) for a in args):
        return "formats a drive"
    return None


def _redirect_rule(cmd: Command, call: _Call) -> str | None:
    for op, target in cmd.redirects:
        if op.startswith(">") or op.endswith(">") or op == "<>":
            if _DISK.match(target):
                return f"writes straight onto the disk device {target}"
            if _NET_DEVICE.match(target):
                return f"connects a shell to the network ({target}), a reverse shell"
            if _SYSTEM_FILE.match(target):
                return f"overwrites the system file {target}"
        if _NET_DEVICE.match(target):
            return f"reads commands from the network ({target})"
        if op in ("<<<", "<<") and runs_code_from_input(call.program):
            return f"feeds text to {call.program} to run"
    return None


def _code_rule(cmd: Command, call: _Call) -> str | None:
    """Text run as code: a pipe or <(...) into a shell or interpreter, -c/-e, eval."""
    program, args = call.program, call.args
    family = _family(program)
    letters, longs, _ = _short_flags(args)
    if cmd.piped and runs_code_from_input(program):
        return f"pipes text into {program}, which runs it as code"
    if cmd.given_substitution and runs_code_from_input(program):
        return f"makes {program} run code produced by another command (<(...))"
    if program in _EVALUATORS and args and (call.exact.islower() or program != "eval"):
        return f"evaluates text as a command ({program})"
    for families, code_letters in _INLINE_CODE:
        if family in families and (letters & set(code_letters)
                                   or longs & {"--eval", "--print", "--command"}):
            return f"runs code given on its command line ({program} -{code_letters[0]})"
    if family in ("powershell", "pwsh") and any(
            a.lower().lstrip("-/") in ("c", "command", "e", "enc", "encodedcommand", "ec")
            for a in args if a.startswith(("-", "/"))):
        return f"runs a command given on its command line ({program} -Command)"
    if family == "cmd" and any(a.lower() in ("/c", "/k", "/r") for a in args):
        return "runs a command given on its command line (cmd /c)"
    return None


def _delete_rule(cmd: Command, call: _Call) -> str | None:
    """Files, folders, disks and permissions destroyed wholesale."""
    program, args = call.program, call.args
    letters, longs, operands = _short_flags(args)
    if program == "rm":
        return _rm(args)
    if program == "find" and ("-delete" in args or any(
            a in ("-exec", "-execdir", "-ok", "-okdir") for a in args)):
        return "deletes or runs a command on every file it finds (find -delete/-exec)"
    if program == "mv" and any(_BROAD.match(o) and o not in (".", "..") for o in operands[:-1]):
        return f"moves a whole folder tree away ({program} {operands[0]})"
    if program == "dd" and any(a.startswith("of=") and _DISK.match(a[3:]) for a in args):
        return "overwrites a disk device (dd of=/dev/...)"
    if _family(program).startswith("mkfs") or program in _DISK_TOOLS:
        return f"erases or repartitions a disk ({program})"
    if program == "diskutil" and any(a.lower().startswith(("erase", "zero", "secureerase",
                                                           "partitiondisk")) for a in args):
        return "erases a disk (diskutil erase...)"
    if program in ("chmod", "chown", "chgrp", "setfacl") and (
            "R" in letters or "--recursive" in longs or any(o in ("/", "/*") for o in operands)):
        return f"changes permissions or owners of a whole folder tree ({program} -R)"
    if program == "tee" and any(_DISK.match(o) or _SYSTEM_FILE.match(o) for o in operands):
        return "writes onto a disk device or system file (tee)"
    if program == "crontab" and "r" in letters:
        return "deletes every scheduled job (crontab -r)"
    return _windows_delete(program, args)


def _system_rule(cmd: Command, call: _Call) -> str | None:
    """Power, every process, reverse shells, backups and the registry, administrator rights."""
    program, args = call.program, call.args
    letters, _, operands = _short_flags(args)
    if call.exact.lower().removesuffix(".exe") in _POWER and (
            call.exact.islower() or call.prefixes) and all(_POWER_ARG.match(a) for a in args):
        return f"shuts the computer down or restarts it ({program})"
    if program in ("init", "telinit") and any(o in ("0", "6", "1", "s", "S") for o in operands):
        return f"shuts the computer down or restarts it ({program} {operands[0]})"
    if program in ("systemctl", "loginctl") and any(
            o in ("poweroff", "reboot", "halt", "kexec", "emergency", "rescue") for o in operands):
        return "shuts the computer down or restarts it (systemctl poweroff/reboot)"
    if program in ("kill", "pkill", "killall") and args[-1:] == ("-1",):
        return "kills every process of the user (kill -1)"
    if _family(program) in ("nc", "ncat", "netcat") and letters & {"e", "c"}:
        return f"connects a program to the network ({program} -e), a reverse shell"
    if program == "socat" and any(re.match(r"(?i)(exec|system):", a) for a in args):
        return "connects a program to the network (socat EXEC:), a reverse shell"
    if program in ("vssadmin", "wbadmin") and any(a.lower() == "delete" for a in args):
        return "deletes backups or restore points"
    if program == "reg" and any(a.lower() == "delete" for a in args):
        return "deletes registry keys (reg delete)"
    privileged = [p for p in call.prefixes if p in PRIVILEGE_TOOLS]
    if privileged or (program in PRIVILEGE_TOOLS and call.exact.islower()):
        return f"runs a command with administrator rights ({(privileged or [program])[0]})"
    return None


_RULES = (_redirect_rule, _code_rule, _delete_rule, _system_rule)


def _simple_risk(cmd: Command, depth: int) -> str | None:
    call = _parse(cmd.words)
    for rule in _RULES:
        if call.program or rule is _redirect_rule:
            why = rule(cmd, call)
            if why:
                return why
    if depth < MAX_DEPTH:   # a quoted argument holding a command line: ssh host "rm -rf ~"
        for word in cmd.words:
            if re.search(r"\s|[;&|]", word):
                inner = command_risk(word, depth + 1)
                if inner:
                    return inner
    return None


@dataclass(frozen=True)
class CommandRisk:
    """Why the ``index``-th simple command of a text is dangerous."""

    index: int        # -1: the text as a whole (a fork bomb)
    command: str
    why: str

    def __str__(self) -> str:
        return f"{_short(self.command)!r} {self.why}"


def command_risk(text: str, depth: int = 0) -> str | None:
    """Why ``text`` would be dangerous if a shell ran it ("'rm -rf ~' deletes '~' ..."), or None."""
    risks = command_risks(text, depth)
    return str(risks[0]) if risks else None


def command_risks(text: str, depth: int = 0) -> list[CommandRisk]:
    """Every dangerous simple command in ``text``, in order."""
    found: list[CommandRisk] = []
    if _FORK_BOMB.search(text):
        found.append(CommandRisk(-1, text, "is a fork bomb: it starts copies of itself until "
                                           "the computer stops responding"))
    variables: dict[str, str] = {}
    for index, cmd in enumerate(split_commands(text)):
        words = _expand(cmd.words, variables)
        if words and all(_ASSIGNMENT.match(w) for w in words):
            for w in words:
                name, _, value = w.partition("=")
                variables[name] = value
        cmd = Command(tuple(words), cmd.redirects, cmd.piped, cmd.given_substitution)
        why = _simple_risk(cmd, depth)
        if why:
            found.append(CommandRisk(index, cmd.text or text, why))
    return found


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."


__all__ = ["Command", "CommandRisk", "command_risk", "command_risks", "program_of",
           "split_commands"]
