// extern "C" shim over zxing-cpp. No C++ exception crosses this file's boundary.
#define ZX_USE_UTF8 1
#include "CScanZXing.h"
#include <ZXing/Content.h>
#include <ZXing/ReadBarcode.h>
#include <ZXing/ZXVersion.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {
using ZXing::BarcodeFormat;

const std::pair<uint32_t, BarcodeFormat> formatTable[] = {
    {SCZ_QR, BarcodeFormat::QRCode}, {SCZ_MICRO_QR, BarcodeFormat::MicroQRCode},
    {SCZ_EAN13, BarcodeFormat::EAN13}, {SCZ_EAN8, BarcodeFormat::EAN8}, {SCZ_UPCA, BarcodeFormat::UPCA},
    {SCZ_UPCE, BarcodeFormat::UPCE}, {SCZ_CODE39, BarcodeFormat::Code39}, {SCZ_CODE93, BarcodeFormat::Code93},
    {SCZ_CODE128, BarcodeFormat::Code128}, {SCZ_ITF, BarcodeFormat::ITF}, {SCZ_CODABAR, BarcodeFormat::Codabar},
    {SCZ_DATABAR, BarcodeFormat::DataBar}, {SCZ_DATABAR_EXP, BarcodeFormat::DataBarExpanded},
    {SCZ_PDF417, BarcodeFormat::PDF417}, {SCZ_AZTEC, BarcodeFormat::Aztec},
    {SCZ_DATA_MATRIX, BarcodeFormat::DataMatrix},
};

ZXing::BarcodeFormats toZXing(uint32_t bits) {
    ZXing::BarcodeFormats out;
    for (const auto &entry : formatTable)
        if (bits & entry.first) out |= entry.second;
    return out;
}

uint32_t fromZXing(BarcodeFormat f) {
    for (const auto &entry : formatTable)
        if (entry.second == f) return entry.first;
    return 0;
}

void setMessage(char *message, size_t cap, const char *text) {
    if (message && cap) std::snprintf(message, cap, "%s", text);
}

char *copyString(const std::string &s) {
    char *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

#if ZXING_VERSION_MAJOR == 1 && ZXING_VERSION_MINOR == 4
// zxing 1.4 keeps a result's character-set runs (which ECI, or QR's Kanji mode, set each run) in the private
// `Result::_content` and renders them only into its text. An explicit template instantiation may name a
// private member ([temp.explicit]: access is not checked there), so this reads it without changing zxing.
// The layout is the installed header's own; the version check above keeps this to the 1.4 headers.
template <typename Tag, typename Tag::type Member> struct ExposeMember {
    friend typename Tag::type memberPointer(Tag) { return Member; }
};
struct ResultContent {
    using type = ZXing::Content ZXing::Result::*;
    friend type memberPointer(ResultContent);
};
template struct ExposeMember<ResultContent, &ZXing::Result::_content>;

/// The runs of `r`'s payload in one character set: {offset, ECI or -1, set by a mode rather than an ECI}.
std::vector<scz_segment> segmentsOf(const ZXing::Result &r) {
    const ZXing::Content &content = r.*memberPointer(ResultContent());
    std::vector<scz_segment> out;
    for (const auto &e : content.encodings) {
        const int eci = static_cast<int>(e.eci);
        // Without any ECI, zxing records only the QR Kanji mode's switches to Shift JIS (ECI 20) and
        // "unknown" (-1) for runs it guesses.
        const int fromMode = !content.hasECI && eci >= 0 ? 1 : 0;
        if (!out.empty() && out.back().offset == e.pos) out.pop_back();
        out.push_back({e.pos, eci < 0 ? -1 : eci, fromMode});
    }
    if (out.empty() || out.front().offset != 0) out.insert(out.begin(), {0, -1, 0});
    return out;
}
#else
#warning "zxing-cpp is not 1.4: character-set runs come from hasECI()/bytesECI() only (no Kanji-mode runs)"
std::vector<scz_segment> segmentsOf(const ZXing::Result &r) {
    std::vector<scz_segment> out{{0, -1, 0}};
    if (!r.hasECI()) return out;
    // bytesECI(): "]" code modifier, then the payload with "\nnnnnn" ECI designators and doubled backslashes.
    const auto b = r.bytesECI();
    int pos = 0;
    for (size_t i = 3; i < b.size(); i++) {
        if (b[i] == '\\' && i + 1 < b.size() && b[i + 1] == '\\') { pos++; i++; continue; }
        if (b[i] == '\\' && i + 6 < b.size()) {
            int eci = 0;
            for (size_t k = 1; k <= 6; k++) eci = eci * 10 + (b[i + k] - '0');
            if (!out.empty() && out.back().offset == pos) out.pop_back();
            out.push_back({pos, eci, 0});
            i += 6;
            continue;
        }
        pos++;
    }
    if (out.empty() || out.front().offset != 0) out.insert(out.begin(), {0, -1, 0});
    return out;
}
#endif
} // namespace

