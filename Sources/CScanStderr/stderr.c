// The C library's `stderr`, replaced by a cookie stream that hands each message to a sink (issue 15: one
// photo made libzbar print an assertion warning with a tab in it, outside scand's log format).
#define _GNU_SOURCE
#include "CScanStderr.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// All of these are touched only with the replacement stream's lock held (the cookie's write function runs
// under it, and scan_stderr_set_sink takes it), except `installed`, which is written once before any thread
// that prints can see the new stream.
static FILE *installed;
static scan_stderr_sink current_sink;
static void *current_context;
static char pending[4096];
static size_t pending_length;

/// Writes all of `bytes` to descriptor 2; an error is dropped (logging must never stop the program).
static void write_through(const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = write(2, bytes, length);
        if (n > 0) {
            bytes += n;
            length -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            return;
        }
    }
}

/// Hands what is pending to the sink (or descriptor 2), without its one final newline.
static void emit_pending(void) {
    if (pending_length == 0) return;
    size_t length = pending_length;
    pending_length = 0;
    if (current_sink == NULL) {
        write_through(pending, length);
        return;
    }
    if (pending[length - 1] == '\n') length -= 1;
    current_sink(current_context, pending, length);
}

static ssize_t cookie_write(void *cookie, const char *bytes, size_t size) {
    (void)cookie;
    if (current_sink == NULL) {
        write_through(bytes, size);
        return (ssize_t)size;
    }
    size_t used = 0;
    while (used < size) {
        size_t take = sizeof pending - pending_length;
        if (take > size - used) take = size - used;
        memcpy(pending + pending_length, bytes + used, take);
        pending_length += take;
        used += take;
        if (pending_length == sizeof pending) emit_pending();
    }
    if (pending_length > 0 && pending[pending_length - 1] == '\n') emit_pending();
    return (ssize_t)size;
}

int scan_stderr_install(void) {
    if (installed != NULL) return 0;
    cookie_io_functions_t functions = {.read = NULL, .write = cookie_write, .seek = NULL, .close = NULL};
    FILE *stream = fopencookie(NULL, "w", functions);
    if (stream == NULL) return -1;
    // Unbuffered, as stderr is: one fprintf reaches cookie_write as one write (glibc formats it into a
    // temporary buffer first), and nothing waits in a stdio buffer when the program ends.
    if (setvbuf(stream, NULL, _IONBF, 0) != 0) {
        fclose(stream);
        return -1;
    }
    fflush(stderr);
    installed = stream;
    stderr = stream;
    scan_stderr_route_cxx_streams();
    return 0;
}

void scan_stderr_set_sink(scan_stderr_sink sink, void *context) {
    if (installed == NULL) return;
    flockfile(installed);
    emit_pending();
    current_sink = sink;
    current_context = context;
    funlockfile(installed);
}

FILE *scan_stderr_current(void) { return stderr; }
