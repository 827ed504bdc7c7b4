/* Helper for the V4L2 VM suite (runs inside the VM, static binary).
 *   vmtool caps DEV                 prints "capture" or "nocapture" and device_caps in hex
 *   vmtool formats DEV              prints the driver's native capture fourccs, one per line (raw ioctl)
 *   vmtool ctrl DEV NAME VALUE      sets the control called NAME (vivid's error injection buttons)
 *   vmtool write DEV FPS LEAD REPEAT TAIL FILE...
 *       v4l2loopback writer: YUYV 640x480 frames at FPS; LEAD seconds of white (or, when LEAD is a path, white
 *       until that file exists), then each QR (qrencode -t ASCII text file) REPEAT frames in a row, then TAIL
 *       seconds of white; then exits (which stalls the reader). */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#define W 640
#define H 480

static int xioctl(int fd, unsigned long req, void *arg) {
    int r;
    do r = ioctl(fd, req, arg); while (r == -1 && errno == EINTR);
    return r;
}

static unsigned char frame[W * H * 2];

static void fill_white(void) {
    for (int i = 0; i < W * H; i++) { frame[2 * i] = 235; frame[2 * i + 1] = 128; }
}

static int render_qr(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return -1; }
    char lines[200][512];
    int n = 0;
    while (n < 200 && fgets(lines[n], sizeof lines[n], f)) {
        lines[n][strcspn(lines[n], "\n")] = 0;
        n++;
    }
    fclose(f);
    int modules = n; /* square: rows == columns (each module is two characters wide) */
    int scale = (H * 9 / 10) / modules;
    if (scale < 1) return -1;
    int ox = (W - modules * scale) / 2, oy = (H - modules * scale) / 2;
    fill_white();
    for (int r = 0; r < modules; r++) {
        int len = (int)strlen(lines[r]);
        for (int c = 0; c < modules; c++) {
            int dark = 2 * c < len && lines[r][2 * c] == '#';
            if (!dark) continue;
            for (int y = 0; y < scale; y++)
                for (int x = 0; x < scale; x++) frame[2 * ((oy + r * scale + y) * W + ox + c * scale + x)] = 16;
        }
    }
    return 0;
}