extern "C" scz_status scz_read(const uint8_t *luma, int width, int height, int stride, const scz_options *options,
                               scz_result **results, int *count, char *message, size_t cap) {
    if (results) *results = nullptr;
    if (count) *count = 0;
    if (!luma || !options || !results || !count || width <= 0 || height <= 0 || stride < width) {
        setMessage(message, cap, "invalid arguments");
        return SCZ_ERR_ARGUMENT;
    }
    if (options->formats == 0) return SCZ_OK;
    try {
        // Debian's zxing 1.4.0 is built with assertions on, and merging several linear results in one
        // tryHarder multi-symbol read can abort (Result::operator==: `lineCount() == 1`). So matrix formats
        // are read as several symbols, linear formats (zbar's fallback here) as one symbol per call.
        const uint32_t linearBits = SCZ_EAN13 | SCZ_EAN8 | SCZ_UPCA | SCZ_UPCE | SCZ_CODE39 | SCZ_CODE93 |
                                    SCZ_CODE128 | SCZ_ITF | SCZ_CODABAR | SCZ_DATABAR | SCZ_DATABAR_EXP;
        ZXing::ImageView view(luma, width, height, ZXing::ImageFormat::Lum, stride);
        auto makeHints = [&](uint32_t bits) {
            ZXing::DecodeHints hints;
            hints.setFormats(toZXing(bits));
            hints.setTryHarder(options->try_harder != 0);
            hints.setTryRotate(options->try_rotate != 0);
            hints.setTryDownscale(options->try_downscale != 0);
            hints.setValidateITFCheckSum(options->validate_itf_checksum != 0);
            hints.setReturnCodabarStartEnd(true); // as zbar reports Codabar
            if (options->min_line_count > 0) hints.setMinLineCount(static_cast<uint8_t>(options->min_line_count));
            if (options->max_symbols > 0) hints.setMaxNumberOfSymbols(static_cast<uint8_t>(options->max_symbols));
            if (options->fixed_threshold) hints.setBinarizer(ZXing::Binarizer::FixedThreshold);
            return hints;
        };
        ZXing::Results found;
        const uint32_t matrix = options->formats & ~linearBits, linear = options->formats & linearBits;
        if (matrix) found = ZXing::ReadBarcodes(view, makeHints(matrix));
        if (linear) {
            ZXing::DecodeHints hints = makeHints(linear);
            if (hints.tryHarder()) hints.setMaxNumberOfSymbols(1);
            for (auto &r : ZXing::ReadBarcodes(view, hints)) found.push_back(std::move(r));
        }
        int valid = 0;
        for (const auto &r : found) if (r.isValid() && fromZXing(r.format())) valid++;
        if (valid == 0) return SCZ_OK;
        auto *out = static_cast<scz_result *>(std::calloc(static_cast<size_t>(valid), sizeof(scz_result)));
        if (!out) return SCZ_ERR_MEMORY;
        int n = 0;
        for (const auto &r : found) {
            if (!r.isValid() || !fromZXing(r.format())) continue;
            scz_result &dst = out[n++];
            dst.format = fromZXing(r.format());
            const auto &bytes = r.bytes();
            dst.length = bytes.size();
            dst.bytes = static_cast<uint8_t *>(std::malloc(bytes.size() ? bytes.size() : 1));
            if (!dst.bytes) { scz_results_free(out, n); return SCZ_ERR_MEMORY; }
            if (!bytes.empty()) std::memcpy(dst.bytes, bytes.data(), bytes.size());
            dst.has_eci = r.hasECI() ? 1 : 0;
            dst.gs1 = r.contentType() == ZXing::ContentType::GS1 ? 1 : 0;
            dst.text = copyString(r.text());
            const auto segments = segmentsOf(r);
            dst.segments = static_cast<scz_segment *>(std::malloc(segments.size() * sizeof(scz_segment)));
            if (!dst.text || !dst.segments) { scz_results_free(out, n); return SCZ_ERR_MEMORY; }
            std::memcpy(dst.segments, segments.data(), segments.size() * sizeof(scz_segment));
            dst.segment_count = static_cast<int>(segments.size());
            dst.content_binary = r.contentType() == ZXing::ContentType::Binary ? 1 : 0;
            dst.line_count = r.lineCount();
            const auto &p = r.position();
            const ZXing::PointI pts[4] = {p.topLeft(), p.topRight(), p.bottomRight(), p.bottomLeft()};
            for (int i = 0; i < 4; i++) { dst.corners[2 * i] = pts[i].x; dst.corners[2 * i + 1] = pts[i].y; }
        }
        *results = out;
        *count = n;
        return SCZ_OK;
    } catch (const std::exception &e) {
        setMessage(message, cap, e.what());
        return SCZ_ERR_ZXING;
    } catch (...) {
        setMessage(message, cap, "unknown zxing exception");
        return SCZ_ERR_ZXING;
    }
}

extern "C" void scz_results_free(scz_result *results, int count) {
    if (!results) return;
    for (int i = 0; i < count; i++) {
        std::free(results[i].bytes);
        std::free(results[i].text);
        std::free(results[i].segments);
    }
    std::free(results);
}

extern "C" const char *scz_version(void) {
#define SCZ_STR2(x) #x
#define SCZ_STR(x) SCZ_STR2(x)
    return SCZ_STR(ZXING_VERSION_MAJOR) "." SCZ_STR(ZXING_VERSION_MINOR) "." SCZ_STR(ZXING_VERSION_PATCH);
}
