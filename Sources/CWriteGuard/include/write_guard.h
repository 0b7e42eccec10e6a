#ifndef SDLAB_WRITE_GUARD_H
#define SDLAB_WRITE_GUARD_H

/// Called for each write the guard refused: the path as the app gave it (made absolute, and
/// `PATH -> WHERE` when a link would take it elsewhere), and the call (`open`, `mkdir`,
/// `rename`, `bind`, …).
typedef void (*sdlab_write_refused)(const char *path, const char *call);

/// From now on, this process may create, change or remove files only beneath the `count`
/// folders in `allowed` (absolute, without a trailing slash) and write only to the
/// `files_count` files in `files`: any other such call fails with EACCES and is told to
/// `refused`. Call once, before the app's code runs. The kernel's fence (`sdlab-fence`) holds
/// the same line for every call; this one names the path.
void sdlab_write_guard_install(const char *const *allowed, int count, const char *const *files, int files_count,
                               sdlab_write_refused refused);

#endif
