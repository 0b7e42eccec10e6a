#!/usr/bin/python3
"""Times the hub's calls from a foreign client (python-dbus), against the device in
DBUS_SESSION_BUS_ADDRESS, which must be freshly up (it is enrolled here):

    eval "$(.build/release/sdlab device up --detach)"; export DBUS_SESSION_BUS_ADDRESS
    /usr/bin/python3 Scripts/hub-latency.py 100
    .build/release/sdlab device down --dir "$SDLAB_DEVICE_DIR"
"""
import os
import sys
import time

import dbus

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
hub = dbus.Interface(bus.get_object("dev.sdlab.Hub", "/dev/sdlab/Hub"), "dev.sdlab.Hub1")
hub.Enroll("stage", "stage")


def mean_ms(call, times):
    start = time.perf_counter()
    for _ in range(times):
        call()
    return (time.perf_counter() - start) / times * 1e3


check_out = check_in = 0.0
for _ in range(rounds):
    check_out += mean_ms(lambda: hub.CheckOut("cou1", "cou1"), 1)
    check_in += mean_ms(hub.CheckIn, 1)
print("GetSession %.2f ms, CheckOut %.1f ms, CheckIn %.1f ms (means of %d)"
      % (mean_ms(hub.GetSession, 10 * rounds), check_out / rounds, check_in / rounds, rounds))
