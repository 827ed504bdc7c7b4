#include "CScanOpenCVCodecs.h"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <libheif/heif.h>

namespace {
// Status values mirror sio_status in CScanImageIO.h.
enum { OK = 0, ERR_ARGUMENT = 1, ERR_DECODE = 2, ERR_IO = 4, ERR_OPENCV = 5, ERR_END = 7, ERR_MEMORY = 8, ERR_LIMIT = 9 };

// OpenCV's log level is set once, whichever thread decodes first: a function-local static is initialised
// exactly once, thread-safely (a plain `static bool done` flag was a data race, found by ThreadSanitizer
// when an image and a video were opened on two threads).
void quiet() {
    static const bool silenced = [] {
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        return true;
    }();
    (void)silenced;
}

void set_message(char *message, size_t cap, const char *text) {
    if (message && cap) std::snprintf(message, cap, "%s", text);
}

int over_budget(long long w, long long h, uint64_t max_pixels, char *message, size_t cap) {
    char text[200];
    if (w > 0 && h > 0)
        std::snprintf(text, sizeof text, "%lldx%lld is over the pixel budget of %llu pixels (--max-pixels)", w, h,
                      static_cast<unsigned long long>(max_pixels));
    else
        std::snprintf(text, sizeof text, "the image's declared size is over the pixel budget of %llu pixels (--max-pixels)",
                      static_cast<unsigned long long>(max_pixels));
    set_message(message, cap, text);
    return ERR_LIMIT;
}

bool within(long long w, long long h, uint64_t max_pixels) {
    return w > 0 && h > 0 && static_cast<uint64_t>(w) * static_cast<uint64_t>(h) <= max_pixels;
}

/// Luma (BT.601) of `in` written into `dst` (in.cols × in.rows bytes, packed): the only copy of the pixels.
int to_gray(const cv::Mat &in, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    if (!dst || capacity < static_cast<size_t>(in.cols) * static_cast<size_t>(in.rows)) {
        set_message(message, cap, "destination buffer too small");
        return ERR_ARGUMENT;
    }
    cv::Mat out(in.rows, in.cols, CV_8UC1, dst); // wraps the caller's buffer; the calls below write into it
    cv::Mat src = in;
    if (src.depth() != CV_8U) {
        cv::Mat tmp;
        src.convertTo(tmp, CV_8U, src.depth() == CV_16U ? 1.0 / 257.0 : 255.0);
        src = tmp;
    }
    if (src.channels() == 1) src.copyTo(out);
    else if (src.channels() == 3) cv::cvtColor(src, out, cv::COLOR_BGR2GRAY);
    else if (src.channels() == 4) cv::cvtColor(src, out, cv::COLOR_BGRA2GRAY);
    else { set_message(message, cap, "unsupported channel count"); return ERR_DECODE; }
    if (out.data != dst) { set_message(message, cap, "internal error: conversion did not write the caller's buffer"); return ERR_OPENCV; }
    return OK;
}

/// True when the file is a container whose header states its length exactly (MP4/MOV: the sample table;
/// AVI: the frame count; Matroska/WebM: the segment duration). For others (MPEG-TS/PS, FLV, Ogg, …) OpenCV's
/// frame count is an estimate from the bit rate that can be far off, so it cannot tell a cut file.
bool declares_its_length(const char *path) {
    unsigned char h[12] = {0};
    FILE *f = std::fopen(path, "rb");
    if (!f) return false;
    const size_t n = std::fread(h, 1, sizeof h, f);
    std::fclose(f);
    if (n < 12) return false;
    if (std::memcmp(h + 4, "ftyp", 4) == 0 || std::memcmp(h + 4, "moov", 4) == 0) return true;
    if (std::memcmp(h, "RIFF", 4) == 0 && std::memcmp(h + 8, "AVI ", 4) == 0) return true;
    return h[0] == 0x1A && h[1] == 0x45 && h[2] == 0xDF && h[3] == 0xA3;
}

struct Video {
    cv::VideoCapture capture;
    cv::Mat frame;           // the frame last read (decoder's layout, usually BGR)
    uint64_t max_pixels = 0;
    long long frames_read = 0;
    long long declared = 0;  // frames the container's header declares (nb_frames, or duration × rate); 0 if unknown
};
} // namespace

