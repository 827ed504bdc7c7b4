// PNG, JPEG and GIF decoding with libpng, libjpeg-turbo and giflib: these load in well under a millisecond,
// where OpenCV's imgcodecs on Debian loads GDAL and ~140 shared objects (~100 ms). (OpenCV 4.6 has no GIF
// decoder at all.)
#include "CScanImageIO.h"
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <png.h>
#include <jpeglib.h>
#include <jerror.h>
#include <gif_lib.h>

static void set_message(char *message, size_t cap, const char *text) {
    if (message && cap) { std::snprintf(message, cap, "%s", text); }
}

extern "C" int sio_sniff_format(const uint8_t *b, size_t n) {
    if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return 1;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return 2;
    if (n >= 6 && (std::memcmp(b, "GIF87a", 6) == 0 || std::memcmp(b, "GIF89a", 6) == 0)) return 4;
    return 0;
}

// Implemented in plugin.cpp: the plugin's half of sio_image (formats other than PNG and JPEG).
sio_status sio_plugin_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, void **image,
                                 int *width, int *height, char *message, size_t cap);
sio_status sio_plugin_image_gray(void *image, uint8_t *dst, size_t capacity, char *message, size_t cap);
void sio_plugin_image_free(void *image);

namespace {
/// The message for a size over the budget: the same words as ScanCore's DecoderLimits.check.
sio_status over_budget(const char *format, long long w, long long h, uint64_t max_pixels, char *message, size_t cap) {
    char text[200];
    std::snprintf(text, sizeof text, "%s%lldx%lld is over the pixel budget of %llu pixels (--max-pixels)", format, w, h,
                  static_cast<unsigned long long>(max_pixels));
    set_message(message, cap, text);
    return SIO_ERR_LIMIT;
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

/// The bytes giflib reads from: the caller's buffer, lent from open to close.
struct GifSource {
    const uint8_t *bytes = nullptr;
    size_t length = 0, position = 0;
};

/// One decoder whose header has been read. Exactly one of the four is in use (by `kind`).
struct sio_image {
    int kind = 0;            // 1 PNG, 2 JPEG, 3 plugin, 4 GIF
    png_image png;           // kind 1
    jpeg_decompress_struct jpeg; // kind 2 (created; header read)
    JpegError jpeg_err;      // kind 2: cinfo.err points here, so the struct never moves (heap only)
    bool jpeg_reduced = false;   // kind 2: decoded at scale_num/8 to fit the pixel budget
    int orientation = 1;         // kind 2: EXIF orientation (1-8), applied after decoding
    int jpeg_width = 0, jpeg_height = 0; // kind 2: what libjpeg writes, before the orientation
    void *plugin = nullptr;  // kind 3
    GifFileType *gif = nullptr; // kind 4: positioned after the first image's descriptor
    GifSource gif_source;       // kind 4: gif->UserData points here, so the struct never moves (heap only)
    int gif_transparent = -1;   // kind 4: the first image's transparent colour index, or -1
    int width = 0, height = 0;                // what sio_image_read_gray writes
    int source_width = 0, source_height = 0;  // what the file declares (set for JPEG; else width, height)
};

namespace {
// ---------------------------------------------------------------- PNG
sio_status png_open(sio_image *im, const uint8_t *bytes, size_t length, uint64_t max_pixels, char *message, size_t cap) {
    std::memset(&im->png, 0, sizeof im->png);
    im->png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&im->png, bytes, length)) { // reads the header only
        char text[160];
        std::snprintf(text, sizeof text, "PNG: %s", im->png.message[0] ? im->png.message : "invalid header");
        set_message(message, cap, text);
        return SIO_ERR_DECODE;
    }
    im->kind = 1;
    if (!within(im->png.width, im->png.height, max_pixels))
        return over_budget("PNG ", im->png.width, im->png.height, max_pixels, message, cap);
    im->width = static_cast<int>(im->png.width);
    im->height = static_cast<int>(im->png.height);
    return SIO_OK;
}

sio_status png_read(sio_image *im, uint8_t *dst, char *message, size_t cap) {
    // Composite alpha over white, as a screenshot would show it; 8-bit grey.
    im->png.format = PNG_FORMAT_GRAY;
    png_color background = {255, 255, 255};
    if (!png_image_finish_read(&im->png, &background, dst, 0, nullptr)) {
        char text[160];
        const bool truncated = std::strstr(im->png.message, "beyond end") != nullptr;
        std::snprintf(text, sizeof text, "PNG: %s%s", truncated ? "truncated file: " : "",
                      im->png.message[0] ? im->png.message : "corrupt data");
        set_message(message, cap, text);
        return SIO_ERR_DECODE;
    }
    return SIO_OK;
}

// ---------------------------------------------------------------- JPEG
/// The orientation (1-8) in an APP1 Exif marker's IFD0 (tag 0x0112), or 1 when there is none or it is
/// malformed. Only that one tag is read, every offset checked against the marker's length (the `jpeg` fuzz
/// target runs through here); a library for all of EXIF would be more code than this.
int exif_orientation(const jpeg_saved_marker_ptr markers) {
    for (jpeg_saved_marker_ptr m = markers; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < 14 || std::memcmp(m->data, "Exif\0\0", 6) != 0) continue;
        const uint8_t *t = m->data + 6; // the TIFF header
        const size_t n = m->data_length - 6;
        const bool little = t[0] == 'I' && t[1] == 'I';
        if (!little && !(t[0] == 'M' && t[1] == 'M')) return 1;
        auto u16 = [&](size_t at) -> unsigned { return little ? t[at] | t[at + 1] << 8 : t[at] << 8 | t[at + 1]; };
        auto u32 = [&](size_t at) -> size_t {
            return little ? size_t(t[at]) | size_t(t[at + 1]) << 8 | size_t(t[at + 2]) << 16 | size_t(t[at + 3]) << 24
                          : size_t(t[at]) << 24 | size_t(t[at + 1]) << 16 | size_t(t[at + 2]) << 8 | size_t(t[at + 3]);
        };
        if (u16(2) != 42) return 1;
        const size_t ifd = u32(4);
        if (ifd > n || n - ifd < 2) return 1;
        const unsigned entries = u16(ifd);
        for (unsigned i = 0; i < entries; i++) {
            const size_t e = ifd + 2 + 12 * size_t(i);
            if (e > n || n - e < 12) return 1;
            if (u16(e) == 0x0112 && u16(e + 2) == 3 /* SHORT */ && u32(e + 4) == 1) {
                const unsigned o = u16(e + 8);
                return o >= 1 && o <= 8 ? static_cast<int>(o) : 1;
            }
        }
        return 1;
    }
    return 1;
}

