#!/usr/bin/env bash
# The demo: a simulated device (a private dbus-daemon and the hub) driven by a foreign D-Bus
# client (gdbus): enrollment, a worker's check-out, then a check-in whose broker post a
# waiting process receives; then the device brought down again.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/install-deps.sh
# sdlab runs each app as sdlab-app, started through sdlab-fence (the kernel's write fence)
swift build --product sdlab && swift build --product sdlab-app && swift build --product sdlab-fence
sdlab=.build/debug/sdlab

eval "$($sdlab device up --detach)"
export DBUS_SESSION_BUS_ADDRESS SDLAB_DEVICE_DIR
trap '$sdlab device down --dir "$SDLAB_DEVICE_DIR"' EXIT
echo "device up: $DBUS_SESSION_BUS_ADDRESS"

hub() { gdbus call --session --dest dev.sdlab.Hub --object-path /dev/sdlab/Hub --method "$@"; }
echo "the hub's session, asked by gdbus:"
hub dev.sdlab.Hub1.GetSession
echo "the staging user enrolls the device; worker cou1 checks it out:"
hub dev.sdlab.Hub1.Enroll stage stage >/dev/null
hub dev.sdlab.Hub1.CheckOut cou1 cou1
hub dev.sdlab.Hub1.GetSession

echo "an app waits for SHARED_MODE_CURRENT_ACCOUNT_CHANGED; cou1 checks the device in:"
listening=$(mktemp)
$sdlab notify wait SHARED_MODE_CURRENT_ACCOUNT_CHANGED --timeout 10s 2>"$listening" &
waiter=$!
for _ in $(seq 200); do grep -q "waiting for" "$listening" && break; sleep 0.05; done
hub dev.sdlab.Hub1.CheckIn >/dev/null
wait $waiter && echo "the waiting app got the broker's post; its state is the new generation, $($sdlab notify get SHARED_MODE_CURRENT_ACCOUNT_CHANGED)"
echo "a second check-in is refused:"
hub dev.sdlab.Hub1.CheckIn 2>&1 || true

echo
echo "the side-by-side scenario: MSAL apps hear the check-in at once, the Workspace ONE app at its next foreground:"
report=${TMPDIR:-/tmp}/sdlab-demo-report
$sdlab run Scenarios/side-by-side-check-in.yaml --report "$report"
echo "open $report/report.html for the summary and the timeline (results.json, trace.jsonl, timing.csv and junit.xml beside it)"
