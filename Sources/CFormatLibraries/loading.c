#include "loading.h"

#include <dlfcn.h>
#include <stdio.h>

void *sdlab_open_library(const char *file, char *error, size_t size) {
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, size, "%s could not be loaded: %s", file, reason ? reason : "no reason given");
    }
    return handle;
}

void *sdlab_find_function(void *handle, const char *file, const char *name, char *error, size_t size) {
    dlerror();
    void *function = dlsym(handle, name);
    if (function == NULL) {
        const char *reason = dlerror();
        snprintf(error, size, "%s has no %s: %s", file, name, reason ? reason : "no reason given");
    }
    return function;
}
