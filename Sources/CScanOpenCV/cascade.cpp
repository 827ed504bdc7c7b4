// Cascade classifiers and region rotation for the face detector (see CScanOpenCVCascade.h).
#include "CScanOpenCVCascade.h"
#include "fault.h"
#include <new>
#include <cstdio>
#include <exception>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

struct scv_cascade {
    cv::CascadeClassifier classifier;
    std::vector<cv::Rect> found;
};

namespace {
void say(char *message, size_t cap, const char *text) {
    if (message && cap) std::snprintf(message, cap, "%s", text);
}
inline cv::Mat wrap(const uint8_t *p, int w, int h, int stride) {
    return cv::Mat(h, w, CV_8UC1, const_cast<uint8_t *>(p), static_cast<size_t>(stride));
}
}

extern "C" scv_status scv_cascade_load(const char *path, scv_cascade **out, char *message, size_t cap) {
    if (!path || !out) { say(message, cap, "no path"); return SCV_ERR_ARGUMENT; }
    *out = nullptr;
    std::FILE *f = std::fopen(path, "rb");
    if (!f) { say(message, cap, "cannot open the file"); return SCV_ERR_IO; }
    std::fclose(f);
    scv_cascade *c = nullptr;
    try {
        c = new scv_cascade();
        if (!c->classifier.load(path) || c->classifier.empty()) {
            delete c;
            say(message, cap, "not a readable OpenCV cascade (corrupt or wrong XML)");
            return SCV_ERR_DECODE;
        }
        *out = c;
        return SCV_OK;
    } catch (const cv::Exception &e) {
        delete c;
        char text[512];
        std::snprintf(text, sizeof text, "not a readable OpenCV cascade: %s", e.what());
        say(message, cap, text);
        return SCV_ERR_DECODE;
    } catch (const std::exception &e) {
        delete c;
        say(message, cap, e.what());
        return SCV_ERR_OPENCV;
    } catch (...) {
        delete c;
        say(message, cap, "unknown error while loading the cascade");
        return SCV_ERR_OPENCV;
    }
}

extern "C" void scv_cascade_free(scv_cascade *cascade) { delete cascade; }

extern "C" void scv_cascade_window(const scv_cascade *cascade, int *width, int *height) {
    int w = 0, h = 0;
    try {
        if (cascade) {
            cv::Size s = cascade->classifier.getOriginalWindowSize();
            w = s.width; h = s.height;
        }
    } catch (...) {}
    if (width) *width = w;
    if (height) *height = h;
}

extern "C" scv_status scv_cascade_detect(scv_cascade *cascade, const uint8_t *luma, int w, int h, int stride,
                                         double scale, int neighbors, int min_size, int max_size,
                                         scv_rect *out, int capacity, int *count) {
    if (count) *count = 0;
    if (!cascade || !luma || w <= 0 || h <= 0 || stride < w || scale <= 1.0 || capacity < 0 || (capacity > 0 && !out))
        return SCV_ERR_ARGUMENT;
    try {
        if (scv_fault_due()) throw std::bad_alloc();
        cascade->found.clear();
        cv::Size minS = min_size > 0 ? cv::Size(min_size, min_size) : cv::Size();
        cv::Size maxS = max_size > 0 ? cv::Size(max_size, max_size) : cv::Size();
        cascade->classifier.detectMultiScale(wrap(luma, w, h, stride), cascade->found, scale, neighbors, 0, minS, maxS);
        int n = static_cast<int>(cascade->found.size());
        for (int i = 0; i < n && i < capacity; ++i) {
            const cv::Rect &r = cascade->found[static_cast<size_t>(i)];
            out[i] = scv_rect{r.x, r.y, r.width, r.height};
        }
        if (count) *count = n;
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_rotate_region(const uint8_t *src, int w, int h, int stride, double cx, double cy,
                                        double angle, double scale, uint8_t *dst, int dw, int dh, int fill) {
    if (!src || !dst || w <= 0 || h <= 0 || dw <= 0 || dh <= 0 || stride < w || !(scale > 0) || fill > 255) return SCV_ERR_ARGUMENT;
    try {
        cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(static_cast<float>(cx), static_cast<float>(cy)), angle, scale);
        m.at<double>(0, 2) += dw / 2.0 - cx;
        m.at<double>(1, 2) += dh / 2.0 - cy;
        cv::Mat out(dh, dw, CV_8UC1, dst);
        if (fill < 0)
            cv::warpAffine(wrap(src, w, h, stride), out, m, out.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        else
            cv::warpAffine(wrap(src, w, h, stride), out, m, out.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(fill));
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}
