// The sandbox's fence. An iOS app cannot write outside its container; here an app's code is
// plain Linux code, so the host interposes the C library's calls that create, change or
// remove a file (a definition in the executable comes before the C library's for every caller,
// Foundation and SQLite included). A call that would write outside the allowed folders fails
// with EACCES, as the sandbox makes it fail on a phone, and is reported with its path, so a
// write that lands elsewhere is never silent. Reads are never refused. The calls go on to the
// kernel by `syscall`, not through the C library again.
#define _GNU_SOURCE
#include "write_guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_ALLOWED 8

static char *allowed_folders[MAX_ALLOWED];
static int allowed_count = -1; // not installed: everything is allowed
static sdlab_write_refused report;

void sdlab_write_guard_install(const char *const *allowed, int count, sdlab_write_refused refused) {
    if (count > MAX_ALLOWED) count = MAX_ALLOWED;
    for (int i = 0; i < count; i++) allowed_folders[i] = strdup(allowed[i]);
    report = refused;
    __atomic_store_n(&allowed_count, count, __ATOMIC_RELEASE);
}

/// `path` relative to `dirfd` made absolute, with `.` and `..` resolved as written.
static int absolute(int dirfd, const char *path, char *out, size_t size) {
    char base[PATH_MAX];
    if (path[0] == '/') {
        base[0] = '\0';
    } else if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) return -1;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t length = readlink(link, base, sizeof base - 1);
        if (length < 0) return -1;
        base[length] = '\0';
    }
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s/%s", base, path);
    // Component by component: `.` is dropped and `..` removes the one before.
    size_t used = 0;
    char *save = NULL;
    for (char *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0) continue;
        if (strcmp(part, "..") == 0) {
            while (used > 0 && out[used - 1] != '/') used--;
            if (used > 0) used--;
            continue;
        }
        size_t length = strlen(part);
        if (used + 1 + length + 1 > size) return -1;
        out[used++] = '/';
        memcpy(out + used, part, length);
        used += length;
    }
    if (used == 0) out[used++] = '/';
    out[used] = '\0';
    return 0;
}

/// Whether a write to `path` may go on; if not, it is reported and errno is EACCES.
static int permitted(int dirfd, const char *path, const char *call) {
    int count = __atomic_load_n(&allowed_count, __ATOMIC_ACQUIRE);
    if (count < 0 || path == NULL) return 1;
    char resolved[PATH_MAX];
    if (absolute(dirfd, path, resolved, sizeof resolved) != 0) return 1; // the kernel will refuse it
    for (int i = 0; i < count; i++) {
        size_t length = strlen(allowed_folders[i]);
        if (strncmp(resolved, allowed_folders[i], length) == 0 && (resolved[length] == '\0' || resolved[length] == '/'))
            return 1;
    }
    if (report) report(resolved, call);
    errno = EACCES;
    return 0;
}

static int writes(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) != 0; }

static mode_t mode_of(int flags, va_list arguments) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(arguments, int) : 0;
}

int openat(int dirfd, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_of(flags, arguments);
    va_end(arguments);
    if (writes(flags) && !permitted(dirfd, path, "open")) return -1;
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_of(flags, arguments);
    va_end(arguments);
    if (writes(flags) && !permitted(AT_FDCWD, path, "open")) return -1;
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

FILE *fopen(const char *path, const char *mode) {
    static FILE *(*library)(const char *, const char *);
    if (!library) library = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    if (mode && strpbrk(mode, "wa+") && !permitted(AT_FDCWD, path, "fopen")) return NULL;
    return library(path, mode);
}

FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

int mkdirat(int dirfd, const char *path, mode_t mode) {
    if (!permitted(dirfd, path, "mkdir")) return -1;
    return (int)syscall(SYS_mkdirat, dirfd, path, mode);
}

int mkdir(const char *path, mode_t mode) { return mkdirat(AT_FDCWD, path, mode); }

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    if (!permitted(olddirfd, oldpath, "rename") || !permitted(newdirfd, newpath, "rename")) return -1;
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, 0);
}

int rename(const char *oldpath, const char *newpath) { return renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0); }

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags) {
    if (!permitted(newdirfd, newpath, "link")) return -1;
    return (int)syscall(SYS_linkat, olddirfd, oldpath, newdirfd, newpath, flags);
}

int link(const char *oldpath, const char *newpath) { return linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0); }

int symlinkat(const char *target, int newdirfd, const char *linkpath) {
    if (!permitted(newdirfd, linkpath, "symlink")) return -1;
    return (int)syscall(SYS_symlinkat, target, newdirfd, linkpath);
}

int symlink(const char *target, const char *linkpath) { return symlinkat(target, AT_FDCWD, linkpath); }

int unlinkat(int dirfd, const char *path, int flags) {
    if (!permitted(dirfd, path, (flags & AT_REMOVEDIR) ? "rmdir" : "unlink")) return -1;
    return (int)syscall(SYS_unlinkat, dirfd, path, flags);
}

int unlink(const char *path) { return unlinkat(AT_FDCWD, path, 0); }
int rmdir(const char *path) { return unlinkat(AT_FDCWD, path, AT_REMOVEDIR); }

int truncate(const char *path, off_t length) {
    if (!permitted(AT_FDCWD, path, "truncate")) return -1;
    return (int)syscall(SYS_truncate, path, length);
}

int truncate64(const char *path, off_t length) __attribute__((alias("truncate")));
