#include "CScanV4L2.h"
#include <fcntl.h>
#include <libv4l2.h>
#include <sys/ioctl.h>
#include <unistd.h>

int scan_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
int scan_v4l2_close(int fd) { return v4l2_close(fd); }
int scan_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }
void *scan_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    return v4l2_mmap(start, length, prot, flags, fd, offset);
}
int scan_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

int scan_raw_open(const char *path, int flags) { return open(path, flags); }
int scan_raw_ioctl(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }

const unsigned long SCAN_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long SCAN_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long SCAN_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long SCAN_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long SCAN_VIDIOC_G_FMT = VIDIOC_G_FMT;
const unsigned long SCAN_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long SCAN_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
const unsigned long SCAN_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long SCAN_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long SCAN_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long SCAN_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long SCAN_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long SCAN_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long SCAN_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long SCAN_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long SCAN_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
const unsigned long SCAN_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
const unsigned long SCAN_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
const unsigned long SCAN_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
const unsigned long SCAN_VIDIOC_TRY_EXT_CTRLS = VIDIOC_TRY_EXT_CTRLS;
const unsigned long SCAN_VIDIOC_SUBSCRIBE_EVENT = VIDIOC_SUBSCRIBE_EVENT;
const unsigned long SCAN_VIDIOC_UNSUBSCRIBE_EVENT = VIDIOC_UNSUBSCRIBE_EVENT;
const unsigned long SCAN_VIDIOC_DQEVENT = VIDIOC_DQEVENT;