/// Writes `src` (w×h, as stored) into `dst` as it is displayed under EXIF orientation `o`: 2 mirrored, 3 turned
/// 180°, 4 flipped, 5 transposed, 6 turned 90° clockwise, 7 transversed, 8 turned 90° anticlockwise. For 5-8
/// `dst` is h×w.
void orient(const uint8_t *src, int w, int h, int o, uint8_t *dst) {
    const size_t W = (o >= 5) ? size_t(h) : size_t(w), H = (o >= 5) ? size_t(w) : size_t(h);
    for (size_t y = 0; y < size_t(h); y++) {
        const uint8_t *row = src + y * size_t(w);
        for (size_t x = 0; x < size_t(w); x++) {
            size_t X = x, Y = y;
            switch (o) {
            case 2: X = W - 1 - x; break;
            case 3: X = W - 1 - x; Y = H - 1 - y; break;
            case 4: Y = H - 1 - y; break;
            case 5: X = y; Y = x; break;
            case 6: X = W - 1 - y; Y = x; break;
            case 7: X = W - 1 - y; Y = H - 1 - x; break;
            case 8: X = y; Y = H - 1 - x; break;
            default: break;
            }
            dst[Y * W + X] = row[x];
        }
    }
}

sio_status jpeg_open(sio_image *im, const uint8_t *bytes, size_t length, uint64_t max_pixels, char *message, size_t cap) {
    jpeg_decompress_struct &cinfo = im->jpeg;
    std::memset(&im->jpeg_err, 0, sizeof im->jpeg_err);
    cinfo.err = jpeg_std_error(&im->jpeg_err.mgr);
    im->jpeg_err.mgr.error_exit = jpeg_error_exit_fn;
    im->jpeg_err.mgr.emit_message = jpeg_emit_message_fn;
    jpeg_create_decompress(&cinfo);
    im->kind = 2; // from here on, sio_image_close destroys cinfo
    if (setjmp(im->jpeg_err.jump)) {
        set_message(message, cap, im->jpeg_err.text);
        return SIO_ERR_DECODE;
    }
    jpeg_mem_src(&cinfo, bytes, static_cast<unsigned long>(length));
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF); // APP1: Exif, for the orientation
    jpeg_read_header(&cinfo, TRUE); // header only: jpeg_start_decompress is what allocates the image's buffers
    im->orientation = exif_orientation(cinfo.marker_list);
    const bool turned = im->orientation >= 5; // the picture as displayed is height × width
    im->source_width = static_cast<int>(turned ? cinfo.image_height : cinfo.image_width);
    im->source_height = static_cast<int>(turned ? cinfo.image_width : cinfo.image_height);
    if (!within(cinfo.image_width, cinfo.image_height, max_pixels)) {
        // A photo over the budget (a 48 MP phone photo against the default 40 MP) is decoded at the largest
        // of libjpeg's DCT-domain reduced sizes that fits: only that many pixels are ever allocated for the
        // output. libjpeg's own buffers are capped too (a progressive JPEG keeps every coefficient of the
        // full-size image, 2 bytes per sample): at 6 bytes per budget pixel, what a progressive 4:4:4 JPEG
        // at the budget takes without reduction, past which the decode fails with a clear error.
        cinfo.scale_denom = 8;
        for (cinfo.scale_num = 7; cinfo.scale_num >= 1; cinfo.scale_num--) {
            jpeg_calc_output_dimensions(&cinfo);
            if (within(cinfo.output_width, cinfo.output_height, max_pixels)) break;
        }
        if (cinfo.scale_num < 1)
            return over_budget("JPEG ", cinfo.image_width, cinfo.image_height, max_pixels, message, cap);
        cinfo.mem->max_memory_to_use = static_cast<long>(std::min<uint64_t>(max_pixels, 1ULL << 40) * 6);
        im->jpeg_reduced = true;
        im->jpeg_width = static_cast<int>(cinfo.output_width);
        im->jpeg_height = static_cast<int>(cinfo.output_height);
    } else {
        im->jpeg_width = static_cast<int>(cinfo.image_width);
        im->jpeg_height = static_cast<int>(cinfo.image_height);
    }
    im->width = turned ? im->jpeg_height : im->jpeg_width;
    im->height = turned ? im->jpeg_width : im->jpeg_height;
    return SIO_OK;
}

