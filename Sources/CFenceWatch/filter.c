// The watch's filter: which system calls wait for the runner's answer. Only those that put
// bytes or names somewhere (an open for writing, mkdir, rename, link, bind of a unix socket, …,
// and stores that outlive the process) wait; a read-only open and every other call go straight
// on. A removal (unlink, rmdir) keeps nothing: Landlock alone refuses one outside, and a
// cleanup, which is mostly removals, does not wait for the runner at each file.
#define _GNU_SOURCE
#include "fence_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "the watch knows x86_64 and aarch64"
#endif

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
// The low 32 bits of an argument (both architectures are little-endian).
#define LOAD_ARGUMENT(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define RETURN(action) BPF_STMT(BPF_RET | BPF_K, action)
#define WATCHED SECCOMP_RET_USER_NOTIF
#define ALLOWED SECCOMP_RET_ALLOW
#define REFUSED(error) (SECCOMP_RET_ERRNO | (error))
/// `number` waits for the runner.
#define WATCH(number) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 1), RETURN(WATCHED)
/// `number` waits when its argument `n` (open flags) asks to write.
#define WATCH_WRITING(number, n)                                                                            \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 4), LOAD_ARGUMENT(n),                                    \
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 0, 1), RETURN(WATCHED), RETURN(ALLOWED)

int sdlab_watch_install(void) {
    struct sock_filter program[] = {
        // Another architecture's calls (a 32-bit binary) have other numbers: refused.
        LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        RETURN(REFUSED(ENOSYS)),
        LOAD(nr),
#if defined(__x86_64__)
        // x32 calls: the same calls under other numbers.
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        RETURN(REFUSED(ENOSYS)),
#endif
        WATCH_WRITING(SYS_openat, 2),
#ifdef SYS_open
        WATCH_WRITING(SYS_open, 1),
        WATCH(SYS_creat),
        WATCH(SYS_mkdir),
        WATCH(SYS_mknod),
        WATCH(SYS_rename),
        WATCH(SYS_link),
        WATCH(SYS_symlink),
#endif
#ifdef SYS_renameat
        WATCH(SYS_renameat),
#endif
        WATCH(SYS_openat2),
        WATCH(SYS_mkdirat),
        WATCH(SYS_mknodat),
        WATCH(SYS_renameat2),
        WATCH(SYS_linkat),
        WATCH(SYS_symlinkat),
        WATCH(SYS_truncate),
        WATCH(SYS_bind),
        WATCH(SYS_setxattr),
        WATCH(SYS_lsetxattr),
        WATCH(SYS_fsetxattr),
        // Stores that outlive the process outside any file: System V IPC, POSIX message queues,
        // the kernel's keys. No app on a phone has them; each is refused and named.
        WATCH(SYS_shmget),
        WATCH(SYS_msgget),
        WATCH(SYS_semget),
        WATCH(SYS_mq_open),
        WATCH(SYS_add_key),
        WATCH(SYS_keyctl),
        // A filter of the app's own could answer its calls in the runner's place; io_uring's
        // requests open files without a system call the filter sees.
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
        RETURN(REFUSED(EPERM)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
        LOAD_ARGUMENT(0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
        RETURN(REFUSED(EPERM)),
        LOAD(nr),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        RETURN(REFUSED(ENOSYS)),
        RETURN(ALLOWED),
    };
    struct sock_fprog filter = {.len = sizeof program / sizeof program[0], .filter = program};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter);
}
