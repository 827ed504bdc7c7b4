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

extern "C" int scv_sniff_format(const uint8_t *b, size_t n) {
    if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return 1;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return 2;
    return 0;
}

// Implemented in plugin.cpp: the plugin's half of scv_image (formats other than PNG and JPEG).
scv_status scv_plugin_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, void **image,
                                 int *width, int *height, char *message, size_t cap);
scv_status scv_plugin_image_gray(void *image, uint8_t *dst, size_t capacity, char *message, size_t cap);
void scv_plugin_image_free(void *image);

namespace {
/// The message for a size over the budget: the same words as ScanCore's DecoderLimits.check.
scv_status over_budget(const char *format, long long w, long long h, uint64_t max_pixels, char *message, size_t cap) {
    char text[200];
    std::snprintf(text, sizeof text, "%s%lldx%lld is over the pixel budget of %llu pixels (--max-pixels)", format, w, h,
                  static_cast<unsigned long long>(max_pixels));
    set_message(message, cap, text);
    return SCV_ERR_LIMIT;
}

bool within(long long w, long long h, uint64_t max_pixels) {
    return w > 0 && h > 0 && w <= 1 << 20 && h <= 1 << 20 && static_cast<uint64_t>(w) * static_cast<uint64_t>(h) <= max_pixels;
}

// ---------------------------------------------------------------- JPEG error handling
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
} // namespace

/// One decoder whose header has been read. Exactly one of the three is in use (by `kind`).
struct scv_image {
    int kind = 0;            // 1 PNG, 2 JPEG, 3 plugin
    png_image png;           // kind 1
    jpeg_decompress_struct jpeg; // kind 2 (created; header read)
    JpegError jpeg_err;      // kind 2: cinfo.err points here, so the struct never moves (heap only)
    void *plugin = nullptr;  // kind 3
    int width = 0, height = 0;
};

namespace {
// ---------------------------------------------------------------- PNG
scv_status png_open(scv_image *im, const uint8_t *bytes, size_t length, uint64_t max_pixels, char *message, size_t cap) {
    std::memset(&im->png, 0, sizeof im->png);
    im->png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im->png, bytes, length)) { // reads the header only
        char text[160];
        std::snprintf(text, sizeof text, "PNG: %s", im->png.message[0] ? im->png.message : "invalid header");
        set_message(message, cap, text);
        return SCV_ERR_DECODE;
    }
    im->kind = 1;
    if (!within(im->png.width, im->png.height, max_pixels))
        return over_budget("PNG ", im->png.width, im->png.height, max_pixels, message, cap);
    im->width = static_cast<int>(im->png.width);
    im->height = static_cast<int>(im->png.height);
    return SCV_OK;
}

scv_status png_read(scv_image *im, uint8_t *dst, char *message, size_t cap) {
    // Composite alpha over white, as a screenshot would show it; 8-bit grey.
    im->png.format = PNG_FORMAT_GRAY;
    png_color background = {255, 255, 255};
    if (!png_image_finish_read(&im->png, &background, dst, 0, nullptr)) {
        char text[160];
        const bool truncated = std::strstr(im->png.message, "beyond end") != nullptr;
        std::snprintf(text, sizeof text, "PNG: %s%s", truncated ? "truncated file: " : "",
                      im->png.message[0] ? im->png.message : "corrupt data");
        set_message(message, cap, text);
        return SCV_ERR_DECODE;
    }
    return SCV_OK;
}

// ---------------------------------------------------------------- JPEG
scv_status jpeg_open(scv_image *im, const uint8_t *bytes, size_t length, uint64_t max_pixels, char *message, size_t cap) {
    jpeg_decompress_struct &cinfo = im->jpeg;
    std::memset(&im->jpeg_err, 0, sizeof im->jpeg_err);
    cinfo.err = jpeg_std_error(&im->jpeg_err.mgr);
    im->jpeg_err.mgr.error_exit = jpeg_error_exit_fn;
    im->jpeg_err.mgr.emit_message = jpeg_emit_message_fn;
    jpeg_create_decompress(&cinfo);
    im->kind = 2; // from here on, scv_image_close destroys cinfo
    if (setjmp(im->jpeg_err.jump)) {
        set_message(message, cap, im->jpeg_err.text);
        return SCV_ERR_DECODE;
    }
    jpeg_mem_src(&cinfo, bytes, static_cast<unsigned long>(length));
    jpeg_read_header(&cinfo, TRUE); // header only: jpeg_start_decompress is what allocates the image's buffers
    if (!within(cinfo.image_width, cinfo.image_height, max_pixels))
        return over_budget("JPEG ", cinfo.image_width, cinfo.image_height, max_pixels, message, cap);
    im->width = static_cast<int>(cinfo.image_width);
    im->height = static_cast<int>(cinfo.image_height);
    return SCV_OK;
}

