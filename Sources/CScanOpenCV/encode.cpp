// JPEG encoding of a luma plane with libjpeg-turbo, for the frame output (a preview that is watching).
#include "CScanOpenCV.h"
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <jpeglib.h>
#include <jerror.h>

namespace {
struct EncodeError {
    jpeg_error_mgr mgr;
    jmp_buf jump;
    char text[JMSG_LENGTH_MAX + 16];
};

void encode_error_exit(j_common_ptr cinfo) {
    auto *err = reinterpret_cast<EncodeError *>(cinfo->err);
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    std::snprintf(err->text, sizeof err->text, "JPEG: %s", buffer);
    longjmp(err->jump, 1);
}
} // namespace

extern "C" scv_status scv_jpeg_encode_gray(const uint8_t *src, int width, int height, int stride, int quality,
                                           uint8_t *dst, size_t capacity, size_t *length,
                                           char *message, size_t message_capacity) {
    if (!src || !length || width <= 0 || height <= 0 || stride < width || quality < 1 || quality > 100) {
        if (message && message_capacity) std::snprintf(message, message_capacity, "JPEG: bad argument");
        return SCV_ERR_ARGUMENT;
    }
    // Everything libjpeg's longjmp may skip is plain data (no destructors): the compressor and the
    // output buffer are released on both paths below.
    jpeg_compress_struct cinfo;
    EncodeError err;
    std::memset(&err, 0, sizeof err);
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = encode_error_exit;
    unsigned char *out = nullptr;
    unsigned long out_size = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        std::free(out);
        if (message && message_capacity) std::snprintf(message, message_capacity, "%s", err.text);
        return SCV_ERR_DECODE;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &out, &out_size);
    cinfo.image_width = static_cast<JDIMENSION>(width);
    cinfo.image_height = static_cast<JDIMENSION>(height);
    cinfo.input_components = 1;
    cinfo.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = const_cast<JSAMPROW>(src + static_cast<size_t>(cinfo.next_scanline) * static_cast<size_t>(stride));
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *length = out_size;
    scv_status status = SCV_OK;
    if (!dst || out_size > capacity) {
        status = SCV_ERR_MEMORY; // `*length` says how much room it needs
    } else {
        std::memcpy(dst, out, out_size);
    }
    std::free(out);
    return status;
}
