#ifndef CSCANOPENCV_H
#define CSCANOPENCV_H
/*
 * scand's C API over OpenCV (and libpng/libjpeg). Rules:
 *  - every entry point catches C++ exceptions and returns a status; none escapes;
 *  - handles are opaque and owned by exactly one caller, who frees them;
 *  - result buffers are caller-owned; error messages go into a caller buffer (always NUL-terminated).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum scv_status {
    SCV_OK = 0,
    SCV_ERR_ARGUMENT = 1,   /* bad argument (size, pointer) */
    SCV_ERR_DECODE = 2,     /* input is not a decodable picture, or is truncated/corrupt */
    SCV_ERR_UNSUPPORTED = 3,/* format not handled by this decoder */
    SCV_ERR_IO = 4,         /* file could not be opened or read */
    SCV_ERR_OPENCV = 5,     /* OpenCV raised an exception */
    SCV_ERR_NO_PLUGIN = 6,  /* the OpenCV codecs plugin could not be loaded */
    SCV_ERR_END = 7,        /* end of stream */
    SCV_ERR_MEMORY = 8
} scv_status;

/** A decoded 8-bit grey image, owned by the caller: free with scv_gray_free. */
typedef struct scv_gray {
    int width;
    int height;
    uint8_t *data; /* width*height bytes, rows packed */
} scv_gray;

void scv_gray_free(scv_gray *image);

/** Identifies the container from its first bytes: 1 PNG, 2 JPEG, 0 other. */
int scv_sniff_format(const uint8_t *bytes, size_t length);

/** Decodes a PNG or JPEG held in memory to luma (BT.601). Truncated or corrupt data is an error. */
scv_status scv_decode_png_jpeg(const uint8_t *bytes, size_t length, scv_gray *out, char *message, size_t message_capacity);

/* ---- OpenCV imgcodecs/videoio through the lazily loaded plugin (libscand-opencv-codecs.so) ---- */

/** Loads the plugin from `directory` (or the default search path when NULL). Idempotent. */
scv_status scv_plugin_load(const char *directory, char *message, size_t message_capacity);

/** Decodes any image OpenCV's imgcodecs reads, to luma. */
scv_status scv_plugin_decode_image(const uint8_t *bytes, size_t length, scv_gray *out, char *message, size_t message_capacity);

typedef struct scv_video scv_video;
/** Opens a video file with OpenCV's videoio. `fps` receives the nominal rate (0 if unknown). */
scv_status scv_plugin_video_open(const char *path, scv_video **out, double *fps, char *message, size_t message_capacity);
/** Reads the next frame as luma. SCV_ERR_END at the end of the stream. `time` gets the position in seconds. */
scv_status scv_plugin_video_read(scv_video *video, scv_gray *out, double *time, char *message, size_t message_capacity);
void scv_plugin_video_close(scv_video *video);

/* ---- image processing on caller buffers ---- */

/** Resizes src (w×h, stride) into dst (dw×dh, packed). interpolation: 0 area, 1 linear, 2 nearest, 3 cubic. */
scv_status scv_resize(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int dst_width, int dst_height, int interpolation);
/** Adaptive mean threshold into dst (packed). block must be odd >= 3. */
scv_status scv_adaptive_threshold(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int block, double c);
/** Gaussian blur into dst (packed). ksize odd. */
scv_status scv_gaussian_blur(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int ksize, double sigma);
/** Histogram equalisation into dst (packed). */
scv_status scv_equalize(const uint8_t *src, int width, int height, int stride, uint8_t *dst);

#ifdef __cplusplus
}
#endif
#endif
