#ifndef CSCANIMAGEIO_H
#define CSCANIMAGEIO_H
/*
 * scand's C API for reading pictures: still images (libpng, libjpeg-turbo, giflib, and OpenCV's imgcodecs
 * through the lazily loaded plugin) and video files (OpenCV's videoio through the same plugin). Imported by
 * ScanCapture only. Rules:
 *  - every entry point catches C++ exceptions and returns a status; none escapes;
 *  - handles are opaque and owned by exactly one caller, who frees them;
 *  - result buffers are caller-owned; error messages go into a caller buffer (always NUL-terminated).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The default pixel budget: mirrors ScanCore's DecoderLimits.defaultMaxPixels. */
#define SIO_DEFAULT_MAX_PIXELS 40000000ULL

typedef enum sio_status {
    SIO_OK = 0,
    SIO_ERR_ARGUMENT = 1,   /* bad argument (size, pointer) */
    SIO_ERR_DECODE = 2,     /* input is not a decodable picture, or is truncated/corrupt */
    SIO_ERR_UNSUPPORTED = 3,/* format not handled by this decoder */
    SIO_ERR_IO = 4,         /* file could not be opened or read */
    SIO_ERR_OPENCV = 5,     /* OpenCV raised an exception */
    SIO_ERR_NO_PLUGIN = 6,  /* the OpenCV codecs plugin could not be loaded */
    SIO_ERR_END = 7,        /* end of stream */
    SIO_ERR_MEMORY = 8,
    SIO_ERR_LIMIT = 9       /* the declared size is over the caller's pixel budget */
} sio_status;

/** Identifies the container from its first bytes: 1 PNG, 2 JPEG, 0 other. */
int sio_sniff_format(const uint8_t *bytes, size_t length);

/*
 * Still images, in two steps so the pixels are written once, straight into the caller's buffer:
 *   sio_image_open      reads the header (PNG/JPEG) and checks width*height against `max_pixels` before
 *                       anything of the image's size is allocated; other formats are decoded by OpenCV's
 *                       imgcodecs in the plugin, whose own size check is set to the same budget;
 *   sio_image_read_gray decodes to 8-bit luma (BT.601; alpha composited over white) into `dst`
 *                       (width*height bytes, rows packed), which the caller owns;
 *   sio_image_close     frees the decoder (NULL is allowed).
 * `bytes` must stay valid and unchanged from open until close. A size over the budget is SIO_ERR_LIMIT
 * with a message naming the size and the budget, except for a JPEG, which is decoded at the largest of
 * libjpeg's reduced sizes (7/8, 6/8, … 1/8 of each side) that fits the budget: `width` and `height` are
 * then that size, and sio_image_source_size gives the file's own.
 */
typedef struct sio_image sio_image;
sio_status sio_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, sio_image **out,
                          int *width, int *height, char *message, size_t message_capacity);
/** The size the file declares, in pixels; it differs from sio_image_open's only for a reduced JPEG. */
void sio_image_source_size(const sio_image *image, int *width, int *height);
sio_status sio_image_read_gray(sio_image *image, uint8_t *dst, size_t capacity, char *message, size_t message_capacity);
void sio_image_close(sio_image *image);

/* ---- OpenCV imgcodecs/videoio through the lazily loaded plugin (libscand-opencv-codecs.so) ---- */

/** Sets what OpenCV reads once, when the plugin's libraries load: its image size cap
 *  (OPENCV_IO_MAX_IMAGE_PIXELS = `max_pixels`) and FFmpeg's log level (OPENCV_FFMPEG_LOGLEVEL = -8, quiet),
 *  each unless the environment already sets it. It calls setenv, so call it at startup before other threads
 *  run; without it, the first plugin load does the same with the larger of that caller's budget and
 *  SIO_DEFAULT_MAX_PIXELS. Idempotent. */
void sio_plugin_prepare(uint64_t max_pixels);

/** Loads the plugin from `directory` (or the default search path when NULL). Idempotent. Before the first
 *  load it does what sio_plugin_prepare does, if that was not called. */
sio_status sio_plugin_load(const char *directory, uint64_t max_pixels, char *message, size_t message_capacity);

typedef struct sio_video sio_video;
/** Opens a video file with OpenCV's videoio. `fps` receives the nominal rate (0 if unknown). A stream whose
 *  declared frame size is over `max_pixels` is refused (SIO_ERR_LIMIT). */
sio_status sio_plugin_video_open(const char *path, uint64_t max_pixels, sio_video **out, double *fps,
                                 char *message, size_t message_capacity);
/** Opens a network stream (rtsp://, http://, https://) with OpenCV's videoio and FFmpeg: connecting may take
 *  `open_timeout_ms`, each later read `read_timeout_ms` (then SIO_ERR_END: the stream dropped or stalled). */
sio_status sio_plugin_stream_open(const char *url, uint64_t max_pixels, int open_timeout_ms, int read_timeout_ms,
                                  sio_video **out, double *fps, char *message, size_t message_capacity);
/** Decodes the next frame and gives its size (pixels) and position (`time`, seconds). SIO_ERR_END at a real
 *  end of the stream; SIO_ERR_DECODE ("truncated or corrupt: decoding stopped at frame N of M") when decoding
 *  stops well before the frame count the container declares. A frame over `max_pixels` is SIO_ERR_LIMIT. */
sio_status sio_plugin_video_read(sio_video *video, int *width, int *height, double *time, char *message, size_t message_capacity);
/** Writes the frame last read as luma into `dst` (width*height bytes, packed), owned by the caller. */
sio_status sio_plugin_video_gray(sio_video *video, uint8_t *dst, size_t capacity, char *message, size_t message_capacity);
void sio_plugin_video_close(sio_video *video);

#ifdef __cplusplus
}
#endif
#endif
