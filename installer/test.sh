#!/usr/bin/env bash
# Set up everything that is missing, then run the linter and the whole test suite,
# end-to-end tests under Xvfb included.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=installer/setup.sh
source "$ROOT/installer/setup.sh" dev
cd "$ROOT"
echo "== ruff"
ruff check .
echo "== pytest"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
python -m pytest -q -p no:cacheprovider --timeout=600 "$@"
