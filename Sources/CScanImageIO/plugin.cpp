// Lazy loading of libscand-opencv-codecs.so (OpenCV imgcodecs + videoio). It is only loaded when an
// input is neither PNG, JPEG, PNM nor Y4M, so `scand --help` and ordinary scans stay fast.
#include "CScanImageIO.h"
#include "../CScanOpenCVCodecs/include/CScanOpenCVCodecs.h"
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <limits.h>
#include <mutex>
#include <string>
#include <unistd.h>

namespace {
struct Plugin {
    void *handle = nullptr;
    decltype(&scvc_image_decode) image_decode = nullptr;
    decltype(&scvc_image_gray) image_gray = nullptr;
    decltype(&scvc_image_free) image_free = nullptr;
    decltype(&scvc_video_open) video_open = nullptr;
    decltype(&scvc_stream_open) stream_open = nullptr;
    decltype(&scvc_video_read) video_read = nullptr;
    decltype(&scvc_video_gray) video_gray = nullptr;
    decltype(&scvc_video_close) video_close = nullptr;
    std::string error;
};
std::mutex plugin_mutex;
Plugin plugin;

void set_message(char *message, size_t cap, const std::string &text) {
    if (message && cap) std::snprintf(message, cap, "%s", text.c_str());
}

std::string executable_dir() {
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return ".";
    path[n] = 0;
    std::string s(path);
    auto slash = s.rfind('/');
    return slash == std::string::npos ? "." : s.substr(0, slash);
}

template <typename T> bool bind(void *h, T &slot, const char *name) {
    slot = reinterpret_cast<T>(dlsym(h, name));
    return slot != nullptr;
}

bool try_open(const std::string &file) {
    void *h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) { plugin.error += std::string("\n  ") + dlerror(); return false; }
    bool ok = bind(h, plugin.image_decode, "scvc_image_decode");
    ok = bind(h, plugin.image_gray, "scvc_image_gray") && ok;
    ok = bind(h, plugin.image_free, "scvc_image_free") && ok;
    ok = bind(h, plugin.video_open, "scvc_video_open") && ok;
    ok = bind(h, plugin.stream_open, "scvc_stream_open") && ok;
    ok = bind(h, plugin.video_read, "scvc_video_read") && ok;
    ok = bind(h, plugin.video_gray, "scvc_video_gray") && ok;
    ok = bind(h, plugin.video_close, "scvc_video_close") && ok;
    if (!ok) {
        plugin.error += "\n  " + file + ": missing symbols";
        dlclose(h);
        return false;
    }
    plugin.handle = h;
    return true;
}

bool prepared = false; // the environment for OpenCV has been set (guarded by plugin_mutex)

/// Sets, unless the environment already does, what OpenCV reads once when its libraries initialise:
/// OPENCV_IO_MAX_IMAGE_PIXELS (imgcodecs refuses a larger header before it allocates the image) to
/// `max_pixels`, and OPENCV_FFMPEG_LOGLEVEL to quiet (-8), so FFmpeg's own unattributed messages do not reach
/// stderr (scand reports the failure itself, naming the input). Called with plugin_mutex held.
void prepare_locked(uint64_t max_pixels) {
    if (prepared || plugin.handle) return;
    prepared = true;
    if (max_pixels > 0) {
        char value[32];
        std::snprintf(value, sizeof value, "%llu", static_cast<unsigned long long>(max_pixels));
        setenv("OPENCV_IO_MAX_IMAGE_PIXELS", value, 0);
    }
    setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
}

/// Loads the plugin once. The environment for OpenCV is set first (see prepare_locked) if sio_plugin_prepare
/// did not do it at startup, with the larger of this caller's budget and the default (so a caller with a
/// small budget does not lower OpenCV's cap for every later caller; the plugin checks each call's own budget
/// after decoding as well).
sio_status ensure(const char *directory, uint64_t max_pixels, char *message, size_t cap) {
    std::lock_guard<std::mutex> lock(plugin_mutex);
    if (plugin.handle) return SIO_OK;
    prepare_locked(max_pixels > SIO_DEFAULT_MAX_PIXELS ? max_pixels : SIO_DEFAULT_MAX_PIXELS);
    plugin.error.clear();
    const std::string name = "libscand-opencv-codecs.so";
    // The installed layout (scripts/install): <prefix>/bin/scand and <prefix>/lib/scand/<plugin>; then the
    // build folder (plugin next to the binary).
    std::string dirs[5];
    int count = 0;
    if (directory && *directory) dirs[count++] = directory;
    if (const char *env = getenv("SCAND_PLUGIN_DIR")) dirs[count++] = env;
    const std::string exe = executable_dir();
    const auto slash = exe.rfind('/');
    dirs[count++] = (slash == std::string::npos || slash == 0 ? std::string() : exe.substr(0, slash)) + "/lib/scand";
    dirs[count++] = exe;
    dirs[count++] = "/usr/local/lib/scand";
    for (int i = 0; i < count; i++) {
        if (try_open(dirs[i] + "/" + name)) return SIO_OK;
    }
    set_message(message, cap, "the OpenCV codecs plugin (" + name + ") could not be loaded:" + plugin.error);
    return SIO_ERR_NO_PLUGIN;
}
} // namespace

