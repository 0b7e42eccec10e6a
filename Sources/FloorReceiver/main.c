/* FloorReceiver ADDRESS INDEX OUTFILE [recheck]
 *
 * An app reduced to what a post costs it. It subscribes to the account-change posts as an
 * MSAL app does (FLOOR_MATCH, filtered on arg0), then owns FLOOR_RECEIVER_PREFIX INDEX; the
 * emitter waits for that name, and since the daemon handles one connection's messages in
 * order, the rule is in place by then. For each measured post it keeps the send time the post
 * carries and the time it popped the post.
 *
 * With `recheck` it also does the least an MSAL app must after every post: ask the broker
 * (GetAccounts). It sends one call when none is in flight; posts that arrive while one is in
 * flight wait for the next call (they coalesce into one check). It never blocks on the call,
 * so every post is timestamped as it arrives, and the reply (matched by serial) marks every
 * post that arrived before its call as checked at the time the reply was popped. Warm-up
 * posts are checked too, but not recorded.
 *
 * On the Done post, once no call is in flight, it writes OUTFILE, one line per measured post
 * in arrival order:
 *     SEQ SENT_NS RECEIVED_NS CHECKED_NS     (CHECKED_NS is -1 when the post was not checked)
 * then releases its name and waits to be stopped (SIGTERM), so that whoever started it can
 * read its CPU time and memory while it still runs. Exit status 2 on any failure. */
#include "cfloor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const who = "FloorReceiver";

typedef struct {
    int32_t seq;
    int64_t sent, received, checked;
} post_t;

/* Sends GetAccounts to the broker without waiting: the reply is popped like any message. */
static dbus_uint32_t ask_broker(DBusConnection *connection)
{
    DBusMessage *call = dbus_message_new_method_call(FLOOR_HUB_NAME, FLOOR_HUB_PATH, FLOOR_BROKER_INTERFACE,
                                                     FLOOR_GET_ACCOUNTS);
    dbus_uint32_t serial = 0;
    if (!call || !dbus_connection_send(connection, call, &serial))
        floor_fail(who, "out of memory sending GetAccounts", NULL);
    dbus_connection_flush(connection);
    dbus_message_unref(call);
    return serial;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s ADDRESS INDEX OUTFILE [recheck]\n", argv[0]);
        return 2;
    }
    const char *outfile = argv[3];
    int recheck = argc > 4 && strcmp(argv[4], "recheck") == 0;
    char name[128];
    snprintf(name, sizeof name, FLOOR_RECEIVER_PREFIX "%d", atoi(argv[2]));

    DBusConnection *connection = floor_connect(who, argv[1]);
    DBusError error;
    dbus_error_init(&error);
    dbus_bus_add_match(connection, FLOOR_MATCH, &error); /* blocks until the daemon has the rule */
    if (dbus_error_is_set(&error))
        floor_fail(who, "AddMatch", &error);
    if (dbus_bus_request_name(connection, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) !=
        DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        floor_fail(who, name, &error);

    size_t capacity = 1024, count = 0;
    post_t *posts = malloc(capacity * sizeof *posts);
    size_t unchecked = 0;      /* posts [unchecked, count) have no answer yet */
    size_t covered = 0;        /* posts [unchecked, covered) are covered by the call in flight */
    dbus_uint32_t in_flight = 0; /* that call's serial, 0 when none */
    int waiting = 0;           /* a post (measured or not) arrived while a call was in flight */
    int done = 0;

    while (!done || in_flight) {
        DBusMessage *message = dbus_connection_pop_message(connection);
        if (!message) {
            if (!dbus_connection_read_write(connection, -1))
                floor_fail(who, "the bus went away", NULL);
            continue;
        }
        int64_t now = floor_now_ns();
        int type = dbus_message_get_type(message);
        if (in_flight && (type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR) &&
            dbus_message_get_reply_serial(message) == in_flight) {
            if (type == DBUS_MESSAGE_TYPE_ERROR)
                floor_fail(who, dbus_message_get_error_name(message), NULL);
            for (; unchecked < covered; unchecked++)
                posts[unchecked].checked = now;
            in_flight = 0;
            if (waiting) {
                in_flight = ask_broker(connection);
                covered = count;
                waiting = 0;
            }
        } else if (dbus_message_is_signal(message, FLOOR_NOTIFY_INTERFACE, FLOOR_POSTED)) {
            const char *post_name = NULL;
            dbus_int64_t sent = 0;
            dbus_int32_t seq = 0;
            if (!dbus_message_get_args(message, &error, DBUS_TYPE_STRING, &post_name, DBUS_TYPE_INT64, &sent,
                                       DBUS_TYPE_INT32, &seq, DBUS_TYPE_INVALID)) {
                dbus_error_free(&error); /* not a floor post */
            } else if (seq == FLOOR_DONE) {
                done = 1;
            } else {
                if (seq >= 0) {
                    if (count == capacity) {
                        capacity *= 2;
                        posts = realloc(posts, capacity * sizeof *posts);
                    }
                    posts[count++] = (post_t){seq, sent, now, -1};
                }
                if (recheck && in_flight) {
                    waiting = 1;
                } else if (recheck) {
                    in_flight = ask_broker(connection);
                    covered = count;
                }
            }
        }
        dbus_message_unref(message);
    }

    FILE *out = fopen(outfile, "w");
    if (!out) {
        perror(outfile);
        return 2;
    }
    for (size_t i = 0; i < count; i++)
        fprintf(out, "%d %lld %lld %lld\n", posts[i].seq, (long long)posts[i].sent, (long long)posts[i].received,
                (long long)posts[i].checked);
    if (fclose(out) != 0) {
        perror(outfile);
        return 2;
    }
    free(posts);

    dbus_bus_release_name(connection, name, &error); /* the emitter's sign that the results are written */
    if (dbus_error_is_set(&error))
        floor_fail(who, "ReleaseName", &error);
    while (dbus_connection_read_write(connection, -1)) { /* until SIGTERM or the bus goes */
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(connection)))
            dbus_message_unref(message);
    }
    return 0;
}
