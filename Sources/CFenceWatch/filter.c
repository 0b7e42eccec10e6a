// The watch's filter: an allowlist. It names every system call the fence knows and what it does
// with each: `LET` calls go straight on (nothing they do keeps bytes outside the container, or
// Landlock alone fences them, as it does a removal); `WRITE` calls, which create or change a
// file (an open for writing, mkdir, rename, link, bind of a unix socket, …), go straight on too
// when the kernel tells the runner of Landlock's refusals, and otherwise wait while the runner
// looks where they land; `WAIT` calls (a change of an extended attribute, which Landlock does not
// fence) always wait for the runner; every other call, `REFUSE`d here or not known at all (one a
// later kernel adds), also goes to the runner, which refuses it and names it. A call whose action
// never depends on its arguments is cached by the kernel (seccomp's action cache), so the list
// costs an allowed call nothing after its first use.
#define _GNU_SOURCE
#include "fence_watch.h"
#include "filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
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

enum rule {
    LET,      // goes straight on
    WRITE,    // creates or changes a file: goes on, or waits for the runner when it watches writes
    WAIT,     // waits for the runner, which looks where it lands
    REFUSE,   // the runner refuses it and names it
    OPEN,     // a write when its flags write (`opens_for_writing`), else goes straight on
    ARGUMENTS // decided below by its arguments, before the list
};

