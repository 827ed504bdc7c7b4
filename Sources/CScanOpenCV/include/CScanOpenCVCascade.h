#ifndef CSCANOPENCV_CASCADE_H
#define CSCANOPENCV_CASCADE_H
/*
 * OpenCV cascade classifiers (Haar/LBP) for scand's face detector. Same rules as CScanOpenCV.h:
 * every entry point catches C++ exceptions and returns a status; handles are opaque with one owner;
 * pixel buffers are lent by the caller for the duration of a call; results go into caller-owned arrays.
 */
#include <stddef.h>
#include <stdint.h>
#include "CScanOpenCV.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scv_cascade scv_cascade;

/** A detection in the pixel coordinates of the buffer that was searched. */
typedef struct scv_rect {
    int x;
    int y;
    int width;
    int height;
} scv_rect;

/**
 * Loads a cascade from an OpenCV XML file. On failure returns SCV_ERR_IO (unreadable) or SCV_ERR_DECODE
 * (not a cascade / corrupt XML) with a message, and *out stays NULL. Free with scv_cascade_free.
 */
scv_status scv_cascade_load(const char *path, scv_cascade **out, char *message, size_t message_capacity);
void scv_cascade_free(scv_cascade *cascade);

/** The cascade's training window (smallest detectable object) in pixels; 0 if unknown. */
void scv_cascade_window(const scv_cascade *cascade, int *width, int *height);

/**
 * cv::CascadeClassifier::detectMultiScale on an 8-bit luma buffer (w×h, rows `stride` bytes apart).
 * min/max sizes are in pixels (0 = no limit). Writes at most `capacity` rectangles into `out` and
 * the number found (which may exceed capacity) into *count.
 */
scv_status scv_cascade_detect(scv_cascade *cascade, const uint8_t *luma, int width, int height, int stride,
                              double scale_factor, int min_neighbors, int min_size, int max_size,
                              scv_rect *out, int capacity, int *count);

/**
 * Rotates the w×h buffer by `angle_degrees` counter-clockwise as displayed (OpenCV's convention) about
 * (cx, cy) and scales it by `scale`, writing a dst_w×dst_h packed buffer whose centre is the rotated
 * (cx, cy). Pixels from outside the source are replicated from the border when `fill` is negative, else set
 * to the grey level `fill` (0-255). Linear interpolation.
 */
scv_status scv_rotate_region(const uint8_t *src, int width, int height, int stride, double cx, double cy,
                             double angle_degrees, double scale, uint8_t *dst, int dst_width, int dst_height, int fill);

#ifdef __cplusplus
}
#endif
#endif
