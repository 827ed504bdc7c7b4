// PNG and JPEG decoding with libpng and libjpeg-turbo: these load in well under a millisecond,
// where OpenCV's imgcodecs on Debian loads GDAL and ~140 shared objects (~100 ms).
#include "CScanOpenCV.h"
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <png.h>
#include <jpeglib.h>
#include <jerror.h>

static void set_message(char *message, size_t cap, const char *text) {
    if (message && cap) { std::snprintf(message, cap, "%s", text); }
}

extern "C" void scv_gray_free(scv_gray *image) {
    if (!image) return;
    std::free(image->data);
    image->data = nullptr;
    image->width = image->height = 0;
}

extern "C" int scv_sniff_format(const uint8_t *b, size_t n) {
    if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return 1;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return 2;
    return 0;
}

// ---------------------------------------------------------------- PNG
namespace {
scv_status decode_png(const uint8_t *bytes, size_t length, scv_gray *out, char *message, size_t cap) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes, length)) {
        char text[160];
        std::snprintf(text, sizeof text, "PNG: %s", image.message[0] ? image.message : "invalid header");
        set_message(message, cap, text);
        png_image_free(&image);
        return SCV_ERR_DECODE;
    }
    // Composite alpha over white, as a screenshot would show it; convert to linear-free 8-bit grey.
    image.format = PNG_FORMAT_GRAY;
    if (image.width == 0 || image.height == 0 || image.width > 32768 || image.height > 32768) {
        set_message(message, cap, "PNG: unsupported dimensions");
        png_image_free(&image);
        return SCV_ERR_DECODE;
    }
    size_t size = PNG_IMAGE_SIZE(image);
    auto *data = static_cast<uint8_t *>(std::malloc(size));
    if (!data) { png_image_free(&image); set_message(message, cap, "out of memory"); return SCV_ERR_MEMORY; }
    png_color background = {255, 255, 255};
    if (!png_image_finish_read(&image, &background, data, 0, nullptr)) {
        char text[160];
        const bool truncated = std::strstr(image.message, "beyond end") != nullptr;
        std::snprintf(text, sizeof text, "PNG: %s%s", truncated ? "truncated file: " : "",
                      image.message[0] ? image.message : "corrupt data");
        set_message(message, cap, text);
        std::free(data);
        png_image_free(&image);
        return SCV_ERR_DECODE;
    }
    out->width = static_cast<int>(image.width);
    out->height = static_cast<int>(image.height);
    out->data = data;
    png_image_free(&image);
    return SCV_OK;
}

// ---------------------------------------------------------------- JPEG
struct JpegError {
    jpeg_error_mgr mgr;
    jmp_buf jump;
    char text[JMSG_LENGTH_MAX + 16];
    bool truncated;
};

void jpeg_error_exit_fn(j_common_ptr cinfo) {
    auto *err = reinterpret_cast<JpegError *>(cinfo->err);
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    std::snprintf(err->text, sizeof err->text, "JPEG: %s", buffer);
    longjmp(err->jump, 1);
}

void jpeg_emit_message_fn(j_common_ptr cinfo, int level) {
    // level -1 is a warning; premature end of data (JWRN_JPEG_EOF) means a truncated file.
    auto *err = reinterpret_cast<JpegError *>(cinfo->err);
    if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF) err->truncated = true;
}

scv_status decode_jpeg(const uint8_t *bytes, size_t length, scv_gray *out, char *message, size_t cap) {
    jpeg_decompress_struct cinfo;
    JpegError err;
    std::memset(&err, 0, sizeof err);
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpeg_error_exit_fn;
    err.mgr.emit_message = jpeg_emit_message_fn;
    uint8_t *volatile data = nullptr;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        std::free(data);
        set_message(message, cap, err.text);
        return SCV_ERR_DECODE;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, bytes, static_cast<unsigned long>(length));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&cinfo);
    const int w = static_cast<int>(cinfo.output_width), h = static_cast<int>(cinfo.output_height);
    if (w <= 0 || h <= 0 || w > 32768 || h > 32768 || cinfo.output_components != 1) {
        jpeg_destroy_decompress(&cinfo);
        set_message(message, cap, "JPEG: unsupported dimensions or colour layout");
        return SCV_ERR_DECODE;
    }
    data = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(w) * h));
    if (!data) { jpeg_destroy_decompress(&cinfo); set_message(message, cap, "out of memory"); return SCV_ERR_MEMORY; }
    while (cinfo.output_scanline < cinfo.output_height && !err.truncated) {
        JSAMPROW row = data + static_cast<size_t>(cinfo.output_scanline) * w;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    if (!err.truncated) jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (err.truncated) {
        std::free(data);
        set_message(message, cap, "JPEG: premature end of data (truncated file)");
        return SCV_ERR_DECODE;
    }
    out->width = w;
    out->height = h;
    out->data = data;
    return SCV_OK;
}
} // namespace

extern "C" scv_status scv_decode_png_jpeg(const uint8_t *bytes, size_t length, scv_gray *out, char *message, size_t cap) {
    if (!bytes || !out) { set_message(message, cap, "null argument"); return SCV_ERR_ARGUMENT; }
    out->data = nullptr; out->width = out->height = 0;
    try {
        switch (scv_sniff_format(bytes, length)) {
        case 1: return decode_png(bytes, length, out, message, cap);
        case 2: return decode_jpeg(bytes, length, out, message, cap);
        default: set_message(message, cap, "not PNG or JPEG"); return SCV_ERR_UNSUPPORTED;
        }
    } catch (...) {
        set_message(message, cap, "unexpected exception while decoding");
        return SCV_ERR_DECODE;
    }
}
