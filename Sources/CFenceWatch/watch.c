// The watch's other side, in the runner: reads each waiting call's path from the caller's
// memory, resolves it as the kernel would (its working folder or descriptor, `.` and `..`,
// links), and answers. The runner is an ancestor of every process it watches, so the kernel
// lets it read their memory. Each answer holds a call of the app up, so it is kept to a few
// system calls: one read of the caller's memory per page, one walk of the kernel per folder.
#define _GNU_SOURCE
#include "fence_watch.h"
#include "filter.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/// Where a watched process may write: each place as given and as the kernel resolves it.
struct allowed {
    const char *const *folders, *const *files;
    char **real_folders, **real_files;
    int folder_count, file_count;
};

/// The thread a call came from, and its `/proc/PID`.
struct caller {
    pid_t pid;
    char proc[32];
};

/// Copies `size` bytes at `address` in the caller's memory; what it copied, or -1.
static ssize_t read_memory(const struct caller *caller, unsigned long long address, void *out, size_t size) {
    struct iovec local = {.iov_base = out, .iov_len = size};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)address, .iov_len = size};
    return process_vm_readv(caller->pid, &local, 1, &remote, 1, 0);
}

/// Reads the string at `address` in the caller's memory, page by page (a string may end just
/// before an unmapped page).
static int read_string(const struct caller *caller, unsigned long long address, char *out, size_t size) {
    size_t used = 0;
    while (used < size - 1) {
        size_t page_left = 4096 - ((address + used) % 4096);
        size_t want = page_left < size - 1 - used ? page_left : size - 1 - used;
        ssize_t got = read_memory(caller, address + used, out + used, want);
        if (got <= 0) {
            if (got == 0) errno = EFAULT;
            return -1;
        }
        char *end = memchr(out + used, '\0', (size_t)got);
        if (end) return 0;
        used += (size_t)got;
    }
    errno = ENAMETOOLONG;  // longer than PATH_MAX: the kernel refuses it too
    return -1;
}

static int read_bytes(const struct caller *caller, unsigned long long address, void *out, size_t size) {
    return read_memory(caller, address, out, size) == (ssize_t)size ? 0 : -1;
}

/// The target of the caller's link `name` (`cwd`, `fd/N`) in `out`; -1 when it has none.
static int caller_link(const struct caller *caller, const char *name, char *out, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "%s/%s", caller->proc, name);
    ssize_t length = readlink(link, out, size - 1);
    if (length < 0) return -1;
    out[length] = '\0';
    return 0;
}

/// `path` as the caller's own names for itself (`/proc/self`, `/dev/fd`, `/dev/stdout`) mean
/// it, not the runner.
static void as_caller(const struct caller *caller, const char *path, char *out, size_t size) {
    static const struct {
        const char *prefix, *replacement;
    } own[] = {
        {"/proc/self/", "/"},  {"/proc/thread-self/", "/"}, {"/dev/fd/", "/fd/"},
        {"/dev/stdin", "/fd/0"}, {"/dev/stdout", "/fd/1"},    {"/dev/stderr", "/fd/2"},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        size_t length = strlen(own[i].prefix);
        if (strncmp(path, own[i].prefix, length) == 0) {
            snprintf(out, size, "%s%s%s", caller->proc, own[i].replacement, path + length);
            return;
        }
    }
    snprintf(out, size, "%s", path);
}

