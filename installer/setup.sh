#!/usr/bin/env bash
# Shared set-up for demo.sh and test.sh: system packages (apt-get, when available), a virtual
# environment in .venv, and gui-agent installed into it. Safe to run again: it only adds what is missing.
# Usage: source installer/setup.sh EXTRAS   (EXTRAS: app | dev)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXTRAS="${1:-app}"
VENV="${GUI_AGENT_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"

# Xvfb and the X client libraries Qt's xcb plugin needs; xclip for non-ASCII typing via the clipboard.
SYSTEM_PACKAGES=(xvfb xdotool x11-utils xclip libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0
  libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxkbcommon-x11-0
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 fonts-dejavu-core fonts-liberation
  chromium)

install_system_packages() {
  if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup: no apt-get here; make sure Xvfb, xclip and Qt's xcb libraries are installed" >&2
    return 0
  fi
  local missing=()
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_python_env() {
  if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating virtual environment $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.gui-agent-$EXTRAS.stamp"
  if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
    echo "setup: installing gui-agent[$EXTRAS] into $VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
    "$VENV/bin/python" -m pip install -q -e "$ROOT[$EXTRAS]"
    touch "$stamp"
  fi
}

install_system_packages
install_python_env
export PATH="$VENV/bin:$PATH"
