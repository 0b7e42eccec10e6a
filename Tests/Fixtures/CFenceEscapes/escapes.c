// The routes a hostile app takes to keep a worker's record outside its container, each through
// a different door: the C library's calls that create a file without `open`, a socket, shared
// memory, a descriptor's folder, a working folder that is gone, a child process, the system
// call itself, a link planted in the container, and a System V shared memory segment (keyed by
// the outside folder, `ftok(OUTSIDE, 'S')`), which outlives the process without a file. And the
// routes around the files the fence judges: an extended attribute on the outside folder (by
// setxattrat, a raw system call) and on /dev/null, the host's name, a block device node made in
// the container and written through, a file handle opened for writing (a file `handled` beside
// the outside folder), a call no kernel has (1000) and one newer than the C library (file_setattr).
#define _GNU_SOURCE
#include "fence_escapes.h"

#include <fcntl.h>
#include <linux/types.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

extern char **environ;

const char *const fence_escape_routes = "freopen,mkstemp,mkdtemp,mkfifo,bind,shm,devfd,cwd-gone,child,raw,link,sysv,"
                                        "setxattrat,devnull-xattr,hostname,blockdev,handle,unknown-call,newer-call";

static int keep(int fd, const char *text) {
    if (fd < 0) return 0;
    ssize_t written = write(fd, text, strlen(text));
    close(fd);
    return written > 0;
}

/// setxattrat's value (Linux 6.13, `struct xattr_args`), and its number on every architecture.
struct attribute_value {
    uint64_t value;
    uint32_t size, flags;
};
#define SETXATTRAT 463
#define FILE_SETATTR 469

/// The numbers of the block device `SDLAB_ESCAPE_BLOCK` (a loop device over a file outside), or
/// /dev/null's as a character device when there is none.
static mode_t device_node(dev_t *device) {
    const char *block = getenv("SDLAB_ESCAPE_BLOCK");
    struct stat found;
    if (block && stat(block, &found) == 0 && S_ISBLK(found.st_mode)) {
        *device = found.st_rdev;
        return S_IFBLK;
    }
    *device = makedev(1, 3);
    return S_IFCHR;
}

/// The routes past the files the fence judges by their path.
static int escape_around_paths(const char *route, const char *outside, const char *home, const char *text) {
    char path[4096];
    if (strcmp(route, "setxattrat") == 0) {
        struct attribute_value value = {.value = (uint64_t)(uintptr_t)text, .size = (uint32_t)strlen(text)};
        return syscall(SETXATTRAT, AT_FDCWD, outside, 0, "user.sdlab", &value, sizeof value) == 0;
    }
    if (strcmp(route, "devnull-xattr") == 0) {
        int null = open("/dev/null", O_WRONLY);
        int kept = fsetxattr(null, "trusted.sdlab", text, strlen(text), 0) == 0;
        kept |= fsetxattr(null, "user.sdlab", text, strlen(text), 0) == 0;
        close(null);
        return kept;
    }
    if (strcmp(route, "hostname") == 0) {
        size_t length = strlen(text);
        return sethostname(text, length < 64 ? length : 64) == 0;
    }
    if (strcmp(route, "blockdev") == 0) {
        dev_t device;
        mode_t kind = device_node(&device);
        snprintf(path, sizeof path, "%s/tmp/disk", home);
        unlink(path);
        if (mknod(path, kind | 0600, device) != 0) return 0;
        return keep(open(path, O_WRONLY), text);
    }
    if (strcmp(route, "handle") == 0) {
        snprintf(path, sizeof path, "%s/../handled", outside);
        struct {
            struct file_handle handle;
            unsigned char bytes[MAX_HANDLE_SZ];
        } handle = {.handle.handle_bytes = MAX_HANDLE_SZ};
        int mount_id;
        if (name_to_handle_at(AT_FDCWD, path, &handle.handle, &mount_id, 0) != 0) return 0;
        int root = open("/", O_RDONLY | O_DIRECTORY);
        int kept = keep(open_by_handle_at(root, &handle.handle, O_WRONLY), text);
        close(root);
        return kept;
    }
    if (strcmp(route, "unknown-call") == 0) return syscall(1000, outside, text) == 0;
    if (strcmp(route, "newer-call") == 0) {
        uint64_t attributes[4] = {0}; // struct file_attr, all zero: no flag changed
        return syscall(FILE_SETATTR, AT_FDCWD, outside, attributes, sizeof attributes, 0) == 0;
    }
    return 0;
}