scv_status jpeg_read(scv_image *im, uint8_t *dst, char *message, size_t cap) {
    jpeg_decompress_struct &cinfo = im->jpeg;
    JpegError &err = im->jpeg_err;
    // libjpeg cannot turn CMYK/YCCK into grey: ask for CMYK and take the luma of each pixel here.
    const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    // Adobe (Photoshop, PIL) CMYK JPEGs store inverted values (0 = full ink), as OpenCV also assumes.
    const bool inverted = cinfo.saw_Adobe_marker;
    uint8_t *volatile row4 = nullptr;
    if (setjmp(err.jump)) {
        std::free(row4);
        set_message(message, cap, err.text);
        return SCV_ERR_DECODE;
    }
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_GRAYSCALE;
    jpeg_start_decompress(&cinfo);
    const int w = static_cast<int>(cinfo.output_width), h = static_cast<int>(cinfo.output_height);
    if (w != im->width || h != im->height || cinfo.output_components != (cmyk ? 4 : 1)) {
        set_message(message, cap, "JPEG: unsupported colour layout");
        return SCV_ERR_DECODE;
    }
    if (cmyk) {
        row4 = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(w) * 4));
        if (!row4) { set_message(message, cap, "out of memory"); return SCV_ERR_MEMORY; }
    }
    while (cinfo.output_scanline < cinfo.output_height && !err.truncated) {
        uint8_t *out = dst + static_cast<size_t>(cinfo.output_scanline) * w;
        JSAMPROW row = cmyk ? row4 : out;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) break;
        if (!cmyk) continue;
        for (int x = 0; x < w; x++) {
            const uint8_t *p = row4 + 4 * x;
            int c = p[0], m = p[1], y = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
            // With inverted values, red = C*K/255 (and so on): the share of light neither ink absorbs.
            const int r = c * k / 255, g = m * k / 255, b = y * k / 255;
            out[x] = static_cast<uint8_t>((299 * r + 587 * g + 114 * b + 500) / 1000);
        }
    }
    std::free(row4);
    row4 = nullptr;
    if (err.truncated || cinfo.output_scanline < cinfo.output_height) {
        set_message(message, cap, "JPEG: premature end of data (truncated file)");
        return SCV_ERR_DECODE;
    }
    jpeg_finish_decompress(&cinfo);
    return SCV_OK;
}
} // namespace

extern "C" scv_status scv_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, scv_image **out,
                                     int *width, int *height, char *message, size_t cap) {
    if (!bytes || !out || !width || !height) { set_message(message, cap, "null argument"); return SCV_ERR_ARGUMENT; }
    *out = nullptr; *width = *height = 0;
    scv_image *im = nullptr;
    try {
        im = new scv_image();
        scv_status s;
        switch (scv_sniff_format(bytes, length)) {
        case 1: s = png_open(im, bytes, length, max_pixels, message, cap); break;
        case 2: s = jpeg_open(im, bytes, length, max_pixels, message, cap); break;
        default:
            s = scv_plugin_image_open(bytes, length, max_pixels, &im->plugin, &im->width, &im->height, message, cap);
            if (im->plugin) im->kind = 3;
        }
        if (s != SCV_OK) { scv_image_close(im); return s; }
        *width = im->width; *height = im->height;
        *out = im;
        return SCV_OK;
    } catch (...) {
        scv_image_close(im);
        set_message(message, cap, "unexpected exception while reading the image header");
        return SCV_ERR_DECODE;
    }
}

extern "C" scv_status scv_image_read_gray(scv_image *im, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    if (!im || !dst) { set_message(message, cap, "null argument"); return SCV_ERR_ARGUMENT; }
    if (capacity < static_cast<size_t>(im->width) * static_cast<size_t>(im->height)) {
        set_message(message, cap, "destination buffer too small");
        return SCV_ERR_ARGUMENT;
    }
    try {
        switch (im->kind) {
        case 1: return png_read(im, dst, message, cap);
        case 2: return jpeg_read(im, dst, message, cap);
        case 3: return scv_plugin_image_gray(im->plugin, dst, capacity, message, cap);
        default: set_message(message, cap, "image not open"); return SCV_ERR_ARGUMENT;
        }
    } catch (...) {
        set_message(message, cap, "unexpected exception while decoding");
        return SCV_ERR_DECODE;
    }
}

extern "C" void scv_image_close(scv_image *im) {
    if (!im) return;
    try {
        if (im->kind == 1) png_image_free(&im->png);
        if (im->kind == 2) jpeg_destroy_decompress(&im->jpeg);
        if (im->kind == 3) scv_plugin_image_free(im->plugin);
    } catch (...) {}
    delete im;
}
