#include "format_libraries.h"
#include "loading.h"

#include <pthread.h>
#include <string.h>
#include <strings.h>

/// GMime's and GObject's types, opaque: the shim is compiled without their headers (which need
/// GLib's include paths) and calls only through the pointers below.
typedef struct GMimeObject GMimeObject;
typedef struct GMimeStream GMimeStream;
typedef struct GMimeParser GMimeParser;
typedef struct GMimeHeaderList GMimeHeaderList;
typedef struct GMimeHeader GMimeHeader;
typedef struct GMimeDataWrapper GMimeDataWrapper;
typedef struct GMimeContentType GMimeContentType;
typedef struct GMimeFilter GMimeFilter;
typedef size_t GType;
/// GLib's GByteArray, whose two fields GMime's memory stream hands back.
typedef struct {
    uint8_t *data;
    unsigned int len;
} GByteArray;

/// Every function the reader calls, with its C signature; GObject's type checks included, which
/// the GMIME_IS_* macros expand to.
#define GMIME_FUNCTIONS(F)                                                                                \
    F(void, g_mime_init, (void))                                                                          \
    F(GMimeStream *, g_mime_stream_mem_new, (void))                                                       \
    F(GMimeStream *, g_mime_stream_mem_new_with_buffer, (const char *, size_t))                           \
    F(GByteArray *, g_mime_stream_mem_get_byte_array, (GMimeStream *))                                    \
    F(GMimeStream *, g_mime_stream_filter_new, (GMimeStream *))                                           \
    F(int, g_mime_stream_filter_add, (GMimeStream *, GMimeFilter *))                                      \
    F(int, g_mime_stream_flush, (GMimeStream *))                                                          \
    F(GMimeFilter *, g_mime_filter_charset_new, (const char *, const char *))                             \
    F(GMimeParser *, g_mime_parser_new_with_stream, (GMimeStream *))                                      \
    F(GMimeObject *, g_mime_parser_construct_message, (GMimeParser *, void *))                            \
    F(GMimeHeaderList *, g_mime_object_get_header_list, (GMimeObject *))                                  \
    F(int, g_mime_header_list_get_count, (GMimeHeaderList *))                                             \
    F(GMimeHeader *, g_mime_header_list_get_header_at, (GMimeHeaderList *, int))                          \
    F(const char *, g_mime_header_get_name, (GMimeHeader *))                                              \
    F(const char *, g_mime_header_get_value, (GMimeHeader *))                                             \
    F(GMimeContentType *, g_mime_object_get_content_type, (GMimeObject *))                                \
    F(char *, g_mime_content_type_get_mime_type, (GMimeContentType *))                                    \
    F(const char *, g_mime_object_get_content_type_parameter, (GMimeObject *, const char *))              \
    F(GMimeObject *, g_mime_message_get_mime_part, (GMimeObject *))                                       \
    F(GMimeObject *, g_mime_message_part_get_message, (GMimeObject *))                                    \
    F(int, g_mime_multipart_get_count, (GMimeObject *))                                                   \
    F(GMimeObject *, g_mime_multipart_get_part, (GMimeObject *, int))                                     \
    F(GMimeDataWrapper *, g_mime_part_get_content, (GMimeObject *))                                       \
    F(const char *, g_mime_part_get_filename, (GMimeObject *))                                            \
    F(ssize_t, g_mime_data_wrapper_write_to_stream, (GMimeDataWrapper *, GMimeStream *))                  \
    F(GType, g_mime_message_get_type, (void))                                                             \
    F(GType, g_mime_message_part_get_type, (void))                                                        \
    F(GType, g_mime_multipart_get_type, (void))                                                           \
    F(GType, g_mime_multipart_encrypted_get_type, (void))                                                 \
    F(GType, g_mime_part_get_type, (void))                                                                \
    F(GType, g_mime_application_pkcs7_mime_get_type, (void))                                              \
    F(int, g_type_check_instance_is_a, (void *, GType))                                                   \
    F(void, g_object_unref, (void *))                                                                     \
    F(void, g_free, (void *))

