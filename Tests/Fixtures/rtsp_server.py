#!/usr/bin/python3
"""Loopback RTSP test server that serves a YUV4MPEG2 (.y4m) clip as a live camera.

What it does
    Starts a real RTSP server (GStreamer's gst-rtsp-server via PyGObject)
    that serves FILE.y4m at rtsp://HOST:PORT/MOUNT, looped forever and paced
    in real time at the clip's frame rate (the "F" tag in the y4m header), as
    H.264 over RTP (x264enc; fallback openh264enc; last resort MJPEG via
    rtpjpegpay). The stream looks like a live camera: clients that join late
    see the current frame, not the start of the clip. Both RTP/UDP and
    RTP-over-RTSP/TCP (interleaved) transports work.

    The media factory is shared, so any number of clients can connect and
    disconnect; when the last one leaves the pipeline is torn down and the next
    client starts a fresh one. The listening socket is bound with SO_REUSEADDR
    (gst-rtsp-server always does this), so a server restarted on the same port
    works at once.

    When it listens it prints exactly one line to stdout and flushes it:
        READY rtsp://127.0.0.1:PORT/cam      (i.e. rtsp://HOST:PORT/MOUNT)
    (with --port 0 an ephemeral port is chosen and the real one is printed).
    Diagnostics go to stderr. SIGTERM or SIGINT stops it cleanly (exit 0).
    A port that cannot be bound gives exit status 2.

Debian 12 (bookworm) packages needed
    apt-get install --no-install-recommends \\
        python3-gi python3-gst-1.0 gir1.2-gst-rtsp-server-1.0 \\
        gstreamer1.0-plugins-base gstreamer1.0-plugins-good \\
        gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad
    - gir1.2-gst-rtsp-server-1.0 : GstRtspServer (pulls libgstrtspserver-1.0-0)
    - python3-gst-1.0            : Gst overrides for PyGObject
    - plugins-base               : appsrc, videoconvert
    - plugins-good               : rtph264pay, rtpjpegpay, jpegenc, rtpbin, udpsink
    - plugins-ugly               : x264enc (preferred H.264 encoder)
    - plugins-bad                : openh264enc (fallback only; optional)
    gstreamer1.0-tools (gst-inspect-1.0) is handy for debugging but not needed.
    It needs Debian's /usr/bin/python3 (the one that sees the gi module); if
    started by another python3 (pyenv, venv) that lacks gi, it re-executes
    itself with /usr/bin/python3.

Usage
    rtsp_server.py --port 8554 --mount /cam --input clip.y4m
    rtsp_server.py --port 0 --input clip.y4m --user admin --password-file pw.txt
    Then e.g.:
        ffmpeg -rtsp_transport tcp -i rtsp://127.0.0.1:8554/cam -frames:v 30 -f null -
    With --user/--password-file, clients must use RTSP Basic auth
    (rtsp://admin:SECRET@127.0.0.1:8554/cam); others get 401 Unauthorized.
    The password file holds the password; one trailing newline is stripped.

    Make a test clip:
        ffmpeg -f lavfi -i testsrc=size=640x480:rate=15 -t 4 -pix_fmt yuv420p clip.y4m

Supported y4m colour spaces: 420jpeg/420mpeg2/420paldv/420 (I420), 422 (Y42B),
444 (Y444), mono (GRAY8); 8-bit only. Interlacing/aspect tags are ignored.
"""

import argparse
import os
import signal
import sys
import threading
import time

try:
    import gi
except ImportError:
    # Started by a non-Debian interpreter (pyenv, venv): retry with Debian's.
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") \
            and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer, GstVideo  # noqa: E402