namespace {
/// HEIF (HEIC from phones, AVIF) with libheif: OpenCV 4.6 reads neither. The primary image is decoded with its
/// transformations (rotation, mirror, crop) applied, as viewers show it, after its size is checked against the
/// budget; it becomes luma (BT.601 of libheif's RGB; alpha is ignored). The result is a CV_8UC1 Mat in `*out`.
int heif_decode_gray(const uint8_t *bytes, size_t length, uint64_t max_pixels, cv::Mat **out, char *message, size_t cap) {
    // Each handle is released by its own guard, on every path out (libheif is C: no exception crosses it).
    struct Guard {
        heif_context *ctx = heif_context_alloc();
        heif_image_handle *handle = nullptr;
        heif_image *image = nullptr;
        ~Guard() {
            if (image) heif_image_release(image);
            if (handle) heif_image_handle_release(handle);
            if (ctx) heif_context_free(ctx);
        }
    } g;
    auto failed = [&](const char *what, const heif_error &e) {
        char text[240];
        std::snprintf(text, sizeof text, "HEIF: %s: %s", what, e.message ? e.message : "error");
        // libheif ends some messages with a newline: the log line is one line.
        for (size_t n = std::strlen(text); n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '); n--) text[n - 1] = 0;
        set_message(message, cap, text);
        return e.code == heif_error_Memory_allocation_error ? ERR_MEMORY : ERR_DECODE;
    };
    if (!g.ctx) { set_message(message, cap, "out of memory"); return ERR_MEMORY; }
    heif_error e = heif_context_read_from_memory_without_copy(g.ctx, bytes, length, nullptr);
    if (e.code != heif_error_Ok) return failed("cannot read the file", e);
    e = heif_context_get_primary_image_handle(g.ctx, &g.handle);
    if (e.code != heif_error_Ok) return failed("no primary image", e);
    const long long iw = heif_image_handle_get_width(g.handle), ih = heif_image_handle_get_height(g.handle);
    if (!within(iw, ih, max_pixels)) return over_budget(iw, ih, max_pixels, message, cap);
    e = heif_decode_image(g.handle, &g.image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nullptr);
    if (e.code != heif_error_Ok) return failed("cannot decode the image", e);
    const int w = heif_image_get_width(g.image, heif_channel_interleaved);
    const int h = heif_image_get_height(g.image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *rgb = heif_image_get_plane_readonly(g.image, heif_channel_interleaved, &stride);
    if (!rgb || w <= 0 || h <= 0) { set_message(message, cap, "HEIF: the decoded image has no pixels"); return ERR_DECODE; }
    if (!within(w, h, max_pixels)) return over_budget(w, h, max_pixels, message, cap);
    const cv::Mat view(h, w, CV_8UC3, const_cast<uint8_t *>(rgb), static_cast<size_t>(stride));
    auto *gray = new cv::Mat();
    cv::cvtColor(view, *gray, cv::COLOR_RGB2GRAY);
    *out = gray;
    return OK;
}

bool is_heif(const uint8_t *bytes, size_t length) {
    if (length < 12 || std::memcmp(bytes + 4, "ftyp", 4) != 0) return false;
    const heif_filetype_result r = heif_check_filetype(bytes, static_cast<int>(std::min<size_t>(length, 1 << 20)));
    return r == heif_filetype_yes_supported || r == heif_filetype_yes_unsupported;
}
} // namespace

extern "C" int scvc_image_decode(const uint8_t *bytes, size_t length, uint64_t max_pixels, void **image, int *w, int *h,
                                 char *message, size_t cap) {
    quiet();
    *image = nullptr; *w = *h = 0;
    try {
        if (length > static_cast<size_t>(INT32_MAX)) { set_message(message, cap, "file too large"); return ERR_ARGUMENT; }
        if (is_heif(bytes, length)) {
            cv::Mat *gray = nullptr;
            const int rc = heif_decode_gray(bytes, length, max_pixels, &gray, message, cap);
            if (rc != OK) return rc;
            *w = gray->cols; *h = gray->rows;
            *image = gray;
            return OK;
        }
        cv::Mat buf(1, static_cast<int>(length), CV_8UC1, const_cast<uint8_t *>(bytes));
        // imdecode checks the header's size against OPENCV_IO_MAX_IMAGE_PIXELS (set to the budget before this
        // library was loaded, see plugin.cpp) before it allocates the image.
        auto *img = new cv::Mat(cv::imdecode(buf, cv::IMREAD_ANYDEPTH | cv::IMREAD_COLOR));
        if (img->empty()) {
            delete img;
            set_message(message, cap, "not an image format OpenCV can decode, or corrupt data");
            return ERR_DECODE;
        }
        if (!within(img->cols, img->rows, max_pixels)) { // when the environment set a larger cap of its own
            int rc = over_budget(img->cols, img->rows, max_pixels, message, cap);
            delete img;
            return rc;
        }
        *w = img->cols; *h = img->rows;
        *image = img;
        return OK;
    } catch (const cv::Exception &e) {
        if (std::strstr(e.what(), "CV_IO_MAX_IMAGE")) {
            // OpenCV's own cap refused the header. It is the process's budget (see plugin.cpp), which may be
            // larger than this call's; say which one refused.
            const char *env = getenv("OPENCV_IO_MAX_IMAGE_PIXELS");
            const unsigned long long cv_cap = env ? std::strtoull(env, nullptr, 10) : 0;
            if (cv_cap == max_pixels) return over_budget(0, 0, max_pixels, message, cap);
            char text[200];
            std::snprintf(text, sizeof text, "the image's declared size is over OpenCV's image size cap of %llu pixels "
                          "(OPENCV_IO_MAX_IMAGE_PIXELS)", cv_cap);
            set_message(message, cap, text);
            return ERR_LIMIT;
        }
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" int scvc_image_gray(void *image, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    try {
        if (!image) return ERR_ARGUMENT;
        return to_gray(*static_cast<cv::Mat *>(image), dst, capacity, message, cap);
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" void scvc_image_free(void *image) {
    try { delete static_cast<cv::Mat *>(image); } catch (...) {}
}

/// Opens `source` (a file, or a stream URL with `params` giving FFmpeg's timeouts) and checks its declared frame
/// size against the budget. `video`, `fps` and the message as the entry points below give them.
static int open_video(const char *source, const std::vector<int> &params, bool is_file, uint64_t max_pixels, void **video,
                      double *fps, char *message, size_t cap) {
    quiet();
    *video = nullptr;
    try {
        auto *v = new Video();
        v->max_pixels = max_pixels;
        if (!v->capture.open(source, cv::CAP_FFMPEG, params) || !v->capture.isOpened()) {
            delete v;
            set_message(message, cap,
                        is_file ? "not a video OpenCV can open"
                                : "no stream: cannot connect, or not a stream FFmpeg can read");
            return ERR_DECODE;
        }
        const auto w = static_cast<long long>(v->capture.get(cv::CAP_PROP_FRAME_WIDTH));
        const auto h = static_cast<long long>(v->capture.get(cv::CAP_PROP_FRAME_HEIGHT));
        if (w > 0 && h > 0 && !within(w, h, max_pixels)) {
            delete v;
            return over_budget(w, h, max_pixels, message, cap);
        }
        // A live stream has no length: its end is a drop, never a truncation.
        const double count = is_file ? v->capture.get(cv::CAP_PROP_FRAME_COUNT) : 0;
        v->declared = count > 0 && count < 1e12 && declares_its_length(source) ? static_cast<long long>(count) : 0;
        *fps = v->capture.get(cv::CAP_PROP_FPS);
        *video = v;
        return OK;
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" int scvc_video_open(const char *path, uint64_t max_pixels, void **video, double *fps, char *message, size_t cap) {
    return open_video(path, {}, true, max_pixels, video, fps, message, cap);
}

extern "C" int scvc_stream_open(const char *url, uint64_t max_pixels, int open_timeout_ms, int read_timeout_ms,
                                void **video, double *fps, char *message, size_t cap) {
    // FFmpeg's own timeouts: connecting (and the stream's first frames), then each read, so a camera that stops
    // sending ends the read instead of blocking it for ever (issue 49).
    return open_video(url, {cv::CAP_PROP_OPEN_TIMEOUT_MSEC, open_timeout_ms, cv::CAP_PROP_READ_TIMEOUT_MSEC, read_timeout_ms},
                      false, max_pixels, video, fps, message, cap);
}

extern "C" int scvc_video_read(void *video, int *w, int *h, double *time, char *message, size_t cap) {
    try {
        auto *v = static_cast<Video *>(video);
        if (!v->capture.read(v->frame) || v->frame.empty()) {
            // OpenCV reports the end of the file and a decoding failure alike; the container's declared frame
            // count tells them apart. A small shortfall is tolerated: counts estimated from the duration can
            // be off by a frame or two (a file cut that close to its end is not detected).
            const long long slack = std::max(2LL, v->declared / 100);
            if (v->declared > 0 && v->frames_read + slack < v->declared) {
                char text[160];
                std::snprintf(text, sizeof text, "truncated or corrupt: decoding stopped at frame %lld of %lld",
                              v->frames_read, v->declared);
                set_message(message, cap, text);
                return ERR_DECODE;
            }
            return ERR_END;
        }
        if (!within(v->frame.cols, v->frame.rows, v->max_pixels))
            return over_budget(v->frame.cols, v->frame.rows, v->max_pixels, message, cap);
        v->frames_read += 1;
        *w = v->frame.cols; *h = v->frame.rows;
        if (time) *time = v->capture.get(cv::CAP_PROP_POS_MSEC) / 1000.0;
        return OK;
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" int scvc_video_gray(void *video, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    try {
        auto *v = static_cast<Video *>(video);
        if (v->frame.empty()) { set_message(message, cap, "no frame read"); return ERR_ARGUMENT; }
        return to_gray(v->frame, dst, capacity, message, cap);
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" void scvc_video_close(void *video) {
    try { delete static_cast<Video *>(video); } catch (...) {}
}
