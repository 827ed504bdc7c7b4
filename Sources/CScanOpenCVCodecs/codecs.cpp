#include "CScanOpenCVCodecs.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace {
// Status values mirror scv_status in CScanOpenCV.h.
enum { OK = 0, ERR_ARGUMENT = 1, ERR_DECODE = 2, ERR_IO = 4, ERR_OPENCV = 5, ERR_END = 7, ERR_MEMORY = 8 };

void quiet() {
    static bool done = false;
    if (!done) { cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT); done = true; }
}

void set_message(char *message, size_t cap, const char *text) {
    if (message && cap) std::snprintf(message, cap, "%s", text);
}

int to_gray(const cv::Mat &in, uint8_t **data, int *w, int *h) {
    cv::Mat gray;
    if (in.channels() == 1) gray = in;
    else if (in.channels() == 3) cv::cvtColor(in, gray, cv::COLOR_BGR2GRAY);
    else if (in.channels() == 4) cv::cvtColor(in, gray, cv::COLOR_BGRA2GRAY);
    else return ERR_DECODE;
    if (gray.depth() != CV_8U) { cv::Mat tmp; gray.convertTo(tmp, CV_8U, gray.depth() == CV_16U ? 1.0 / 257.0 : 255.0); gray = tmp; }
    *w = gray.cols; *h = gray.rows;
    *data = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(gray.cols) * gray.rows));
    if (!*data) return ERR_MEMORY;
    for (int y = 0; y < gray.rows; y++) std::memcpy(*data + static_cast<size_t>(y) * gray.cols, gray.ptr(y), gray.cols);
    return OK;
}
} // namespace

extern "C" int scvc_decode_image(const uint8_t *bytes, size_t length, uint8_t **data, int *w, int *h, char *message, size_t cap) {
    quiet();
    try {
        cv::Mat buf(1, static_cast<int>(length), CV_8UC1, const_cast<uint8_t *>(bytes));
        cv::Mat img = cv::imdecode(buf, cv::IMREAD_ANYDEPTH | cv::IMREAD_COLOR);
        if (img.empty()) { set_message(message, cap, "not an image format OpenCV can decode, or corrupt data"); return ERR_DECODE; }
        return to_gray(img, data, w, h);
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" int scvc_video_open(const char *path, void **video, double *fps, char *message, size_t cap) {
    quiet();
    try {
        auto *cap_ = new cv::VideoCapture();
        if (!cap_->open(path, cv::CAP_FFMPEG) || !cap_->isOpened()) {
            delete cap_;
            set_message(message, cap, "not a video OpenCV can open");
            return ERR_DECODE;
        }
        *fps = cap_->get(cv::CAP_PROP_FPS);
        *video = cap_;
        return OK;
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" int scvc_video_read(void *video, uint8_t **data, int *w, int *h, double *time, char *message, size_t cap) {
    try {
        auto *cap_ = static_cast<cv::VideoCapture *>(video);
        cv::Mat frame;
        if (!cap_->read(frame) || frame.empty()) return ERR_END;
        if (time) *time = cap_->get(cv::CAP_PROP_POS_MSEC) / 1000.0;
        return to_gray(frame, data, w, h);
    } catch (const cv::Exception &e) {
        set_message(message, cap, e.what());
        return ERR_OPENCV;
    } catch (...) { set_message(message, cap, "unexpected exception"); return ERR_OPENCV; }
}

extern "C" void scvc_video_close(void *video) {
    try { delete static_cast<cv::VideoCapture *>(video); } catch (...) {}
}

extern "C" void scvc_free(void *data) { std::free(data); }
