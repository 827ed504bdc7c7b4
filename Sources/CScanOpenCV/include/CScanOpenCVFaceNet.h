#ifndef CSCANOPENCV_FACENET_H
#define CSCANOPENCV_FACENET_H
/*
 * A neural face detector (CenterFace, ONNX) run by OpenCV's dnn module. Same rules as CScanOpenCV.h:
 * every entry point catches C++ exceptions and returns a status; the handle is opaque with one owner;
 * pixel buffers are lent for the duration of a call; results go into caller-owned arrays.
 */
#include <stddef.h>
#include <stdint.h>
#include "CScanOpenCV.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scv_face_net scv_face_net;

/** One face in the pixel coordinates of the searched buffer: the network's box, its score (0…1) and five
 *  landmarks (x, y pairs): left eye, right eye (as displayed), nose tip, left and right mouth corner. */
typedef struct scv_face_hit {
    float x, y, width, height;
    float score;
    float landmarks[10];
} scv_face_hit;

/**
 * Reads a CenterFace ONNX file. SCV_ERR_IO when it cannot be read, SCV_ERR_DECODE when OpenCV cannot parse it
 * (with a message); *out stays NULL then. Free with scv_face_net_free.
 */
scv_status scv_face_net_load(const char *path, scv_face_net **out, char *message, size_t message_capacity);
void scv_face_net_free(scv_face_net *net);

/**
 * Runs the network on an 8-bit luma buffer (width×height, rows `stride` bytes apart; width and height
 * multiples of 32) and writes faces scoring at least `threshold` (after non-maximum suppression) into `out`
 * (at most `capacity`), and their number (which may exceed capacity) into *count. OpenCV 4.6's dnn gives wrong
 * results when one network sees several input sizes, so the handle keeps one network per size (up to 4).
 */
scv_status scv_face_net_detect(scv_face_net *net, const uint8_t *luma, int width, int height, int stride,
                               float threshold, scv_face_hit *out, int capacity, int *count);

/**
 * Makes the network for width×height (multiples of 32) ready and runs it once on a mid-grey picture, so the
 * first real frame of that size pays neither the parse (~20 ms) nor the first run's set-up.
 */
scv_status scv_face_net_prepare(scv_face_net *net, int width, int height);

#ifdef __cplusplus
}
#endif
#endif
