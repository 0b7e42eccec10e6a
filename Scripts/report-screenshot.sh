#!/usr/bin/env bash
# Runs the side-by-side scenario with --report and photographs report.html in headless
# Chromium (installed first if missing), for a look at the page as a person sees it.
# Usage: Scripts/report-screenshot.sh [OUT.png]   (default: Docs/report.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-Docs/report.png}
if ! command -v chromium >/dev/null; then
    sudo=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
    $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null
fi
swift build -q
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT
.build/debug/sdlab run Scenarios/side-by-side-check-in.yaml --report "$report" >/dev/null
mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,790 \
    --screenshot="$out" "file://$report/report.html" >/dev/null 2>&1
echo "screenshot: $out"
