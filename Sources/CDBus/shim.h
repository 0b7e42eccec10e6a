#ifndef SDLAB_CDBUS_SHIM_H
#define SDLAB_CDBUS_SHIM_H
#include <dbus/dbus.h>
#include <poll.h>
#include <sys/eventfd.h>
#endif
