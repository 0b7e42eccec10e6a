/* FloorEmitter ADDRESS RECEIVERS POSTS GAP_US WARMUP
 *
 * The sender of the floor's posts (cfloor.h):
 * 1. waits until RECEIVERS receivers own their names (each adds its match rule first);
 * 2. sends WARMUP unmeasured posts GAP_US apart, lets them settle for 200 ms, prints `ready`
 *    and waits for a line on stdin: whoever started it reads CPU times meanwhile;
 * 3. sends POSTS measured posts GAP_US apart on an absolute schedule (a late send does not
 *    delay the next), each stamped just before it is sent, then the Done post;
 * 4. waits until every receiver has released its name (its results are written, its checks
 *    answered) and prints `finished late=L`, L the sends that missed their slot by a gap or more.
 * Gives up after 120 s without the names it waits for. Exit status 2 on any failure. */
#include "cfloor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const who = "FloorEmitter";

static int receivers;
static char *owned; /* owned[i]: receiver i owns its name */
static int owners;

/* Notes that NAME (any name of the floor's namespace) is now owned, or no longer. */
static void note_owner(const char *name, int now_owned)
{
    size_t prefix = strlen(FLOOR_RECEIVER_PREFIX);
    if (strncmp(name, FLOOR_RECEIVER_PREFIX, prefix) != 0)
        return;
    int index = atoi(name + prefix);
    if (index < 1 || index > receivers || owned[index] == now_owned)
        return;
    owned[index] = (char)now_owned;
    owners += now_owned ? 1 : -1;
}

/* Owners are followed by NameOwnerChanged from the moment this rule is in; ListNames adds the
 * names owned before. A name seen both ways is counted once. */
static void follow_owners(DBusConnection *connection)
{
    DBusError error;
    dbus_error_init(&error);
    dbus_bus_add_match(connection,
                       "type='signal',sender='" DBUS_SERVICE_DBUS "',interface='" DBUS_INTERFACE_DBUS
                       "',member='NameOwnerChanged',arg0namespace='" FLOOR_NAMESPACE "'",
                       &error);
    if (dbus_error_is_set(&error))
        floor_fail(who, "AddMatch", &error);
    DBusMessage *call = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
                                                     "ListNames");
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, 30000, &error);
    dbus_message_unref(call);
    char **names = NULL;
    int count = 0;
    if (!reply || !dbus_message_get_args(reply, &error, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &names, &count,
                                         DBUS_TYPE_INVALID))
        floor_fail(who, "ListNames", &error);
    for (int i = 0; i < count; i++)
        note_owner(names[i], 1);
    dbus_free_string_array(names);
    dbus_message_unref(reply);
}

/* Reads NameOwnerChanged until `wanted` receivers own their names. */
static void wait_for_owners(DBusConnection *connection, int wanted, const char *what)
{
    int64_t deadline = floor_now_ns() + 120 * (int64_t)1000000000;
    while (owners != wanted) {
        DBusMessage *message = dbus_connection_pop_message(connection);
        if (!message) {
            if (floor_now_ns() > deadline) {
                fprintf(stderr, "%s: %d of %d receivers %s after 120 s\n", who, owners, receivers, what);
                exit(2);
            }
            if (!dbus_connection_read_write(connection, 100))
                floor_fail(who, "the bus went away", NULL);
            continue;
        }
        const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
        if (dbus_message_is_signal(message, DBUS_INTERFACE_DBUS, "NameOwnerChanged") &&
            dbus_message_get_args(message, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &old_owner,
                                  DBUS_TYPE_STRING, &new_owner, DBUS_TYPE_INVALID))
            note_owner(name, new_owner[0] != '\0');
        dbus_message_unref(message);
    }
}

static void post(DBusConnection *connection, int32_t seq)
{
    dbus_int64_t sent = floor_now_ns();
    dbus_int32_t number = seq;
    const char *name = FLOOR_POST_NAME;
    DBusMessage *signal = dbus_message_new_signal(FLOOR_NOTIFY_PATH, FLOOR_NOTIFY_INTERFACE, FLOOR_POSTED);
    if (!signal ||
        !dbus_message_append_args(signal, DBUS_TYPE_STRING, &name, DBUS_TYPE_INT64, &sent, DBUS_TYPE_INT32,
                                  &number, DBUS_TYPE_INVALID) ||
        !dbus_connection_send(connection, signal, NULL))
        floor_fail(who, "out of memory sending a post", NULL);
    dbus_connection_flush(connection);
    dbus_message_unref(signal);
}

static void advance(struct timespec *time, int64_t nanoseconds)
{
    int64_t total = (int64_t)time->tv_nsec + nanoseconds;
    time->tv_sec += total / 1000000000;
    time->tv_nsec = total % 1000000000;
}

static int64_t nanoseconds(const struct timespec *time)
{
    return (int64_t)time->tv_sec * 1000000000 + time->tv_nsec;
}

/* `count` posts `gap` apart from 1 ms from now; returns how many were sent a gap or more late. */
static int send_posts(DBusConnection *connection, int count, int32_t seq_base, int64_t gap)
{
    struct timespec slot;
    clock_gettime(CLOCK_MONOTONIC, &slot);
    advance(&slot, 1000000);
    int late = 0;
    for (int i = 0; i < count; i++) {
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &slot, NULL) != 0) {
        }
        if (floor_now_ns() - nanoseconds(&slot) >= gap)
            late++;
        post(connection, seq_base < 0 ? seq_base : seq_base + i);
        advance(&slot, gap);
    }
    return late;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s ADDRESS RECEIVERS POSTS GAP_US WARMUP\n", argv[0]);
        return 2;
    }
    receivers = atoi(argv[2]);
    int posts = atoi(argv[3]);
    int64_t gap = atoll(argv[4]) * 1000;
    int warmup = atoi(argv[5]);
    if (receivers < 1 || posts < 1 || gap < 0 || warmup < 0) {
        fprintf(stderr, "%s: RECEIVERS and POSTS are at least 1, GAP_US and WARMUP at least 0\n", who);
        return 2;
    }
    owned = calloc((size_t)receivers + 1, 1);

    DBusConnection *connection = floor_connect(who, argv[1]);
    follow_owners(connection);
    wait_for_owners(connection, receivers, "own their names");

    send_posts(connection, warmup, FLOOR_WARMUP, gap);
    struct timespec settle = {0, 200000000};
    nanosleep(&settle, NULL);
    printf("ready\n");
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin))
        floor_fail(who, "stdin closed before the go", NULL);

    int late = send_posts(connection, posts, 0, gap);
    post(connection, FLOOR_DONE);
    wait_for_owners(connection, 0, "still own their names");
    printf("finished late=%d\n", late);
    fflush(stdout);
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
    return 0;
}
