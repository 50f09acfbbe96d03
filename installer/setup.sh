#!/usr/bin/env bash
# Shared set-up for demo.sh and test.sh: system packages (apt-get, when available), a virtual
# environment in .venv, and gui-agent installed into it. Safe to run again: it only adds what is missing.
# Usage: source installer/setup.sh EXTRAS   (EXTRAS: app | dev)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXTRAS="${1:-app}"
VENV="${GUI_AGENT_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"

# Xvfb; xdotool (the recorder's tests and the replay bench type with it); xclip for non-ASCII
# typing via the clipboard; every library Qt's xcb platform plugin loads (`ldd` of PySide6's
# plugins/platforms/libqxcb.so and xcbglintegrations/*.so; tests/support/requirements.py checks
# the same list).
SYSTEM_PACKAGES=(xvfb xdotool x11-utils xclip libxcb1 libx11-6 libx11-xcb1 libxcb-icccm4
  libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render0 libxcb-render-util0 libxcb-shape0
  libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-xinerama0 libxcb-xkb1 libxcb-randr0
  libxkbcommon0 libxkbcommon-x11-0 libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3
  fonts-dejavu-core fonts-liberation)
# Icon fonts with their name tables: caption-less icons (a reply arrow, a trash can) are named by
# the glyph they look like (gui_agent/parsing/icon_fonts.py).
SYSTEM_PACKAGES+=(fonts-font-awesome fonts-material-design-icons-iconfont)
# Chinese and Japanese glyphs (pages and buttons in those scripts render as boxes without a font
# that has them), and fontconfig's tools, through which a name OCR cannot read is drawn in the
# fonts that have its characters (gui_agent/grounding/drawn_names.py).
SYSTEM_PACKAGES+=(fonts-wqy-microhei fontconfig)
# The accessibility tree (AT-SPI): the D-Bus session bus and the accessibility bus, the libatspi
# typelib, and what PyGObject (pip, in the venv) builds against; openbox, a window manager for
# headless desktops (batch suites' `desktop:`).
SYSTEM_PACKAGES+=(dbus at-spi2-core gir1.2-atspi-2.0 libgirepository1.0-dev libcairo2-dev
  pkg-config gcc openbox)
# The tests (dev) and the MiniWoB++ benchmark drive a real Chromium window; the tests make a TLS
# certificate with openssl. In CI (installer/test.sh) a tool missing here fails the test run.
case "$EXTRAS" in *dev*|*bench*) SYSTEM_PACKAGES+=(chromium openssl) ;; esac
# The real-application suite (datasets/suites/desktop-apps.yaml) runs in the tests: GTK3 dialogs,
# editor, calculator and spreadsheet, Qt5 editor and calculator, and xclip for its clipboard checks.
case "$EXTRAS" in *dev*) SYSTEM_PACKAGES+=(zenity yad mousepad galculator gnumeric featherpad
  speedcrunch) ;; esac

install_system_packages() {
  if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup: no apt-get here; make sure Xvfb, xdotool, xclip, Qt's xcb libraries, at-spi2-core" \
      "with the libatspi typelib and PyGObject's build headers (and for the tests chromium, openssl" \
      "and the desktop-apps suite's applications) are installed" >&2
    return 0
  fi
  local missing=() wanted=() pkg
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # Ubuntu's Chromium is chromium-browser: one already there will do, else install that name.
  for pkg in "${missing[@]}"; do
    [ "$pkg" = chromium ] && command -v chromium-browser >/dev/null 2>&1 && continue
    wanted+=("$pkg")
  done
  [ ${#wanted[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  for pkg in "${!wanted[@]}"; do
    if [ "${wanted[$pkg]}" = chromium ] && ! apt-cache show chromium >/dev/null 2>&1; then
      wanted[$pkg]=chromium-browser
    fi
  done
  echo "setup: installing system packages: ${wanted[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null
}

# The dev/vlm extras need torch (>=2.2). Install the pinned CPU-sized build before the extras so
# that resolving them never pulls a multi-GB CUDA build; a torch already present is kept (bring
# your own CUDA/MPS build). GUI_AGENT_TORCH_SPEC / GUI_AGENT_TORCH_INDEX_URL override the pin and
# the index (e.g. https://download.pytorch.org/whl/cpu where PyPI's default build is CUDA).
install_torch_first() {
  case "$EXTRAS" in *dev*|*vlm*) ;; *) return 0 ;; esac
  "$VENV/bin/python" -c "import torch" >/dev/null 2>&1 && return 0
  local spec="${GUI_AGENT_TORCH_SPEC:-torch==2.13.0}"
  echo "setup: installing $spec before the extras"
  if [ -n "${GUI_AGENT_TORCH_INDEX_URL:-}" ]; then
    "$VENV/bin/python" -m pip install -q "$spec" --index-url "$GUI_AGENT_TORCH_INDEX_URL"
  else
    "$VENV/bin/python" -m pip install -q "$spec"
  fi
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
    install_torch_first
    "$VENV/bin/python" -m pip install -q -e "$ROOT[$EXTRAS]"
    touch "$stamp"
  fi
}

install_system_packages
install_python_env
export PATH="$VENV/bin:$PATH"
