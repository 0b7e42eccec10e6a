/* FloorBroker ADDRESS
 *
 * The least a broker can be: owns the hub's name and answers dev.sdlab.Broker1.GetAccounts
 * with no account (an empty aa{sv}, the method's shape in Bus/dev.sdlab.Broker1.xml), one call
 * at a time, each reply flushed; anything else gets UnknownMethod. Prints `ready` once it owns
 * the name, then serves until the bus goes away or SIGTERM. Exit status 2 on any failure. */
#include "cfloor.h"

#include <stdio.h>

static const char *const who = "FloorBroker";

static DBusMessage *no_accounts(DBusMessage *call)
{
    DBusMessage *reply = dbus_message_new_method_return(call);
    DBusMessageIter arguments, accounts;
    if (!reply)
        return NULL;
    dbus_message_iter_init_append(reply, &arguments);
    if (!dbus_message_iter_open_container(&arguments, DBUS_TYPE_ARRAY, "a{sv}", &accounts) ||
        !dbus_message_iter_close_container(&arguments, &accounts)) {
        dbus_message_unref(reply);
        return NULL;
    }
    return reply;
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
            DBusMessage *reply = dbus_message_is_method_call(message, FLOOR_BROKER_INTERFACE, FLOOR_GET_ACCOUNTS)
                                     ? no_accounts(message)
                                     : dbus_message_new_error(message, DBUS_ERROR_UNKNOWN_METHOD, "unknown method");
            if (!reply || !dbus_connection_send(connection, reply, NULL))
                floor_fail(who, "out of memory answering", NULL);
            dbus_connection_flush(connection);
            dbus_message_unref(reply);
        }
        dbus_message_unref(message);
    }
}