sio_status jpeg_read(sio_image *im, uint8_t *dst, char *message, size_t cap) {
    jpeg_decompress_struct &cinfo = im->jpeg;
    JpegError &err = im->jpeg_err;
    // libjpeg cannot turn CMYK/YCCK into grey: ask for CMYK and take the luma of each pixel here.
    const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    // Adobe (Photoshop, PIL) CMYK JPEGs store inverted values (0 = full ink), as OpenCV also assumes.
    const bool inverted = cinfo.saw_Adobe_marker;
    uint8_t *volatile row4 = nullptr;
    uint8_t *volatile stored = nullptr; // the picture as stored, when an EXIF orientation turns it into `dst`
    if (setjmp(err.jump)) {
        std::free(row4);
        std::free(stored);
        const int code = cinfo.err->msg_code;
        if (im->jpeg_reduced && (code == JERR_NO_BACKING_STORE || code == JERR_OUT_OF_MEMORY)) {
            char text[240];
            std::snprintf(text, sizeof text,
                          "JPEG %dx%d is over the pixel budget and too large to decode at reduced size within it "
                          "(a progressive JPEG needs memory for its full size; --max-pixels)",
                          im->source_width, im->source_height);
            set_message(message, cap, text);
            return SIO_ERR_LIMIT;
        }
        set_message(message, cap, err.text);
        return SIO_ERR_DECODE;
    }
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_GRAYSCALE;
    jpeg_start_decompress(&cinfo);
    const int w = static_cast<int>(cinfo.output_width), h = static_cast<int>(cinfo.output_height);
    if (w != im->jpeg_width || h != im->jpeg_height || cinfo.output_components != (cmyk ? 4 : 1)) {
        set_message(message, cap, "JPEG: unsupported colour layout");
        return SIO_ERR_DECODE;
    }
    if (cmyk) {
        row4 = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(w) * 4));
        if (!row4) { set_message(message, cap, "out of memory"); return SIO_ERR_MEMORY; }
    }
    if (im->orientation != 1) {
        stored = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(w) * static_cast<size_t>(h)));
        if (!stored) { std::free(row4); set_message(message, cap, "out of memory"); return SIO_ERR_MEMORY; }
    }
    uint8_t *const target = stored ? stored : dst;
    while (cinfo.output_scanline < cinfo.output_height && !err.truncated) {
        uint8_t *out = target + static_cast<size_t>(cinfo.output_scanline) * w;
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
        std::free(stored);
        set_message(message, cap, "JPEG: premature end of data (truncated file)");
        return SIO_ERR_DECODE;
    }
    if (stored) {
        orient(stored, w, h, im->orientation, dst);
        std::free(stored);
        stored = nullptr;
    }
    jpeg_finish_decompress(&cinfo);
    return SIO_OK;
}

