#ifndef CSCANJPEG_H
#define CSCANJPEG_H
#include <stddef.h>
#include <stdint.h>

/// Encodes `height` rows of `width` pixels (`components` bytes each: 1 = grey, 3 = RGB), rows `stride`
/// bytes apart, as a baseline JPEG of `quality` (1...100; fast integer DCT, 4:2:0 for RGB). On success
/// returns 0 and sets `*out` to a buffer of `*out_size` bytes that the caller frees with `scan_jpeg_free`.
/// On failure returns -1, sets `*out` to NULL and writes a message into `message` (`cap` bytes). Never
/// calls exit(); libjpeg errors are caught here. The only JPEG encoder of scand (ScanCapture's
/// `JPEGEncoder` is its one Swift caller).
int scan_jpeg_encode(const uint8_t *pixels, int width, int height, int stride, int components, int quality,
                     uint8_t **out, size_t *out_size, char *message, size_t cap);

/// Frees a buffer returned by `scan_jpeg_encode`.
void scan_jpeg_free(uint8_t *buffer);

#endif
