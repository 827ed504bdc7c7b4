// CenterFace through OpenCV's dnn module (see CScanOpenCVFaceNet.h).
#include "CScanOpenCVFaceNet.h"
#include "fault.h"
#include <new>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

namespace {
struct SizedNet {
    int width, height;
    cv::dnn::Net net;
};
void say(char *message, size_t cap, const char *text) {
    if (message && cap) std::snprintf(message, cap, "%s", text);
}
/// The model's bytes, shared by every network loaded from the same bytes (each camera of a multi-camera run
/// has its own networks but one copy of the 7 MB file, issue 49). Immutable once made; the cache holds weak
/// references, so the bytes go with the last network that uses them.
std::shared_ptr<const std::vector<uchar>> shared_model(std::vector<uchar> &&bytes) {
    static std::mutex lock;
    static std::vector<std::weak_ptr<const std::vector<uchar>>> cache;
    std::lock_guard<std::mutex> held(lock);
    for (auto it = cache.begin(); it != cache.end();) {
        if (auto p = it->lock()) {
            if (*p == bytes) return p;
            ++it;
        } else {
            it = cache.erase(it);
        }
    }
    auto p = std::make_shared<const std::vector<uchar>>(std::move(bytes));
    cache.push_back(p);
    return p;
}
float iou(const scv_face_hit &a, const scv_face_hit &b) {
    float x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    float x1 = std::min(a.x + a.width, b.x + b.width), y1 = std::min(a.y + a.height, b.y + b.height);
    float inter = std::max(0.f, x1 - x0) * std::max(0.f, y1 - y0);
    float uni = a.width * a.height + b.width * b.height - inter;
    return uni > 0 ? inter / uni : 0;
}
}

struct scv_face_net {
    std::shared_ptr<const std::vector<uchar>> model;  // the ONNX bytes, so a network for a new size needs no file access
    std::vector<SizedNet> nets;     // one per input size, most recently used last
    cv::dnn::Net spare;             // parsed at load and not yet given a size (empty once taken)
    std::vector<cv::Mat> outputs;
    std::vector<scv_face_hit> hits;

    cv::dnn::Net &forSize(int w, int h) {
        for (size_t i = 0; i < nets.size(); ++i) {
            if (nets[i].width == w && nets[i].height == h) {
                if (i + 1 != nets.size()) std::rotate(nets.begin() + static_cast<long>(i), nets.begin() + static_cast<long>(i) + 1, nets.end());
                return nets.back().net;
            }
        }
        if (nets.size() >= 4) nets.erase(nets.begin());
        if (!spare.empty()) {
            nets.push_back(SizedNet{w, h, spare});
            spare = cv::dnn::Net();
        } else {
            nets.push_back(SizedNet{w, h, cv::dnn::readNetFromONNX(*model)});
        }
        return nets.back().net;
    }

    /// Runs the network for w×h on `blob` (NCHW, w×h); the four output maps land in `outputs`.
    void forward(const cv::Mat &blob, int w, int h) {
        cv::dnn::Net &net = forSize(w, h);
        net.setInput(blob);
        outputs.clear();
        net.forward(outputs, std::vector<cv::String>{"537", "538", "539", "540"});
    }
};

extern "C" scv_status scv_face_net_load(const char *path, scv_face_net **out, char *message, size_t cap) {
    if (!path || !out) { say(message, cap, "no path"); return SCV_ERR_ARGUMENT; }
    *out = nullptr;
    scv_face_net *n = nullptr;
    try {
        std::ifstream file(path, std::ios::binary);
        if (!file) { say(message, cap, "cannot open the file"); return SCV_ERR_IO; }
        std::vector<uchar> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (bytes.empty()) { say(message, cap, "the file is empty"); return SCV_ERR_DECODE; }
        n = new scv_face_net();
        n->model = shared_model(std::move(bytes));
        cv::dnn::Net probe = cv::dnn::readNetFromONNX(*n->model);
        if (probe.empty()) { delete n; say(message, cap, "not a readable ONNX network"); return SCV_ERR_DECODE; }
        std::vector<cv::String> names = probe.getUnconnectedOutLayersNames();
        if (names.size() != 4) { delete n; say(message, cap, "not a CenterFace network (expected 4 outputs)"); return SCV_ERR_DECODE; }
        n->spare = probe;  // the first input size needs no second parse
        *out = n;
        return SCV_OK;
    } catch (const cv::Exception &e) {
        delete n;
        char text[512];
        std::snprintf(text, sizeof text, "not a readable ONNX network: %s", e.what());
        say(message, cap, text);
        return SCV_ERR_DECODE;
    } catch (const std::exception &e) {
        delete n;
        say(message, cap, e.what());
        return SCV_ERR_OPENCV;
    } catch (...) {
        delete n;
        say(message, cap, "unknown error while loading the network");
        return SCV_ERR_OPENCV;
    }
}

