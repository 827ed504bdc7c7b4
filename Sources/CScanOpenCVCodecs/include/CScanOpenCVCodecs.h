#ifndef CSCANOPENCVCODECS_H
#define CSCANOPENCVCODECS_H
/* The dlopen'ed plugin: OpenCV imgcodecs and videoio. Loaded by CScanOpenCV's plugin.cpp; not linked
 * into scand. Buffers returned through `data` are freed with scvc_free. Status values are scv_status. */
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int scvc_decode_image(const uint8_t *bytes, size_t length, uint8_t **data, int *width, int *height, char *message, size_t cap);
int scvc_video_open(const char *path, void **video, double *fps, char *message, size_t cap);
int scvc_video_read(void *video, uint8_t **data, int *width, int *height, double *time, char *message, size_t cap);
void scvc_video_close(void *video);
void scvc_free(void *data);
#ifdef __cplusplus
}
#endif
#endif