/// `path` relative to the caller's `dirfd` made absolute, with `.` and `..` resolved as written.
/// Fails when the base is unknown or gone (a removed working folder, a closed descriptor).
static int absolute(const struct caller *caller, int dirfd, const char *path, char *out, size_t size) {
    char base[PATH_MAX];
    if (path[0] == '/') {
        base[0] = '\0';
    } else {
        char name[32];
        if (dirfd == AT_FDCWD) {
            snprintf(name, sizeof name, "cwd");
        } else {
            snprintf(name, sizeof name, "fd/%d", dirfd);
        }
        if (caller_link(caller, name, base, sizeof base) != 0 || base[0] != '/') return -1;
        size_t length = strlen(base);
        static const char gone[] = " (deleted)";
        if (length > sizeof gone - 1 && strcmp(base + length - (sizeof gone - 1), gone) == 0) return -1;
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
    char own[PATH_MAX];
    as_caller(caller, out, own, sizeof own);
    snprintf(out, size, "%s", own);
    return 0;
}

/// Where the existing `path` is, as the kernel resolves it (every link followed) in one walk:
/// 0, or -1 when nothing is there.
static int resolved(const char *path, char *out, size_t size) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    char self[32];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(self, out, size - 1);
    close(fd);
    if (length < 0) return -1;
    out[length] = '\0';
    return 0;
}

/// Where an absolute `path` lands once the kernel follows its links: its folder resolved, and
/// its last part too when the call follows it (`follow`), a dangling link included.
static void landing(const char *path, int follow, char *out, size_t size) {
    char current[PATH_MAX];
    snprintf(current, sizeof current, "%s", path);
    for (int hops = 0; hops < 16; hops++) {
        if (follow && resolved(current, out, size) == 0) return;
        char *slash = strrchr(current, '/');
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - current), current);
        const char *last = slash + 1;
        char real_parent[PATH_MAX];
        int found = resolved(parent[0] ? parent : "/", real_parent, sizeof real_parent) == 0;
        const char *folder = found ? real_parent : parent;
        char joined[PATH_MAX];
        snprintf(joined, sizeof joined, "%s/%s", strcmp(folder, "/") == 0 ? "" : folder, last);
        char target[PATH_MAX];
        ssize_t length = follow ? readlink(joined, target, sizeof target - 1) : -1;
        if (length < 0) {
            snprintf(out, size, "%s", joined);
            return;
        }
        // A dangling link the call would create its target through.
        target[length] = '\0';
        if (target[0] != '/') {
            // A descriptor's link to a pipe or socket (`pipe:[N]`): no file in a folder.
            if (strncmp(joined, "/proc/", 6) == 0 && strstr(joined, "/fd/")) {
                snprintf(out, size, "%s", target);
                return;
            }
            char *cut = strrchr(joined, '/');
            char next[PATH_MAX * 2];
            snprintf(next, sizeof next, "%.*s/%s", (int)(cut - joined), joined, target);
            snprintf(current, sizeof current, "%s", next);
        } else {
            snprintf(current, sizeof current, "%s", target);
        }
    }
    snprintf(out, size, "%s", path);
}

