// The sandbox's fence, as the app sees it. The kernel holds the fence (`sdlab-fence` restricts
// every app with Landlock before it starts), but a write it refuses fails without a name. Here
// the host interposes the C library's calls that create, change or remove a file (a definition
// in the executable comes before the C library's for every caller, Foundation and SQLite
// included), so that a write outside the allowed places fails with EACCES, as the sandbox makes
// it fail on a phone, and is reported with its path: the run names it. Paths are resolved as
// the kernel would, links included. Reads are never refused. The calls go on to the kernel by
// `syscall`, or to the C library's own definition, not through these again. Where the kernel
// has no Landlock, this is the whole fence (Docs/hardening.md says what it cannot see).
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
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_ALLOWED 8

/* Each allowed place as given and as the kernel resolves it (links followed). */
static char *allowed_folders[MAX_ALLOWED], *real_folders[MAX_ALLOWED];
static char *allowed_files[MAX_ALLOWED], *real_files[MAX_ALLOWED];
static int allowed_count = -1; // not installed: everything is allowed
static int file_count;
static sdlab_write_refused report;

static char *real_or_copy(const char *path) {
    char *real = realpath(path, NULL);
    return real ? real : strdup(path);
}

void sdlab_write_guard_install(const char *const *allowed, int count, const char *const *files, int files_count,
                               sdlab_write_refused refused) {
    if (count > MAX_ALLOWED) count = MAX_ALLOWED;
    if (files_count > MAX_ALLOWED) files_count = MAX_ALLOWED;
    for (int i = 0; i < count; i++) {
        allowed_folders[i] = strdup(allowed[i]);
        real_folders[i] = real_or_copy(allowed[i]);
    }
    for (int i = 0; i < files_count; i++) {
        allowed_files[i] = strdup(files[i]);
        real_files[i] = real_or_copy(files[i]);
    }
    file_count = files_count;
    report = refused;
    __atomic_store_n(&allowed_count, count, __ATOMIC_RELEASE);
}

/// `path` relative to `dirfd` made absolute, with `.` and `..` resolved as written. Fails when
/// the base is unknown (a working folder that was removed, a closed descriptor).
static int absolute(int dirfd, const char *path, char *out, size_t size) {
    char base[PATH_MAX];
    if (path[0] == '/') {
        base[0] = '\0';
    } else if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base) || base[0] != '/') return -1;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t length = readlink(link, base, sizeof base - 1);
        if (length < 0) return -1;
        base[length] = '\0';
        if (base[0] != '/') return -1;
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

/// Where an absolute `path` lands once the kernel follows its links: its folder resolved, and
/// its last part too when the call follows it (`follow`), a dangling link included.
static void landing(const char *path, int follow, char *out, size_t size) {
    char current[PATH_MAX];
    snprintf(current, sizeof current, "%s", path);
    for (int hops = 0; hops < 16; hops++) {
        char *real = follow ? realpath(current, NULL) : NULL;
        if (real) {
            snprintf(out, size, "%s", real);
            free(real);
            return;
        }
        char *slash = strrchr(current, '/');
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - current), current);
        const char *last = slash + 1;
        char *real_parent = realpath(parent[0] ? parent : "/", NULL);
        const char *folder = real_parent ? real_parent : parent;
        char joined[PATH_MAX];
        snprintf(joined, sizeof joined, "%s/%s", strcmp(folder, "/") == 0 ? "" : folder, last);
        free(real_parent);
        char target[PATH_MAX];
        ssize_t length = follow ? readlink(joined, target, sizeof target - 1) : -1;
        if (length < 0) {
            snprintf(out, size, "%s", joined);
            return;
        }
        // A dangling link the call would create its target through.
        target[length] = '\0';
        char next[PATH_MAX * 2];
        if (target[0] == '/') {
            snprintf(next, sizeof next, "%s", target);
        } else {
            char *cut = strrchr(joined, '/');
            snprintf(next, sizeof next, "%.*s/%s", (int)(cut - joined), joined, target);
        }
        if (absolute(AT_FDCWD, next, current, sizeof current) != 0) break;
    }
    snprintf(out, size, "%s", path);
}

