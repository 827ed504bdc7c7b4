// Lazy loading of libscand-opencv-codecs.so (OpenCV imgcodecs + videoio). It is only loaded when an
// input is neither PNG, JPEG, PNM nor Y4M, so `scand --help` and ordinary scans stay fast.
#include "CScanOpenCV.h"
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
    decltype(&scvc_decode_image) decode = nullptr;
    decltype(&scvc_video_open) video_open = nullptr;
    decltype(&scvc_video_read) video_read = nullptr;
    decltype(&scvc_video_close) video_close = nullptr;
    decltype(&scvc_free) free_data = nullptr;
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

bool try_open(const std::string &file) {
    void *h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) { plugin.error += std::string("\n  ") + dlerror(); return false; }
    plugin.decode = reinterpret_cast<decltype(plugin.decode)>(dlsym(h, "scvc_decode_image"));
    plugin.video_open = reinterpret_cast<decltype(plugin.video_open)>(dlsym(h, "scvc_video_open"));
    plugin.video_read = reinterpret_cast<decltype(plugin.video_read)>(dlsym(h, "scvc_video_read"));
    plugin.video_close = reinterpret_cast<decltype(plugin.video_close)>(dlsym(h, "scvc_video_close"));
    plugin.free_data = reinterpret_cast<decltype(plugin.free_data)>(dlsym(h, "scvc_free"));
    if (!plugin.decode || !plugin.video_open || !plugin.video_read || !plugin.video_close || !plugin.free_data) {
        plugin.error += "\n  " + file + ": missing symbols";
        dlclose(h);
        return false;
    }
    plugin.handle = h;
    return true;
}

scv_status ensure(const char *directory, char *message, size_t cap) {
    std::lock_guard<std::mutex> lock(plugin_mutex);
    if (plugin.handle) return SCV_OK;
    plugin.error.clear();
    const std::string name = "libscand-opencv-codecs.so";
    std::string dirs[4];
    int count = 0;
    if (directory && *directory) dirs[count++] = directory;
    if (const char *env = getenv("SCAND_PLUGIN_DIR")) dirs[count++] = env;
    dirs[count++] = executable_dir();
    dirs[count++] = "/usr/local/lib/scand";
    for (int i = 0; i < count; i++) {
        if (try_open(dirs[i] + "/" + name)) return SCV_OK;
    }
    set_message(message, cap, "the OpenCV codecs plugin (" + name + ") could not be loaded:" + plugin.error);
    return SCV_ERR_NO_PLUGIN;
}

scv_status copy_out(uint8_t *data, int w, int h, scv_gray *out) {
    out->width = w; out->height = h;
    out->data = static_cast<uint8_t *>(std::malloc(static_cast<size_t>(w) * h));
    if (!out->data) { plugin.free_data(data); return SCV_ERR_MEMORY; }
    std::memcpy(out->data, data, static_cast<size_t>(w) * h);
    plugin.free_data(data);
    return SCV_OK;
}
} // namespace

struct scv_video { void *inner; };

extern "C" scv_status scv_plugin_load(const char *directory, char *message, size_t cap) {
    try { return ensure(directory, message, cap); } catch (...) { return SCV_ERR_NO_PLUGIN; }
}

extern "C" scv_status scv_plugin_decode_image(const uint8_t *bytes, size_t length, scv_gray *out, char *message, size_t cap) {
    try {
        out->data = nullptr; out->width = out->height = 0;
        scv_status s = ensure(nullptr, message, cap);
        if (s != SCV_OK) return s;
        uint8_t *data = nullptr; int w = 0, h = 0;
        int rc = plugin.decode(bytes, length, &data, &w, &h, message, cap);
        if (rc != 0) return static_cast<scv_status>(rc);
        return copy_out(data, w, h, out);
    } catch (...) { set_message(message, cap, "unexpected exception"); return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_plugin_video_open(const char *path, scv_video **out, double *fps, char *message, size_t cap) {
    try {
        *out = nullptr;
        scv_status s = ensure(nullptr, message, cap);
        if (s != SCV_OK) return s;
        void *inner = nullptr;
        int rc = plugin.video_open(path, &inner, fps, message, cap);
        if (rc != 0) return static_cast<scv_status>(rc);
        *out = new scv_video{inner};
        return SCV_OK;
    } catch (...) { set_message(message, cap, "unexpected exception"); return SCV_ERR_OPENCV; }
}

extern "C" scv_status scv_plugin_video_read(scv_video *video, scv_gray *out, double *time, char *message, size_t cap) {
    try {
        out->data = nullptr; out->width = out->height = 0;
        if (!video) return SCV_ERR_ARGUMENT;
        uint8_t *data = nullptr; int w = 0, h = 0;
        int rc = plugin.video_read(video->inner, &data, &w, &h, time, message, cap);
        if (rc != 0) return static_cast<scv_status>(rc);
        return copy_out(data, w, h, out);
    } catch (...) { set_message(message, cap, "unexpected exception"); return SCV_ERR_OPENCV; }
}

extern "C" void scv_plugin_video_close(scv_video *video) {
    if (!video) return;
    try { plugin.video_close(video->inner); } catch (...) {}
    delete video;
}