static int beneath(const char *path, const char *folder) {
    size_t length = strlen(folder);
    if (length == 1 && folder[0] == '/') return 1;
    return strncmp(path, folder, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

static int allowed_place(const struct allowed *allowed, const char *real) {
    if (real[0] != '/') return 1;  // a pipe, a socket, an anonymous inode: no file in a folder
    for (int i = 0; i < allowed->folder_count; i++) {
        if (beneath(real, allowed->real_folders[i]) || beneath(real, allowed->folders[i])) return 1;
    }
    for (int i = 0; i < allowed->file_count; i++) {
        if (strcmp(real, allowed->real_files[i]) == 0 || strcmp(real, allowed->files[i]) == 0) return 1;
    }
    return 0;
}

/// Whether a call on `path` (relative to `dirfd`; its last part followed when `follow`) may go
/// on. If not, `said` names the place.
static int permitted(const struct caller *caller, const struct allowed *allowed, int dirfd, const char *path,
                     int follow, char *said, size_t size) {
    char resolved[PATH_MAX], real[PATH_MAX];
    if (absolute(caller, dirfd, path, resolved, sizeof resolved) != 0) {
        snprintf(said, size, "%s (in a folder that is gone)", path);
        return 0;
    }
    landing(resolved, follow, real, sizeof real);
    if (allowed_place(allowed, real)) return 1;
    if (strcmp(real, resolved) == 0) {
        snprintf(said, size, "%s", resolved);
    } else {
        snprintf(said, size, "%s -> %s", resolved, real);
    }
    return 0;
}

/// A path argument read from the caller and judged; a path that cannot be read is refused.
static int permitted_at(const struct caller *caller, const struct allowed *allowed, int dirfd,
                        unsigned long long address, int follow, char *said, size_t size) {
    char path[PATH_MAX];
    if (read_string(caller, address, path, sizeof path) != 0) {
        snprintf(said, size, "(a path that could not be read at %#llx: %s)", address, strerror(errno));
        return 0;
    }
    return permitted(caller, allowed, dirfd, path, follow, said, size);
}

/// The file the caller's descriptor `fd` (AT_FDCWD: its working folder) refers to, judged.
static int permitted_descriptor(const struct caller *caller, const struct allowed *allowed, int fd, char *said,
                                size_t size) {
    char descriptor[64];
    if (fd == AT_FDCWD) {
        snprintf(descriptor, sizeof descriptor, "%s/cwd", caller->proc);
    } else {
        snprintf(descriptor, sizeof descriptor, "%s/fd/%d", caller->proc, fd);
    }
    return permitted(caller, allowed, AT_FDCWD, descriptor, 1, said, size);
}

/// setxattrat and removexattrat: a path relative to `dirfd`, or with AT_EMPTY_PATH and an empty
/// path the descriptor itself.
static int permitted_attribute_at(const struct caller *caller, const struct allowed *allowed, int dirfd,
                                  unsigned long long address, unsigned int flags, char *said, size_t size) {
    char path[PATH_MAX];
    if (read_string(caller, address, path, sizeof path) != 0) {
        snprintf(said, size, "(a path that could not be read at %#llx: %s)", address, strerror(errno));
        return 0;
    }
    if (path[0] == '\0' && (flags & AT_EMPTY_PATH)) return permitted_descriptor(caller, allowed, dirfd, said, size);
    return permitted(caller, allowed, dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), said, size);
}

/// A unix socket bound to a path makes a file there; an abstract one (a leading zero) or
/// another family does not.
static int permitted_bind(const struct caller *caller, const struct allowed *allowed, unsigned long long address,
                          unsigned long long length, char *said, size_t size) {
    struct sockaddr_un socket_address;
    memset(&socket_address, 0, sizeof socket_address);
    size_t wanted = length < sizeof socket_address ? (size_t)length : sizeof socket_address;
    if (wanted < offsetof(struct sockaddr_un, sun_path) + 1) return 1;
    if (read_bytes(caller, address, &socket_address, wanted) != 0) return 1;  // the kernel says EFAULT
    if (socket_address.sun_family != AF_UNIX || socket_address.sun_path[0] == '\0') return 1;
    char path[sizeof socket_address.sun_path + 1];
    memcpy(path, socket_address.sun_path, sizeof socket_address.sun_path);
    path[sizeof socket_address.sun_path] = '\0';
    return permitted(caller, allowed, AT_FDCWD, path, 0, said, size);
}

/// The runner's answer to one call: it goes on, or fails with `error`, naming either the `place`
/// outside the container it would change or `why` the call itself is refused.
struct verdict {
    int allow, error;
    const char *call;
    char place[PATH_MAX * 2 + 64];
    char why[PATH_MAX + 128];
    char number[32];  // the name of a call the filter does not know
};

static void refuse_call(struct verdict *verdict, int error, const char *why) {
    verdict->allow = 0;
    verdict->error = error;
    snprintf(verdict->why, sizeof verdict->why, "%s", why);
}

/// mknod of a block or character device, even inside the container: a device reaches past
/// every file (a disk's blocks, the machine's memory).
static int refused_device(const struct caller *caller, int dirfd, unsigned long long address, unsigned long long mode,
                          struct verdict *verdict) {
    if (!S_ISBLK(mode) && !S_ISCHR(mode)) return 0;
    char path[PATH_MAX], place[PATH_MAX];
    if (read_string(caller, address, path, sizeof path) != 0) snprintf(path, sizeof path, "?");
    if (absolute(caller, dirfd, path, place, sizeof place) != 0) snprintf(place, sizeof place, "%s", path);
    verdict->allow = 0;
    verdict->error = EPERM;
    snprintf(verdict->why, sizeof verdict->why, "a %s device node (%s), which reaches past every file",
             S_ISBLK(mode) ? "block" : "character", place);
    return 1;
}

/// Why a call the filter sends to the runner only to be refused is refused.
static void refuse_by_name(int nr, struct verdict *verdict) {
    switch (nr) {
    case SYS_shmget:
    case SYS_shmat:
    case SYS_shmctl:
    case SYS_shmdt:
    case SYS_semget:
    case SYS_semop:
    case SYS_semtimedop:
    case SYS_semctl:
    case SYS_msgget:
    case SYS_msgsnd:
    case SYS_msgrcv:
    case SYS_msgctl:
        refuse_call(verdict, EPERM, "System V IPC, which outlives the process");
        return;
    case SYS_mq_open:
    case SYS_mq_unlink:
    case SYS_mq_timedsend:
    case SYS_mq_timedreceive:
    case SYS_mq_notify:
    case SYS_mq_getsetattr:
        refuse_call(verdict, EPERM, "a POSIX message queue, which outlives the process");
        return;
    case SYS_add_key:
    case SYS_request_key:
    case SYS_keyctl:
        refuse_call(verdict, EPERM, "the kernel's key store, which outlives the process");
        return;
    case SYS_clone:
    case SYS_unshare:
        refuse_call(verdict, EPERM, "a new namespace, which would give back the capabilities the app runs without");
        return;
    case SYS_open_by_handle_at:
        refuse_call(verdict, EPERM, "a file handle, which passes by every path the fence looks at");
        return;
    case SYS_landlock_restrict_self:
        refuse_call(verdict, EPERM, "a Landlock domain of the app's own, whose refusals would be logged in the fence's place");
        return;
    default:
        if (verdict->call) {
            refuse_call(verdict, EPERM, "not a call an app may make");
        } else {
            snprintf(verdict->number, sizeof verdict->number, "syscall %d", nr);
            verdict->call = verdict->number;
            refuse_call(verdict, ENOSYS, "a system call the fence does not know");
        }
    }
}

/// Refuses a change that does not land beneath the container (`EACCES`, as the sandbox says on a
/// phone); `verdict->place` already names where it would land. Returns 1: the call was judged.
static int unless_permitted(int permitted, struct verdict *verdict) {
    if (!permitted) {
        verdict->allow = 0;
        verdict->error = EACCES;
    }
    return 1;
}

/// Judges a call that creates or changes a file: it goes on beneath the container or on one of
/// its files. Returns 0 when `request` is no such call.
static int judged_file(const struct seccomp_notif *request, const struct caller *caller,
                       const struct allowed *allowed, struct verdict *verdict) {
    const unsigned long long *a = request->data.args;
    char *said = verdict->place;
    size_t size = sizeof verdict->place;
    switch (request->data.nr) {
#ifdef SYS_open
    case SYS_open:
        return unless_permitted(
            permitted_at(caller, allowed, AT_FDCWD, a[0], !(a[1] & (O_NOFOLLOW | O_EXCL)), said, size), verdict);
    case SYS_creat:
        return unless_permitted(permitted_at(caller, allowed, AT_FDCWD, a[0], 1, said, size), verdict);
    case SYS_mkdir:
        return unless_permitted(permitted_at(caller, allowed, AT_FDCWD, a[0], 0, said, size), verdict);
    case SYS_mknod:
        if (refused_device(caller, AT_FDCWD, a[0], a[1], verdict)) return 1;
        return unless_permitted(permitted_at(caller, allowed, AT_FDCWD, a[0], 0, said, size), verdict);
    case SYS_rename:
        return unless_permitted(permitted_at(caller, allowed, AT_FDCWD, a[0], 0, said, size) &&
                                    permitted_at(caller, allowed, AT_FDCWD, a[1], 0, said, size),
                                verdict);
    case SYS_link:
    case SYS_symlink:
        return unless_permitted(permitted_at(caller, allowed, AT_FDCWD, a[1], 0, said, size), verdict);
#endif
    case SYS_renameat:
    case SYS_renameat2:
        return unless_permitted(permitted_at(caller, allowed, (int)a[0], a[1], 0, said, size) &&
                                    permitted_at(caller, allowed, (int)a[2], a[3], 0, said, size),
                                verdict);
    case SYS_openat:
        return unless_permitted(
            permitted_at(caller, allowed, (int)a[0], a[1], !(a[2] & (O_NOFOLLOW | O_EXCL)), said, size), verdict);
    case SYS_openat2: {
        unsigned long long flags = 0;  // the first field of struct open_how
        if (a[3] < sizeof flags || read_bytes(caller, a[2], &flags, sizeof flags) != 0) return 1;  // EINVAL, EFAULT
        if (!(flags & WRITE_FLAGS)) return 1;
        return unless_permitted(
            permitted_at(caller, allowed, (int)a[0], a[1], !(flags & (O_NOFOLLOW | O_EXCL)), said, size), verdict);
    }
    case SYS_mkdirat:
        return unless_permitted(permitted_at(caller, allowed, (int)a[0], a[1], 0, said, size), verdict);
    case SYS_mknodat:
        if (refused_device(caller, (int)a[0], a[1], a[2], verdict)) return 1;
        return unless_permitted(permitted_at(caller, allowed, (int)a[0], a[1], 0, said, size), verdict);
    case SYS_linkat:
        return unless_permitted(permitted_at(caller, allowed, (int)a[2], a[3], 0, said, size), verdict);
    case SYS_symlinkat:
        return unless_permitted(permitted_at(caller, allowed, (int)a[1], a[2], 0, said, size), verdict);
    case SYS_truncate:
        return unless_permitted(permitted_at(caller, allowed, AT_FDCWD, a[0], 1, said, size), verdict);
    case SYS_bind:
        return unless_permitted(permitted_bind(caller, allowed, a[1], a[2], said, size), verdict);
    default:
        return 0;
    }
}

/// Judges a change of an extended attribute: it goes on only beneath the container's folders
/// (the trace file and /dev/null are outside). Returns 0 when `request` is no such call.
static int judged_attribute(const struct seccomp_notif *request, const struct caller *caller,
                            const struct allowed *allowed, struct verdict *verdict) {
    const unsigned long long *a = request->data.args;
    struct allowed folders = *allowed;
    folders.file_count = 0;
    char *said = verdict->place;
    size_t size = sizeof verdict->place;
    switch (request->data.nr) {
    case SYS_setxattr:
    case SYS_removexattr:
        return unless_permitted(permitted_at(caller, &folders, AT_FDCWD, a[0], 1, said, size), verdict);
    case SYS_lsetxattr:
    case SYS_lremovexattr:
        return unless_permitted(permitted_at(caller, &folders, AT_FDCWD, a[0], 0, said, size), verdict);
    case SYS_fsetxattr:
    case SYS_fremovexattr:
        return unless_permitted(permitted_descriptor(caller, &folders, (int)a[0], said, size), verdict);
    case SYS_setxattrat:
    case SYS_removexattrat:
        return unless_permitted(
            permitted_attribute_at(caller, &folders, (int)a[0], a[1], (unsigned int)a[2], said, size), verdict);
    default:
        return 0;
    }
}

/// Judges one waiting call into `verdict`: a change of a file or of an extended attribute by
/// where it lands; any other call that reaches the runner is refused.
static void judge(const struct seccomp_notif *request, const struct caller *caller, const struct allowed *allowed,
                  struct verdict *verdict) {
    verdict->call = sdlab_call_family(request->data.nr);
    if (judged_file(request, caller, allowed, verdict)) return;
    if (judged_attribute(request, caller, allowed, verdict)) return;
    refuse_by_name(request->data.nr, verdict);
}

/// The caller's file `name` in /proc (its first line), or `?`.
static void caller_file(const struct caller *caller, const char *name, char *out, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "%s/%s", caller->proc, name);
    snprintf(out, size, "?");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t length = read(fd, out, size - 1);
    close(fd);
    if (length <= 0) return;
    out[length] = '\0';
}

