// How the watch's listener reaches the runner: the fence, which installed it, sends it on the
// app's channel (`--ready-fd`) before it becomes the app, so it never reaches the app's code.
// Or the fence says it stopped the launch, and why (it could not drop the app's privileges).
#define _GNU_SOURCE
#include "fence_watch.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int sdlab_watch_send(int channel, int listener, const char *why) {
    char text[512];
    snprintf(text, sizeof text, "%s%s", listener >= 0 ? "watch" : "none: ", listener >= 0 ? "" : why);
    struct iovec part = {.iov_base = text, .iov_len = strlen(text)};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    if (listener >= 0) {
        message.msg_control = control.space;
        message.msg_controllen = sizeof control.space;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &listener, sizeof(int));
    }
    return sendmsg(channel, &message, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

int sdlab_watch_send_stop(int channel, const char *why) {
    char text[512];
    snprintf(text, sizeof text, "stop: %s", why);
    return send(channel, text, strlen(text), MSG_NOSIGNAL) < 0 ? -1 : 0;
}

int sdlab_watch_receive(int channel, int timeout_ms, char *why, int size) {
    struct pollfd waiting = {.fd = channel, .events = POLLIN};
    int ready;
    do {
        ready = poll(&waiting, 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) {
        snprintf(why, (size_t)size, "the fence said nothing within %d ms", timeout_ms);
        return -1;
    }
    char text[512];
    struct iovec part = {.iov_base = text, .iov_len = sizeof text - 1};
    union {
        struct cmsghdr header;
        char space[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr message = {
        .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    ssize_t length = ready < 0 ? -1 : recvmsg(channel, &message, MSG_CMSG_CLOEXEC);
    if (length <= 0) {
        snprintf(why, (size_t)size, "the fence ended before it started the app%s%s", length < 0 ? ": " : "",
                 length < 0 ? strerror(errno) : "");
        return -1;
    }
    text[length] = '\0';
    int listener = -1;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (header && header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
        memcpy(&listener, CMSG_DATA(header), sizeof(int));
    }
    if (strcmp(text, "watch") == 0 && listener >= 0) return listener;
    if (listener >= 0) close(listener);
    if (strncmp(text, "stop: ", 6) == 0) {
        snprintf(why, (size_t)size, "%s", text + 6);
        return -2;
    }
    snprintf(why, (size_t)size, "%s", strncmp(text, "none: ", 6) == 0 ? text + 6 : text);
    return -1;
}