static const struct known_call {
    int number;
    const char *name;
    enum rule rule;
} known_calls[] = {
#define CALL(name, rule) {SYS_##name, #name, rule}
    // Memory, threads, signals, time, scheduling and the process's own identity and limits.
    CALL(brk, LET), CALL(mmap, LET), CALL(munmap, LET), CALL(mprotect, LET), CALL(mremap, LET), CALL(msync, LET),
    CALL(mincore, LET), CALL(madvise, LET), CALL(mlock, LET), CALL(mlock2, LET), CALL(munlock, LET),
    CALL(mlockall, LET), CALL(munlockall, LET), CALL(remap_file_pages, LET), CALL(mbind, LET),
    CALL(set_mempolicy, LET), CALL(get_mempolicy, LET), CALL(set_mempolicy_home_node, LET),
    CALL(migrate_pages, LET), CALL(move_pages, LET), CALL(pkey_mprotect, LET), CALL(pkey_alloc, LET),
    CALL(pkey_free, LET), CALL(memfd_create, LET), CALL(memfd_secret, LET), CALL(membarrier, LET),
    CALL(map_shadow_stack, LET), CALL(mseal, LET), CALL(process_madvise, LET), CALL(process_mrelease, LET),
    CALL(futex, LET), CALL(futex_waitv, LET), CALL(futex_wake, LET), CALL(futex_wait, LET),
    CALL(futex_requeue, LET), CALL(set_robust_list, LET), CALL(get_robust_list, LET), CALL(set_tid_address, LET),
    CALL(rseq, LET), CALL(gettid, LET), CALL(getpid, LET), CALL(getppid, LET), CALL(getpgid, LET),
    CALL(setpgid, LET), CALL(getsid, LET), CALL(setsid, LET), CALL(getuid, LET), CALL(geteuid, LET),
    CALL(getgid, LET), CALL(getegid, LET), CALL(getresuid, LET), CALL(getresgid, LET), CALL(getgroups, LET),
    CALL(setuid, LET), CALL(setgid, LET), CALL(setreuid, LET), CALL(setregid, LET), CALL(setresuid, LET),
    CALL(setresgid, LET), CALL(setfsuid, LET), CALL(setfsgid, LET), CALL(setgroups, LET), CALL(capget, LET),
    CALL(capset, LET), CALL(personality, LET), CALL(getrlimit, LET), CALL(setrlimit, LET), CALL(prlimit64, LET),
    CALL(getrusage, LET), CALL(getpriority, LET), CALL(setpriority, LET), CALL(ioprio_get, LET),
    CALL(ioprio_set, LET), CALL(sched_yield, LET), CALL(sched_setparam, LET), CALL(sched_getparam, LET),
    CALL(sched_setscheduler, LET), CALL(sched_getscheduler, LET), CALL(sched_get_priority_max, LET),
    CALL(sched_get_priority_min, LET), CALL(sched_rr_get_interval, LET), CALL(sched_setaffinity, LET),
    CALL(sched_getaffinity, LET), CALL(sched_setattr, LET), CALL(sched_getattr, LET), CALL(getcpu, LET),
    CALL(rt_sigaction, LET), CALL(rt_sigprocmask, LET), CALL(rt_sigreturn, LET), CALL(rt_sigpending, LET),
    CALL(rt_sigtimedwait, LET), CALL(rt_sigqueueinfo, LET), CALL(rt_tgsigqueueinfo, LET), CALL(rt_sigsuspend, LET),
    CALL(sigaltstack, LET), CALL(restart_syscall, LET), CALL(kill, LET), CALL(tkill, LET), CALL(tgkill, LET),
    CALL(pidfd_open, LET), CALL(pidfd_send_signal, LET), CALL(wait4, LET), CALL(waitid, LET), CALL(exit, LET),
    CALL(exit_group, LET), CALL(execve, LET), CALL(execveat, LET), CALL(kcmp, LET), CALL(process_vm_readv, LET),
    CALL(nanosleep, LET), CALL(clock_nanosleep, LET), CALL(clock_gettime, LET), CALL(clock_getres, LET),
    CALL(gettimeofday, LET), CALL(times, LET), CALL(getitimer, LET), CALL(setitimer, LET), CALL(timer_create, LET),
    CALL(timer_settime, LET), CALL(timer_gettime, LET), CALL(timer_getoverrun, LET), CALL(timer_delete, LET),
    CALL(uname, LET), CALL(sysinfo, LET), CALL(getrandom, LET), CALL(lsm_get_self_attr, LET),
    CALL(lsm_list_modules, LET), CALL(landlock_create_ruleset, LET), CALL(landlock_add_rule, LET),
    // Descriptors: what they write goes where an open the watch judged (or a pipe, a socket) points.
    CALL(read, LET), CALL(write, LET), CALL(readv, LET), CALL(writev, LET), CALL(pread64, LET),
    CALL(pwrite64, LET), CALL(preadv, LET), CALL(pwritev, LET), CALL(preadv2, LET), CALL(pwritev2, LET),
    CALL(lseek, LET), CALL(close, LET), CALL(close_range, LET), CALL(dup, LET), CALL(dup3, LET), CALL(fcntl, LET),
    CALL(ioctl, LET), CALL(flock, LET), CALL(fsync, LET), CALL(fdatasync, LET), CALL(syncfs, LET), CALL(sync, LET),
    CALL(sync_file_range, LET), CALL(ftruncate, LET), CALL(fallocate, LET), CALL(fadvise64, LET),
    CALL(readahead, LET), CALL(sendfile, LET), CALL(splice, LET), CALL(tee, LET), CALL(vmsplice, LET),
    CALL(copy_file_range, LET), CALL(pipe2, LET), CALL(eventfd2, LET), CALL(signalfd4, LET),
    CALL(timerfd_create, LET), CALL(timerfd_settime, LET), CALL(timerfd_gettime, LET), CALL(epoll_create1, LET),
    CALL(epoll_ctl, LET), CALL(epoll_pwait, LET), CALL(epoll_pwait2, LET), CALL(pselect6, LET), CALL(ppoll, LET),
    CALL(inotify_init1, LET), CALL(inotify_add_watch, LET), CALL(inotify_rm_watch, LET), CALL(io_setup, LET),
    CALL(io_destroy, LET), CALL(io_submit, LET), CALL(io_cancel, LET), CALL(io_getevents, LET),
    CALL(io_pgetevents, LET),
    // Sockets: bind to a path makes a file; connecting is fenced by Landlock's scope.
    CALL(socket, LET), CALL(socketpair, LET), CALL(connect, LET), CALL(listen, LET), CALL(accept, LET),
    CALL(accept4, LET), CALL(getsockname, LET), CALL(getpeername, LET), CALL(setsockopt, LET),
    CALL(getsockopt, LET), CALL(sendto, LET), CALL(recvfrom, LET), CALL(sendmsg, LET), CALL(recvmsg, LET),
    CALL(sendmmsg, LET), CALL(recvmmsg, LET), CALL(shutdown, LET), CALL(bind, WRITE),
    // Files by name: reading and looking, metadata (which the fence does not judge), removal
    // (Landlock refuses one outside) go on; whatever makes or changes a file is a write, and a
    // change of its extended attributes waits.
    CALL(newfstatat, LET), CALL(fstat, LET), CALL(statx, LET), CALL(statfs, LET), CALL(fstatfs, LET),
    CALL(faccessat, LET), CALL(faccessat2, LET), CALL(readlinkat, LET), CALL(getdents64, LET), CALL(getcwd, LET),
    CALL(chdir, LET), CALL(fchdir, LET), CALL(umask, LET), CALL(getxattr, LET), CALL(lgetxattr, LET),
    CALL(fgetxattr, LET), CALL(getxattrat, LET), CALL(listxattr, LET), CALL(llistxattr, LET),
    CALL(flistxattr, LET), CALL(listxattrat, LET), CALL(cachestat, LET), CALL(file_getattr, LET),
    CALL(name_to_handle_at, LET), CALL(statmount, LET), CALL(listmount, LET), CALL(fchmod, LET),
    CALL(fchmodat, LET), CALL(fchmodat2, LET), CALL(fchown, LET), CALL(fchownat, LET), CALL(utimensat, LET),
    CALL(unlinkat, LET), CALL(openat, OPEN), CALL(openat2, WRITE), CALL(mkdirat, WRITE),
    CALL(mknodat, WRITE), CALL(renameat, WRITE), CALL(renameat2, WRITE), CALL(linkat, WRITE), CALL(symlinkat, WRITE),
    CALL(truncate, WRITE),
    CALL(setxattr, WAIT), CALL(lsetxattr, WAIT), CALL(fsetxattr, WAIT), CALL(setxattrat, WAIT),
    CALL(removexattr, WAIT), CALL(lremovexattr, WAIT), CALL(fremovexattr, WAIT), CALL(removexattrat, WAIT),
    // Decided by their arguments: a new namespace would give back the capabilities the app was
    // started without; a filter of the app's own could answer its calls in the runner's place;
    // io_uring's requests open files without a system call the filter sees; clone3's flags are
    // behind a pointer (ENOSYS: the C library falls back to clone, whose flags the filter reads).
    CALL(clone, ARGUMENTS), CALL(unshare, ARGUMENTS), CALL(prctl, ARGUMENTS), CALL(seccomp, ARGUMENTS),
    CALL(io_uring_setup, ARGUMENTS), CALL(clone3, ARGUMENTS),
    // Refused and named: stores that outlive the process outside any file, the machine's own
    // state, other processes, a file handle that passes by every path, kernel interfaces, and a
    // Landlock domain of the app's own (its refusals would be logged in the fence's place).
    CALL(shmget, REFUSE), CALL(shmat, REFUSE), CALL(shmctl, REFUSE), CALL(shmdt, REFUSE), CALL(semget, REFUSE),
    CALL(semop, REFUSE), CALL(semtimedop, REFUSE), CALL(semctl, REFUSE), CALL(msgget, REFUSE),
    CALL(msgsnd, REFUSE), CALL(msgrcv, REFUSE), CALL(msgctl, REFUSE), CALL(mq_open, REFUSE),
    CALL(mq_unlink, REFUSE), CALL(mq_timedsend, REFUSE), CALL(mq_timedreceive, REFUSE), CALL(mq_notify, REFUSE),
    CALL(mq_getsetattr, REFUSE), CALL(add_key, REFUSE), CALL(request_key, REFUSE), CALL(keyctl, REFUSE),
    CALL(sethostname, REFUSE), CALL(setdomainname, REFUSE), CALL(settimeofday, REFUSE),
    CALL(clock_settime, REFUSE), CALL(clock_adjtime, REFUSE), CALL(adjtimex, REFUSE), CALL(mount, REFUSE),
    CALL(umount2, REFUSE), CALL(pivot_root, REFUSE), CALL(chroot, REFUSE), CALL(open_tree, REFUSE),
    CALL(open_tree_attr, REFUSE), CALL(move_mount, REFUSE), CALL(fsopen, REFUSE), CALL(fsconfig, REFUSE),
    CALL(fsmount, REFUSE), CALL(fspick, REFUSE), CALL(mount_setattr, REFUSE), CALL(swapon, REFUSE),
    CALL(swapoff, REFUSE), CALL(quotactl, REFUSE), CALL(quotactl_fd, REFUSE), CALL(acct, REFUSE),
    CALL(reboot, REFUSE), CALL(kexec_load, REFUSE), CALL(kexec_file_load, REFUSE), CALL(init_module, REFUSE),
    CALL(finit_module, REFUSE), CALL(delete_module, REFUSE), CALL(syslog, REFUSE), CALL(vhangup, REFUSE),
    CALL(setns, REFUSE), CALL(ptrace, REFUSE), CALL(process_vm_writev, REFUSE), CALL(pidfd_getfd, REFUSE),
    CALL(bpf, REFUSE), CALL(perf_event_open, REFUSE), CALL(userfaultfd, REFUSE), CALL(fanotify_init, REFUSE),
    CALL(fanotify_mark, REFUSE), CALL(open_by_handle_at, REFUSE), CALL(io_uring_enter, REFUSE),
    CALL(io_uring_register, REFUSE), CALL(lsm_set_self_attr, REFUSE), CALL(file_setattr, REFUSE),
    CALL(landlock_restrict_self, REFUSE),
#if defined(__x86_64__)
    // x86_64's older calls, which aarch64 has only in their `at` forms.
    CALL(stat, LET), CALL(lstat, LET), CALL(access, LET), CALL(readlink, LET), CALL(getdents, LET),
    CALL(chmod, LET), CALL(chown, LET), CALL(lchown, LET), CALL(utime, LET), CALL(utimes, LET),
    CALL(futimesat, LET), CALL(unlink, LET), CALL(rmdir, LET), CALL(dup2, LET), CALL(pipe, LET), CALL(poll, LET),
    CALL(select, LET), CALL(epoll_create, LET), CALL(epoll_wait, LET), CALL(eventfd, LET), CALL(signalfd, LET),
    CALL(inotify_init, LET), CALL(fork, LET), CALL(vfork, LET), CALL(pause, LET), CALL(alarm, LET),
    CALL(time, LET), CALL(getpgrp, LET), CALL(arch_prctl, LET), CALL(open, OPEN), CALL(creat, WRITE),
    CALL(mkdir, WRITE), CALL(mknod, WRITE), CALL(rename, WRITE), CALL(link, WRITE), CALL(symlink, WRITE),
    CALL(iopl, REFUSE), CALL(ioperm, REFUSE), CALL(modify_ldt, REFUSE), CALL(set_thread_area, REFUSE),
    CALL(get_thread_area, REFUSE), CALL(sysfs, REFUSE), CALL(ustat, REFUSE),
#endif
#undef CALL
};

