#!/usr/bin/env bash
# Set up everything that is missing, then run the linter and the whole test suite,
# end-to-end tests under Xvfb included.
#
# This is a CI run unless you say otherwise: CI=true (kept if already set) makes a test that needs
# a missing tool or package (Xvfb, xdotool, chromium, openssl, PySide6, torch...) FAIL, naming what
# is missing and how to install it, instead of being skipped; so a green run means every test ran.
# GUI_AGENT_ALLOW_SKIPS=1 bash installer/test.sh lets such tests skip instead (each skip still
# names what is missing). The run ends with how many end-to-end tests ran, by group, and the 15
# slowest tests.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=installer/setup.sh
source "$ROOT/installer/setup.sh" dev
cd "$ROOT"
case "${GUI_AGENT_ALLOW_SKIPS:-}" in
  ""|0|false|no|off) export CI="${CI:-true}" ;;
esac
echo "== ruff"
ruff check .
echo "== pytest"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
python -m pytest -q -p no:cacheprovider --timeout=600 --durations=15 "$@"