// ---------------------------------------------------------------- GIF
int gif_input(GifFileType *gif, GifByteType *out, int wanted) {
    auto *src = static_cast<GifSource *>(gif->UserData);
    if (wanted <= 0 || src->position >= src->length) return 0;
    const size_t n = std::min(static_cast<size_t>(wanted), src->length - src->position);
    std::memcpy(out, src->bytes + src->position, n);
    src->position += n;
    return static_cast<int>(n);
}

sio_status gif_failure(int code, char *message, size_t cap) {
    char text[160];
    const char *what = GifErrorString(code);
    // D_GIF_ERR_READ_FAILED: giflib asked for bytes past the end of the buffer.
    std::snprintf(text, sizeof text, "GIF: %s%s", code == D_GIF_ERR_READ_FAILED ? "truncated file: " : "",
                  what ? what : "corrupt data");
    set_message(message, cap, text);
    return code == D_GIF_ERR_NOT_ENOUGH_MEM ? SIO_ERR_MEMORY : SIO_ERR_DECODE;
}

/// Reads the screen descriptor and the records up to the first image's descriptor (keeping its graphic
/// control extension's transparent index). The picture is the logical screen, widened to hold the first
/// image should a malformed file place it outside; an animation gives its first frame.
sio_status gif_open(sio_image *im, const uint8_t *bytes, size_t length, uint64_t max_pixels, char *message, size_t cap) {
    im->gif_source = GifSource{bytes, length, 0};
    int error = 0;
    im->gif = DGifOpen(&im->gif_source, gif_input, &error);
    if (!im->gif) return gif_failure(error, message, cap);
    im->kind = 4; // from here on, sio_image_close closes the file
    GifFileType *gif = im->gif;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) return gif_failure(gif->Error, message, cap);
        if (record == TERMINATE_RECORD_TYPE) { set_message(message, cap, "GIF: the file holds no image"); return SIO_ERR_DECODE; }
        if (record == IMAGE_DESC_RECORD_TYPE) break;
        if (record != EXTENSION_RECORD_TYPE) continue;
        int code = 0;
        GifByteType *block = nullptr;
        if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return gif_failure(gif->Error, message, cap);
        if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) {
            GraphicsControlBlock gcb;
            DGifExtensionToGCB(block[0], block + 1, &gcb);
            im->gif_transparent = gcb.TransparentColor; // NO_TRANSPARENT_COLOR is -1
        }
        while (block) {
            if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return gif_failure(gif->Error, message, cap);
        }
    }
    if (DGifGetImageDesc(gif) == GIF_ERROR) return gif_failure(gif->Error, message, cap);
    const GifImageDesc &d = gif->Image;
    if (d.Width <= 0 || d.Height <= 0) { set_message(message, cap, "GIF: the first image has no pixels"); return SIO_ERR_DECODE; }
    if (!d.ColorMap && !gif->SColorMap) { set_message(message, cap, "GIF: the first image has no colour table"); return SIO_ERR_DECODE; }
    const long long w = std::max<long long>(gif->SWidth, static_cast<long long>(d.Left) + d.Width);
    const long long h = std::max<long long>(gif->SHeight, static_cast<long long>(d.Top) + d.Height);
    if (!within(w, h, max_pixels)) return over_budget("GIF ", w, h, max_pixels, message, cap);
    im->width = static_cast<int>(w);
    im->height = static_cast<int>(h);
    return SIO_OK;
}

