/* sdlab-fence [--folder DIR]... [--file FILE]... [--watch FD [--logged]] -- PROGRAM [ARGUMENT]...
 *
 * The sandbox's fence, held by the kernel: restricts this process with Landlock so that it,
 * and every process it becomes or starts can create, change or remove files only beneath each
 * DIR and write only to each FILE (which must exist), then becomes PROGRAM (execv, the same
 * process). The runner starts every app through it, so the fence holds from the app's first
 * instruction, for a launcher script and its children as for the app, and for raw system
 * calls, links and sockets alike, and abstract unix sockets made outside it are out of reach.
 * Reads are never restricted: only write-type rights are handled (Docs/hardening.md).
 *
 * First it leaves the process without privileges, for good: no capability in any set
 * (effective, permitted, inheritable, bounding, ambient), the securebits that give root
 * capabilities at exec cleared and locked, and no_new_privs set, so that root gives an app, and
 * whatever it runs (a set-user-ID program included), nothing: no device nodes, host names,
 * network configuration or trusted attributes, as an app on a phone has none. Where the
 * process cannot drop one (it runs without CAP_SETPCAP, so its bounding set is not its to
 * change), no_new_privs and the empty permitted set still keep it from gaining any. A drop that
 * fails stops the launch: it says why on stderr and to the runner on FD, and exits 126.
 *
 * With --watch FD, it also installs the watch (`CFenceWatch`): every call that creates or
 * changes a file waits for the runner, which refuses and names one that lands outside. The
 * watch's listener goes to the runner on FD (a SOCK_SEQPACKET socket the runner holds the other
 * end of), or why there is none; SDLAB_FENCE_WATCH=off leaves it out, to try that path. With
 * --logged as well (the runner hears the kernel's audit), Landlock logs every refusal, after the
 * exec too, and the watch leaves writes to it: they go on at once, and the runner learns of the
 * refused ones from the kernel. That needs Landlock ABI 7; on an older one the watch holds writes.
 *
 * PROGRAM is told what holds in SDLAB_FENCE: `landlock N` (the kernel's Landlock ABI, every
 * write-type right it knows handled), `landlock N: WHAT IS NOT FENCED` on an older ABI, or
 * `none: WHY`, followed by `; logged` when the kernel logs Landlock's refusals and `; watched`
 * when the watch holds (`; watched` alone: it holds every write). Where the kernel lacks Landlock, or the
 * ruleset cannot be made, the app still starts and this says so on stderr (the app's log) and
 * in SDLAB_FENCE, which the app records in its trace; the runner says it on the console.
 * SDLAB_FENCE_ABI=N (a number) makes it use at most ABI N, 0 for none, to try that path; it
 * can only weaken the fence, and that is said the same way.
 *
 * Plain C, without the Swift runtime: nothing runs before the fence but this file.
 * Exit 127 when PROGRAM cannot be started, 126 when its privileges cannot be dropped, 2 on bad
 * usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fence_watch.h"

/* The kernel's Landlock interface (include/uapi/linux/landlock.h), spelled here so that the
 * build needs no recent kernel headers. The numbers are the same on every architecture. */
#define SYSCALL_CREATE_RULESET 444
#define SYSCALL_ADD_RULE 445
#define SYSCALL_RESTRICT_SELF 446
#define CREATE_RULESET_VERSION (1U << 0)
#define RULE_PATH_BENEATH 1

#define FS_WRITE_FILE (1ULL << 1)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)    /* ABI 2 (before it, any rename or link into another folder is refused) */
#define FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1) /* ABI 7: log refusals after an exec too */

/* What a file itself can be granted (the rest are rights on a folder's entries). */
#define FILE_RIGHTS (FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
/* Never granted, even in the container: a device node reaches past every file. */
#define DEVICE_NODES (FS_MAKE_CHAR | FS_MAKE_BLOCK)

struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

static const char *const who = "sdlab-fence";

/* Every write-type right the kernel's ABI knows. */
static uint64_t write_rights(int abi) {
    uint64_t rights = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG |
                      FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM;
    if (abi >= 2) rights |= FS_REFER;
    if (abi >= 3) rights |= FS_TRUNCATE;
    if (abi >= 5) rights |= FS_IOCTL_DEV;
    return rights;
}

/* The kernel's Landlock ABI (0: none), lowered to SDLAB_FENCE_ABI when that is set (`lowered`). */
static int landlock_abi(int *lowered) {
    long abi = syscall(SYSCALL_CREATE_RULESET, NULL, 0, CREATE_RULESET_VERSION);
    if (abi < 0) abi = 0;
    *lowered = 0;
    const char *cap = getenv("SDLAB_FENCE_ABI");
    if (cap && *cap) {
        char *end;
        long wanted = strtol(cap, &end, 10);
        if (*end == '\0' && wanted >= 0 && wanted < abi) {
            abi = wanted;
            *lowered = 1;
        }
    }
    return (int)abi;
}