struct sio_video { void *inner; };

extern "C" void sio_plugin_prepare(uint64_t max_pixels) {
    try {
        std::lock_guard<std::mutex> lock(plugin_mutex);
        prepare_locked(max_pixels);
    } catch (...) {}
}

extern "C" sio_status sio_plugin_load(const char *directory, uint64_t max_pixels, char *message, size_t cap) {
    try { return ensure(directory, max_pixels, message, cap); } catch (...) { return SIO_ERR_NO_PLUGIN; }
}

// The plugin's half of sio_image (decode.cpp): C++ linkage, called inside decode.cpp's catch blocks.
sio_status sio_plugin_image_open(const uint8_t *bytes, size_t length, uint64_t max_pixels, void **image,
                                 int *width, int *height, char *message, size_t cap) {
    *image = nullptr;
    sio_status s = ensure(nullptr, max_pixels, message, cap);
    if (s != SIO_OK) return s;
    return static_cast<sio_status>(plugin.image_decode(bytes, length, max_pixels, image, width, height, message, cap));
}

sio_status sio_plugin_image_gray(void *image, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    return static_cast<sio_status>(plugin.image_gray(image, dst, capacity, message, cap));
}

void sio_plugin_image_free(void *image) {
    if (image && plugin.image_free) plugin.image_free(image);
}

extern "C" sio_status sio_plugin_video_open(const char *path, uint64_t max_pixels, sio_video **out, double *fps,
                                            char *message, size_t cap) {
    try {
        *out = nullptr;
        sio_status s = ensure(nullptr, max_pixels, message, cap);
        if (s != SIO_OK) return s;
        void *inner = nullptr;
        int rc = plugin.video_open(path, max_pixels, &inner, fps, message, cap);
        if (rc != 0) return static_cast<sio_status>(rc);
        *out = new sio_video{inner};
        return SIO_OK;
    } catch (...) { set_message(message, cap, "unexpected exception"); return SIO_ERR_OPENCV; }
}

extern "C" sio_status sio_plugin_stream_open(const char *url, uint64_t max_pixels, int open_timeout_ms,
                                             int read_timeout_ms, sio_video **out, double *fps, char *message,
                                             size_t cap) {
    try {
        *out = nullptr;
        sio_status s = ensure(nullptr, max_pixels, message, cap);
        if (s != SIO_OK) return s;
        void *inner = nullptr;
        int rc = plugin.stream_open(url, max_pixels, open_timeout_ms, read_timeout_ms, &inner, fps, message, cap);
        if (rc != 0) return static_cast<sio_status>(rc);
        *out = new sio_video{inner};
        return SIO_OK;
    } catch (...) { set_message(message, cap, "unexpected exception"); return SIO_ERR_OPENCV; }
}

extern "C" sio_status sio_plugin_video_read(sio_video *video, int *width, int *height, double *time, char *message, size_t cap) {
    try {
        if (!video) return SIO_ERR_ARGUMENT;
        return static_cast<sio_status>(plugin.video_read(video->inner, width, height, time, message, cap));
    } catch (...) { set_message(message, cap, "unexpected exception"); return SIO_ERR_OPENCV; }
}

extern "C" sio_status sio_plugin_video_gray(sio_video *video, uint8_t *dst, size_t capacity, char *message, size_t cap) {
    try {
        if (!video || !dst) return SIO_ERR_ARGUMENT;
        return static_cast<sio_status>(plugin.video_gray(video->inner, dst, capacity, message, cap));
    } catch (...) { set_message(message, cap, "unexpected exception"); return SIO_ERR_OPENCV; }
}

extern "C" void sio_plugin_video_close(sio_video *video) {
    if (!video) return;
    try { plugin.video_close(video->inner); } catch (...) {}
    delete video;
}
