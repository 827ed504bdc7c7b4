// C++'s standard streams sent through the C library's `stderr` (which scan_stderr_install replaces): OpenCV's
// logger writes its warnings and errors to std::cerr, and, when OPENCV_LOG_LEVEL asks for them, its INFO lines
// to std::cout, which is scand's JSON stdout. With these buffers all three reach scand's log lines instead.
#include <cstdio>
#include <iostream>
#include <streambuf>

namespace {
/// A stream buffer with no buffer of its own: every write is handed to whatever `stderr` names at that moment,
/// so one `<<` of a whole line is one write to the replacement stream (which makes a log line of it).
class CStderrBuffer final : public std::streambuf {
protected:
    int_type overflow(int_type ch) override {
        if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
        const char c = traits_type::to_char_type(ch);
        return std::fwrite(&c, 1, 1, stderr) == 1 ? ch : traits_type::eof();
    }
    std::streamsize xsputn(const char *bytes, std::streamsize count) override {
        if (count <= 0) return 0;
        return static_cast<std::streamsize>(std::fwrite(bytes, 1, static_cast<size_t>(count), stderr));
    }
    int sync() override { return std::fflush(stderr) == 0 ? 0 : -1; }
};
}

extern "C" void scan_stderr_route_cxx_streams(void) {
    // Never freed: the standard streams may be used until the very end of the program, after static objects
    // are destroyed.
    static CStderrBuffer *buffer = new CStderrBuffer();
    std::cout.flush();
    std::cerr.flush();
    std::cout.rdbuf(buffer);
    std::cerr.rdbuf(buffer);
    std::clog.rdbuf(buffer);
}
