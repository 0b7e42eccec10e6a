#!/usr/bin/env bash
# Runs a few scenarios with --report (three of the library, one that fails on purpose) and
# photographs report.html in headless Chromium (installed first if missing): the page as a
# person sees it, summary first, the failed scenario's section open.
# Usage: Scripts/report-screenshot.sh [OUT.png]   (default: Docs/report.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-Docs/report.png}
Scripts/install-deps.sh --with-browser
swift build -q
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT
.build/debug/sdlab run --report "$report" Scenarios/side-by-side-check-in.yaml \
    Scenarios/keep-all-app-is-caught-by-the-leak-scanner.yaml \
    Scenarios/fault-storm-of-a-thousand-session-changes-with-a-fleet.yaml \
    Tests/EndToEndTests/Scenarios/broken-app-leaks.yaml >/dev/null || true  # one fails on purpose
mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000 \
    --window-size=1280,1500 --screenshot="$out" "file://$report/report.html" >/dev/null 2>&1
echo "screenshot: $out"
