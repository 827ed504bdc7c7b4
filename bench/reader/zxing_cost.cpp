// What zxing-cpp's search for the formats zbar cannot read costs per frame, in-process (docs/reader.md).
// Build and run (Debian libzxing-dev, libopencv-dev):
//   g++ -O2 -o /tmp/zxing_cost bench/reader/zxing_cost.cpp -I/usr/include/opencv4 \
//       -lZXing -lopencv_imgcodecs -lopencv_core
//   /tmp/zxing_cost bench/out/reader/main/clean/*.png
// Prints the median over 5 rounds of ms per frame, and symbols found, for: the full search scand runs when
// zbar reads nothing (tryHarder, local-average binariser), the quick look it runs when zbar has read the frame
// (no tryHarder, fixed threshold), and the parts in between.
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>
#include <opencv2/imgcodecs.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
using namespace ZXing;

int main(int argc, char **argv) {
    std::vector<cv::Mat> frames;
    for (int i = 1; i < argc; i++) {
        cv::Mat m = cv::imread(argv[i], cv::IMREAD_GRAYSCALE);
        if (m.empty()) { std::fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
        frames.push_back(m);
    }
    if (frames.empty()) { std::fprintf(stderr, "usage: zxing_cost image...\n"); return 64; }
    const BarcodeFormats only = BarcodeFormat::DataMatrix | BarcodeFormat::Aztec | BarcodeFormat::PDF417 |
                                BarcodeFormat::MicroQRCode;
    struct Setting { const char *name; bool tryHarder; Binarizer binarizer; };
    const Setting settings[] = {
        {"full (tryHarder, local average)", true, Binarizer::LocalAverage},
        {"no tryHarder, local average", false, Binarizer::LocalAverage},
        {"tryHarder, fixed threshold", true, Binarizer::FixedThreshold},
        {"quick (no tryHarder, fixed threshold)", false, Binarizer::FixedThreshold},
    };
    for (const auto &s : settings) {
        std::vector<double> rounds;
        size_t found = 0;
        for (int round = 0; round < 5; round++) {
            DecodeHints h;
            h.setFormats(only); h.setTryHarder(s.tryHarder); h.setTryRotate(true); h.setTryDownscale(false);
            h.setBinarizer(s.binarizer);
            found = 0;
            auto t0 = std::chrono::steady_clock::now();
            for (const auto &m : frames)
                for (const auto &r : ReadBarcodes(ImageView(m.data, m.cols, m.rows, ImageFormat::Lum, int(m.step)), h))
                    found += r.isValid();
            rounds.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
                             frames.size());
        }
        std::sort(rounds.begin(), rounds.end());
        std::printf("%-40s %.3f ms/frame  found %zu\n", s.name, rounds[2], found);
    }
}
