#ifndef CSCANSTDERR_H
#define CSCANSTDERR_H
#include <stddef.h>
#include <stdio.h>

/// Receives one message a C library printed on `stderr`: `length` bytes at `bytes` (not NUL-terminated, any
/// bytes, the final newline removed). Called on the printing thread, with the stream's lock held, so calls
/// never overlap; it must not print on `stderr` itself.
typedef void (*scan_stderr_sink)(void *context, const char *bytes, size_t length);

/// Puts a stream of scand's own in place of the C library's `stderr` (glibc lets a program assign it), so
/// that what C libraries print there (libzbar's decoder assertions, or any other) can be turned into
/// scand's log lines. Until a sink is set, and after it is cleared, bytes go through to descriptor 2 at once,
/// as before: usage messages printed through `stderr` keep their form. Only the first call installs;
/// returns 0, or -1 if the stream could not be made (then `stderr` is left as it was).
int scan_stderr_install(void);

/// Sets where whole messages go (NULL: straight to descriptor 2). A message is what one write to the stream
/// holds up to its last newline: one `fprintf` on an unbuffered stream is one write, so a library's
/// multi-line message stays one message. A message without a newline is held until one comes, until it fills
/// 4 KiB, or until the sink changes (it then goes to the old sink). Thread-safe.
void scan_stderr_set_sink(scan_stderr_sink sink, void *context);

/// Sends C++'s std::cout, std::cerr and std::clog through the C library's `stderr` (what it names at each
/// write), so what C++ libraries print there reaches the same sink: OpenCV's logger writes warnings to
/// std::cerr and, with OPENCV_LOG_LEVEL=INFO, INFO lines to std::cout, which would otherwise land in scand's
/// JSON on stdout. scan_stderr_install calls it. Call it before any thread prints through those streams.
void scan_stderr_route_cxx_streams(void);

/// The stream the C global `stderr` names now (Swift 6 cannot read that mutable C global directly).
FILE *scan_stderr_current(void);

#endif