/// The process the calling thread belongs to (its thread group), or the thread's own ID.
static pid_t process_of(const struct caller *caller) {
    char status[1024];
    caller_file(caller, "status", status, sizeof status);
    const char *group = strstr(status, "\nTgid:");
    return group ? (pid_t)atoi(group + 6) : caller->pid;
}

static char **resolved_copies(const char *const *places, int count) {
    char **copies = calloc((size_t)count + 1, sizeof *copies);
    for (int i = 0; copies && i < count; i++) {
        copies[i] = realpath(places[i], NULL);
        if (!copies[i]) copies[i] = strdup(places[i]);
    }
    return copies;
}

static void free_copies(char **copies, int count) {
    for (int i = 0; copies && i < count; i++) free(copies[i]);
    free(copies);
}

/// Answers one waiting call. A caller that ended meanwhile needs no answer.
static void answer(int listener, struct seccomp_notif *request, struct seccomp_notif_resp *response,
                   const struct allowed *allowed, sdlab_watch_refused refused, void *context) {
    struct caller caller = {.pid = (pid_t)request->pid};
    snprintf(caller.proc, sizeof caller.proc, "/proc/%d", caller.pid);
    struct verdict verdict = {.allow = 1};
    judge(request, &caller, allowed, &verdict);
    if (!verdict.allow) {
        // What was read belongs to the call only if it still waits (its PID was not reused):
        // a refusal is reported only then. An answer to a call that ended is refused by the
        // kernel, so one that goes on needs no such look.
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &request->id) != 0) return;
        char command[32];
        caller_file(&caller, "comm", command, sizeof command);
        command[strcspn(command, "\n")] = '\0';
        int named = verdict.why[0] != '\0';
        refused(context, named ? NULL : verdict.place, named ? verdict.why : NULL, verdict.call, process_of(&caller),
                command);
    }
    memset(response, 0, sizeof *response);
    response->id = request->id;
    if (verdict.allow) {
        response->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    } else {
        response->error = -verdict.error;
    }
    ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, response);  // ENOENT: it ended meanwhile
}

