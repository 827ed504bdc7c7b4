// What zxing-cpp 3.1's search costs on a thresholded frame, per format family (docs/reader.md, "The live
// tail, split"): the frames are thresholded as scand's thresholded pass does (OpenCV adaptive mean, block
// ≈ 1/24 of the long side, c = 2), then read with tryHarder and tryRotate, no tryDownscale, no tryInvert.
// Build and run (zxing-cpp from scripts/build-zxing, OpenCV from Debian):
//   g++ -O2 -std=c++20 -w -o /tmp/zxing_threshold_cost bench/reader/zxing_threshold_cost.cpp \
//       -I.build-deps/zxing-cpp-3.1.1/include -I/usr/include/opencv4 .build-deps/zxing-cpp-3.1.1/lib/libZXing.a \
//       -lopencv_imgcodecs -lopencv_imgproc -lopencv_core
//   ffmpeg -i bench/out/clip-1280x720-faces.y4m -vf "select=not(mod(n\,30))" -vsync 0 /tmp/f%02d.png
//   /tmp/zxing_threshold_cost /tmp/f*.png
// Prints the median and 90th percentile ms per frame over 3 rounds for each setting.
#include <ZXing/ReadBarcode.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <string>
using namespace ZXing;
int main(int argc, char **argv) {
    std::vector<cv::Mat> frames;
    for (int i = 1; i < argc; i++) {
        cv::Mat m = cv::imread(argv[i], cv::IMREAD_GRAYSCALE), t;
        int block = std::min(101, std::max(15, (std::max(m.cols, m.rows) / 24) | 1));
        cv::adaptiveThreshold(m, t, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, block, 2);
        frames.push_back(t);
    }
    struct S { const char *name; bool harder; bool rotate; Binarizer b; BarcodeFormats f; };
    BarcodeFormats all = BarcodeFormat::Any;
    BarcodeFormats lin = BarcodeFormat::LinearCodes;
    BarcodeFormats mat = BarcodeFormat::MatrixCodes;
    S ss[] = {
        {"all harder rotate LA", true, true, Binarizer::LocalAverage, all},
        {"all harder rotate FT", true, true, Binarizer::FixedThreshold, all},
        {"all harder norot LA", true, false, Binarizer::LocalAverage, all},
        {"all noharder rotate LA", false, true, Binarizer::LocalAverage, all},
        {"lin harder rotate LA", true, true, Binarizer::LocalAverage, lin},
        {"lin harder rotate FT", true, true, Binarizer::FixedThreshold, lin},
        {"mat harder rotate LA", true, true, Binarizer::LocalAverage, mat},
        {"mat harder rotate FT", true, true, Binarizer::FixedThreshold, mat},
        {"qr harder LA", true, true, Binarizer::LocalAverage, BarcodeFormat::QRCode},
        {"dm harder LA", true, true, Binarizer::LocalAverage, BarcodeFormat::DataMatrix},
        {"aztec harder LA", true, true, Binarizer::LocalAverage, BarcodeFormat::Aztec},
        {"pdf harder LA", true, true, Binarizer::LocalAverage, BarcodeFormat::PDF417},
        {"microqr harder LA", true, true, Binarizer::LocalAverage, BarcodeFormat::MicroQRCode},
    };
    for (auto &s : ss) {
        std::vector<double> per;
        for (int round = 0; round < 3; round++) for (auto &m : frames) {
            ReaderOptions h; h.setFormats(s.f); h.setTryHarder(s.harder); h.setTryRotate(s.rotate); h.setTryDownscale(false); h.setTryInvert(false); h.setBinarizer(s.b);
            ImageView v(m.data, m.cols, m.rows, ImageFormat::Lum, (int)m.step);
            auto t0 = std::chrono::steady_clock::now();
            auto r = ReadBarcodes(v, h);
            per.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(per.begin(), per.end());
        std::printf("%-28s median %.1f ms  p90 %.1f\n", s.name, per[per.size()/2], per[per.size()*9/10]);
    }
}
