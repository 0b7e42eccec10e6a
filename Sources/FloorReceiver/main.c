/* FloorReceiver ADDRESS INDEX OUTFILE [recheck CONTAINER [skip-cleanup-for-tests]]
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
 * posts are checked too, but not recorded. It holds the account of the last answer (none at
 * first): when an answer names another, it says `holds ID` on stdout; when it names none after
 * an account, it removes the records in CONTAINER as the built-in app's wipe-all does (unless
 * `skip-cleanup-for-tests`, a switch for the bench's own tests) and says `cleaned T` or
 * `not-cleaned` (cfloor.h).
 *
 * On the Done post, once no call is in flight, it writes OUTFILE, one line per measured post
 * in arrival order:
 *     SEQ SENT_NS RECEIVED_NS CHECKED_NS     (CHECKED_NS is -1 when the post was not checked)
 * then releases its name and goes on as before (posts, checks, session changes) until it is
 * stopped (SIGTERM), so that whoever started it can read its CPU time and memory while it still
 * runs. Exit status 2 on any failure. */
#include "cfloor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The first account's homeAccountId of a GetAccounts reply into `id`, "" for none; -1 for a
 * reply of another shape. */
static int account_of(DBusMessage *reply, char *id, size_t size)
{
    DBusMessageIter arguments, accounts, account, entry, value;
    id[0] = '\0';
    if (!dbus_message_iter_init(reply, &arguments) || dbus_message_iter_get_arg_type(&arguments) != DBUS_TYPE_ARRAY)
        return -1;
    dbus_message_iter_recurse(&arguments, &accounts);
    if (dbus_message_iter_get_arg_type(&accounts) != DBUS_TYPE_ARRAY)
        return 0; /* no account */
    dbus_message_iter_recurse(&accounts, &account);
    for (; dbus_message_iter_get_arg_type(&account) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&account)) {
        const char *key = NULL, *text = NULL;
        dbus_message_iter_recurse(&account, &entry);
        if (dbus_message_iter_get_arg_type(&entry) != DBUS_TYPE_STRING)
            return -1;
        dbus_message_iter_get_basic(&entry, &key);
        if (strcmp(key, FLOOR_ACCOUNT_ID) != 0)
            continue;
        if (!dbus_message_iter_next(&entry) || dbus_message_iter_get_arg_type(&entry) != DBUS_TYPE_VARIANT)
            return -1;
        dbus_message_iter_recurse(&entry, &value);
        if (dbus_message_iter_get_arg_type(&value) != DBUS_TYPE_STRING)
            return -1;
        dbus_message_iter_get_basic(&value, &text);
        snprintf(id, size, "%s", text);
        return 0;
    }
    return -1; /* an account without an id */
}

/* Lists the folder `name` beneath `parent` once and unlinks each entry of it; with `user_folders`
 * each entry is a user's folder, emptied the same way then removed (anything else in its place is
 * unlinked itself, never followed). Returns 0, or -1 with errno set. */
static int empty_folder(int parent, const char *name, int user_folders)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *folder = fdopendir(fd);
    if (!folder) {
        close(fd);
        return -1;
    }
    int status = 0;
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(folder);
        if (!entry) {
            status = errno ? -1 : 0;
            break;
        }
        const char *file = entry->d_name;
        if (strcmp(file, ".") == 0 || strcmp(file, "..") == 0)
            continue;
        if (user_folders && entry->d_type == DT_DIR)
            status = (empty_folder(fd, file, 0) == 0 && unlinkat(fd, file, AT_REMOVEDIR) == 0) ? 0 : -1;
        else
            status = unlinkat(fd, file, 0);
        if (status != 0)
            break;
    }
    int saved = errno;
    closedir(folder);
    errno = saved;
    return status;
}

/* Removes the container's records as the built-in app's wipe-all does (Container.delete, every
 * kind): the files of `preferences`; in `documents` and `caches`, each user's folder, listed once,
 * each file unlinked, then the folder itself. The container's four folders stay. Returns 0, or -1
 * with errno set and `step` naming the folder. */
static int remove_records(int container, const char **step)
{
    static const char *const folders[] = {"preferences", "documents", "caches"};
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
        *step = folders[i];
        if (empty_folder(container, folders[i], i > 0) != 0)
            return -1;
    }
    return 0;
}

/* A reply to GetAccounts: when it names another account than the one held, says so, removing
 * the records first when it names none after an account. */
static void answered(DBusMessage *reply, char *held, size_t size, int container, int skip_cleanup)
{
    char now[256];
    if (account_of(reply, now, sizeof now) != 0)
        floor_fail(who, "GetAccounts answered with another shape than aa{sv} with a homeAccountId", NULL);
    if (strcmp(now, held) == 0)
        return;
    int had_account = held[0] != '\0';
    snprintf(held, size, "%s", now);
    if (now[0] != '\0') {
        dprintf(STDOUT_FILENO, "holds %s\n", now);
    } else if (had_account && !skip_cleanup) {
        const char *step = NULL;
        if (remove_records(container, &step) == 0) {
            dprintf(STDOUT_FILENO, "cleaned %lld\n", (long long)floor_now_ns());
        } else {
            fprintf(stderr, "%s: cannot remove the records in %s: %s\n", who, step, strerror(errno));
            dprintf(STDOUT_FILENO, "not-cleaned\n");
        }
    } else if (had_account) {
        dprintf(STDOUT_FILENO, "not-cleaned\n");
    }
}

static void write_results(const char *outfile, const post_t *posts, size_t count)
{
    FILE *out = fopen(outfile, "w");
    if (!out) {
        perror(outfile);
        exit(2);
    }
    for (size_t i = 0; i < count; i++)
        fprintf(out, "%d %lld %lld %lld\n", posts[i].seq, (long long)posts[i].sent, (long long)posts[i].received,
                (long long)posts[i].checked);
    if (fclose(out) != 0) {
        perror(outfile);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4 || (argc > 4 && (strcmp(argv[4], "recheck") != 0 || argc < 6))) {
        fprintf(stderr, "usage: %s ADDRESS INDEX OUTFILE [recheck CONTAINER [skip-cleanup-for-tests]]\n", argv[0]);
        return 2;
    }
    const char *outfile = argv[3];
    int recheck = argc > 4;
    int skip_cleanup = argc > 6 && strcmp(argv[6], "skip-cleanup-for-tests") == 0;
    int container = -1;
    if (recheck && (container = open(argv[5], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        perror(argv[5]);
        return 2;
    }
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
    size_t unchecked = 0;        /* posts [unchecked, count) have no answer yet */
    size_t covered = 0;          /* posts [unchecked, covered) are covered by the call in flight */
    dbus_uint32_t in_flight = 0; /* that call's serial, 0 when none */
    int waiting = 0;             /* a post (measured or not) arrived while a call was in flight */
    int done = 0, written = 0;
    char held[256] = "";         /* the account of the last answer, "" for none */

    for (;;) {
        if (done && !in_flight && !written) {
            write_results(outfile, posts, count);
            written = 1;
            dbus_bus_release_name(connection, name, &error); /* the emitter's sign that the results are written */
            if (dbus_error_is_set(&error))
                floor_fail(who, "ReleaseName", &error);
        }
        DBusMessage *message = dbus_connection_pop_message(connection);
        if (!message) {
            if (!dbus_connection_read_write(connection, -1)) {
                if (written)
                    return 0; /* the end of the floor */
                floor_fail(who, "the bus went away", NULL);
            }
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
            answered(message, held, sizeof held, container, skip_cleanup);
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
                if (seq >= 0 && !done) {
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
}
