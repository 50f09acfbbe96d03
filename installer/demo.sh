#!/usr/bin/env bash
# Set up everything that is missing, then run the demo headless with the offline planner:
# the playground app on a virtual display, 8+ tasks done with real mouse and keyboard input,
# and a report in demo-report/index.html.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=installer/setup.sh
source "$ROOT/installer/setup.sh" app
cd "$ROOT"
exec gui-agent demo --headless --out "$ROOT/demo-report" "$@"