static int add_rule(int ruleset, const char *path, uint64_t rights, char *why, size_t size) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, size, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    long added = syscall(SYSCALL_ADD_RULE, ruleset, RULE_PATH_BENEATH, &rule, 0);
    int error = errno;
    close(fd);
    if (added != 0) {
        snprintf(why, size, "cannot allow writes to %s: %s", path, strerror(error));
        return -1;
    }
    return 0;
}

/* Restricts this process, Landlock logging each refusal when `logged`; on failure `why` says
 * what went wrong and nothing is restricted. */
static int restrict_writes(int abi, int logged, char **folders, int folder_count, char **files, int file_count,
                           char *why, size_t size) {
    uint64_t handled = write_rights(abi);
    struct ruleset_attr attributes = {
        .handled_access_fs = handled, .scoped = abi >= 6 ? SCOPE_ABSTRACT_UNIX_SOCKET : 0};
    int ruleset = (int)syscall(SYSCALL_CREATE_RULESET, &attributes, sizeof attributes, 0);
    if (ruleset < 0) {
        snprintf(why, size, "the kernel refused a Landlock ruleset: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < folder_count; i++) {
        if (add_rule(ruleset, folders[i], handled & ~DEVICE_NODES, why, size) != 0) goto failed;
    }
    for (int i = 0; i < file_count; i++) {
        if (add_rule(ruleset, files[i], handled & FILE_RIGHTS, why, size) != 0) goto failed;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(why, size, "cannot set no_new_privs: %s", strerror(errno));
        goto failed;
    }
    if (syscall(SYSCALL_RESTRICT_SELF, ruleset, logged ? RESTRICT_SELF_LOG_NEW_EXEC_ON : 0) != 0) {
        snprintf(why, size, "the kernel refused to enforce the ruleset: %s", strerror(errno));
        goto failed;
    }
    close(ruleset);
    return 0;
failed:
    close(ruleset);
    return -1;
}

/* The securebits that keep root from regaining capabilities at exec or by changing user IDs,
 * each with its lock, so that nothing the app runs can clear them. */
#define LOCKED_SECUREBITS                                                                                       \
    (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |          \
     SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* The highest capability this kernel knows, or -1. */
static int last_capability(void) {
    FILE *file = fopen("/proc/sys/kernel/cap_last_cap", "re");
    int last = -1;
    if (file) {
        if (fscanf(file, "%d", &last) != 1) last = -1;
        fclose(file);
    }
    return last;
}

static int read_capabilities(struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
    return (int)syscall(SYS_capget, &header, data);
}

static int write_capabilities(const struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
    return (int)syscall(SYS_capset, &header, data);
}

/* Drops every capability from the bounding set and locks the securebits; needs CAP_SETPCAP,
 * which is made effective first if it is only permitted. */
static int drop_bounding_set(struct __user_cap_data_struct held[_LINUX_CAPABILITY_U32S_3], int last, char *why,
                             size_t size) {
    held[0].effective = held[0].permitted;
    held[1].effective = held[1].permitted;
    if (write_capabilities(held) != 0) {
        snprintf(why, size, "cannot make its permitted capabilities effective: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_SECUREBITS, LOCKED_SECUREBITS, 0, 0, 0) != 0) {
        snprintf(why, size, "cannot lock the securebits (%#x): %s", LOCKED_SECUREBITS, strerror(errno));
        return -1;
    }
    for (int capability = 0; capability <= last; capability++) {
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) {
            snprintf(why, size, "cannot drop capability %d from the bounding set: %s", capability, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Leaves this process, and whatever it becomes or starts, without any capability and with
 * no_new_privs; on failure `why` says which step failed. */
static int drop_privileges(char *why, size_t size) {
    int last = last_capability();
    if (last < 0) {
        snprintf(why, size, "cannot read /proc/sys/kernel/cap_last_cap");
        return -1;
    }
    struct __user_cap_data_struct held[_LINUX_CAPABILITY_U32S_3];
    if (read_capabilities(held) != 0) {
        snprintf(why, size, "cannot read its capabilities: %s", strerror(errno));
        return -1;
    }
    int may_drop_bounding = (held[CAP_TO_INDEX(CAP_SETPCAP)].permitted & CAP_TO_MASK(CAP_SETPCAP)) != 0;
    if (may_drop_bounding && drop_bounding_set(held, last, why, size) != 0) return -1;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
        snprintf(why, size, "cannot clear its ambient capabilities: %s", strerror(errno));
        return -1;
    }
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    memset(none, 0, sizeof none);
    if (write_capabilities(none) != 0) {
        snprintf(why, size, "cannot drop its capabilities: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(why, size, "cannot set no_new_privs: %s", strerror(errno));
        return -1;
    }
    // What the kernel says now, not what was asked for.
    if (read_capabilities(held) != 0 || memcmp(held, none, sizeof none) != 0) {
        snprintf(why, size, "its capabilities are not empty after the drop");
        return -1;
    }
    for (int capability = 0; may_drop_bounding && capability <= last; capability++) {
        if (prctl(PR_CAPBSET_READ, capability, 0, 0, 0) != 0) {
            snprintf(why, size, "capability %d is still in its bounding set after the drop", capability);
            return -1;
        }
    }
    return 0;
}

/* Says on stderr and to the runner (on `channel`, when there is one) why the app is not started,
 * and exits. */
static void stop_launch(int channel, const char *why) {
    char said[600];
    snprintf(said, sizeof said, "cannot drop the app's privileges: %s", why);
    fprintf(stderr, "%s: %s; the app is not started\n", who, said);
    if (channel >= 0 && sdlab_watch_send_stop(channel, said) != 0) {
        fprintf(stderr, "%s: cannot tell the runner: %s\n", who, strerror(errno));
    }
    exit(126);
}

/* Installs the watch (holding every write when `writes`) and sends its listener to the runner on
 * `channel`, or why there is none.
 * Returns whether it watches. */
static int watch(int channel, int writes) {
    const char *off = getenv("SDLAB_FENCE_WATCH");
    int listener = -1;
    char why[300];
    if (off && strcmp(off, "off") == 0) {
        snprintf(why, sizeof why, "SDLAB_FENCE_WATCH=off left it out");
    } else if ((listener = sdlab_watch_install(writes)) < 0) {
        snprintf(why, sizeof why, "the kernel refused it: %s", strerror(errno));
    }
    if (sdlab_watch_send(channel, listener, why) != 0) {
        fprintf(stderr, "%s: cannot tell the runner about the watch: %s\n", who, strerror(errno));
    }
    if (listener < 0) return 0;
    close(listener);
    return 1;
}

static void usage(void) {
    fprintf(stderr, "usage: %s [--folder DIR]... [--file FILE]... [--watch FD [--logged]] -- PROGRAM [ARGUMENT]...\n",
            who);
    exit(2);
}

int main(int argc, char **argv) {
    char *folders[argc], *files[argc]; /* no more of either than arguments */
    int folder_count = 0, file_count = 0, index = 1, channel = -1, logged = 0;
    for (; index < argc; index++) {
        if (strcmp(argv[index], "--") == 0) {
            index++;
            break;
        }
        if (strcmp(argv[index], "--logged") == 0) {
            logged = 1;
            continue;
        }
        if (index + 1 >= argc) usage();
        if (strcmp(argv[index], "--folder") == 0) {
            folders[folder_count++] = argv[++index];
        } else if (strcmp(argv[index], "--file") == 0) {
            files[file_count++] = argv[++index];
        } else if (strcmp(argv[index], "--watch") == 0) {
            channel = atoi(argv[++index]);
        } else {
            usage();
        }
    }
    if (index >= argc || folder_count == 0 || (logged && channel < 0)) usage();

    char said[512];
    if (drop_privileges(said, sizeof said) != 0) stop_launch(channel, said);
    int lowered;
    int abi = landlock_abi(&lowered);
    const char *as_told = lowered ? " (SDLAB_FENCE_ABI lowered it)" : "";
    logged = logged && abi >= 7;
    if (abi == 0) {
        snprintf(said, sizeof said, "none: this kernel has no Landlock%s", as_told);
    } else {
        char why[400];
        if (restrict_writes(abi, logged, folders, folder_count, files, file_count, why, sizeof why) != 0) {
            snprintf(said, sizeof said, "none: %s", why);
            logged = 0;
        } else if (abi < 3) {
            snprintf(said, sizeof said,
                     "landlock %d%s: truncate(2) and ioctl(2) on devices are not fenced, and a file cannot be"
                     " renamed or linked into another folder",
                     abi, as_told);
        } else if (abi < 5) {
            snprintf(said, sizeof said, "landlock %d%s: ioctl(2) on devices is not fenced", abi, as_told);
        } else {
            snprintf(said, sizeof said, "landlock %d%s", abi, as_told);
        }
    }
    if (abi == 0) logged = 0;
    int watched = channel >= 0 && watch(channel, !logged);
    if (strncmp(said, "none", 4) == 0) {
        fprintf(stderr, "%s: the kernel's Landlock does not fence this app's writes (%s); %s (Docs/hardening.md)\n",
                who, said + 6,
                watched ? "the watch alone refuses them outside its container"
                        : "nothing refuses them outside its container");
    } else if (strchr(said, ':')) {
        fprintf(stderr, "%s: the kernel fences this app's writes in part (%s; Docs/hardening.md)\n", who, said);
    }
    if (logged) strncat(said, "; logged", sizeof said - strlen(said) - 1);
    if (watched) strncat(said, "; watched", sizeof said - strlen(said) - 1);
    setenv("SDLAB_FENCE", said, 1);
    execvp(argv[index], argv + index);
    fprintf(stderr, "%s: cannot start %s: %s\n", who, argv[index], strerror(errno));
    return 127;
}
