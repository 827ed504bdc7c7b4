// JPEG encoding with libjpeg-turbo into memory. libjpeg reports errors by calling error_exit, which must
// not return: it longjmps back here, so no error ever leaves this file as anything but a status.
#include "CScanJPEG.h"
#include <stdio.h> // before jpeglib.h, which uses FILE
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

// Everything the error path reads after longjmp lives here, in memory whose address libjpeg holds, not in
// locals that setjmp may not preserve: the output buffer jpeg_mem_dest (re)allocates included.
typedef struct {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    unsigned char *buffer;
    unsigned long size;
} scan_jpeg_error;

static void scan_error_exit(j_common_ptr cinfo) {
    scan_jpeg_error *err = (scan_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void scan_emit_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

int scan_jpeg_encode(const uint8_t *pixels, int width, int height, int stride, int components, int quality,
                     uint8_t **out, size_t *out_size, char *message, size_t cap) {
    *out = NULL;
    *out_size = 0;
    if (!pixels || width <= 0 || height <= 0 || (components != 1 && components != 3) || stride < width * components) {
        snprintf(message, cap, "invalid image geometry %dx%d, %d components, stride %d", width, height, components, stride);
        return -1;
    }
    if (quality < 1 || quality > 100) {
        snprintf(message, cap, "JPEG quality must be 1...100, got %d", quality);
        return -1;
    }
    struct jpeg_compress_struct cinfo;
    scan_jpeg_error err;
    memset(&err, 0, sizeof err);
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = scan_error_exit;
    err.mgr.emit_message = scan_emit_message;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(err.buffer); // jpeg_mem_dest's buffer: libjpeg never frees it
        snprintf(message, cap, "jpeg: %s", err.message);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &err.buffer, &err.size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.dct_method = JDCT_IFAST;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = err.buffer;
    *out_size = err.size;
    return 0;
}

void scan_jpeg_free(uint8_t *buffer) { free(buffer); }
