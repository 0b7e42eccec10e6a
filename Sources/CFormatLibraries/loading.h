#ifndef SDLAB_FORMAT_LIBRARIES_LOADING_H
#define SDLAB_FORMAT_LIBRARIES_LOADING_H

#include <stddef.h>

/// Opens `file` with dlopen (resolving every symbol now, sharing none with the process):
/// the handle, or NULL with `error` saying why in dlerror's words.
void *sdlab_open_library(const char *file, char *error, size_t size);

/// `name` in `handle` and the libraries it loaded, or NULL with `error` saying so.
void *sdlab_find_function(void *handle, const char *file, const char *name, char *error, size_t size);

#endif
