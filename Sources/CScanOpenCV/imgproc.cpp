#include "CScanOpenCV.h"
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <cmath>
#include <vector>

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

extern "C" scv_status scv_adaptive_threshold(const uint8_t *src, int w, int h, int stride, uint8_t *dst, int block, double c,
                                             int invert) {
    if (!src || !dst || w <= 0 || h <= 0 || block < 3 || block % 2 == 0) return SCV_ERR_ARGUMENT;
    try {
        cv::Mat out(h, w, CV_8UC1, dst);
        cv::adaptiveThreshold(wrap(src, w, h, stride), out, 255, cv::ADAPTIVE_THRESH_MEAN_C,
                              invert ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY, block, c);
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

extern "C" scv_status scv_warp_affine(const uint8_t *src, int w, int h, int stride, uint8_t *dst, int dw, int dh,
                                      const double *m, int border) {
    if (!src || !dst || !m || w <= 0 || h <= 0 || dw <= 0 || dh <= 0 || stride < w) return SCV_ERR_ARGUMENT;
    try {
        cv::Mat out(dh, dw, CV_8UC1, dst);
        cv::Mat map(2, 3, CV_64F, const_cast<double *>(m));
        cv::warpAffine(wrap(src, w, h, stride), out, map, out.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                       cv::Scalar(border < 0 ? 0 : (border > 255 ? 255 : border)));
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_bar_orientations(const uint8_t *src, int w, int h, int stride, int block,
                                           double min_coherence, int min_blocks,
                                           double *angles, double *support, int capacity, int *count) {
    if (!src || !angles || !support || !count || w <= 0 || h <= 0 || stride < w || block < 2 || block > 2000 || capacity < 1)
        return SCV_ERR_ARGUMENT;
    *count = 0;
    try {
        // 3×3 Sobel in 16 bits (|g| ≤ 1020, exact), then each block's structure tensor (the means of gx², gy²
        // and gx·gy over its pixels) summed in one pass, in integers: no full-size product images.
        cv::Mat gx, gy;
        cv::Mat in = wrap(src, w, h, stride);
        cv::Sobel(in, gx, CV_16S, 1, 0, 3);
        cv::Sobel(in, gy, CV_16S, 0, 1, 3);
        const int bw = w / block, bh = h / block;
        if (bw < 1 || bh < 1) return SCV_OK;
        std::vector<int64_t> sxx(static_cast<size_t>(bw)), syy(static_cast<size_t>(bw)), sxy(static_cast<size_t>(bw));
        cv::Mat xx(bh, bw, CV_32F), yy(bh, bw, CV_32F), xy(bh, bw, CV_32F);
        const double area = static_cast<double>(block) * block;
        for (int by = 0; by < bh; ++by) {
            std::fill(sxx.begin(), sxx.end(), 0);
            std::fill(syy.begin(), syy.end(), 0);
            std::fill(sxy.begin(), sxy.end(), 0);
            for (int y = by * block; y < (by + 1) * block; ++y) {
                const int16_t *rx = gx.ptr<int16_t>(y), *ry = gy.ptr<int16_t>(y);
                for (int bx = 0; bx < bw; ++bx) {
                    int32_t a = 0, b = 0, c = 0; // ≤ block × 1020² per row: fits for blocks up to 2000 pixels
                    for (int x = bx * block; x < (bx + 1) * block; ++x) {
                        const int32_t u = rx[x], v = ry[x];
                        a += u * u; b += v * v; c += u * v;
                    }
                    sxx[static_cast<size_t>(bx)] += a; syy[static_cast<size_t>(bx)] += b; sxy[static_cast<size_t>(bx)] += c;
                }
            }
            for (int bx = 0; bx < bw; ++bx) {
                xx.at<float>(by, bx) = static_cast<float>(sxx[static_cast<size_t>(bx)] / area);
                yy.at<float>(by, bx) = static_cast<float>(syy[static_cast<size_t>(bx)] / area);
                xy.at<float>(by, bx) = static_cast<float>(sxy[static_cast<size_t>(bx)] / area);
            }
        }
        // Gradient orientation of each coherent block, as a doubled-angle vector so 0 and 180 degrees agree.
        const int bins = 90; // 2 degrees each
        std::vector<double> hist(bins, 0.0), sx(bins, 0.0), sy(bins, 0.0);
        for (int y = 0; y < bh; ++y) {
            for (int x = 0; x < bw; ++x) {
                const double a = xx.at<float>(y, x), b = yy.at<float>(y, x), c = xy.at<float>(y, x);
                const double e = a + b;
                if (e < 400.0) continue; // flat: under ~5 grey levels per pixel of gradient
                const double vx = a - b, vy = 2 * c;
                const double coherence = std::sqrt(vx * vx + vy * vy) / e;
                if (coherence < min_coherence) continue;
                double doubled = std::atan2(vy, vx); // (-pi, pi]
                if (doubled < 0) doubled += 2 * CV_PI;
                int bin = static_cast<int>(doubled / (2 * CV_PI) * bins) % bins;
                hist[bin] += 1.0;
                sx[bin] += std::cos(doubled);
                sy[bin] += std::sin(doubled);
            }
        }
        // Peaks of the histogram smoothed over 5 bins (10 degrees), at least 10 degrees apart.
        std::vector<double> smooth(bins, 0.0);
        for (int i = 0; i < bins; ++i)
            for (int k = -2; k <= 2; ++k) smooth[i] += hist[(i + k + bins) % bins] * (3 - std::abs(k));
        std::vector<bool> used(bins, false);
        while (*count < capacity) {
            int best = -1;
            for (int i = 0; i < bins; ++i)
                if (!used[i] && (best < 0 || smooth[i] > smooth[best])) best = i;
            if (best < 0) break;
            double n = 0, cx = 0, cy = 0;
            for (int k = -2; k <= 2; ++k) {
                const int j = (best + k + bins) % bins;
                n += hist[j]; cx += sx[j]; cy += sy[j];
            }
            if (n < min_blocks) break;
            double doubled = std::atan2(cy, cx);
            if (doubled < 0) doubled += 2 * CV_PI;
            angles[*count] = doubled / 2 * 180.0 / CV_PI;
            support[*count] = n;
            ++*count;
            for (int k = -5; k <= 5; ++k) used[(best + k + bins) % bins] = true;
        }
        return SCV_OK;
    } catch (...) { return SCV_ERR_OPENCV; }
}
