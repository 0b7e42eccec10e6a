#ifndef SDLAB_FORMAT_LIBRARIES_H
#define SDLAB_FORMAT_LIBRARIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// The libraries the leak scanner reads mail and archives with, GMime 3 and libarchive, loaded
/// with dlopen on first use and never linked: linked, they would cost every app process about
/// 10 ms at start, and only the scanner reads with them. Every call below is safe from any
/// thread; the first one loads its library.

// MARK: MIME (GMime 3)

/// What one item of a message is.
typedef enum {
    /// A header's value, RFC 2047 words decoded: `name` is the header's name.
    sdlab_mime_header,
    /// An attachment's file name: `part` names the part.
    sdlab_mime_filename,
    /// A leaf part's content, its transfer encoding undone and, when `charset` is set, converted
    /// from it to UTF-8.
    sdlab_mime_content,
    /// A text part's content in a charset that cannot be converted (`charset`), its transfer
    /// encoding undone only.
    sdlab_mime_unconverted,
    /// An encrypted part (multipart/encrypted, application/pkcs7-mime): no bytes.
    sdlab_mime_encrypted,
    /// Parts nested deeper than the reader follows: no bytes.
    sdlab_mime_too_deep,
} sdlab_mime_kind;

typedef struct {
    sdlab_mime_kind kind;
    /// The part's number, counted from 1 in the order the message holds them (parts that hold
    /// others count too). A message's headers carry the number of the message/rfc822 part that
    /// holds it, 0 at the top.
    int part;
    /// The header's name, for a header.
    const char *name;
    /// The part's MIME type (`text/plain`) and charset, when it names one; or NULL.
    const char *type;
    const char *charset;
    const uint8_t *bytes;
    size_t count;
} sdlab_mime_item;

/// Takes one item; returns false to stop the reading (the caller has what it can hold).
typedef bool (*sdlab_mime_sink)(void *context, const sdlab_mime_item *item);

/// Reads `bytes` as a message and hands every item to `sink`. Returns 0; -1 when GMime could not
/// be loaded or did not read a message, with `error` saying why (a static string or dlerror's).
int sdlab_mime_read(const uint8_t *bytes, size_t count, sdlab_mime_sink sink, void *context, const char **error);

// MARK: Archives (libarchive)

typedef struct sdlab_archive sdlab_archive;

/// What `sdlab_archive_open` made of the bytes.
typedef enum {
    sdlab_archive_opened,
    /// Not an archive libarchive reads (or one of its raw and empty formats).
    sdlab_archive_not_archive,
    /// libarchive could not be loaded (`error`).
    sdlab_archive_unavailable,
    /// An archive of a format libarchive reads, whose start it could not read (`error`).
    sdlab_archive_unreadable,
} sdlab_archive_status;

/// Opens `bytes` (not copied: they must outlive the archive) as an archive of a format that has
/// entries: tar, zip, 7z, cpio, ar, ISO 9660, RAR, CAB, LHA, XAR, WARC; no filters (compressed
/// streams are decoded before) and no mtree, whose entries name files outside the bytes. On
/// `sdlab_archive_opened`, `*archive` is to be closed; otherwise `*error` says why, and stays
/// valid until the next call on this thread.
sdlab_archive_status sdlab_archive_open(const uint8_t *bytes, size_t count, sdlab_archive **archive,
                                        const char **error);

typedef struct {
    /// The entry's path and link target (symbolic or hard), as the archive holds them; NULL when
    /// it has none.
    const char *name;
    const char *link;
    bool encrypted;
} sdlab_archive_entry;

/// The next entry: 1 with `entry` filled, 0 at the end, -1 when the archive cannot be read on
/// (`sdlab_archive_error`). The entry's strings are valid until the next call.
int sdlab_archive_next(sdlab_archive *archive, sdlab_archive_entry *entry);

/// The current entry's next block of data, as libarchive holds it (valid until the next call;
/// the holes of a sparse file left out): 1 with a block, 0 at the entry's end, -1 when it cannot
/// be read on (`sdlab_archive_error`), with what was read before the error (a bad checksum is
/// found after the data).
int sdlab_archive_block(sdlab_archive *archive, const uint8_t **bytes, size_t *count);

/// libarchive's last error on `archive`.
const char *sdlab_archive_error(sdlab_archive *archive);

/// The archive's format, short (`tar`, `zip`, `7z`, `cpio`…), as of the latest entry.
const char *sdlab_archive_format(sdlab_archive *archive);

void sdlab_archive_close(sdlab_archive *archive);

#endif