int fence_escape(const char *route, const char *outside, const char *home, const char *token, const char *text) {
    char path[4096];
    if (strcmp(route, "freopen") == 0) {
        snprintf(path, sizeof path, "%s/tmp/freopen-first", home);
        FILE *first = fopen(path, "w");
        if (!first) return 0;
        snprintf(path, sizeof path, "%s/freopen", outside);
        FILE *file = freopen(path, "w", first);
        if (!file) {
            fclose(first); // still open: the fence refused before the C library's freopen closed it
            return 0;
        }
        int kept = fputs(text, file) >= 0;
        return fclose(file) == 0 && kept;
    }
    if (strcmp(route, "mkstemp") == 0) {
        snprintf(path, sizeof path, "%s/mkstemp-XXXXXX", outside);
        return keep(mkstemp(path), text);
    }
    if (strcmp(route, "mkdtemp") == 0) {
        snprintf(path, sizeof path, "%s/mkdtemp-XXXXXX", outside);
        if (!mkdtemp(path)) return 0;
        strncat(path, "/record", sizeof path - strlen(path) - 1);
        return keep(open(path, O_CREAT | O_WRONLY, 0600), text);
    }
    if (strcmp(route, "mkfifo") == 0) {
        snprintf(path, sizeof path, "%s/fifo", outside);
        return mkfifo(path, 0600) == 0;
    }
    if (strcmp(route, "bind") == 0) {
        int sock = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        snprintf(address.sun_path, sizeof address.sun_path, "%s/sock", outside);
        int bound = bind(sock, (struct sockaddr *)&address, sizeof address) == 0;
        close(sock);
        return bound;
    }
    if (strcmp(route, "shm") == 0) {
        snprintf(path, sizeof path, "/dev/shm/%s-shm", token);
        return keep(open(path, O_CREAT | O_WRONLY, 0600), text);
    }
    if (strcmp(route, "devfd") == 0) {
        int folder = open(outside, O_RDONLY | O_DIRECTORY);
        snprintf(path, sizeof path, "/dev/fd/%d/devfd", folder);
        int kept = keep(open(path, O_CREAT | O_WRONLY, 0600), text);
        close(folder);
        return kept;
    }
    if (strcmp(route, "cwd-gone") == 0) {
        // A folder of the container, entered and removed: `..` still climbs from it.
        char here[4096];
        snprintf(here, sizeof here, "%s/tmp/gone", home);
        mkdir(here, 0700);
        int back = open(".", O_RDONLY | O_DIRECTORY);
        if (chdir(here) != 0) {
            if (back >= 0) close(back);
            return 0;
        }
        rmdir(here);
        size_t used = 0;
        for (const char *c = here; *c; c++) {
            if (*c == '/' && used + 4 < sizeof path) {
                memcpy(path + used, "../", 3);
                used += 3;
            }
        }
        snprintf(path + used, sizeof path - used, "%s/cwd-gone", outside + 1);
        int kept = keep(open(path, O_CREAT | O_WRONLY, 0600), text);
        if (back >= 0) {
            fchdir(back);
            close(back);
        }
        return kept;
    }
    if (strcmp(route, "child") == 0) {
        snprintf(path, sizeof path, "%s/child", outside);
        char *const arguments[] = {"sh", "-c", "printf %s \"$1\" > \"$2\"", "sh", (char *)text, path, NULL};
        pid_t child;
        if (posix_spawn(&child, "/bin/sh", NULL, NULL, arguments, environ) != 0) return 0;
        int status = 0;
        waitpid(child, &status, 0);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    if (strcmp(route, "raw") == 0) {
        snprintf(path, sizeof path, "%s/raw", outside);
        return keep((int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY, 0600), text);
    }
    if (strcmp(route, "sysv") == 0) {
        int segment = shmget(ftok(outside, 'S'), 4096, IPC_CREAT | 0600);
        if (segment < 0) return 0;
        char *memory = shmat(segment, NULL, 0);
        if (memory == (void *)-1) return 0;
        snprintf(memory, 4096, "%s", text);
        shmdt(memory);
        return 1;
    }
    if (strcmp(route, "link") == 0) {
        char link[4096];
        snprintf(link, sizeof link, "%s/Documents/away", home);
        unlink(link);
        if (symlink(outside, link) != 0) return 0;
        snprintf(path, sizeof path, "%s/linked", link);
        return keep(open(path, O_CREAT | O_WRONLY, 0600), text);
    }
    return escape_around_paths(route, outside, home, text);
}
