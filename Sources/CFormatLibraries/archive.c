#include "format_libraries.h"
#include "loading.h"

#include <archive.h>
#include <archive_entry.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Every libarchive function the reader calls, typed by libarchive's own declarations (the
/// headers only: nothing of it is linked).
#define ARCHIVE_FUNCTIONS(F)                                                                                      \
    F(archive_read_new)                                                                                           \
    F(archive_read_free)                                                                                          \
    F(archive_read_support_format_7zip)                                                                           \
    F(archive_read_support_format_ar)                                                                             \
    F(archive_read_support_format_cab)                                                                            \
    F(archive_read_support_format_cpio)                                                                           \
    F(archive_read_support_format_iso9660)                                                                        \
    F(archive_read_support_format_lha)                                                                            \
    F(archive_read_support_format_rar)                                                                            \
    F(archive_read_support_format_rar5)                                                                           \
    F(archive_read_support_format_tar)                                                                            \
    F(archive_read_support_format_warc)                                                                           \
    F(archive_read_support_format_xar)                                                                            \
    F(archive_read_support_format_zip)                                                                            \
    F(archive_read_open_memory)                                                                                   \
    F(archive_read_next_header)                                                                                   \
    F(archive_read_data_block)                                                                                    \
    F(archive_error_string)                                                                                       \
    F(archive_format)                                                                                             \
    F(archive_entry_pathname)                                                                                     \
    F(archive_entry_pathname_utf8)                                                                                \
    F(archive_entry_symlink)                                                                                      \
    F(archive_entry_hardlink)                                                                                     \
    F(archive_entry_is_encrypted)

#define ARCHIVE_FIELD(name) __typeof__(name) *name;
static struct {
    ARCHIVE_FUNCTIONS(ARCHIVE_FIELD)
} libarchive;

static const char libarchive_file[] = "libarchive.so.13";
static pthread_once_t libarchive_once = PTHREAD_ONCE_INIT;
static char libarchive_error_text[512];
static const char *libarchive_error;

static void load_libarchive(void) {
    void *handle = sdlab_open_library(libarchive_file, libarchive_error_text, sizeof libarchive_error_text);
    if (handle == NULL) {
        libarchive_error = libarchive_error_text;
        return;
    }
#define ARCHIVE_RESOLVE(name)                                                                                     \
    if ((*(void **)&libarchive.name = sdlab_find_function(handle, libarchive_file, #name, libarchive_error_text, \
                                                           sizeof libarchive_error_text)) == NULL) {             \
        libarchive_error = libarchive_error_text;                                                                 \
        return;                                                                                                   \
    }
    ARCHIVE_FUNCTIONS(ARCHIVE_RESOLVE)
}

struct sdlab_archive {
    struct archive *archive;
};

/// Why the latest open on this thread failed, past the archive it was libarchive's error on.
static _Thread_local char open_error[512];

sdlab_archive_status sdlab_archive_open(const uint8_t *bytes, size_t count, sdlab_archive **opened,
                                        const char **error) {
    pthread_once(&libarchive_once, load_libarchive);
    if (libarchive_error != NULL) {
        *error = libarchive_error;
        return sdlab_archive_unavailable;
    }
    struct archive *archive = libarchive.archive_read_new();
    if (archive == NULL) {
        *error = "libarchive could not allocate a reader";
        return sdlab_archive_unreadable;
    }
    int (*const formats[])(struct archive *) = {
        libarchive.archive_read_support_format_7zip, libarchive.archive_read_support_format_ar,
        libarchive.archive_read_support_format_cab,  libarchive.archive_read_support_format_cpio,
        libarchive.archive_read_support_format_iso9660, libarchive.archive_read_support_format_lha,
        libarchive.archive_read_support_format_rar,  libarchive.archive_read_support_format_rar5,
        libarchive.archive_read_support_format_tar,  libarchive.archive_read_support_format_warc,
        libarchive.archive_read_support_format_xar,  libarchive.archive_read_support_format_zip,
    };
    for (size_t index = 0; index < sizeof formats / sizeof *formats; index++) formats[index](archive);
    if (libarchive.archive_read_open_memory(archive, bytes, count) != ARCHIVE_OK) {
        const char *reason = libarchive.archive_error_string(archive);
        snprintf(open_error, sizeof open_error, "%s", reason ? reason : "no reason given");
        libarchive.archive_read_free(archive);
        *error = open_error;
        // libarchive's words when no format bid for the bytes.
        return strstr(open_error, "Unrecognized archive format") ? sdlab_archive_not_archive
                                                                  : sdlab_archive_unreadable;
    }
    *opened = malloc(sizeof **opened);
    if (*opened == NULL) {
        libarchive.archive_read_free(archive);
        *error = "no memory for the archive";
        return sdlab_archive_unreadable;
    }
    (*opened)->archive = archive;
    return sdlab_archive_opened;
}

int sdlab_archive_next(sdlab_archive *opened, sdlab_archive_entry *entry) {
    struct archive_entry *header;
    int result = libarchive.archive_read_next_header(opened->archive, &header);
    if (result == ARCHIVE_EOF) return 0;
    if (result < ARCHIVE_WARN) return -1;
    const char *name = libarchive.archive_entry_pathname(header);
    entry->name = name ? name : libarchive.archive_entry_pathname_utf8(header);
    const char *symlink = libarchive.archive_entry_symlink(header);
    entry->link = symlink ? symlink : libarchive.archive_entry_hardlink(header);
    entry->encrypted = libarchive.archive_entry_is_encrypted(header) != 0;
    return 1;
}

int sdlab_archive_block(sdlab_archive *opened, const uint8_t **bytes, size_t *count) {
    const void *block = NULL;
    size_t size = 0;
    la_int64_t offset = 0;
    int result = libarchive.archive_read_data_block(opened->archive, &block, &size, &offset);
    *bytes = block;
    *count = block ? size : 0;
    if (result == ARCHIVE_EOF) return 0;
    return result == ARCHIVE_OK ? 1 : -1;
}

const char *sdlab_archive_error(sdlab_archive *opened) {
    const char *reason = libarchive.archive_error_string(opened->archive);
    return reason ? reason : "no reason given";
}

const char *sdlab_archive_format(sdlab_archive *opened) {
    switch (libarchive.archive_format(opened->archive) & ARCHIVE_FORMAT_BASE_MASK) {
    case ARCHIVE_FORMAT_CPIO: return "cpio";
    case ARCHIVE_FORMAT_TAR: return "tar";
    case ARCHIVE_FORMAT_ISO9660: return "iso9660";
    case ARCHIVE_FORMAT_ZIP: return "zip";
    case ARCHIVE_FORMAT_AR: return "ar";
    case ARCHIVE_FORMAT_XAR: return "xar";
    case ARCHIVE_FORMAT_LHA: return "lha";
    case ARCHIVE_FORMAT_CAB: return "cab";
    case ARCHIVE_FORMAT_RAR: return "rar";
    case ARCHIVE_FORMAT_RAR_V5: return "rar5";
    case ARCHIVE_FORMAT_7ZIP: return "7z";
    case ARCHIVE_FORMAT_WARC: return "warc";
    default: return "archive";
    }
}

void sdlab_archive_close(sdlab_archive *opened) {
    libarchive.archive_read_free(opened->archive);
    free(opened);
}
