#include "CScanV4L2.h"
#include <fcntl.h>
#include <libv4l2.h>

int scan_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
int scan_v4l2_close(int fd) { return v4l2_close(fd); }
int scan_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }
void *scan_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    return v4l2_mmap(start, length, prot, flags, fd, offset);
}
int scan_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }
