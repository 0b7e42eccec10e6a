#include "cfloor.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int64_t floor_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void floor_fail(const char *who, const char *what, DBusError *error)
{
    if (error && dbus_error_is_set(error))
        fprintf(stderr, "%s: %s: %s\n", who, what, error->message);
    else
        fprintf(stderr, "%s: %s\n", who, what);
    exit(2);
}

DBusConnection *floor_connect(const char *who, const char *address)
{
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (!connection)
        floor_fail(who, "cannot connect to the bus", &error);
    if (!dbus_bus_register(connection, &error))
        floor_fail(who, "cannot register on the bus", &error);
    dbus_connection_set_exit_on_disconnect(connection, FALSE);
    return connection;
}
