/* FloorBroker ADDRESS
 *
 * The least a broker can be: owns the hub's name and answers dev.sdlab.Broker1.GetAccounts
 * with the account signed in or none (an aa{sv}, the method's shape in Bus/dev.sdlab.Broker1.xml;
 * none at first), one call at a time, each reply flushed. Session changes come as calls too
 * (FLOOR_SESSION_INTERFACE, cfloor.h): each is committed, posted, then answered with its commit
 * time. Anything else gets UnknownMethod. Prints `ready` once it owns the name, then serves until
 * the bus goes away or SIGTERM. Exit status 2 on any failure. */
#include "cfloor.h"

#include <stdio.h>
#include <string.h>

static const char *const who = "FloorBroker";

/* The account signed in: its a{sv} entries, in the order the hub writes them. */
static struct {
    int signed_in;
    char id[256], username[256], environment[256];
} account;

static int append_entry(DBusMessageIter *dictionary, const char *key, const char *text)
{
    DBusMessageIter entry, value;
    return dbus_message_iter_open_container(dictionary, DBUS_TYPE_DICT_ENTRY, NULL, &entry) &&
           dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key) &&
           dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &value) &&
           dbus_message_iter_append_basic(&value, DBUS_TYPE_STRING, &text) &&
           dbus_message_iter_close_container(&entry, &value) && dbus_message_iter_close_container(dictionary, &entry);
}

static DBusMessage *accounts(DBusMessage *call)
{
    DBusMessage *reply = dbus_message_new_method_return(call);
    DBusMessageIter arguments, list, dictionary;
    if (!reply)
        return NULL;
    dbus_message_iter_init_append(reply, &arguments);
    int written = dbus_message_iter_open_container(&arguments, DBUS_TYPE_ARRAY, "a{sv}", &list);
    if (written && account.signed_in)
        written = dbus_message_iter_open_container(&list, DBUS_TYPE_ARRAY, "{sv}", &dictionary) &&
                  append_entry(&dictionary, FLOOR_ACCOUNT_ID, account.id) &&
                  append_entry(&dictionary, "username", account.username) &&
                  append_entry(&dictionary, "environment", account.environment) &&
                  dbus_message_iter_close_container(&list, &dictionary);
    if (!written || !dbus_message_iter_close_container(&arguments, &list)) {
        dbus_message_unref(reply);
        return NULL;
    }
    return reply;
}

static void post_change(DBusConnection *connection, dbus_int64_t commit)
{
    const char *name = FLOOR_POST_NAME;
    dbus_int32_t seq = FLOOR_CHANGE;
    DBusMessage *signal = dbus_message_new_signal(FLOOR_NOTIFY_PATH, FLOOR_NOTIFY_INTERFACE, FLOOR_POSTED);
    if (!signal ||
        !dbus_message_append_args(signal, DBUS_TYPE_STRING, &name, DBUS_TYPE_INT64, &commit, DBUS_TYPE_INT32, &seq,
                                  DBUS_TYPE_INVALID) ||
        !dbus_connection_send(connection, signal, NULL))
        floor_fail(who, "out of memory posting a session change", NULL);
    dbus_connection_flush(connection);
    dbus_message_unref(signal);
}

/* A check-out (the account's three strings) or a check-in (none): committed, posted, answered
 * with the commit time. */
static DBusMessage *change_session(DBusConnection *connection, DBusMessage *call, int check_out)
{
    if (check_out) {
        const char *id = NULL, *username = NULL, *environment = NULL;
        if (!dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &id, DBUS_TYPE_STRING, &username, DBUS_TYPE_STRING,
                                   &environment, DBUS_TYPE_INVALID))
            return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, "CheckOut takes (sss)");
        snprintf(account.id, sizeof account.id, "%s", id);
        snprintf(account.username, sizeof account.username, "%s", username);
        snprintf(account.environment, sizeof account.environment, "%s", environment);
    }
    account.signed_in = check_out;
    dbus_int64_t commit = floor_now_ns();
    post_change(connection, commit);
    DBusMessage *reply = dbus_message_new_method_return(call);
    if (reply && !dbus_message_append_args(reply, DBUS_TYPE_INT64, &commit, DBUS_TYPE_INVALID)) {
        dbus_message_unref(reply);
        return NULL;
    }
    return reply;
}

static DBusMessage *answer(DBusConnection *connection, DBusMessage *call)
{
    if (dbus_message_is_method_call(call, FLOOR_BROKER_INTERFACE, FLOOR_GET_ACCOUNTS))
        return accounts(call);
    if (dbus_message_is_method_call(call, FLOOR_SESSION_INTERFACE, FLOOR_CHECK_OUT))
        return change_session(connection, call, 1);
    if (dbus_message_is_method_call(call, FLOOR_SESSION_INTERFACE, FLOOR_CHECK_IN))
        return change_session(connection, call, 0);
    return dbus_message_new_error(call, DBUS_ERROR_UNKNOWN_METHOD, "unknown method");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ADDRESS\n", argv[0]);
        return 2;
    }
    DBusConnection *connection = floor_connect(who, argv[1]);
    DBusError error;
    dbus_error_init(&error);
    if (dbus_bus_request_name(connection, FLOOR_HUB_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) !=
        DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        floor_fail(who, FLOOR_HUB_NAME, &error);
    printf("ready\n");
    fflush(stdout);

    for (;;) {
        DBusMessage *message = dbus_connection_pop_message(connection);
        if (!message) {
            if (!dbus_connection_read_write(connection, -1))
                return 0; /* the bus went away */
            continue;
        }
        if (dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL) {
            DBusMessage *reply = answer(connection, message);
            if (!reply || !dbus_connection_send(connection, reply, NULL))
                floor_fail(who, "out of memory answering", NULL);
            dbus_connection_flush(connection);
            dbus_message_unref(reply);
        }
        dbus_message_unref(message);
    }
}
