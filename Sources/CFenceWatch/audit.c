// The kernel's word on what the fence refused: Landlock logs each refusal to the kernel's audit
// (Linux 6.15, Landlock ABI 7), and a runner allowed to read the audit (CAP_AUDIT_READ and
// CAP_AUDIT_CONTROL: root, in the first user namespace) hears every record on its multicast group.
// So a write the kernel refuses is named without any write waiting for the runner.
#define _GNU_SOURCE
#include "fence_watch.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/// Records the kernel may hold for its readers before it drops them (its default is 64; a
/// fleet's refusals can come at once).
#define BACKLOG_WANTED 8192
/// Room for records that arrive faster than the runner reads them.
#define RECEIVE_BUFFER (8 << 20)

/// Sends `type` with `body` to the kernel's audit on `control` and reads its answer into `reply`
/// when there is one (the kernel sends it from a thread of its own, after any acknowledgement),
/// else its acknowledgement. Returns 0, or -1 with errno.
static int ask(int control, int type, const void *body, size_t length, void *reply, size_t reply_size) {
    char message[NLMSG_SPACE(1024)] = {0};
    if (length > 1024) {
        errno = EINVAL;
        return -1;
    }
    struct nlmsghdr *header = (struct nlmsghdr *)message;
    header->nlmsg_len = (unsigned)NLMSG_LENGTH(length);
    header->nlmsg_type = (unsigned short)type;
    header->nlmsg_flags = NLM_F_REQUEST | (reply ? 0 : NLM_F_ACK);
    header->nlmsg_seq = 1;
    memcpy(NLMSG_DATA(header), body, length);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(control, message, header->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) return -1;
    for (;;) {
        struct pollfd ready = {.fd = control, .events = POLLIN};
        int polled = poll(&ready, 1, 5000);
        if (polled <= 0) {
            if (polled == 0) errno = ETIMEDOUT;
            return -1;
        }
        char answer[NLMSG_SPACE(sizeof(struct audit_status)) + 512];
        ssize_t got = recv(control, answer, sizeof answer, 0);
        if (got < (ssize_t)NLMSG_HDRLEN) return -1;
        struct nlmsghdr *said = (struct nlmsghdr *)answer;
        if (said->nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *error = NLMSG_DATA(said);
            if (error->error == 0 && reply) continue; // the answer follows
            if (error->error == 0) return 0;
            errno = -error->error;
            return -1;
        }
        if (reply && said->nlmsg_type == type) {
            size_t body_length = said->nlmsg_len - NLMSG_HDRLEN;
            memcpy(reply, NLMSG_DATA(said), body_length < reply_size ? body_length : reply_size);
            return 0;
        }
    }
}

static int control_socket(void) { return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT); }

int sdlab_audit_status(unsigned *enabled, unsigned *lost) {
    int control = control_socket();
    if (control < 0) return -1;
    struct audit_status status = {0};
    int asked = ask(control, AUDIT_GET, NULL, 0, &status, sizeof status);
    int error = errno;
    close(control);
    if (asked != 0) {
        errno = error;
        return -1;
    }
    *enabled = status.enabled;
    *lost = status.lost;
    return 0;
}

int sdlab_audit_open(char *why, int size) {
    int control = control_socket();
    if (control < 0) {
        snprintf(why, (size_t)size, "this kernel has no audit (%s)", strerror(errno));
        return -1;
    }
    struct audit_status status = {0};
    int listener = -1;
    if (ask(control, AUDIT_GET, NULL, 0, &status, sizeof status) != 0) {
        snprintf(why, (size_t)size, "the kernel's audit does not answer this runner (%s)", strerror(errno));
        goto done;
    }
    if (status.failure == AUDIT_FAIL_PANIC) {
        // A flood of refusals past the backlog would stop the machine.
        snprintf(why, (size_t)size, "the kernel's audit is set to panic when it drops a record");
        goto done;
    }
    struct audit_status wanted = {0};
    if (status.enabled == 0) {
        wanted.mask |= AUDIT_STATUS_ENABLED;
        wanted.enabled = 1;
    }
    if (status.backlog_limit < BACKLOG_WANTED) {
        wanted.mask |= AUDIT_STATUS_BACKLOG_LIMIT;
        wanted.backlog_limit = BACKLOG_WANTED;
    }
    if (wanted.mask && ask(control, AUDIT_SET, &wanted, sizeof wanted, NULL, 0) != 0) {
        snprintf(why, (size_t)size, "cannot turn the kernel's audit on (%s)", strerror(errno));
        goto done;
    }
    listener = control_socket();
    struct sockaddr_nl group = {.nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1)};
    if (listener < 0 || bind(listener, (struct sockaddr *)&group, sizeof group) != 0) {
        snprintf(why, (size_t)size, "cannot read the kernel's audit records (%s)", strerror(errno));
        if (listener >= 0) close(listener);
        listener = -1;
        goto done;
    }
    int room = RECEIVE_BUFFER;
    if (setsockopt(listener, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof room) != 0) {
        setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &room, sizeof room);
    }
done:
    close(control);
    return listener;
}

int sdlab_audit_receive(int listener, char *text, int size) {
    char message[NLMSG_SPACE(8970)]; // the kernel's longest record (MAX_AUDIT_MESSAGE_LENGTH)
    ssize_t got = recv(listener, message, sizeof message, 0);
    if (got < (ssize_t)NLMSG_HDRLEN) return -1;
    struct nlmsghdr *header = (struct nlmsghdr *)message;
    size_t length = (size_t)got - NLMSG_HDRLEN;
    if (header->nlmsg_len >= NLMSG_HDRLEN && header->nlmsg_len - NLMSG_HDRLEN < length) {
        length = header->nlmsg_len - NLMSG_HDRLEN;
    }
    if (length >= (size_t)size) length = (size_t)size - 1;
    memcpy(text, NLMSG_DATA(header), length);
    text[length] = '\0';
    return header->nlmsg_type;
}

int sdlab_audit_mark(const char *text) {
    int control = control_socket();
    if (control < 0) return -1;
    int sent = ask(control, AUDIT_USER, text, strlen(text) + 1, NULL, 0);
    int error = errno;
    close(control);
    errno = error;
    return sent;
}