#define KNOWN_CALLS (sizeof known_calls / sizeof known_calls[0])

const char *sdlab_call_name(int number) {
    for (size_t i = 0; i < KNOWN_CALLS; i++) {
        if (known_calls[i].number == number) return known_calls[i].name;
    }
    return NULL;
}

const char *sdlab_call_family(int number) {
    switch (number) {
#if defined(__x86_64__)
    case SYS_creat:
        return "open";
#endif
    case SYS_openat:
    case SYS_openat2:
        return "open";
    case SYS_mkdirat:
        return "mkdir";
    case SYS_mknodat:
        return "mknod";
    case SYS_renameat:
    case SYS_renameat2:
        return "rename";
    case SYS_linkat:
        return "link";
    case SYS_symlinkat:
        return "symlink";
    case SYS_unlinkat:
        return "unlink";
    default:
        return sdlab_call_name(number);
    }
}

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)
/// The flags that make a new namespace.
#define NAMESPACES                                                                                           \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80 // unshare's only: clone's low byte is the exit signal
#endif
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
// The low 32 bits of an argument (both architectures are little-endian).
#define LOAD_ARGUMENT(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define RETURN(action) BPF_STMT(BPF_RET | BPF_K, action)
#define TO_RUNNER SECCOMP_RET_USER_NOTIF
#define ALLOWED SECCOMP_RET_ALLOW
#define REFUSED(error) (SECCOMP_RET_ERRNO | (error))
/// `number` goes to the runner when its argument `n` has one of `flags`, else straight on.
#define TO_RUNNER_WHEN(number, n, flags)                                                                     \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 4), LOAD_ARGUMENT(n),                                    \
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, flags, 0, 1), RETURN(TO_RUNNER), RETURN(ALLOWED)
/// `number` fails with `error` at once, unnamed.
#define REFUSED_QUIETLY(number, error) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 1), RETURN(REFUSED(error))