def log(msg):
    try:
        print("rtsp_server: " + msg, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed / broken pipe: keep running
        pass


# ---------------------------------------------------------------- y4m reader

Y4M_FORMATS = {
    "420jpeg": "I420", "420mpeg2": "I420", "420paldv": "I420", "420": "I420",
    "422": "Y42B", "444": "Y444", "mono": "GRAY8",
}


class Y4MClip:
    """Parses the y4m header; frames are read by Y4MReader instances."""

    def __init__(self, path, fps_override=None):
        self.path = path
        with open(path, "rb") as f:
            header = f.readline(4096)
            if not header.startswith(b"YUV4MPEG2 ") or not header.endswith(b"\n"):
                raise ValueError("%s: not a YUV4MPEG2 file" % path)
            self.data_start = f.tell()
        w = h = None
        fps_n, fps_d = 25, 1
        colour = "420jpeg"
        for tok in header.decode("ascii", "replace").split()[1:]:
            tag, val = tok[0], tok[1:]
            if tag == "W":
                w = int(val)
            elif tag == "H":
                h = int(val)
            elif tag == "F":
                n, d = val.split(":")
                fps_n, fps_d = int(n), int(d)
            elif tag == "C":
                colour = val
        if not w or not h:
            raise ValueError("%s: y4m header lacks W/H" % path)
        if colour not in Y4M_FORMATS:
            raise ValueError("%s: unsupported y4m colour space C%s" % (path, colour))
        if fps_override:
            fps_n, fps_d = fps_override, 1
        if fps_n <= 0 or fps_d <= 0:
            raise ValueError("%s: bad frame rate %d:%d" % (path, fps_n, fps_d))
        self.width, self.height = w, h
        self.fps_n, self.fps_d = fps_n, fps_d
        self.gst_format = Y4M_FORMATS[colour]

        # Packed (y4m) plane sizes vs. GStreamer's default layout (GStreamer
        # pads row strides to 4 bytes, so odd sizes need repacking).
        fmt = GstVideo.VideoFormat.from_string(self.gst_format)
        info = GstVideo.VideoInfo()
        info.set_format(fmt, w, h)
        finfo = info.finfo
        self.planes = []  # (packed_row_bytes, rows, gst_stride, gst_offset)
        packed = 0
        for p in range(info.finfo.n_planes):
            if p == 0:
                pw, ph = w, h
            else:
                pw = -((-w) >> finfo.w_sub[p])
                ph = -((-h) >> finfo.h_sub[p])
            self.planes.append((pw, ph, info.stride[p], info.offset[p]))
            packed += pw * ph
        self.frame_size = packed
        self.gst_size = info.size
        self.needs_repack = any(
            pw != stride for (pw, _, stride, _) in self.planes) or packed != info.size
        self.caps = ("video/x-raw,format=%s,width=%d,height=%d,framerate=%d/%d,"
                     "pixel-aspect-ratio=1/1" % (self.gst_format, w, h, fps_n, fps_d))

    def repack(self, data):
        out = bytearray(self.gst_size)
        src = 0
        for pw, ph, stride, offset in self.planes:
            for r in range(ph):
                out[offset + r * stride: offset + r * stride + pw] = data[src: src + pw]
                src += pw
        return bytes(out)


class Y4MReader:
    """Reads frames forever, rewinding at end of file."""

    def __init__(self, clip):
        self.clip = clip
        self.f = open(clip.path, "rb")
        self.f.seek(clip.data_start)

    def next_frame(self):
        for _attempt in range(2):
            line = self.f.readline(4096)
            if line.startswith(b"FRAME"):
                data = self.f.read(self.clip.frame_size)
                if len(data) == self.clip.frame_size:
                    return self.clip.repack(data) if self.clip.needs_repack else data
            # EOF, truncated frame or garbage: loop back to the first frame.
            self.f.seek(self.clip.data_start)
        raise ValueError("%s: contains no complete frame" % self.clip.path)

    def close(self):
        self.f.close()


# ------------------------------------------------------------- frame feeder

class Feeder:
    """Pushes frames into one media's appsrc at real-time rate from a thread."""

    def __init__(self, clip, appsrc):
        self.clip = clip
        self.appsrc = appsrc
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="y4m-feeder", daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.stop_event.set()

    def _run(self):
        reader = Y4MReader(self.clip)
        period = self.clip.fps_d / self.clip.fps_n
        duration = Gst.util_uint64_scale(Gst.SECOND, self.clip.fps_d, self.clip.fps_n)
        t0 = time.monotonic()
        n = 0
        try:
            while not self.stop_event.is_set():
                data = reader.next_frame()
                buf = Gst.Buffer.new_wrapped(data)
                buf.duration = duration
                # Timestamps come from do-timestamp=true (running time when
                # the live appsrc hands the buffer downstream).
                ret = self.appsrc.emit("push-buffer", buf)
                if ret not in (Gst.FlowReturn.OK, Gst.FlowReturn.FLUSHING):
                    log("appsrc push-buffer returned %s; feeder stops" % ret)
                    break
                n += 1
                deadline = t0 + n * period
                now = time.monotonic()
                if deadline < now - 1.0:  # fell far behind (suspended?): resync
                    t0, n = now, 0
                    continue
                self.stop_event.wait(max(0.0, deadline - now))
        except Exception as e:  # never let a thread die silently
            log("feeder error: %r" % (e,))
        finally:
            reader.close()


# ------------------------------------------------------------- server setup

def pick_encoder(name):
    have = lambda el: Gst.ElementFactory.find(el) is not None  # noqa: E731
    order = [name] if name != "auto" else ["x264", "openh264", "mjpeg"]
    for enc in order:
        if enc == "x264" and have("x264enc") and have("rtph264pay"):
            return enc
        if enc == "openh264" and have("openh264enc") and have("rtph264pay"):
            return enc
        if enc == "mjpeg" and have("jpegenc") and have("rtpjpegpay"):
            return enc
    raise RuntimeError("no usable encoder (%s) - install gstreamer1.0-plugins-ugly/"
                       "good/bad" % ", ".join(order))


def build_launch(clip, encoder, bitrate_kbps):
    gop = max(1, round(clip.fps_n / clip.fps_d))  # one keyframe per second
    frame_bytes = clip.gst_size
    src = ('appsrc name=src is-live=true format=time do-timestamp=true block=false '
           'max-bytes=%d leaky-type=downstream caps="%s"' % (frame_bytes * 3, clip.caps))
    if encoder == "x264":
        enc = ("videoconvert ! video/x-raw,format=I420 ! "
               "x264enc tune=zerolatency speed-preset=ultrafast threads=1 "
               "bitrate=%d key-int-max=%d ! video/x-h264,profile=constrained-baseline ! "
               "rtph264pay name=pay0 pt=96 config-interval=-1" % (bitrate_kbps, gop))
    elif encoder == "openh264":
        enc = ("videoconvert ! video/x-raw,format=I420 ! "
               "openh264enc complexity=low bitrate=%d gop-size=%d ! "
               "rtph264pay name=pay0 pt=96 config-interval=-1" % (bitrate_kbps * 1000, gop))
    else:
        enc = ("videoconvert ! video/x-raw,format=I420 ! jpegenc quality=85 ! "
               "rtpjpegpay name=pay0 pt=26")
    return "( %s ! queue max-size-buffers=3 leaky=downstream ! %s )" % (src, enc)


def main():
    ap = argparse.ArgumentParser(description="Loopback RTSP server for a looping .y4m clip")
    ap.add_argument("--port", type=int, default=8554, help="0 = pick a free port")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--mount", default="/cam")
    ap.add_argument("--input", required=True, help="YUV4MPEG2 clip (.y4m)")
    ap.add_argument("--user")
    ap.add_argument("--password-file")
    ap.add_argument("--encoder", choices=["auto", "x264", "openh264", "mjpeg"], default="auto")
    ap.add_argument("--bitrate", type=int, default=1500, help="H.264 kbit/s")
    ap.add_argument("--fps", type=int, help="override the clip's frame rate")
    args = ap.parse_args()

    if bool(args.user) != bool(args.password_file):
        ap.error("--user and --password-file go together")
    if not args.mount.startswith("/"):
        args.mount = "/" + args.mount

    # Install the handlers first: a SIGTERM that arrives during start-up is
    # then handled (dispatched once loop.run() starts) instead of killing us.
    # The sources stay installed (SOURCE_CONTINUE) so that a second signal
    # during shutdown does not fall back to the default action.
    loop = GLib.MainLoop()

    def on_signal(signame):
        loop.quit()
        log("%s received, shutting down" % signame)
        return GLib.SOURCE_CONTINUE

    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, on_signal, "SIGTERM")
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGINT, on_signal, "SIGINT")

    Gst.init(None)
    try:
        clip = Y4MClip(args.input, args.fps)
        encoder = pick_encoder(args.encoder)
    except (OSError, ValueError, RuntimeError) as e:
        log(str(e))
        return 1
    launch = build_launch(clip, encoder, args.bitrate)
    log("clip %dx%d %s @ %d/%d fps, encoder %s" % (
        clip.width, clip.height, clip.gst_format, clip.fps_n, clip.fps_d, encoder))

    server = GstRtspServer.RTSPServer()
    server.set_address(args.host)
    server.set_service(str(args.port))

    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(launch)
    factory.set_shared(True)  # one pipeline for all clients
    factory.set_eos_shutdown(False)

    feeders = set()
    lock = threading.Lock()

    def on_media_configure(_factory, media):
        appsrc = media.get_element().get_child_by_name("src")
        feeder = Feeder(clip, appsrc)
        with lock:
            feeders.add(feeder)

        def on_unprepared(_media):
            feeder.stop()
            with lock:
                feeders.discard(feeder)

        media.connect("unprepared", on_unprepared)
        feeder.start()

    factory.connect("media-configure", on_media_configure)

    if args.user:
        try:
            with open(args.password_file, "r", encoding="utf-8") as f:
                password = f.read()
        except OSError as e:
            log(str(e))
            return 1
        if password.endswith("\n"):
            password = password[:-1]
            if password.endswith("\r"):
                password = password[:-1]
        auth = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "user")
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, password), token)
        server.set_auth(auth)
        factory.add_role_from_structure(Gst.Structure.new_from_string(
            "user, media.factory.access=(boolean)true, "
            "media.factory.construct=(boolean)true"))

    server.get_mount_points().add_factory(args.mount, factory)

    # Throws GLib.Error (or returns 0) if the address cannot be bound.
    try:
        source_id = server.attach(None)
    except GLib.Error as e:
        log("cannot listen on %s:%d: %s" % (args.host, args.port, e.message))
        return 2
    if not source_id:
        log("cannot listen on %s:%d" % (args.host, args.port))
        return 2

    # Reap sessions of clients that vanished without TEARDOWN (e.g. killed UDP clients).
    pool = server.get_session_pool()
    GLib.timeout_add_seconds(2, lambda: (pool.cleanup(), True)[1])

    host = args.host if ":" not in args.host else "[%s]" % args.host
    try:
        print("READY rtsp://%s:%d%s" % (host, server.get_bound_port(), args.mount), flush=True)
    except (OSError, ValueError):
        pass  # nobody reads stdout any more; keep serving until signalled

    loop.run()

    with lock:
        for feeder in list(feeders):
            feeder.stop()
    GLib.source_remove(source_id)
    # Close client connections; this tears down the shared media.
    server.client_filter(lambda _srv, _client: GstRtspServer.RTSPFilterResult.REMOVE)
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + 0.3
    while ctx.pending() and time.monotonic() < deadline:
        ctx.iteration(False)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    # Skip interpreter teardown of GStreamer objects from other threads.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