int sdlab_watch_serve(int listener, const char *const *folders, int folder_count, const char *const *files,
                      int file_count, sdlab_watch_refused refused, void *context) {
    struct seccomp_notif_sizes sizes;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return -1;
    struct seccomp_notif *request = calloc(1, sizes.seccomp_notif > sizeof *request ? sizes.seccomp_notif
                                                                                     : sizeof *request);
    struct seccomp_notif_resp *response = calloc(
        1, sizes.seccomp_notif_resp > sizeof *response ? sizes.seccomp_notif_resp : sizeof *response);
    struct allowed allowed = {
        .folders = folders,
        .files = files,
        .real_folders = resolved_copies(folders, folder_count),
        .real_files = resolved_copies(files, file_count),
        .folder_count = folder_count,
        .file_count = file_count,
    };
    int result = 0;
    if (!request || !response || !allowed.real_folders || !allowed.real_files) {
        errno = ENOMEM;
        result = -1;
    }
    while (result == 0) {
        struct pollfd waiting = {.fd = listener, .events = POLLIN};
        if (poll(&waiting, 1, -1) < 0) {
            if (errno == EINTR) continue;
            result = -1;
            break;
        }
        if (!(waiting.revents & POLLIN)) break;  // hung up: every watched process has ended
        memset(request, 0, sizes.seccomp_notif);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, request) != 0) {
            if (errno == EINTR || errno == ENOENT) continue;  // the caller ended before it was read
            result = -1;
            break;
        }
        answer(listener, request, response, &allowed, refused, context);
    }
    free_copies(allowed.real_folders, folder_count);
    free_copies(allowed.real_files, file_count);
    free(request);
    free(response);
    return result;
}
