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
#
# With no arguments the suite runs as two pytest processes side by side, one per core, of about
# the same length: the unit tests (tests/unit) with the desktop apps gate and the end-to-end
# tests that start Ray clusters (so that no two Ray clusters start at once: the unit tests start
# some too), and the other end-to-end tests. Each has its own Xvfb; the first one's report
# follows the second's, and the run fails if either fails. Arguments are passed to one pytest
# run instead (bash installer/test.sh tests/unit/parsing -x).
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
PYTEST=(python -m pytest -q -p no:cacheprovider --timeout=600 --durations=15)
if [ "$#" -gt 0 ]; then
  exec "${PYTEST[@]}" "$@"
fi
BESIDE=(tests/e2e/test_gate_desktop_apps.py tests/e2e/test_batch_ray_e2e.py tests/e2e/test_readme_ray_recipe_e2e.py)
unit_log="$(mktemp -t gui-agent-unit-tests.XXXXXX)"
"${PYTEST[@]}" tests/unit "${BESIDE[@]}" >"$unit_log" 2>&1 &
unit_pid=$!
trap 'kill "$unit_pid" 2>/dev/null || true' INT TERM
e2e_status=0
"${PYTEST[@]}" tests/e2e "${BESIDE[@]/#/--deselect=}" || e2e_status=$?
unit_status=0
wait "$unit_pid" || unit_status=$?
echo "== pytest tests/unit ${BESIDE[*]} (ran beside the other end-to-end tests)"
cat "$unit_log"
rm -f "$unit_log"
echo "== the other end-to-end tests: exit $e2e_status; tests/unit and ${BESIDE[*]}: exit $unit_status"
[ "$e2e_status" -eq 0 ] && [ "$unit_status" -eq 0 ]
