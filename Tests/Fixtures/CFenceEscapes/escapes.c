// The routes a hostile app takes to keep a worker's record outside its container, each through
// a different door: the C library's calls that create a file without `open`, a socket, shared
// memory, a descriptor's folder, a working folder that is gone, a child process, the system
// call itself, a link planted in the container, and a System V shared memory segment (keyed by
// the outside folder, `ftok(OUTSIDE, 'S')`), which outlives the process without a file.
#define _GNU_SOURCE
#include "fence_escapes.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *const fence_escape_routes = "freopen,mkstemp,mkdtemp,mkfifo,bind,shm,devfd,cwd-gone,child,raw,link,sysv";

static int keep(int fd, const char *text) {
    if (fd < 0) return 0;
    ssize_t written = write(fd, text, strlen(text));
    close(fd);
    return written > 0;
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
    return 0;
}
