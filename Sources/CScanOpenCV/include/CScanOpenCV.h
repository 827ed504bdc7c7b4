#ifndef CSCANOPENCV_H
#define CSCANOPENCV_H
/*
 * scand's C API over OpenCV's image processing, for the readers and the face detectors (ScanDetection, its
 * only importer); reading pictures is CScanImageIO's. Rules:
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
    SCV_ERR_DECODE = 2,     /* a model file is not what it should be */
    SCV_ERR_IO = 4,         /* a model file could not be opened or read */
    SCV_ERR_OPENCV = 5      /* OpenCV raised an exception */
} scv_status;

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
