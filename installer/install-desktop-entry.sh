#!/usr/bin/env bash
# Put gui-agent in the desktop's application menu, for the current user only.
#
# Installs installer/gui-agent.desktop into ~/.local/share/applications and the icon into
# ~/.local/share/icons/hicolor/scalable/apps (both under $XDG_DATA_HOME when it is set), with
# xdg-desktop-menu when xdg-utils is installed, else by copying. The menu entry runs
# gui-agent-app by its full path, found on PATH or in this checkout's .venv, because menus
# are started without the shell's PATH.
#
# Usage: installer/install-desktop-entry.sh [--exec PATH] [--no-xdg] [--uninstall]
#   --exec PATH   the gui-agent-app program to start (default: found as said above)
#   --no-xdg      copy the files even when xdg-desktop-menu is available
#   --uninstall   remove the entry and the icon
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
APPS="$DATA/applications"
ICONS="$DATA/icons/hicolor/scalable/apps"
ENTRY="gui-agent.desktop"
EXEC=""
USE_XDG=1
UNINSTALL=0

while [ $# -gt 0 ]; do
  case "$1" in
    --exec) [ $# -ge 2 ] || { echo "install-desktop-entry: --exec needs a path" >&2; exit 2; }
            EXEC="$2"; shift 2 ;;
    --no-xdg) USE_XDG=0; shift ;;
    --uninstall) UNINSTALL=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "install-desktop-entry: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

have_xdg() { [ "$USE_XDG" = 1 ] && command -v xdg-desktop-menu >/dev/null 2>&1; }

refresh_caches() {
  if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database -q "$APPS" || true; fi
  # Only refresh a cache that exists: creating one in a user's icon folder would go stale.
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$DATA/icons/hicolor/icon-theme.cache" ]; then
    gtk-update-icon-cache -q -t -f "$DATA/icons/hicolor" >/dev/null 2>&1 || true
  fi
}

if [ "$UNINSTALL" = 1 ]; then
  if have_xdg; then XDG_DATA_HOME="$DATA" xdg-desktop-menu uninstall --mode user "$ENTRY" || true; fi
  rm -f "$APPS/$ENTRY" "$ICONS/gui-agent.svg"
  refresh_caches
  echo "removed the gui-agent menu entry and icon from $DATA"
  exit 0
fi

if [ -z "$EXEC" ]; then
  EXEC="$(command -v gui-agent-app || true)"
  if [ -z "$EXEC" ] && [ -x "$ROOT/.venv/bin/gui-agent-app" ]; then EXEC="$ROOT/.venv/bin/gui-agent-app"; fi
fi
if [ -z "$EXEC" ]; then
  echo "install-desktop-entry: gui-agent-app was not found (not on PATH, no $ROOT/.venv)." >&2
  echo "  Install the app first (pip install 'gui-agent[app]' or installer/setup.sh app)," >&2
  echo "  or name the program with --exec PATH." >&2
  exit 1
fi
if [ ! -x "$EXEC" ]; then
  echo "install-desktop-entry: $EXEC is not an executable program" >&2
  exit 1
fi
case "$EXEC" in *[[:space:]\"\'\\\`\$%]*)
  echo "install-desktop-entry: the path $EXEC has spaces or quotes; give a simpler --exec path" >&2
  exit 1 ;;
esac

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
sed -e "s|^Exec=.*|Exec=$EXEC|" -e "s|^TryExec=.*|TryExec=$EXEC|" "$HERE/$ENTRY" > "$TMP/$ENTRY"

mkdir -p "$APPS" "$ICONS"
cp "$HERE/gui-agent.svg" "$ICONS/gui-agent.svg"
if have_xdg; then
  XDG_DATA_HOME="$DATA" xdg-desktop-menu install --novendor --mode user "$TMP/$ENTRY"
else
  cp "$TMP/$ENTRY" "$APPS/$ENTRY"
fi
chmod 644 "$APPS/$ENTRY" "$ICONS/gui-agent.svg"
refresh_caches
echo "installed $APPS/$ENTRY (runs $EXEC) and $ICONS/gui-agent.svg"
