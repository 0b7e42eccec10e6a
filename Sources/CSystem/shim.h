#ifndef SDLAB_CSYSTEM_SHIM_H
#define SDLAB_CSYSTEM_SHIM_H
/* Only macro headers here: the C library itself comes from Swift's Glibc module. */
#include <sys/syscall.h>

extern long syscall(long number, ...);

/* pidfd_open(2): a descriptor that polls readable when the process exits, for any
   process, child or not. Wrapped because Swift cannot call the variadic syscall(). */
static inline int sdlab_pidfd_open(int pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* renameat2(2) with RENAME_EXCHANGE (2): swaps two paths in one step. glibc declares
   renameat2 only under _GNU_SOURCE. -100 is AT_FDCWD. */
static inline int sdlab_exchange_paths(const char *first, const char *second) {
    return (int)syscall(SYS_renameat2, -100, first, -100, second, 2);
}

/* posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor
   from `from` on before it runs, so nothing a thread of ours opened without close-on-exec
   (Foundation's files, for one) leaks into it. glibc declares it only under _GNU_SOURCE; the
   actions are a posix_spawn_file_actions_t. */
extern int posix_spawn_file_actions_addclosefrom_np(void *actions, int from);
static inline int sdlab_spawn_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/* memmem(3): glibc's fast search of bytes in bytes, declared only under _GNU_SOURCE. */
extern void *memmem(const void *haystack, unsigned long haystack_length, const void *needle,
                    unsigned long needle_length);

/* pipe2(2) with O_CLOEXEC (02000000): both ends close-on-exec from the start, with no window
   for a process another thread starts to inherit them. glibc declares pipe2 only under
   _GNU_SOURCE. */
static inline int sdlab_pipe_cloexec(int ends[2]) { return (int)syscall(SYS_pipe2, ends, 02000000); }

/* prctl(PR_SET_CHILD_SUBREAPER = 36, 1): a process whose parent ends while this one lives
   becomes our child instead of init's. Wrapped because Swift cannot call the variadic prctl(). */
static inline int sdlab_become_subreaper(void) { return (int)syscall(SYS_prctl, 36, 1, 0, 0, 0); }

/* openat2(2) with RESOLVE_BENEATH (0x08) and RESOLVE_NO_SYMLINKS (0x04): opens `path` relative to
   the folder `folder` only if every step stays beneath it and none is a link, whatever `..` or
   links the path holds. The struct is the kernel's open_how, declared here so that no kernel
   header is needed. */
struct sdlab_open_how { unsigned long long flags, mode, resolve; };
static inline int sdlab_open_beneath(int folder, const char *path, int flags, unsigned mode) {
    struct sdlab_open_how how = { (unsigned long long)flags, mode, 0x08 | 0x04 };
    return (int)syscall(SYS_openat2, folder, path, &how, sizeof how);
}

/* O_PATH (010000000): a descriptor that only names a place, which glibc defines only under
   _GNU_SOURCE. */
static inline int sdlab_open_path_flag(void) { return 010000000; }

/* landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION): the kernel's Landlock ABI,
   or -1 without Landlock. 444 on every architecture. */
static inline int sdlab_landlock_abi(void) { return (int)syscall(444, (void *)0, 0UL, 1U); }

/* posix_spawnattr flags that glibc only defines under _GNU_SOURCE. */
static inline short sdlab_spawn_setsid_flag(void) { return 0x80; }             /* POSIX_SPAWN_SETSID */
static inline short sdlab_spawn_setsigdef_flag(void) { return 0x04 | 0x08; }   /* SETSIGDEF | SETSIGMASK */
/* libdispatch's hooks for a loop that serves the main queue in place of CoreFoundation's run
   loop (libdispatch exports both): the eventfd it writes when the main queue gets work, and the
   call that runs what the main queue holds, on the main thread. */
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);
#endif
