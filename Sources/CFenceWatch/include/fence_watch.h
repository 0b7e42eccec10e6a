#ifndef SDLAB_FENCE_WATCH_H
#define SDLAB_FENCE_WATCH_H

#include <sys/types.h>

/// The fence's watch, held by the kernel (seccomp user notification). Where the runner hears the
/// kernel's audit, Landlock alone decides every write and the kernel logs what it refuses; only a
/// change of an extended attribute (which Landlock does not fence) waits while the runner looks
/// where it lands. Elsewhere every system call an app, or any process it starts, makes to create
/// or change a file waits too. Outside the app's container it fails with EACCES, as the sandbox
/// makes it fail on a phone, and the runner names it; inside, the kernel carries it on (Landlock
/// still checks it). Every call not on the watch's list of calls an app makes (a store that
/// outlives the process, the machine's own state, a call a later kernel adds) is refused and named
/// too. No route around it: the C library or a raw system call, a child, a launcher script, a link.

/// Installs the watch on this process and everything it starts (no_new_privs must be set) and
/// returns the descriptor its calls are answered through, or -1 with errno. With `writes`, every
/// call that creates or changes a file waits for the runner; without, such calls go straight on
/// and Landlock alone decides them (the kernel logs what it refuses, `sdlab_audit_open`). A
/// process that holds the watch cannot install a seccomp filter (EPERM) or a Landlock domain
/// (refused and named) of its own, either of which could answer or log in the fence's place.
int sdlab_watch_install(int writes);

/// Called for each call the watch refused, with either the `place` outside the container it
/// would have changed (made absolute, `PATH -> WHERE` when a link would take it elsewhere, `PATH
/// (in a folder that is gone)`) or, for a call refused as such, `why` (the other is NULL); the
/// system call (`syscall N` for one the watch does not know), and who made it (its process ID
/// and its command name).
typedef void (*sdlab_watch_refused)(void *context, const char *place, const char *why, const char *call, pid_t pid,
                                    const char *command);

/// Answers `listener`'s calls until every process it watches has ended: a call that creates or
/// changes a file is let through when it lands beneath one of `folders` or on one of `files`
/// (an extended attribute only beneath `folders`), refused (and told to `refused`) otherwise;
/// any other call that reaches the runner is refused and told. Returns 0 once nothing is
/// watched, -1 with errno if the listener fails.
int sdlab_watch_serve(int listener, const char *const *folders, int folder_count, const char *const *files,
                      int file_count, sdlab_watch_refused refused, void *context);

/// The fence tells the runner on `channel` (a SOCK_SEQPACKET socket) whether it watches the
/// app: `listener` when it does, else `why` not. Returns 0, or -1 with errno.
int sdlab_watch_send(int channel, int listener, const char *why);

/// The fence tells the runner on `channel` that it did not start the app, and `why`. Returns 0,
/// or -1 with errno.
int sdlab_watch_send_stop(int channel, const char *why);

/// The fence's word on `channel` within `timeout_ms`: the listener (close-on-exec); -1 with `why`
/// it has none; or -2 with `why` the fence did not start the app.
int sdlab_watch_receive(int channel, int timeout_ms, char *why, int size);

/// The name of system call `number` as the watch's filter knows it, or NULL for a call it does
/// not know (one a later kernel adds, or no call at all).
const char *sdlab_call_name(int number);

/// How a run names system call `number`: a call on paths by its family (`openat`, `openat2` and
/// `creat` are `open`; `mkdirat` is `mkdir`; `renameat2` is `rename`…), whichever of its forms
/// the C library used; any other call by its name, NULL for one the filter does not know.
const char *sdlab_call_family(int number);

/// Opens the kernel's audit to this runner, where Landlock logs what the fence refuses: turns
/// the audit on when it is off (it stays on), lets it hold 8,192 records for its readers, and
/// joins the group every record reaches. Returns that group's socket, or -1 with `why` (not
/// root, no audit in this kernel or namespace, an audit set to panic on a dropped record).
int sdlab_audit_open(char *why, int size);

/// Waits for the next record on `listener`: its type (`AUDIT_*`), its text in `text`; -1 with
/// errno (ENOBUFS: records were lost before this runner read them).
int sdlab_audit_receive(int listener, char *text, int size);

/// Logs a user record carrying `text` (it reaches every reader after every record logged
/// before it). Returns 0, or -1 with errno.
int sdlab_audit_mark(const char *text);

/// Whether the audit is on, and how many records the kernel has dropped since it started.
/// Returns 0, or -1 with errno.
int sdlab_audit_status(unsigned *enabled, unsigned *lost);

#endif