static int beneath(const char *path, const char *folder) {
    size_t length = strlen(folder);
    if (length == 1 && folder[0] == '/') return 1;
    return strncmp(path, folder, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

/// Whether a write to `path` (the last part followed when `follow`) may go on; if not, it is
/// reported and errno is EACCES. A path whose folder is unknown is refused.
static int permitted_following(int dirfd, const char *path, int follow, const char *call) {
    int count = __atomic_load_n(&allowed_count, __ATOMIC_ACQUIRE);
    if (count < 0 || path == NULL) return 1;
    char resolved[PATH_MAX], real[PATH_MAX];
    if (absolute(dirfd, path, resolved, sizeof resolved) != 0) {
        char unknown[PATH_MAX + 64];
        snprintf(unknown, sizeof unknown, "%s (in a folder that is gone)", path);
        if (report) report(unknown, call);
        errno = EACCES;
        return 0;
    }
    landing(resolved, follow, real, sizeof real);
    for (int i = 0; i < count; i++) {
        if (beneath(real, real_folders[i]) || beneath(real, allowed_folders[i])) return 1;
    }
    for (int i = 0; i < file_count; i++) {
        if (strcmp(real, real_files[i]) == 0 || strcmp(real, allowed_files[i]) == 0) return 1;
    }
    if (report) {
        if (strcmp(real, resolved) == 0) {
            report(resolved, call);
        } else {
            char both[PATH_MAX * 2 + 8];
            snprintf(both, sizeof both, "%s -> %s", resolved, real);
            report(both, call);
        }
    }
    errno = EACCES;
    return 0;
}

/// A call that follows a link at the end of the path (open, truncate).
static int permitted(int dirfd, const char *path, const char *call) {
    return permitted_following(dirfd, path, 1, call);
}

/// A call that acts on the last part itself (mkdir, unlink, rename, link, symlink, mknod, bind).
static int permitted_entry(int dirfd, const char *path, const char *call) {
    return permitted_following(dirfd, path, 0, call);
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
    if (writes(flags) && !permitted_following(dirfd, path, !(flags & (O_NOFOLLOW | O_EXCL)), "open")) return -1;
    return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_of(flags, arguments);
    va_end(arguments);
    if (writes(flags) && !permitted_following(AT_FDCWD, path, !(flags & (O_NOFOLLOW | O_EXCL)), "open")) return -1;
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

/// The C library's own definition of `name`, found once, in `library_NAME`.
#define LIBRARY(name) \
    static __typeof__(&name) library_##name; \
    if (!library_##name) library_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

FILE *fopen(const char *path, const char *mode) {
    LIBRARY(fopen);
    if (mode && strpbrk(mode, "wa+") && !permitted(AT_FDCWD, path, "fopen")) return NULL;
    return library_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

int mkdirat(int dirfd, const char *path, mode_t mode) {
    if (!permitted_entry(dirfd, path, "mkdir")) return -1;
    return (int)syscall(SYS_mkdirat, dirfd, path, mode);
}

int mkdir(const char *path, mode_t mode) { return mkdirat(AT_FDCWD, path, mode); }

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    if (!permitted_entry(olddirfd, oldpath, "rename") || !permitted_entry(newdirfd, newpath, "rename")) return -1;
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, 0);
}

int rename(const char *oldpath, const char *newpath) { return renameat2(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0); }

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags) {
    if (!permitted_entry(newdirfd, newpath, "link")) return -1;
    return (int)syscall(SYS_linkat, olddirfd, oldpath, newdirfd, newpath, flags);
}

int link(const char *oldpath, const char *newpath) { return linkat(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0); }

int symlinkat(const char *target, int newdirfd, const char *linkpath) {
    if (!permitted_entry(newdirfd, linkpath, "symlink")) return -1;
    return (int)syscall(SYS_symlinkat, target, newdirfd, linkpath);
}

int symlink(const char *target, const char *linkpath) { return symlinkat(target, AT_FDCWD, linkpath); }

int unlinkat(int dirfd, const char *path, int flags) {
    if (!permitted_entry(dirfd, path, (flags & AT_REMOVEDIR) ? "rmdir" : "unlink")) return -1;
    return (int)syscall(SYS_unlinkat, dirfd, path, flags);
}

int unlink(const char *path) { return unlinkat(AT_FDCWD, path, 0); }
int rmdir(const char *path) { return unlinkat(AT_FDCWD, path, AT_REMOVEDIR); }

int truncate(const char *path, off_t length) {
    if (!permitted(AT_FDCWD, path, "truncate")) return -1;
    return (int)syscall(SYS_truncate, path, length);
}

int truncate64(const char *path, off_t length) __attribute__((alias("truncate")));

// The calls below create files through the C library's own open, which the definitions above
// do not see from inside it: each is checked here, then handed to the library's.

FILE *freopen(const char *path, const char *mode, FILE *stream) {
    LIBRARY(freopen);
    if (path && mode && strpbrk(mode, "wa+") && !permitted(AT_FDCWD, path, "freopen")) return NULL;
    return library_freopen(path, mode, stream);
}

FILE *freopen64(const char *path, const char *mode, FILE *stream) __attribute__((alias("freopen")));

/// A template's file is made in the template's folder.
static int template_permitted(const char *template, const char *call) {
    return template == NULL || permitted_entry(AT_FDCWD, template, call);
}

int mkstemp(char *template) {
    LIBRARY(mkstemp);
    if (!template_permitted(template, "mkstemp")) return -1;
    return library_mkstemp(template);
}

int mkstemp64(char *template) __attribute__((alias("mkstemp")));

int mkostemp(char *template, int flags) {
    LIBRARY(mkostemp);
    if (!template_permitted(template, "mkostemp")) return -1;
    return library_mkostemp(template, flags);
}

int mkostemp64(char *template, int flags) __attribute__((alias("mkostemp")));

int mkstemps(char *template, int suffix) {
    LIBRARY(mkstemps);
    if (!template_permitted(template, "mkstemps")) return -1;
    return library_mkstemps(template, suffix);
}

int mkstemps64(char *template, int suffix) __attribute__((alias("mkstemps")));

int mkostemps(char *template, int suffix, int flags) {
    LIBRARY(mkostemps);
    if (!template_permitted(template, "mkostemps")) return -1;
    return library_mkostemps(template, suffix, flags);
}

int mkostemps64(char *template, int suffix, int flags) __attribute__((alias("mkostemps")));

char *mkdtemp(char *template) {
    LIBRARY(mkdtemp);
    if (!template_permitted(template, "mkdtemp")) return NULL;
    return library_mkdtemp(template);
}

/// tmpfile(3) makes its file in /tmp, whatever TMPDIR says.
FILE *tmpfile(void) {
    LIBRARY(tmpfile);
    if (!permitted_entry(AT_FDCWD, "/tmp/tmpfile", "tmpfile")) return NULL;
    return library_tmpfile();
}

FILE *tmpfile64(void) __attribute__((alias("tmpfile")));

int mknodat(int dirfd, const char *path, mode_t mode, dev_t device) {
    if (!permitted_entry(dirfd, path, S_ISFIFO(mode) ? "mkfifo" : "mknod")) return -1;
    return (int)syscall(SYS_mknodat, dirfd, path, mode, device);
}

int mknod(const char *path, mode_t mode, dev_t device) { return mknodat(AT_FDCWD, path, mode, device); }
int mkfifoat(int dirfd, const char *path, mode_t mode) { return mknodat(dirfd, path, (mode & ~S_IFMT) | S_IFIFO, 0); }
int mkfifo(const char *path, mode_t mode) { return mkfifoat(AT_FDCWD, path, mode); }

/// A unix socket bound to a path makes a file there; an abstract one (a leading zero) does not.
int bind(int socket, const struct sockaddr *address, socklen_t length) {
    if (address && address->sa_family == AF_UNIX && length > offsetof(struct sockaddr_un, sun_path)) {
        const struct sockaddr_un *unix_address = (const struct sockaddr_un *)address;
        size_t room = length - offsetof(struct sockaddr_un, sun_path);
        if (room > sizeof unix_address->sun_path) room = sizeof unix_address->sun_path;
        if (unix_address->sun_path[0] != '\0') {
            char path[sizeof unix_address->sun_path + 1];
            memcpy(path, unix_address->sun_path, room);
            path[room] = '\0';
            if (!permitted_entry(AT_FDCWD, path, "bind")) return -1;
        }
    }
    return (int)syscall(SYS_bind, socket, address, length);
}

/// POSIX shared memory is a file in /dev/shm.
int shm_open(const char *name, int flags, mode_t mode) {
    LIBRARY(shm_open);
    if (name && writes(flags)) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/dev/shm/%s", name[0] == '/' ? name + 1 : name);
        if (!permitted(AT_FDCWD, path, "shm_open")) return -1;
    }
    return library_shm_open(name, flags, mode);
}

/// Extended attributes carry bytes too; the kernel's fence does not cover them (Docs/hardening.md).
int setxattr(const char *path, const char *name, const void *value, size_t size, int flags) {
    if (!permitted(AT_FDCWD, path, "setxattr")) return -1;
    return (int)syscall(SYS_setxattr, path, name, value, size, flags);
}

int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags) {
    if (!permitted_entry(AT_FDCWD, path, "setxattr")) return -1;
    return (int)syscall(SYS_lsetxattr, path, name, value, size, flags);
}