static void sleep_until(struct timespec *next, double period) {
    long ns = (long)(period * 1e9);
    next->tv_nsec += ns;
    while (next->tv_nsec >= 1000000000L) { next->tv_nsec -= 1000000000L; next->tv_sec++; }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

/* The writer streams (REQBUFS/QBUF/STREAMON on the output queue) rather than write(2): v4l2loopback 0.12.7
 * with exclusive_caps=1 only marks streaming openers as writers, and after a write()-writer closes the
 * device offers neither output nor capture until the module is reloaded. */
#define NBUF 2
static void *bufs[NBUF];
static unsigned buflen[NBUF];
static int queued;

static int setup_output(int fd) {
    struct v4l2_requestbuffers req;
    memset(&req, 0, sizeof req);
    req.count = NBUF;
    req.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    req.memory = V4L2_MEMORY_MMAP;
    if (xioctl(fd, VIDIOC_REQBUFS, &req) || req.count < 1) { perror("vmtool: REQBUFS output"); return -1; }
    for (unsigned i = 0; i < req.count && i < NBUF; i++) {
        struct v4l2_buffer b;
        memset(&b, 0, sizeof b);
        b.index = i;
        b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
        b.memory = V4L2_MEMORY_MMAP;
        if (xioctl(fd, VIDIOC_QUERYBUF, &b)) { perror("vmtool: QUERYBUF"); return -1; }
        bufs[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
        if (bufs[i] == MAP_FAILED) { perror("vmtool: mmap"); return -1; }
        buflen[i] = b.length;
    }
    int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    if (xioctl(fd, VIDIOC_STREAMON, &type)) { perror("vmtool: STREAMON output"); return -1; }
    return 0;
}

static int put(int fd) {
    struct v4l2_buffer b;
    memset(&b, 0, sizeof b);
    b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    b.memory = V4L2_MEMORY_MMAP;
    if (queued < NBUF) b.index = queued++;
    else if (xioctl(fd, VIDIOC_DQBUF, &b)) { perror("vmtool: DQBUF output"); return -1; }
    unsigned n = buflen[b.index] < sizeof frame ? buflen[b.index] : sizeof frame;
    memcpy(bufs[b.index], frame, n);
    b.bytesused = n;
    b.field = V4L2_FIELD_NONE;
    if (xioctl(fd, VIDIOC_QBUF, &b)) { perror("vmtool: QBUF output"); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: vmtool caps|formats|write DEV ... | sockread PATH SECONDS\n"); return 64; }
    if (!strcmp(argv[1], "sockread") && argc == 4) { /* vmtool sockread PATH SECONDS: copy a Unix socket to stdout */
        int sock = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        snprintf(addr.sun_path, sizeof addr.sun_path, "%s", argv[2]);
        if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0) { perror("connect"); return 1; }
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        const double limit = atof(argv[3]);
        char buffer[65536];
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            double left = limit - ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9);
            if (left <= 0) break;
            struct pollfd p = {.fd = sock, .events = POLLIN};
            if (poll(&p, 1, (int)(left * 1000) + 1) <= 0) continue;
            ssize_t n = read(sock, buffer, sizeof buffer);
            if (n <= 0) break;
            fwrite(buffer, 1, (size_t)n, stdout);
            fflush(stdout);
        }
        close(sock);
        return 0;
    }
    int fd = open(argv[2], O_RDWR);
    if (fd < 0) { fprintf(stderr, "vmtool: %s: %s\n", argv[2], strerror(errno)); return 1; }
    if (!strcmp(argv[1], "caps")) {
        struct v4l2_capability cap;
        memset(&cap, 0, sizeof cap);
        if (xioctl(fd, VIDIOC_QUERYCAP, &cap)) { perror("QUERYCAP"); return 1; }
        unsigned caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
        printf("%s 0x%08x\n", (caps & V4L2_CAP_VIDEO_CAPTURE) ? "capture" : "nocapture", caps);
        return 0;
    }
    if (!strcmp(argv[1], "formats")) {
        for (unsigned i = 0;; i++) {
            struct v4l2_fmtdesc d;
            memset(&d, 0, sizeof d);
            d.index = i;
            d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
            if (xioctl(fd, VIDIOC_ENUM_FMT, &d)) break;
            unsigned pf = d.pixelformat & 0x7fffffffu;
            char cc[5] = {pf & 0xff, (pf >> 8) & 0xff, (pf >> 16) & 0xff, pf >> 24, 0};
            for (int k = 0; k < 4; k++) if (cc[k] < 0x20 || cc[k] > 0x7e) cc[k] = '?';
            for (int k = 3; k >= 0 && cc[k] == ' '; k--) cc[k] = 0;
            printf("%s%s\n", cc, (d.pixelformat & 0x80000000u) ? "-BE" : "");
        }
        return 0;
    }
    if (!strcmp(argv[1], "ctrl") && argc == 5) { /* vmtool ctrl DEV "control name" value */
        struct v4l2_queryctrl q;
        memset(&q, 0, sizeof q);
        q.id = V4L2_CTRL_FLAG_NEXT_CTRL;
        while (xioctl(fd, VIDIOC_QUERYCTRL, &q) == 0) {
            if (!strcmp((const char *)q.name, argv[3])) {
                struct v4l2_control c = {.id = q.id, .value = atoi(argv[4])};
                if (xioctl(fd, VIDIOC_S_CTRL, &c)) { perror("vmtool: S_CTRL"); return 1; }
                return 0;
            }
            q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
        }
        fprintf(stderr, "vmtool: no control named '%s'\n", argv[3]);
        return 1;
    }
    if (!strcmp(argv[1], "write") && argc >= 7) {
        double fps = atof(argv[3]), lead = atof(argv[4]), tail = atof(argv[6]);
        int repeat = atoi(argv[5]);
        struct v4l2_format fmt;
        memset(&fmt, 0, sizeof fmt);
        fmt.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
        fmt.fmt.pix.width = W;
        fmt.fmt.pix.height = H;
        fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
        fmt.fmt.pix.field = V4L2_FIELD_NONE;
        fmt.fmt.pix.bytesperline = W * 2;
        fmt.fmt.pix.sizeimage = W * H * 2;
        if (xioctl(fd, VIDIOC_S_FMT, &fmt)) perror("vmtool: S_FMT output (continuing with the current format)");
        struct v4l2_streamparm parm;
        memset(&parm, 0, sizeof parm);
        parm.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
        parm.parm.output.timeperframe.numerator = 1000;
        parm.parm.output.timeperframe.denominator = (unsigned)(fps * 1000);
        xioctl(fd, VIDIOC_S_PARM, &parm);
        if (setup_output(fd)) return 1;
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        double period = 1.0 / fps;
        fill_white();
        if (argv[4][0] == '/') { /* LEAD is a path: white frames until that file exists (at most 30 s) */
            for (int i = 0; i < (int)(30 * fps) && access(argv[4], F_OK) != 0; i++) { if (put(fd)) return 1; sleep_until(&next, period); }
        } else {
            for (int i = 0; i < (int)(lead * fps); i++) { if (put(fd)) return 1; sleep_until(&next, period); }
        }
        for (int a = 7; a < argc; a++) {
            if (render_qr(argv[a])) return 1;
            for (int i = 0; i < repeat; i++) { if (put(fd)) return 1; sleep_until(&next, period); }
        }
        fill_white();
        for (int i = 0; i < (int)(tail * fps); i++) { if (put(fd)) return 1; sleep_until(&next, period); }
        close(fd);
        return 0;
    }
    fprintf(stderr, "vmtool: bad arguments\n");
    return 64;
}
