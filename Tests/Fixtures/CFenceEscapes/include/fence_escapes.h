#ifndef FENCE_ESCAPES_H
#define FENCE_ESCAPES_H

/// The routes `fence_escape` takes, comma-separated.
extern const char *const fence_escape_routes;

/// Tries to keep `text` in the folder `outside` (or /dev/shm, under a name that starts with
/// `token`) by `route`, from inside `home` (the app's container home). Returns 1 if the call
/// that would write succeeded, 0 if it was refused.
int fence_escape(const char *route, const char *outside, const char *home, const char *token, const char *text);

#endif