extern "C" void scv_face_net_free(scv_face_net *net) { delete net; }

extern "C" scv_status scv_face_net_detect(scv_face_net *n, const uint8_t *luma, int w, int h, int stride, float threshold,
                                          scv_face_hit *out, int capacity, int *count) {
    if (count) *count = 0;
    if (!n || !luma || w <= 0 || h <= 0 || w % 32 || h % 32 || stride < w || capacity < 0 || (capacity > 0 && !out))
        return SCV_ERR_ARGUMENT;
    try {
        if (scv_fault_due()) throw std::bad_alloc();
        cv::Mat gray(h, w, CV_8UC1, const_cast<uint8_t *>(luma), static_cast<size_t>(stride));
        cv::Mat rgb;
        cv::cvtColor(gray, rgb, cv::COLOR_GRAY2RGB);
        n->forward(cv::dnn::blobFromImage(rgb, 1.0, cv::Size(w, h), cv::Scalar(), false, false), w, h);
        const cv::Mat &heat = n->outputs[0], &scale = n->outputs[1], &offset = n->outputs[2], &marks = n->outputs[3];
        int fh = heat.size[2], fw = heat.size[3];
        size_t plane = static_cast<size_t>(fh) * static_cast<size_t>(fw);
        const float *hp = heat.ptr<float>(), *sp = scale.ptr<float>(), *op = offset.ptr<float>(), *lp = marks.ptr<float>();
        n->hits.clear();
        for (int r = 0; r < fh; ++r) {
            for (int c = 0; c < fw; ++c) {
                size_t i = static_cast<size_t>(r) * static_cast<size_t>(fw) + static_cast<size_t>(c);
                float s = hp[i];
                if (!(s >= threshold)) continue;
                float sh = std::exp(sp[i]) * 4, sw = std::exp(sp[plane + i]) * 4;
                float oy = op[i], ox = op[plane + i];
                float x0 = (static_cast<float>(c) + ox + 0.5f) * 4 - sw / 2, y0 = (static_cast<float>(r) + oy + 0.5f) * 4 - sh / 2;
                scv_face_hit hit{};
                hit.x = x0; hit.y = y0; hit.width = sw; hit.height = sh; hit.score = s;
                for (int j = 0; j < 5; ++j) {
                    hit.landmarks[2 * j] = lp[static_cast<size_t>(2 * j + 1) * plane + i] * sw + x0;
                    hit.landmarks[2 * j + 1] = lp[static_cast<size_t>(2 * j) * plane + i] * sh + y0;
                }
                n->hits.push_back(hit);
            }
        }
        std::sort(n->hits.begin(), n->hits.end(), [](const scv_face_hit &a, const scv_face_hit &b) { return a.score > b.score; });
        int kept = 0;
        std::vector<bool> gone(n->hits.size(), false);
        for (size_t i = 0; i < n->hits.size(); ++i) {
            if (gone[i]) continue;
            for (size_t j = i + 1; j < n->hits.size(); ++j)
                if (!gone[j] && iou(n->hits[i], n->hits[j]) >= 0.3f) gone[j] = true;
            if (kept < capacity) out[kept] = n->hits[i];
            ++kept;
        }
        if (count) *count = kept;
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_face_net_prepare(scv_face_net *n, int w, int h) {
    if (!n || w <= 0 || h <= 0 || w % 32 || h % 32) return SCV_ERR_ARGUMENT;
    try {
        if (scv_fault_due()) throw std::bad_alloc();
        n->forward(cv::dnn::blobFromImage(cv::Mat(h, w, CV_8UC3, cv::Scalar(128, 128, 128)), 1.0, cv::Size(w, h),
                                          cv::Scalar(), false, false), w, h);
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}
