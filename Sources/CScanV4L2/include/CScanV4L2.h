#ifndef CSCANV4L2_H
#define CSCANV4L2_H
/* Non-variadic wrappers around libv4l2 (Swift cannot call variadic C functions or VIDIOC_* macros). */
#include <linux/videodev2.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#ifdef __cplusplus
extern "C" {
#endif
int scan_v4l2_open(const char *path, int flags);
int scan_v4l2_close(int fd);
int scan_v4l2_ioctl(int fd, unsigned long request, void *arg);
void *scan_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset);
int scan_v4l2_munmap(void *start, size_t length);
#ifdef __cplusplus
}
#endif
#endif