/// What runs before the list: the architecture, and the calls decided by their arguments.
static const struct sock_filter architecture[] = {
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
};

/// Opens for writing go to the runner when it watches writes (the most frequent, so first).
static const struct sock_filter opens_for_writing[] = {
    TO_RUNNER_WHEN(SYS_openat, 2, WRITE_FLAGS),
#if defined(__x86_64__)
    TO_RUNNER_WHEN(SYS_open, 1, WRITE_FLAGS),
#endif
};

static const struct sock_filter by_arguments[] = {
    TO_RUNNER_WHEN(SYS_clone, 0, NAMESPACES),
    TO_RUNNER_WHEN(SYS_unshare, 0, NAMESPACES | CLONE_NEWTIME),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 4),
    LOAD_ARGUMENT(0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
    RETURN(REFUSED(EPERM)),
    RETURN(ALLOWED),
    REFUSED_QUIETLY(SYS_seccomp, EPERM),
    REFUSED_QUIETLY(SYS_io_uring_setup, ENOSYS),
    REFUSED_QUIETLY(SYS_clone3, ENOSYS),
};

#define COUNT(array) (sizeof array / sizeof array[0])
/// At most: what is decided first, two instructions for each call let through, and the default.
#define PROGRAM_CAPACITY (COUNT(architecture) + COUNT(opens_for_writing) + COUNT(by_arguments) + 2 * KNOWN_CALLS + 1)
_Static_assert(PROGRAM_CAPACITY < BPF_MAXINSNS, "the watch's filter must stay under the kernel's 4096 instructions");

/// Whether `call` goes straight on: when the runner does not watch writes, every write does
/// (Landlock decides it, and the kernel tells the runner what it refused).
static int let_through(const struct known_call *call, int writes) {
    return call->rule == LET || (!writes && (call->rule == WRITE || call->rule == OPEN));
}

int sdlab_watch_install(int writes) {
    struct sock_filter program[PROGRAM_CAPACITY];
    unsigned short length = 0;
    for (size_t i = 0; i < COUNT(architecture); i++) program[length++] = architecture[i];
    for (size_t i = 0; writes && i < COUNT(opens_for_writing); i++) program[length++] = opens_for_writing[i];
    for (size_t i = 0; i < COUNT(by_arguments); i++) program[length++] = by_arguments[i];
    for (size_t i = 0; i < KNOWN_CALLS; i++) {
        if (!let_through(&known_calls[i], writes)) continue;
        program[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, known_calls[i].number, 0, 1);
        program[length++] = (struct sock_filter)RETURN(ALLOWED);
    }
    program[length++] = (struct sock_filter)RETURN(TO_RUNNER); // WAIT, REFUSE and every call not known
    struct sock_fprog filter = {.len = length, .filter = program};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter);
}
