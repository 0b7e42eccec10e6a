#!/usr/bin/env bash
# The demo: a simulated device (a private dbus-daemon and the hub), a Darwin-style post that
# a waiting process receives, the hub's session read by a foreign D-Bus client, then the
# device brought down again.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/install-deps.sh
swift build --product sdlab
sdlab=.build/debug/sdlab

eval "$($sdlab device up --detach)"
export DBUS_SESSION_BUS_ADDRESS SDLAB_DEVICE_DIR
trap '$sdlab device down --dir "$SDLAB_DEVICE_DIR"' EXIT
echo "device up: $DBUS_SESSION_BUS_ADDRESS"

echo "the hub's session, asked by gdbus:"
gdbus call --session --dest dev.sdlab.Hub --object-path /dev/sdlab/Hub --method dev.sdlab.Hub1.GetSession

echo "an app waits for SHARED_MODE_CURRENT_ACCOUNT_CHANGED; the broker's state is set, then posted:"
listening=$(mktemp)
$sdlab notify wait SHARED_MODE_CURRENT_ACCOUNT_CHANGED --timeout 10s 2>"$listening" &
waiter=$!
for _ in $(seq 200); do grep -q "waiting for" "$listening" && break; sleep 0.05; done
$sdlab notify set SHARED_MODE_CURRENT_ACCOUNT_CHANGED 1
$sdlab notify post SHARED_MODE_CURRENT_ACCOUNT_CHANGED
wait $waiter && echo "the waiting process got the post; state is $($sdlab notify get SHARED_MODE_CURRENT_ACCOUNT_CHANGED)"
