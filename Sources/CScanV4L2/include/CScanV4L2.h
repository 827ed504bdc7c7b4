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

/* Plain open(2)/ioctl(2) without libv4l2's format emulation: discovery lists what the driver really offers. */
int scan_raw_open(const char *path, int flags);
int scan_raw_ioctl(int fd, unsigned long request, void *arg);

/* VIDIOC_* request numbers (function-like macros in videodev2.h). */
extern const unsigned long SCAN_VIDIOC_QUERYCAP;
extern const unsigned long SCAN_VIDIOC_ENUM_FMT;
extern const unsigned long SCAN_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long SCAN_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long SCAN_VIDIOC_G_FMT;
extern const unsigned long SCAN_VIDIOC_S_FMT;
extern const unsigned long SCAN_VIDIOC_TRY_FMT;
extern const unsigned long SCAN_VIDIOC_G_PARM;
extern const unsigned long SCAN_VIDIOC_S_PARM;
extern const unsigned long SCAN_VIDIOC_REQBUFS;
extern const unsigned long SCAN_VIDIOC_QUERYBUF;
extern const unsigned long SCAN_VIDIOC_QBUF;
extern const unsigned long SCAN_VIDIOC_DQBUF;
extern const unsigned long SCAN_VIDIOC_STREAMON;
extern const unsigned long SCAN_VIDIOC_STREAMOFF;
/* Controls and control events (issue 18). */
extern const unsigned long SCAN_VIDIOC_QUERY_EXT_CTRL;
extern const unsigned long SCAN_VIDIOC_QUERYMENU;
extern const unsigned long SCAN_VIDIOC_G_EXT_CTRLS;
extern const unsigned long SCAN_VIDIOC_S_EXT_CTRLS;
extern const unsigned long SCAN_VIDIOC_TRY_EXT_CTRLS;
extern const unsigned long SCAN_VIDIOC_SUBSCRIBE_EVENT;
extern const unsigned long SCAN_VIDIOC_UNSUBSCRIBE_EVENT;
extern const unsigned long SCAN_VIDIOC_DQEVENT;
#ifdef __cplusplus
}
#endif
#endif
