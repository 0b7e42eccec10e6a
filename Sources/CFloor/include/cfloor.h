/* The plain-C floor of `sdlab bench`: a post delivered with libdbus and nothing on top.
 *
 * The names are the device's own (Sources/DeviceContract/Names.swift, Bus/dev.sdlab.Notify1.xml,
 * Bus/dev.sdlab.Broker1.xml), so the bus routes the floor's posts and checks exactly as it routes
 * the apps'. A floor post is Posted(name, sent_ns, seq): the name the apps' rule matches on as
 * arg0, CLOCK_MONOTONIC just before the send (one clock for the whole machine), and the
 * measured post's number from 0, or FLOOR_WARMUP, FLOOR_DONE or FLOOR_CHANGE.
 *
 * Session changes (the recheck floor, after its posts): whoever runs the floor calls the broker's
 * FLOOR_SESSION_INTERFACE, as the bench calls the hub's check-out and check-in:
 *     CheckOut(s homeAccountId, s username, s environment) -> (x commit_ns)   the account is signed in
 *     CheckIn() -> (x commit_ns)                                           no account is
 * The broker commits (its GetAccounts answer changes), takes the commit time (CLOCK_MONOTONIC),
 * posts Posted(name, commit_ns, FLOOR_CHANGE), then replies. A receiver's check then finds the
 * answer changed, and it says so on stdout, a line each:
 *     holds ID         the answer is now the account ID (nobody's records to remove)
 *     cleaned T        the answer went from an account to none and its container's records were
 *                      removed, the last at T (CLOCK_MONOTONIC ns)
 *     not-cleaned      they were not (why, on stderr) */
#ifndef SDLAB_CFLOOR_H
#define SDLAB_CFLOOR_H

#include <dbus/dbus.h>
#include <stdint.h>

#define FLOOR_NOTIFY_PATH "/dev/sdlab/Notify"
#define FLOOR_NOTIFY_INTERFACE "dev.sdlab.Notify1"
#define FLOOR_POSTED "Posted"
#define FLOOR_POST_NAME "SHARED_MODE_CURRENT_ACCOUNT_CHANGED"

#define FLOOR_HUB_NAME "dev.sdlab.Hub"
#define FLOOR_HUB_PATH "/dev/sdlab/Hub"
#define FLOOR_BROKER_INTERFACE "dev.sdlab.Broker1"
#define FLOOR_GET_ACCOUNTS "GetAccounts"

/* Receiver I owns FLOOR_RECEIVER_PREFIX "I" (I from 1). */
#define FLOOR_NAMESPACE "dev.sdlab.Floor"
#define FLOOR_RECEIVER_PREFIX FLOOR_NAMESPACE ".Receiver"

/* What an MSAL app subscribes with (DeviceBus.posts(of:)): the bus filters on arg0. */
#define FLOOR_MATCH                                                                            \
    "type='signal',path='" FLOOR_NOTIFY_PATH "',interface='" FLOOR_NOTIFY_INTERFACE            \
    "',member='" FLOOR_POSTED "',arg0='" FLOOR_POST_NAME "'"

/* seq of an unmeasured post, of the last measured one (every receiver then writes its results),
 * and of the broker's post of a session change. */
#define FLOOR_WARMUP (-1)
#define FLOOR_DONE (-2)
#define FLOOR_CHANGE (-3)

#define FLOOR_SESSION_INTERFACE "dev.sdlab.Floor.Session"
#define FLOOR_CHECK_OUT "CheckOut"
#define FLOOR_CHECK_IN "CheckIn"
#define FLOOR_ACCOUNT_ID "homeAccountId"

/* CLOCK_MONOTONIC in nanoseconds: the clock of the apps' traces too. */
int64_t floor_now_ns(void);

/* A private connection to the bus at `address`, registered (it has its unique name). */
DBusConnection *floor_connect(const char *who, const char *address);

/* Says "WHO: WHAT: the error's message" on stderr and exits with 2. */
void floor_fail(const char *who, const char *what, DBusError *error) __attribute__((noreturn));

#endif