#define GMIME_FIELD(result, name, parameters) result(*name) parameters;
static struct {
    GMIME_FUNCTIONS(GMIME_FIELD)
} gmime;

static const char gmime_file[] = "libgmime-3.0.so.0";
static pthread_once_t gmime_once = PTHREAD_ONCE_INIT;
static char gmime_error_text[512];
static const char *gmime_error;

static void load_gmime(void) {
    void *handle = sdlab_open_library(gmime_file, gmime_error_text, sizeof gmime_error_text);
    if (handle == NULL) {
        gmime_error = gmime_error_text;
        return;
    }
#define GMIME_RESOLVE(result, name, parameters)                                                                   \
    if ((*(void **)&gmime.name = sdlab_find_function(handle, gmime_file, #name, gmime_error_text,               \
                                                      sizeof gmime_error_text)) == NULL) {                       \
        gmime_error = gmime_error_text;                                                                           \
        return;                                                                                                   \
    }
    GMIME_FUNCTIONS(GMIME_RESOLVE)
    gmime.g_mime_init();
}

/// How far nested parts are followed: deeper ones are named, not read.
enum { deepest = 64 };

/// One walk over a message.
typedef struct {
    sdlab_mime_sink sink;
    void *context;
    int parts;
} walk;

static bool is(GMimeObject *object, GType (*type)(void)) {
    return gmime.g_type_check_instance_is_a(object, type());
}

static bool deliver(walk *walk, sdlab_mime_item item) { return walk->sink(walk->context, &item); }

static bool deliver_headers(walk *walk, GMimeObject *object, int part) {
    GMimeHeaderList *headers = gmime.g_mime_object_get_header_list(object);
    int count = headers ? gmime.g_mime_header_list_get_count(headers) : 0;
    for (int index = 0; index < count; index++) {
        GMimeHeader *header = gmime.g_mime_header_list_get_header_at(headers, index);
        const char *value = gmime.g_mime_header_get_value(header);
        if (value == NULL) continue;
        sdlab_mime_item item = {
            .kind = sdlab_mime_header,
            .part = part,
            .name = gmime.g_mime_header_get_name(header),
            .bytes = (const uint8_t *)value,
            .count = strlen(value),
        };
        if (!deliver(walk, item)) return false;
    }
    return true;
}

/// Charsets whose bytes are already what UTF-8 text is searched as: not converted, so that no
/// byte is dropped as invalid.
static bool is_utf8_already(const char *charset) {
    static const char *const names[] = {"utf-8", "utf8", "us-ascii", "ascii"};
    for (size_t index = 0; index < sizeof names / sizeof *names; index++) {
        if (strcasecmp(charset, names[index]) == 0) return true;
    }
    return false;
}

/// A leaf part's content, decoded from its transfer encoding and converted from its charset.
static bool deliver_content(walk *walk, GMimeObject *part, int number, const char *type) {
    GMimeDataWrapper *content = gmime.g_mime_part_get_content(part);
    if (content == NULL) return true;
    const char *charset = gmime.g_mime_object_get_content_type_parameter(part, "charset");
    sdlab_mime_kind kind = sdlab_mime_content;
    GMimeStream *memory = gmime.g_mime_stream_mem_new();
    GMimeStream *target = memory;
    if (charset != NULL && !is_utf8_already(charset)) {
        GMimeFilter *filter = gmime.g_mime_filter_charset_new(charset, "UTF-8");
        if (filter == NULL) {
            kind = sdlab_mime_unconverted;
        } else {
            target = gmime.g_mime_stream_filter_new(memory);
            gmime.g_mime_stream_filter_add(target, filter);
            gmime.g_object_unref(filter);
        }
    }
    gmime.g_mime_data_wrapper_write_to_stream(content, target);
    if (target != memory) {
        gmime.g_mime_stream_flush(target);
        gmime.g_object_unref(target);
    }
    GByteArray *bytes = gmime.g_mime_stream_mem_get_byte_array(memory);
    sdlab_mime_item item = {
        .kind = kind,
        .part = number,
        .type = type,
        .charset = charset,
        .bytes = bytes ? bytes->data : NULL,
        .count = bytes ? bytes->len : 0,
    };
    bool more = deliver(walk, item);
    gmime.g_object_unref(memory);
    return more;
}

