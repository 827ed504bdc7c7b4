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

/** The default pixel budget: mirrors ScanCore's DecoderLimits.defaultMaxPixels. */
#define SCV_DEFAULT_MAX_PIXELS 40000000ULL

typedef enum scv_status {
    SCV_OK = 0,
    SCV_ERR_ARGUMENT = 1,   /* bad argument (size, pointer) */
    SCV_ERR_DECODE = 2,     /* input is not a decodable picture, or is truncated/corrupt */
    SCV_ERR_UNSUPPORTED = 3,/* format not handled by this decoder */
    SCV_ERR_IO = 4,         /* file could not be opened or read */
    SCV_ERR_OPENCV = 5,     /* OpenCV raised an exception */
    SCV_ERR_NO_PLUGIN = 6,  /* the OpenCV codecs plugin could not be loaded */
    SCV_ERR_END = 7,        /* end of stream */
    SCV_ERR_MEMORY = 8,
    SCV_ERR_LIMIT = 9       /* the declared size is over the caller's pixel budget */
} scv_status;

/** Identifies the container from its first bytes: 1 PNG, 2 JPEG, 0 other. */
int scv_sniff_format(const uint8_t *bytes, size_t length);

/*
 * Still images, in two steps so the pixels are written once, straight into the caller's buffer:
 *   scv_image_open      reads the header (PNG/JPEG) and checks width*height against `max_pixels` before
 *                       anything of the image's size is allocated; other formats are decoded by OpenCV's
 *                       imgcodecs in the plugin, whose own size check is set to the same budget;
 *   scv_image_read_gray decodes to 8-bit luma (BT.601; alpha composited over white) into `dst`
 *                       (width*height bytes, rows packed), which the caller owns;
 *   scv_image_close     frees the decoder (NULL is allowed).
 * `bytes` must stay valid and unchanged from open until close. A size over the budget is SCV_ERR_LIMIT
 * with a message naming the size and the budget, except for a JPEG, which is decoded at the largest of
 * libjpeg's reduced sizes (7/8, 6/8, … 1/8 of each side) that fits the budget: `width` and `height` are
 * then that size, and scv_image_source_size gives the file's own.
 */
typedef struct scv_image scv_image;
scv_status scv_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, scv_image **out,
                          int *width, int *height, char *message, size_t message_capacity);
/** The size the file declares, in pixels; it differs from scv_image_open's only for a reduced JPEG. */
void scv_image_source_size(const scv_image *image, int *width, int *height);
scv_status scv_image_read_gray(scv_image *image, uint8_t *dst, size_t capacity, char *message, size_t message_capacity);
void scv_image_close(scv_image *image);

/* ---- OpenCV imgcodecs/videoio through the lazily loaded plugin (libscand-opencv-codecs.so) ---- */

/** Sets what OpenCV reads once, when the plugin's libraries load: its image size cap
 *  (OPENCV_IO_MAX_IMAGE_PIXELS = `max_pixels`) and FFmpeg's log level (OPENCV_FFMPEG_LOGLEVEL = -8, quiet),
 *  each unless the environment already sets it. It calls setenv, so call it at startup before other threads
 *  run; without it, the first plugin load does the same with the larger of that caller's budget and
 *  SCV_DEFAULT_MAX_PIXELS. Idempotent. */
void scv_plugin_prepare(uint64_t max_pixels);

/** Loads the plugin from `directory` (or the default search path when NULL). Idempotent. Before the first
 *  load it does what scv_plugin_prepare does, if that was not called. */
scv_status scv_plugin_load(const char *directory, uint64_t max_pixels, char *message, size_t message_capacity);

typedef struct scv_video scv_video;
/** Opens a video file with OpenCV's videoio. `fps` receives the nominal rate (0 if unknown). A stream whose
 *  declared frame size is over `max_pixels` is refused (SCV_ERR_LIMIT). */
scv_status scv_plugin_video_open(const char *path, uint64_t max_pixels, scv_video **out, double *fps,
                                 char *message, size_t message_capacity);
/** Decodes the next frame and gives its size (pixels) and position (`time`, seconds). SCV_ERR_END at a real
 *  end of the stream; SCV_ERR_DECODE ("truncated or corrupt: decoding stopped at frame N of M") when decoding
 *  stops well before the frame count the container declares. A frame over `max_pixels` is SCV_ERR_LIMIT. */
scv_status scv_plugin_video_read(scv_video *video, int *width, int *height, double *time, char *message, size_t message_capacity);
/** Writes the frame last read as luma into `dst` (width*height bytes, packed), owned by the caller. */
scv_status scv_plugin_video_gray(scv_video *video, uint8_t *dst, size_t capacity, char *message, size_t message_capacity);
void scv_plugin_video_close(scv_video *video);

/* ---- image processing on caller buffers ---- */

/** Resizes src (w×h, stride) into dst (dw×dh, packed). interpolation: 0 area, 1 linear, 2 nearest, 3 cubic. */
scv_status scv_resize(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int dst_width, int dst_height, int interpolation);
/** Adaptive mean threshold into dst (packed): 255 where src > local mean - c, else 0; with invert != 0 the
 *  opposite (0 and 255 swapped, the same as inverting the plain result). block must be odd >= 3. */
scv_status scv_adaptive_threshold(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int block, double c,
                                  int invert);
/** Gaussian blur into dst (packed). ksize odd. */
scv_status scv_gaussian_blur(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int ksize, double sigma);
/** Histogram equalisation into dst (packed). */
scv_status scv_equalize(const uint8_t *src, int width, int height, int stride, uint8_t *dst);

/** Affine warp of src into dst (dw×dh, packed), bilinear; `m` is the 2×3 row-major map from src pixels to dst
 *  pixels; pixels from outside src are `border` (0–255). */
scv_status scv_warp_affine(const uint8_t *src, int width, int height, int stride, uint8_t *dst, int dst_width, int dst_height,
                           const double *m, int border);
/** The dominant gradient orientations of bar-like texture (1-D codes): the image is cut into `block`×`block`
 *  blocks; a block whose structure tensor has coherence >= min_coherence (and some gradient at all) votes for
 *  its gradient direction. Writes up to `capacity` peak directions, strongest first, at least 10 degrees
 *  apart, each with at least `min_blocks` votes within 5 degrees: `angles` in degrees in [0, 180) (image
 *  axes, y down: 0 = the gradient runs along x, i.e. vertical bars), `support` the votes; `count` how many. */
scv_status scv_bar_orientations(const uint8_t *src, int width, int height, int stride, int block,
                                double min_coherence, int min_blocks,
                                double *angles, double *support, int capacity, int *count);

/// The OpenCV version scand was built against (CV_VERSION, "4.6.0"), a static string.
const char *scv_opencv_version(void);

#ifdef __cplusplus
}
#endif
#endif
