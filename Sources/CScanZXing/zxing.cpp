// extern "C" shim over zxing-cpp. No C++ exception crosses this file's boundary.
#include "CScanZXing.h"
#include <new>
#include <atomic>
// zxing-cpp 3.1.1, built by scripts/build-zxing into .build-deps/ (Package.swift points here). The library was
// compiled with ZXING_INTERNAL; its private BarcodeData.h (installed next to the public headers) is included
// for the character-set runs below, so the shim is compiled with the same define.
#include <ZXing/BarcodeData.h>
#include <ZXing/ReadBarcode.h>
#include <ZXing/Version.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if ZXING_VERSION_MAJOR != 3 || ZXING_VERSION_MINOR != 1
#error "CScanZXing reads zxing-cpp 3.1's private BarcodeData layout: build it with scripts/build-zxing"
#endif

namespace {
using ZXing::BarcodeFormat;

// Formats asked for. Code 39 is asked for as Code39Std: scand decodes Full ASCII itself (an option), so
// zxing hands over the raw characters as 1.4 did; Code 32 and PZN are never asked for (scand's --code32
// converts the raw Code 39 itself).
const std::pair<uint32_t, BarcodeFormat> requestTable[] = {
    {SCZ_QR, BarcodeFormat::QRCode}, {SCZ_MICRO_QR, BarcodeFormat::MicroQRCode},
    {SCZ_EAN13, BarcodeFormat::EAN13}, {SCZ_EAN8, BarcodeFormat::EAN8}, {SCZ_UPCA, BarcodeFormat::UPCA},
    {SCZ_UPCE, BarcodeFormat::UPCE}, {SCZ_CODE39, BarcodeFormat::Code39Std}, {SCZ_CODE93, BarcodeFormat::Code93},
    {SCZ_CODE128, BarcodeFormat::Code128}, {SCZ_ITF, BarcodeFormat::ITF}, {SCZ_CODABAR, BarcodeFormat::Codabar},
    {SCZ_DATABAR, BarcodeFormat::DataBarOmni}, {SCZ_DATABAR_EXP, BarcodeFormat::DataBarExp},
    {SCZ_PDF417, BarcodeFormat::PDF417}, {SCZ_AZTEC, BarcodeFormat::Aztec},
    {SCZ_DATA_MATRIX, BarcodeFormat::DataMatrix},
};

ZXing::BarcodeFormats toZXing(uint32_t bits) {
    std::vector<BarcodeFormat> out;
    for (const auto &entry : requestTable)
        if (bits & entry.first) out.push_back(entry.second);
    return ZXing::BarcodeFormats(std::move(out));
}

/// The SCZ_* bit of a result's format (3.x reports variants: QR Model 2, Code 39 Standard, ITF-14, …).
uint32_t fromZXing(BarcodeFormat f) {
    using enum BarcodeFormat;
    switch (f) {
    case EAN13: case ISBN: return SCZ_EAN13;
    case EAN8: return SCZ_EAN8;
    case UPCA: return SCZ_UPCA;
    case UPCE: return SCZ_UPCE;
    case MicroQRCode: return SCZ_MICRO_QR;
    case DataBarExp: case DataBarExpStk: return SCZ_DATABAR_EXP;
    default: break;
    }
    switch (ZXing::Symbology(f)) {
    case QRCode: return f == RMQRCode ? 0 : SCZ_QR;
    case Code39: return (f == Code39 || f == Code39Std) ? SCZ_CODE39 : 0;
    case Code93: return SCZ_CODE93;
    case Code128: return SCZ_CODE128;
    case ITF: return SCZ_ITF;
    case Codabar: return SCZ_CODABAR;
    case DataBar: return SCZ_DATABAR;
    case PDF417: return SCZ_PDF417;
    case Aztec: return SCZ_AZTEC;
    case DataMatrix: return SCZ_DATA_MATRIX;
    default: return 0;
    }
}

void setMessage(char *message, size_t cap, const char *text) {
    if (message && cap) std::snprintf(message, cap, "%s", text);
}

char *copyString(const std::string &s) {
    char *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

// zxing keeps a result's character-set runs (which ECI, or QR's Kanji mode, set each run) in the private
// `Barcode::d` (BarcodeData::content) and renders them only into its text. An explicit template
// instantiation may name a private member ([temp.explicit]: access is not checked there), so this reads it
// without changing zxing. BarcodeData.h is the built library's own header (same sdist, same defines).
template <typename Tag, typename Tag::type Member> struct ExposeMember {
    friend typename Tag::type memberPointer(Tag) { return Member; }
};
struct BarcodeDataPointer {
    using type = std::shared_ptr<ZXing::BarcodeData> ZXing::Barcode::*;
    friend type memberPointer(BarcodeDataPointer);
};
template struct ExposeMember<BarcodeDataPointer, &ZXing::Barcode::d>;

/// The runs of `r`'s payload in one character set: {offset, ECI or -1, set by a mode rather than an ECI}.
std::vector<scz_segment> segmentsOf(const ZXing::Barcode &r) {
    std::vector<scz_segment> out;
    const auto &data = r.*memberPointer(BarcodeDataPointer());
    if (data) {
        const ZXing::Content &content = data->content;
        for (const auto &e : content.encodings) {
            const int eci = static_cast<int>(e.eci);
            // Without any ECI, zxing records only mode switches (QR Kanji mode: Shift JIS, ECI 20) and
            // "unknown" (-1) for runs it guesses.
            const int fromMode = !content.hasECI && eci >= 0 ? 1 : 0;
            if (!out.empty() && out.back().offset == e.pos) out.pop_back();
            out.push_back({e.pos, eci < 0 ? -1 : eci, fromMode});
        }
    }
    if (out.empty() || out.front().offset != 0) out.insert(out.begin(), {0, -1, 0});
    return out;
}

/// zxing 1.4's `validateITFCheckSum` applied to ITF only; 3.x's validateOptionalChecksum also rejects
/// Code 39 without its optional check character, so ITF's check is applied here (symbology identifier "]I1").
bool acceptable(const ZXing::Barcode &r, const scz_options *options) {
    if (!r.isValid() || !fromZXing(r.format())) return false;
    if (options->validate_itf_checksum && fromZXing(r.format()) == SCZ_ITF) {
        const auto si = r.symbologyIdentifier();
        return si.size() >= 3 && si[2] == '1';
    }
    return true;
}
} // namespace

// Test hook (docs/testing.md): SCAND_TEST_FAULT_ZXING=N makes every Nth call below fail as an allocation
// failure would (std::bad_alloc inside the try block), so the tests follow the error out of the shim without
// exhausting memory. Unset or 0: never.
static bool zxingFaultDue() {
    static const long every = [] {
        const char *v = std::getenv("SCAND_TEST_FAULT_ZXING");
        return v ? std::atol(v) : 0L;
    }();
    if (every <= 0) return false;
    static std::atomic<long> calls{0};
    return (calls.fetch_add(1) + 1) % every == 0;
}

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
        if (zxingFaultDue()) throw std::bad_alloc();
        ZXing::ImageView view(luma, width, height, ZXing::ImageFormat::Lum, stride);
        ZXing::ReaderOptions hints;
        hints.setFormats(toZXing(options->formats));
        hints.setTryHarder(options->try_harder != 0);
        hints.setTryRotate(options->try_rotate != 0);
        hints.setTryDownscale(options->try_downscale != 0);
        hints.setTryInvert(options->try_invert != 0); // scand's passes make their own inverted twins
        hints.setValidateOptionalChecksum(false);
        hints.setTextMode(ZXing::TextMode::Plain);
        if (options->min_line_count > 0) hints.setMinLineCount(static_cast<uint8_t>(options->min_line_count));
        if (options->max_symbols > 0) hints.setMaxNumberOfSymbols(static_cast<uint8_t>(options->max_symbols));
        if (options->fixed_threshold) hints.setBinarizer(ZXing::Binarizer::FixedThreshold);
        const ZXing::Barcodes found = ZXing::ReadBarcodes(view, hints);
        int valid = 0;
        for (const auto &r : found) if (acceptable(r, options)) valid++;
        if (valid == 0) return SCZ_OK;
        auto *out = static_cast<scz_result *>(std::calloc(static_cast<size_t>(valid), sizeof(scz_result)));
        if (!out) return SCZ_ERR_MEMORY;
        int n = 0;
        for (const auto &r : found) {
            if (!acceptable(r, options)) continue;
            scz_result &dst = out[n++];
            dst.format = fromZXing(r.format());
            // 3.x reports UPC-E and UPC-A as their 13-digit EAN-13 form (ISO/IEC 15420 "]E0"); scand (like 1.4)
            // hands over UPC-E's own 8 digits and UPC-A's 12.
            std::vector<uint8_t> bytes = r.bytes();
            if (r.format() == BarcodeFormat::UPCE) {
                const auto upce = r.extra(ZXing::BarcodeExtra::UPCE);
                if (upce.size() == 8) bytes.assign(upce.begin(), upce.end());
            } else if (r.format() == BarcodeFormat::UPCA && bytes.size() == 13 && bytes.front() == '0') {
                bytes.erase(bytes.begin());
            }
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
            dst.sequence_index = r.isPartOfSequence() ? r.sequenceIndex() : -1;
            dst.sequence_size = r.isPartOfSequence() ? r.sequenceSize() : -1;
            const std::string sequenceID = r.isPartOfSequence() ? r.sequenceId() : std::string();
            std::snprintf(dst.sequence_id, sizeof dst.sequence_id, "%s", sequenceID.c_str());
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
    return ZXING_VERSION_STR;
}