static bool is_encrypted(GMimeObject *object) {
    if (is(object, gmime.g_mime_multipart_encrypted_get_type)) return true;
    if (!is(object, gmime.g_mime_application_pkcs7_mime_get_type)) return false;
    // Signed data holds its content as it is; every other S/MIME type is enveloped.
    const char *kind = gmime.g_mime_object_get_content_type_parameter(object, "smime-type");
    return kind == NULL || strcasecmp(kind, "signed-data") != 0;
}

static bool walk_object(walk *walk, GMimeObject *object, int depth);

static bool walk_part(walk *walk, GMimeObject *part, int number, const char *type, int depth) {
    if (is_encrypted(part)) {
        return deliver(walk, (sdlab_mime_item){.kind = sdlab_mime_encrypted, .part = number, .type = type});
    }
    if (is(part, gmime.g_mime_multipart_get_type)) {
        int count = gmime.g_mime_multipart_get_count(part);
        for (int index = 0; index < count; index++) {
            if (!walk_object(walk, gmime.g_mime_multipart_get_part(part, index), depth + 1)) return false;
        }
        return true;
    }
    if (is(part, gmime.g_mime_message_part_get_type)) {
        GMimeObject *message = gmime.g_mime_message_part_get_message(part);
        return message == NULL || walk_object(walk, message, depth + 1);
    }
    if (!is(part, gmime.g_mime_part_get_type)) return true;
    const char *filename = gmime.g_mime_part_get_filename(part);
    if (filename != NULL) {
        sdlab_mime_item item = {
            .kind = sdlab_mime_filename,
            .part = number,
            .type = type,
            .charset = gmime.g_mime_object_get_content_type_parameter(part, "charset"),
            .bytes = (const uint8_t *)filename,
            .count = strlen(filename),
        };
        if (!deliver(walk, item)) return false;
    }
    return deliver_content(walk, part, number, type);
}

/// A message or a part: its headers, then what it holds.
static bool walk_object(walk *walk, GMimeObject *object, int depth) {
    if (object == NULL) return true;
    bool message = is(object, gmime.g_mime_message_get_type);
    // A message's headers are under the number of the part that holds it (0 at the top).
    int number = message ? (depth == 0 ? 0 : walk->parts) : ++walk->parts;
    if (depth > deepest) return deliver(walk, (sdlab_mime_item){.kind = sdlab_mime_too_deep, .part = number});
    if (!deliver_headers(walk, object, number)) return false;
    if (message) return walk_object(walk, gmime.g_mime_message_get_mime_part(object), depth + 1);
    GMimeContentType *content_type = gmime.g_mime_object_get_content_type(object);
    char *type = content_type ? gmime.g_mime_content_type_get_mime_type(content_type) : NULL;
    bool more = walk_part(walk, object, number, type, depth);
    gmime.g_free(type);
    return more;
}

int sdlab_mime_read(const uint8_t *bytes, size_t count, sdlab_mime_sink sink, void *context, const char **error) {
    pthread_once(&gmime_once, load_gmime);
    if (gmime_error != NULL) {
        *error = gmime_error;
        return -1;
    }
    GMimeStream *stream = gmime.g_mime_stream_mem_new_with_buffer((const char *)bytes, count);
    GMimeParser *parser = gmime.g_mime_parser_new_with_stream(stream);
    GMimeObject *message = gmime.g_mime_parser_construct_message(parser, NULL);
    gmime.g_object_unref(parser);
    gmime.g_object_unref(stream);
    if (message == NULL) {
        *error = "GMime read no message in it";
        return -1;
    }
    walk walk = {.sink = sink, .context = context};
    walk_object(&walk, message, 0);
    gmime.g_object_unref(message);
    return 0;
}
