#ifndef CSCANOPENCVCODECS_H
#define CSCANOPENCVCODECS_H
/* The dlopen'ed plugin: OpenCV imgcodecs and videoio. Loaded by CScanImageIO's plugin.cpp; not linked
 * into scand. Output buffers are the caller's. Status values are sio_status. */
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Images: decode into a handle (OpenCV's size cap, OPENCV_IO_MAX_IMAGE_PIXELS, refuses huge headers before
 * allocation), then convert to luma straight into the caller's buffer, then free. */
int scvc_image_decode(const uint8_t *bytes, size_t length, uint64_t max_pixels, void **image, int *width, int *height, char *message, size_t cap);
int scvc_image_gray(void *image, uint8_t *dst, size_t capacity, char *message, size_t cap);
void scvc_image_free(void *image);
/* Video: open (stream size checked against max_pixels), read a frame into the handle, convert it into the
 * caller's buffer. Status values are sio_status. */
int scvc_video_open(const char *path, uint64_t max_pixels, void **video, double *fps, char *message, size_t cap);
/// A network stream (rtsp://, http://, https://): FFmpeg's open and read timeouts in milliseconds.
int scvc_stream_open(const char *url, uint64_t max_pixels, int open_timeout_ms, int read_timeout_ms, void **video,
                     double *fps, char *message, size_t cap);
int scvc_video_read(void *video, int *width, int *height, double *time, char *message, size_t cap);
int scvc_video_gray(void *video, uint8_t *dst, size_t capacity, char *message, size_t cap);
void scvc_video_close(void *video);
#ifdef __cplusplus
}
#endif
#endif
