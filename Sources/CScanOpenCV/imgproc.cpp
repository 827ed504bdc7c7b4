#include "CScanOpenCV.h"
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {
inline cv::Mat wrap(const uint8_t *p, int w, int h, int stride) {
    return cv::Mat(h, w, CV_8UC1, const_cast<uint8_t *>(p), static_cast<size_t>(stride));
}
}

extern "C" scv_status scv_resize(const uint8_t *src, int w, int h, int stride, uint8_t *dst, int dw, int dh, int interp) {
    if (!src || !dst || w <= 0 || h <= 0 || dw <= 0 || dh <= 0 || stride < w) return SCV_ERR_ARGUMENT;
    try {
        static const int modes[] = {cv::INTER_AREA, cv::INTER_LINEAR, cv::INTER_NEAREST, cv::INTER_CUBIC};
        cv::Mat out(dh, dw, CV_8UC1, dst);
        cv::resize(wrap(src, w, h, stride), out, out.size(), 0, 0, modes[(interp >= 0 && interp < 4) ? interp : 0]);
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_adaptive_threshold(const uint8_t *src, int w, int h, int stride, uint8_t *dst, int block, double c) {
    if (!src || !dst || w <= 0 || h <= 0 || block < 3 || block % 2 == 0) return SCV_ERR_ARGUMENT;
    try {
        cv::Mat out(h, w, CV_8UC1, dst);
        cv::adaptiveThreshold(wrap(src, w, h, stride), out, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, block, c);
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_gaussian_blur(const uint8_t *src, int w, int h, int stride, uint8_t *dst, int k, double sigma) {
    if (!src || !dst || w <= 0 || h <= 0 || k < 1 || k % 2 == 0) return SCV_ERR_ARGUMENT;
    try {
        cv::Mat out(h, w, CV_8UC1, dst);
        cv::GaussianBlur(wrap(src, w, h, stride), out, cv::Size(k, k), sigma);
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_equalize(const uint8_t *src, int w, int h, int stride, uint8_t *dst) {
    if (!src || !dst || w <= 0 || h <= 0) return SCV_ERR_ARGUMENT;
    try {
        cv::Mat out(h, w, CV_8UC1, dst);
        cv::equalizeHist(wrap(src, w, h, stride), out);
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" const char *scv_opencv_version(void) { return CV_VERSION; }