/// The first image's pixels as luma (BT.601 of each palette entry), over a white screen: what lies outside
/// the image and transparent pixels are white, as PNG's alpha is composited. Interlaced rows are put in place.
sio_status gif_read(sio_image *im, uint8_t *dst, char *message, size_t cap) {
    GifFileType *gif = im->gif;
    const GifImageDesc &d = gif->Image;
    const ColorMapObject *map = d.ColorMap ? d.ColorMap : gif->SColorMap;
    uint8_t luma[256];
    for (int i = 0; i < 256; i++) {
        if (i >= map->ColorCount || i == im->gif_transparent) { luma[i] = 255; continue; }
        const GifColorType &c = map->Colors[i];
        luma[i] = static_cast<uint8_t>((299 * c.Red + 587 * c.Green + 114 * c.Blue + 500) / 1000);
    }
    const size_t w = static_cast<size_t>(im->width);
    std::memset(dst, 255, w * static_cast<size_t>(im->height));
    GifPixelType *line = static_cast<GifPixelType *>(std::malloc(static_cast<size_t>(d.Width)));
    if (!line) { set_message(message, cap, "out of memory"); return SIO_ERR_MEMORY; }
    // Row order: top to bottom, or the four interlace passes (every 8th row from 0, from 4, every 4th from 2,
    // every 2nd from 1).
    static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    const int passes = d.Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (int y = d.Interlace ? start[pass] : 0; y < d.Height; y += d.Interlace ? step[pass] : 1) {
            if (DGifGetLine(gif, line, d.Width) == GIF_ERROR) {
                std::free(line);
                return gif_failure(gif->Error, message, cap);
            }
            uint8_t *out = dst + (static_cast<size_t>(d.Top) + static_cast<size_t>(y)) * w + static_cast<size_t>(d.Left);
            for (int x = 0; x < d.Width; x++) out[x] = luma[line[x]];
        }
    }
    std::free(line);
    return SIO_OK;
}
} // namespace

extern "C" sio_status sio_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, sio_image **out,
                                     int *width, int *height, char *message, size_t cap) {
    if (!bytes || !out || !width || !height) { set_message(message, cap, "null argument"); return SIO_ERR_ARGUMENT; }
    *out = nullptr; *width = *height = 0;
    sio_image *im = nullptr;
    try {
        im = new sio_image();
        sio_status s;
        switch (sio_sniff_format(bytes, length)) {
        case 1: s = png_open(im, bytes, length, max_pixels, message, cap); break;
        case 2: s = jpeg_open(im, bytes, length, max_pixels, message, cap); break;
        case 4: s = gif_open(im, bytes, length, max_pixels, message, cap); break;
        default:
            s = sio_plugin_image_open(bytes, length, max_pixels, &im->plugin, &im->width, &im->height, message, cap);
            if (im->plugin) im->kind = 3;
        }
        if (s != SIO_OK) { sio_image_close(im); return s; }
        if (im->source_width == 0) { im->source_width = im->width; im->source_height = im->height; }
        *width = im->width; *height = im->height;
        *out = im;
        return SIO_OK;
    } catch (...) {
        sio_image_close(im);
        set_message(message, cap, "unexpected exception while reading the image header");
        return SIO_ERR_DECODE;
    }
}

extern "C" sio_status sio_image_read_gray(sio_image *im, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    if (!im || !dst) { set_message(message, cap, "null argument"); return SIO_ERR_ARGUMENT; }
    if (capacity < static_cast<size_t>(im->width) * static_cast<size_t>(im->height)) {
        set_message(message, cap, "destination buffer too small");
        return SIO_ERR_ARGUMENT;
    }
    try {
        switch (im->kind) {
        case 1: return png_read(im, dst, message, cap);
        case 2: return jpeg_read(im, dst, message, cap);
        case 3: return sio_plugin_image_gray(im->plugin, dst, capacity, message, cap);
        case 4: return gif_read(im, dst, message, cap);
        default: set_message(message, cap, "image not open"); return SIO_ERR_ARGUMENT;
        }
    } catch (...) {
        set_message(message, cap, "unexpected exception while decoding");
        return SIO_ERR_DECODE;
    }
}

extern "C" void sio_image_source_size(const sio_image *im, int *width, int *height) {
    if (width) *width = im ? im->source_width : 0;
    if (height) *height = im ? im->source_height : 0;
}

extern "C" void sio_image_close(sio_image *im) {
    if (!im) return;
    try {
        if (im->kind == 1) png_image_free(&im->png);
        if (im->kind == 2) jpeg_destroy_decompress(&im->jpeg);
        if (im->kind == 3) sio_plugin_image_free(im->plugin);
        if (im->kind == 4) { int error = 0; DGifCloseFile(im->gif, &error); }
    } catch (...) {}
    delete im;
}
