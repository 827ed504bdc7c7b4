#!/usr/bin/python3
"""Issue 52's chaos soak: `scand run` on a looping clip with every sink on, and everything at once.

Runs `scand run --config FILE --input CLIP --loop --stdout --socket PATH --http 127.0.0.1:0 --http-token FILE`
with MQTT (spool on a small tmpfs, per-frame metadata on, reconnectMax 1) into a real mosquitto with
persistence, a persistent QoS 1 subscriber, and for --duration seconds:
  - Unix socket clients that connect, read briefly and leave (several a second), one that never reads, one
    steady client that records every line;
  - WebSocket clients (/events) that come and go; /metrics and /state polled every second (with the token);
  - the broker stopped (SIGTERM) for 3 s every minute (every 40 s for runs under 10 min), once SIGKILLed;
  - SIGHUP every 20 s, the config switching between scanDensity 1 and 2;
  - the spool's tmpfs filled by a ballast file for 10 s every 5 minutes (once in short runs);
  - the descriptor limit lowered to just above scand's count for 5 s every 5 minutes (once in short runs).
Samples RSS, descriptors, threads and CPU every second; at the end (SIGTERM) checks: nothing died; RSS,
descriptors and threads flat after the warm-up; no unexplained `seq` gap on the steady socket client; every
event printed on stdout reached the MQTT subscriber. Prints a table and one JSON line; writes samples.csv,
soak.png, chaos.csv and the logs into --out. Exit status 1 when a check fails. Run as root (tmpfs mount).

Usage: bench/soak/soak.py --duration SECONDS [--scand PATH] [--clip Y4M] [--out DIR] [--warmup S]
       [--models DIR] [--without sockets,stalled,websockets,polls,broker,sighup,disk,fdlimit]
       [--fdlimit-every S [--fdlimit-hold S]]

--fdlimit-every S lowers the descriptor limit every S seconds from 45 s on (for --fdlimit-hold seconds,
default 5) instead of once or every 300 s: the hunt for crashes at the limit (README.md, "scand crashed").
The levels checks are not meaningful then (the warm-up's quiet window moves past the limits).
"""
import argparse
import csv
import glob
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MB = 1024 * 1024
RSS_GROWTH_MAX_MB = 5.0
# libdispatch's root-queue workers: a default and an overcommit pool per QoS, each about as wide as the cores; more
# than this many at once would be work piling up, not the pool's usual size (4-5 on 2 cores).
DISPATCH_POOL_MAX = 4 * (os.cpu_count() or 2) + 2
WITHOUT = ("sockets", "stalled", "websockets", "polls", "broker", "sighup", "disk", "fdlimit")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Soak:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        self.stop = threading.Event()      # stops every thread
        self.quiet = threading.Event()     # stops the clients (the quiet tail before the end)
        self.paused = threading.Event()    # holds the clients (the quiet window at the end of the warm-up)
        self.t0 = time.time()
        self.chaos = []                    # (t, kind, detail)
        self.samples = []                  # dicts
        self.counts = {k: 0 for k in ("sock_churn", "sock_churn_err", "ws_churn", "ws_churn_err", "http_ok",
                                      "http_err", "stalled_reconnects", "steady_reconnects", "hups",
                                      "broker_stops", "broker_kills", "broker_restart_failures",
                                      "disk_fills", "fd_limits", "sub_restarts", "limit_restore_failures")}
        self.lock = threading.Lock()
        self.notes = []
        self.scand = self.broker = self.sub = None
        self.mounted = False
        self.limit_restore = None          # (pid, (soft, hard)) while the descriptor limit is lowered
        self.threads = []

    # -- helpers ----------------------------------------------------------------------------------------
    def now(self):
        return time.time() - self.t0

    def mark(self, kind, detail=""):
        with self.lock:
            self.chaos.append((round(self.now(), 2), kind, detail))

    def bump(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def note(self, text):
        self.notes.append(text)
        print("soak: " + text, file=sys.stderr, flush=True)

    def spawn(self, fn, *a):
        t = threading.Thread(target=self.guard, args=(fn,) + a, daemon=True)
        t.start()
        self.threads.append(t)

    def guard(self, fn, *a):
        try:
            fn(*a)
        except Exception as e:  # a helper thread's failure is reported, the run goes on
            self.note("thread %s failed: %r" % (fn.__name__, e))

    def held(self):
        """True (after a short wait) while the clients are held for the warm-up's quiet window."""
        if self.paused.is_set():
            self.quiet.wait(0.2)
            return True
        return False

    def sleep(self, s, ev=None):
        (ev or self.stop).wait(s)
        return not (ev or self.stop).is_set()

    # -- set-up -----------------------------------------------------------------------------------------
    def setup(self):
        os.makedirs(self.out, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix="scand-soak-")
        self.port = free_port()
        self.mosq_dir = os.path.join(self.work, "mosquitto")
        os.mkdir(self.mosq_dir)
        self.mosq_conf = os.path.join(self.mosq_dir, "mosquitto.conf")
        with open(self.mosq_conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                    f"persistence_location {self.mosq_dir}/\nautosave_interval 1\nmax_queued_messages 0\n"
                    f"log_dest file {self.out}/mosquitto.log\nlog_type error\nlog_type warning\n"
                    f"log_type notice\nlog_type information\n")
            if os.getuid() == 0:  # as root, mosquitto would switch to user 'mosquitto' and not save its store
                f.write("user root\n")
        self.spool = os.path.join(self.work, "spool")
        os.mkdir(self.spool)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", self.spool],
                           capture_output=True, text=True)
        if r.returncode == 0:
            self.mounted = True
        else:
            self.note("cannot mount a tmpfs for the spool (%s): the disk-full chaos is skipped"
                      % (r.stderr.strip() or r.returncode))
        self.token = "%032x" % random.getrandbits(128)
        self.token_file = os.path.join(self.work, "http-token")
        fd = os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, (self.token + "\n").encode())
        os.close(fd)
        self.sock = os.path.join(self.work, "scand.sock")
        self.config = os.path.join(self.work, "scand.json")
        self.configs = [{"scanDensity": d,
                         "mqtt": {"url": f"mqtt://127.0.0.1:{self.port}", "id": "soak", "metadata": True,
                                  "spool": self.spool, "reconnectMax": 1}} for d in (1, 2)]
        self.write_config(0)
        self.received_path = os.path.join(self.out, "mqtt-received.jsonl")
        self.received = open(self.received_path, "wb")
        self.start_broker()
        self.sub_cmd = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-c", "-q", "1",
                        "-i", "soak-sub-%d" % os.getpid(), "-t", "scand/soak/events"]
        self.sub = subprocess.Popen(self.sub_cmd, stdout=self.received, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def write_config(self, i):
        tmp = self.config + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.configs[i], f)
        os.replace(tmp, self.config)

    def start_broker(self):
        self.broker = subprocess.Popen(["mosquitto", "-c", self.mosq_conf], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        if not wait_port(self.port):
            self.bump("broker_restart_failures")
            self.note("mosquitto did not listen on %d" % self.port)
            return False
        return True

    def stop_broker(self, sig=signal.SIGTERM):
        if self.broker and self.broker.poll() is None:
            self.broker.send_signal(sig)
            try:
                self.broker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.broker.kill()
                self.broker.wait()

    def start_scand(self):
        self.stdout_path = os.path.join(self.out, "stdout.jsonl")
        self.log_path = os.path.join(self.out, "scand.log")
        cmd = [self.args.scand, "run", "--config", self.config, "--input", self.args.clip, "--loop",
               "--stdout", "--socket", self.sock, "--http", "127.0.0.1:0", "--http-token", self.token_file,
               "--log-level", "notice", "--models", self.args.models]
        with open(os.path.join(self.out, "command.txt"), "w") as f:
            f.write(" ".join(cmd) + "\n")
        self.scand = subprocess.Popen(cmd, stdout=open(self.stdout_path, "wb"),
                                      stderr=open(self.log_path, "wb"), start_new_session=True)
        end = time.time() + 60
        while time.time() < end:
            with open(self.log_path, errors="replace") as f:
                m = re.search(r"port=(\d+) \[ScanHTTP\] http listening", f.read())
            if m and os.path.exists(self.sock):
                self.http = "http://127.0.0.1:%s" % m.group(1)
                return
            if self.scand.poll() is not None:
                raise RuntimeError("scand exited with %s at start-up (see %s)" % (self.scand.returncode,
                                                                                 self.log_path))
            time.sleep(0.1)
        raise RuntimeError("scand did not start listening within 60 s (see %s)" % self.log_path)

    # -- load -------------------------------------------------------------------------------------------
    def sampler(self):
        pid, tick = self.scand.pid, os.sysconf("SC_CLK_TCK")
        last = None
        while not self.stop.is_set():
            try:
                with open("/proc/%d/status" % pid) as f:
                    st = dict(l.split(":", 1) for l in f if ":" in l)
                with open("/proc/%d/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                cpu_t = (int(fields[11]) + int(fields[12])) / tick
                fds = len(os.listdir("/proc/%d/fd" % pid))
                rss, threads = int(st["VmRSS"].split()[0]) / 1024.0, int(st["Threads"])
                pool = self.dispatch_pool(pid)
            except (OSError, ValueError, KeyError):  # gone, or a zombie (no VmRSS)
                return
            t = self.now()
            cpu = 100.0 * (cpu_t - last[1]) / (t - last[0]) if last else 0.0
            last = (t, cpu_t)
            with self.lock:
                changed = self.samples and self.samples[-1]["threads"] != threads
                self.samples.append({"t": round(t, 2), "rss_mb": rss, "fds": fds, "threads": threads,
                                     "own_threads": threads - pool, "pool_threads": pool, "cpu_pct": round(cpu, 1)})
            if changed:  # which thread came or went: a level change is then named in threads.txt
                self.record_threads("%d threads" % threads)
            self.stop.wait(1.0)

    def steady(self):
        """Reads everything; every line goes to steady.jsonl (prefixed by a marker line at each connection)."""
        with open(os.path.join(self.out, "steady-socket.jsonl"), "w") as out:
            first = True
            while not self.stop.is_set():
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(self.sock)
                except OSError:
                    self.sleep(0.2)
                    continue
                if not first:
                    self.bump("steady_reconnects")
                    self.mark("steady-reconnect")
                first = False
                out.write('{"soak":"connected"}\n')
                s.settimeout(0.5)
                buf = b""
                while not self.stop.is_set():
                    try:
                        chunk = s.recv(262144)
                    except socket.timeout:
                        continue
                    except OSError:
                        chunk = b""
                    if not chunk:
                        break
                    buf += chunk
                    lines = buf.split(b"\n")
                    buf = lines.pop()
                    for l in lines:
                        out.write(l.decode("utf-8", "replace") + "\n")
                s.close()

    def stalled(self):
        """Connects and never reads; reconnects when scand hangs up on it (a stuck client is disconnected)."""
        while not self.stop.is_set():
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.sock)
            except OSError:
                self.sleep(0.5)
                continue
            p = select.poll()
            p.register(s, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
            while not self.stop.is_set():
                if p.poll(500):
                    self.bump("stalled_reconnects")
                    break
            s.close()

    def sock_churn(self, seed):
        rng = random.Random(seed)
        while not self.quiet.is_set():
            if self.held():
                continue
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(1.0)
                s.connect(self.sock)
                end = time.time() + rng.uniform(0.05, 0.5)
                while time.time() < end:
                    if not s.recv(65536):
                        break
                s.close()
                self.bump("sock_churn")
            except OSError:
                self.bump("sock_churn_err")
            self.sleep(rng.uniform(0.1, 0.4), self.quiet)

    def ws_churn(self, seed):
        import websocket
        rng = random.Random(seed)
        url = self.http.replace("http://", "ws://") + "/events"
        while not self.quiet.is_set():
            if self.held():
                continue
            try:
                ws = websocket.create_connection(url, timeout=3, subprotocols=["scand-token." + self.token])
                end = time.time() + rng.uniform(0.3, 3.0)
                while time.time() < end:
                    ws.recv()
                ws.close()
                self.bump("ws_churn")
            except Exception:
                self.bump("ws_churn_err")
            self.sleep(rng.uniform(0.2, 1.0), self.quiet)

    def poller(self):
        while not self.quiet.is_set():
            if self.held():
                continue
            for path in ("/metrics", "/state"):
                req = urllib.request.Request(self.http + path, headers={"Authorization": "Bearer " + self.token})
                try:
                    with urllib.request.urlopen(req, timeout=5) as r:
                        r.read()
                        self.bump("http_ok" if r.status == 200 else "http_err")
                except (OSError, urllib.error.URLError):
                    self.bump("http_err")
            self.sleep(1.0, self.quiet)

    def sub_keeper(self):
        """mosquitto_sub exits when the broker goes away: restart it (same id, persistent session)."""
        while not self.stop.is_set():
            if self.sub.poll() is not None:
                self.sub = subprocess.Popen(self.sub_cmd, stdout=self.received, stderr=subprocess.DEVNULL)
                self.bump("sub_restarts")
            self.stop.wait(0.3)

    # -- chaos ------------------------------------------------------------------------------------------
    def schedule(self, duration):
        """The chaos timeline: a sorted list of (t, kind)."""
        ev = []
        period = 60 if duration >= 600 else 40
        outages = [t for t in range(period // 2, int(duration) - 20, period)]
        kill_at = outages[len(outages) // 2] if outages else None
        ev += [(t, "broker-kill" if t == kill_at else "broker-stop") for t in outages]
        ev += [(t, "sighup") for t in range(10, int(duration) - 12, 20)]
        if duration >= 600:
            ev += [(t, "disk-full") for t in range(120, int(duration) - 20, 300)]
            ev += [(t, "fd-limit") for t in range(200, int(duration) - 20, 300)]
        else:
            ev += [(duration * 0.35, "disk-full"), (duration * 0.6, "fd-limit")]
        if self.args.fdlimit_every:
            ev = [e for e in ev if e[1] != "fd-limit"]
            ev += [(float(t), "fd-limit") for t in range(45, int(duration) - 15, int(self.args.fdlimit_every))]
        # The warm-up's quiet window (13 s) starts at the warm-up's end or later, away from outages, fills, limits.
        pause = self.args.warmup
        while any(k != "sighup" and t - 5 < pause + 13 and pause < t + 15 for t, k in ev):
            pause += 1
        ev += [(pause, "pause")]
        kinds = {"broker": ("broker-stop", "broker-kill"), "sighup": ("sighup",), "disk": ("disk-full",),
                 "fdlimit": ("fd-limit",)}
        off = {k for w in self.args.without for k in kinds.get(w, ())}
        return sorted(e for e in ev if e[1] not in off)

    def chaos_loop(self, duration):
        hup = 0
        for t, kind in self.schedule(duration):
            if not self.sleep(max(0, t - self.now())):
                return
            if kind in ("broker-stop", "broker-kill"):
                self.spawn(self.outage, kind)
            elif kind == "sighup":
                hup += 1
                self.write_config(hup % 2)
                self.scand.send_signal(signal.SIGHUP)
                self.bump("hups")
                self.mark("sighup", "scanDensity %d" % self.configs[hup % 2]["scanDensity"])
            elif kind == "disk-full" and self.mounted:
                self.spawn(self.disk_full)
            elif kind == "fd-limit":
                self.spawn(self.fd_limit)
            elif kind == "pause":
                self.spawn(self.pause)

    def outage(self, kind):
        kill = kind == "broker-kill"
        self.mark(kind)
        self.stop_broker(signal.SIGKILL if kill else signal.SIGTERM)
        self.bump("broker_kills" if kill else "broker_stops")
        time.sleep(3.0)
        ok = self.start_broker()
        self.mark("broker-start", "ok" if ok else "FAILED")

    def pause(self):
        """The warm-up's level is measured as the end's is: 8 s without churning clients or polls."""
        self.paused.set()
        self.mark("quiet-warm")
        time.sleep(5.0)
        self.record_threads("warm")
        time.sleep(3.0)
        self.paused.clear()
        self.mark("quiet-warm-end")

    @staticmethod
    def dispatch_pool(pid):
        """How many of scand's threads are libdispatch's root-queue workers (named com.apple.root.*-qos*, cut to 15
        characters: "oot.default-qos", "-qos.overcommit"). The pool is libdispatch's: DispatchQueue.concurrentPerform
        (the codes/faces fan-out) draws on it, and it keeps the workers it grew while work keeps coming, so its
        size after a busy moment is not a leak of scand's. Every thread scand starts itself is named scand-* or NIO-*."""
        n = 0
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    n += "qos" in f.read()
            except OSError:
                pass
        return n

    def record_threads(self, label):
        """Appends scand's threads by name (/proc/PID/task/*/comm) to threads.txt: which thread a level change is
        (at both quiet windows, and at every sample whose thread count differs from the one before)."""
        names = {}
        try:
            for tid in os.listdir("/proc/%d/task" % self.scand.pid):
                with open("/proc/%d/task/%s/comm" % (self.scand.pid, tid)) as f:
                    name = f.read().strip()
                names[name] = names.get(name, 0) + 1
        except OSError:
            return
        with open(os.path.join(self.out, "threads.txt"), "a") as f:
            f.write("%s (t=%.0f s): %s\n" % (label, self.now(), ", ".join("%s x%d" % kv for kv in sorted(names.items()))))

    def disk_full(self):
        ballast = os.path.join(self.spool, "ballast")
        self.mark("disk-full")
        self.bump("disk_fills")
        try:
            fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                while True:
                    os.write(fd, b"\0" * 4096)  # until ENOSPC
            except OSError:
                pass
            finally:
                os.close(fd)
            self.mark("disk-filled", "%d bytes" % os.path.getsize(ballast))
            time.sleep(10.0)
        finally:
            try:
                os.unlink(ballast)
            except OSError:
                pass
            self.mark("disk-freed")

    def fd_limit(self):
        pid = self.scand.pid
        old = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        n = len(os.listdir("/proc/%d/fd" % pid)) + 2
        self.limit_restore = (pid, old)
        # Only the soft limit: raising a hard limit back needs CAP_SYS_RESOURCE, which a container's root may
        # lack (then the limit would stay lowered for the rest of the run); the soft one is what open() hits.
        subprocess.run(["prlimit", "--pid", str(pid), "--nofile=%d:%d" % (n, old[1])], check=True)
        self.mark("fd-limit", "nofile=%d:%d" % (n, old[1]))
        self.bump("fd_limits")
        try:
            time.sleep(self.args.fdlimit_hold)
        finally:
            self.restore_limit()
            self.mark("fd-limit-end")

    def restore_limit(self):
        if self.limit_restore:
            pid, (soft, hard) = self.limit_restore
            self.limit_restore = None
            r = subprocess.run(["prlimit", "--pid", str(pid), "--nofile=%d:%d" % (soft, hard)],
                               capture_output=True, text=True)
            try:
                now = resource.prlimit(pid, resource.RLIMIT_NOFILE)
            except OSError:  # scand is gone
                return
            if now != (soft, hard):
                self.note("could not restore scand's descriptor limit %d:%d (now %d:%d): %s"
                          % (soft, hard, now[0], now[1], r.stderr.strip()))
                self.bump("limit_restore_failures")

    # -- the run ----------------------------------------------------------------------------------------
    def run(self):
        a = self.args
        self.setup()
        self.start_scand()
        self.t0 = time.time()
        self.spawn(self.sampler)
        self.spawn(self.sub_keeper)
        self.spawn(self.steady)
        off = a.without
        if "stalled" not in off:
            self.spawn(self.stalled)
        for i in range(0 if "sockets" in off else 3):
            self.spawn(self.sock_churn, i)
        for i in range(0 if "websockets" in off else 2):
            self.spawn(self.ws_churn, 100 + i)
        if "polls" not in off:
            self.spawn(self.poller)
        self.chaos_loop(a.duration)
        self.sleep(max(0, a.duration - 10 - self.now()))  # the last outage, fill and limit are over by now
        self.quiet.set()   # the quiet tail: clients gone, the end level of descriptors and threads
        self.mark("quiet")
        self.sleep(max(0, a.duration - 1 - self.now()))
        self.record_threads("end")
        self.sleep(max(0, a.duration - self.now()))
        self.alive_at_end = self.scand.poll() is None
        self.mark("sigterm")
        self.scand.send_signal(signal.SIGTERM)
        try:
            self.exit_status = self.scand.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.exit_status = "timeout"
            self.scand.kill()
            self.scand.wait()
        self.stop.set()
        for t in self.threads:
            t.join(timeout=15)
        if self.broker.poll() is not None:
            self.start_broker()
        return self.collect()

    def wait_delivery(self, want):
        got = []
        deadline = time.time() + 30
        while True:
            if self.sub.poll() is not None and self.broker.poll() is None:
                self.sub = subprocess.Popen(self.sub_cmd, stdout=self.received, stderr=subprocess.DEVNULL)
            self.received.flush()
            got = []
            with open(self.received_path, "rb") as f:
                for l in f.read().splitlines():
                    try:
                        got.append(json.loads(l).get("seq"))
                    except (ValueError, AttributeError):
                        pass
            if set(want) <= set(got) or time.time() > deadline:
                return got
            time.sleep(1.0)

    def collect(self):
        a = self.args
        printed = []
        with open(self.stdout_path, "rb") as f:
            for l in f.read().splitlines():
                try:
                    printed.append(json.loads(l))
                except ValueError:
                    pass
        want = [e["seq"] for e in printed if "seq" in e]
        got = self.wait_delivery(want)
        stamp = {e["seq"]: e.get("timestamp", 0) for e in printed if "seq" in e}
        missing = sorted(set(want) - set(got))
        kill_t = [t + self.t0 for t, k, _ in self.chaos if k == "broker-kill"]
        # A SIGKILLed broker forgets what it acknowledged since its last autosave (1 s): not scand's loss.
        in_kill = [s for s in missing if any(k - 2.5 <= stamp.get(s, 0) <= k + 0.5 for k in kill_t)]
        other = [s for s in missing if s not in in_kill]
        gaps = self.socket_gaps()
        res = {"duration": a.duration, "warmup": a.warmup, "scand_alive_at_end": self.alive_at_end,
               "scand_exit": self.exit_status, "printed": len(want), "mqtt_received": len(set(got)),
               "mqtt_duplicates": len(got) - len(set(got)), "mqtt_missing": len(other),
               "mqtt_missing_seq": other[:50], "mqtt_missing_at_broker_kill": len(in_kill),
               "socket": gaps, "counts": dict(self.counts), "notes": self.notes, "out": self.out}
        res.update(self.levels())
        return res

    def socket_gaps(self):
        prev, pending_drop, events, overflows, unexplained, explained = None, None, 0, 0, [], 0
        with open(os.path.join(self.out, "steady-socket.jsonl")) as f:
            for l in f:
                try:
                    e = json.loads(l)
                except ValueError:
                    continue
                if e.get("soak") == "connected":
                    prev, pending_drop = None, None  # a gap across a reconnection is reported by its count
                    continue
                if e.get("event") == "overflow":
                    overflows += 1
                    pending_drop = (pending_drop or 0) + int(e.get("dropped", 0))
                    continue
                if "seq" not in e:
                    continue
                events += 1
                s = e["seq"]
                if prev is not None and s != prev + 1:
                    if pending_drop is not None and s - prev - 1 == pending_drop:
                        explained += 1
                    else:
                        unexplained.append([prev, s, pending_drop])
                elif pending_drop:
                    unexplained.append([prev, s, pending_drop])
                prev, pending_drop = s, None
        return {"events": events, "overflows": overflows, "gaps_explained": explained,
                "gaps_unexplained": len(unexplained), "unexplained": unexplained[:20]}

    def levels(self):
        s = self.samples
        at = lambda kind, dflt: next((t for t, k, _ in self.chaos if k == kind), dflt)
        # Both levels in a quiet window (no churning clients, no polls), from its 3rd second on.
        warm_t, quiet_t, term_t = at("quiet-warm", 1e9), at("quiet", 1e9), at("sigterm", 1e9)
        warm = [x for x in s if warm_t + 3 <= x["t"] < warm_t + 8]
        end = [x for x in s if quiet_t + 3 <= x["t"] < term_t]
        if not warm or not end:
            return {"levels": "not enough samples"}
        med = lambda xs: sorted(xs)[len(xs) // 2]
        return {"rss_warm_mb": round(med([x["rss_mb"] for x in warm]), 1),
                "rss_end_mb": round(med([x["rss_mb"] for x in end]), 1),
                "rss_max_mb": round(max(x["rss_mb"] for x in s), 1),
                "fds_warm": min(x["fds"] for x in warm), "fds_end": min(x["fds"] for x in end),
                "fds_max": max(x["fds"] for x in s),
                "threads_warm": min(x["own_threads"] for x in warm), "threads_end": min(x["own_threads"] for x in end),
                "threads_max": max(x["own_threads"] for x in s),
                "pool_warm": min(x["pool_threads"] for x in warm), "pool_end": min(x["pool_threads"] for x in end),
                "pool_max": max(x["pool_threads"] for x in s),
                "cpu_mean_pct": round(sum(x["cpu_pct"] for x in s[1:]) / max(1, len(s) - 1), 1)}

    # -- clean-up ---------------------------------------------------------------------------------------
    def cleanup(self):
        self.stop.set()
        self.quiet.set()
        self.restore_limit()
        if self.scand and self.scand.poll() is None:
            self.scand.send_signal(signal.SIGTERM)
            try:
                self.scand.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.scand.kill()
                self.scand.wait()
        for t in self.threads:
            t.join(timeout=15)
        for p in (self.sub, self.broker):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.mounted:
            r = subprocess.run(["umount", self.spool], capture_output=True, text=True)
            if r.returncode != 0:
                subprocess.run(["umount", "-l", self.spool], capture_output=True)
            self.mounted = False
        if getattr(self, "work", None):
            shutil.rmtree(self.work, ignore_errors=True)


def report(soak, res):
    checks = []
    def check(name, ok, figures):
        checks.append((name, bool(ok), figures))
    c = res["counts"]
    check("scand alive, exit 0", res["scand_alive_at_end"] and res["scand_exit"] == 0,
          "alive at end: %s, exit status %s" % (res["scand_alive_at_end"], res["scand_exit"]))
    check("descriptor limit restored", c["limit_restore_failures"] == 0,
          "%d lowered, %d not restored" % (c["fd_limits"], c["limit_restore_failures"]))
    check("broker restarts", c["broker_restart_failures"] == 0
          and (c["broker_stops"] + c["broker_kills"] > 0 or "broker" in soak.args.without),
          "%d stops, %d kill, %d failed restarts" % (c["broker_stops"], c["broker_kills"],
                                                      c["broker_restart_failures"]))
    if "rss_warm_mb" in res:
        growth = res["rss_end_mb"] - res["rss_warm_mb"]
        res["rss_growth_mb"] = round(growth, 1)
        check("RSS flat after warm-up", growth <= RSS_GROWTH_MAX_MB,
              "%.1f -> %.1f MB (%+.1f MB, max %.1f)" % (res["rss_warm_mb"], res["rss_end_mb"], growth,
                                                        res["rss_max_mb"]))
        check("descriptors back to their level", res["fds_end"] <= res["fds_warm"],
              "%d after warm-up, %d at the end (max %d)" % (res["fds_warm"], res["fds_end"], res["fds_max"]))
        check("threads back to their level", res["threads_end"] <= res["threads_warm"],
              "scand's own: %d after warm-up, %d at the end (max %d)" % (
                  res["threads_warm"], res["threads_end"], res["threads_max"]))
        check("Dispatch's worker pool bounded", res["pool_max"] <= DISPATCH_POOL_MAX,
              "%d after warm-up, %d at the end, max %d (at most %d)" % (
                  res["pool_warm"], res["pool_end"], res["pool_max"], DISPATCH_POOL_MAX))
    else:
        check("levels", False, "not enough samples (run longer than the warm-up + 20 s)")
    g = res["socket"]
    check("socket seq: no unexplained gap", g["gaps_unexplained"] == 0 and g["events"] > 0,
          "%d events, %d overflow notices, %d gaps explained, %d unexplained %s, %d reconnects"
          % (g["events"], g["overflows"], g["gaps_explained"], g["gaps_unexplained"], g["unexplained"][:5],
             c["steady_reconnects"]))
    check("stdout events reached MQTT", res["mqtt_missing"] == 0 and res["printed"] > 0,
          "%d printed, %d received (%d duplicates), %d missing %s; %d more lost in the broker's SIGKILL window"
          % (res["printed"], res["mqtt_received"], res["mqtt_duplicates"], res["mqtt_missing"],
             res["mqtt_missing_seq"][:10], res["mqtt_missing_at_broker_kill"]))
    res["checks"] = {n: ("PASS" if ok else "FAIL") for n, ok, _ in checks}
    width = max(len(n) for n, _, _ in checks)
    print("%-*s  result  figures" % (width, "check"))
    for n, ok, fig in checks:
        print("%-*s  %-6s  %s" % (width, n, "PASS" if ok else "FAIL", fig))
    print("load: %d socket churn connections (%d refused), %d WebSocket (%d failed), %d HTTP polls (%d failed), "
          "%d stalled-client reconnects, %d SIGHUPs, %d disk fills, %d descriptor limits, CPU %.1f %% mean"
          % (c["sock_churn"], c["sock_churn_err"], c["ws_churn"], c["ws_churn_err"], c["http_ok"], c["http_err"],
             c["stalled_reconnects"], c["hups"], c["disk_fills"], c["fd_limits"], res.get("cpu_mean_pct", 0)))
    for n in res["notes"]:
        print("note: " + n)
    print(json.dumps(res), flush=True)
    return all(ok for _, ok, _ in checks)


def write_files(soak):
    out = soak.out
    with open(os.path.join(out, "samples.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["t", "rss_mb", "fds", "threads", "own_threads", "pool_threads", "cpu_pct"])
        w.writeheader()
        w.writerows(soak.samples)
    with open(os.path.join(out, "chaos.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "event", "detail"])
        w.writerows(soak.chaos)
    if not soak.samples:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = [x["t"] for x in soak.samples]
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(11, 7))
    for ax, key, label in zip(axes, ("rss_mb", "fds", "threads"), ("RSS (MB)", "descriptors", "threads")):
        ax.plot(t, [x[key] for x in soak.samples], lw=0.8)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.axvline(soak.args.warmup, color="grey", ls=":", lw=1)
        colors = {"broker-stop": "tab:orange", "broker-kill": "tab:red", "sighup": "tab:green",
                  "disk-full": "tab:purple", "fd-limit": "tab:brown"}
        for ct, kind, _ in soak.chaos:
            if kind in colors:
                ax.axvline(ct, color=colors[kind], lw=0.7, alpha=0.6)
    from matplotlib.lines import Line2D
    axes[0].legend([Line2D([0], [0], color=c) for c in colors.values()] + [Line2D([0], [0], color="grey", ls=":")],
                   list(colors) + ["end of warm-up"], fontsize=7, ncol=6, loc="upper left")
    axes[-1].set_xlabel("seconds")
    fig.suptitle("scand chaos soak, %d s" % soak.args.duration)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "soak.png"), dpi=100)


def default_clip(out):
    found = sorted(glob.glob("/tmp/scand-daemon-fixtures-*/kiosk.y4m"))
    if found:
        return found[0]
    d = os.path.join(out, "fixtures")
    subprocess.run([sys.executable, os.path.join(ROOT, "Tests", "Fixtures", "daemon", "make_fixtures.py"), d],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(d, "kiosk.y4m")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, required=True, help="seconds of chaos (at least 60)")
    ap.add_argument("--scand", default=os.path.join(ROOT, ".build", "debug", "scand"))
    ap.add_argument("--models", default=os.path.join(ROOT, "Models"))
    ap.add_argument("--clip", help="a Y4M clip (default: the tests' kiosk.y4m, made if absent)")
    ap.add_argument("--out", help="results and logs (default: /tmp/scand-soak-<time>)")
    ap.add_argument("--warmup", type=float, help="seconds (default: 600 for runs of an hour or more, else 30)")
    ap.add_argument("--without", default="", help="leave out loads or faults (to find what a leak comes from), "
                    "comma-separated: " + ",".join(WITHOUT))
    ap.add_argument("--fdlimit-every", type=float, help="lower the descriptor limit every S seconds from 45 s on")
    ap.add_argument("--fdlimit-hold", type=float, default=5.0, help="seconds each descriptor limit holds (default 5)")
    a = ap.parse_args()
    if a.fdlimit_every is not None and a.fdlimit_every <= a.fdlimit_hold:
        ap.error("--fdlimit-every must be longer than --fdlimit-hold")
    a.without = [w for w in a.without.split(",") if w]
    if set(a.without) - set(WITHOUT):
        ap.error("--without: unknown %s (known: %s)" % (",".join(set(a.without) - set(WITHOUT)), ",".join(WITHOUT)))
    if a.duration < 60:
        ap.error("--duration must be at least 60 s")
    a.out = os.path.abspath(a.out or time.strftime("/tmp/scand-soak-%Y%m%d-%H%M%S"))
    os.makedirs(a.out, exist_ok=True)
    if a.warmup is None:
        a.warmup = 600.0 if a.duration >= 3600 else 30.0
    if a.warmup + 30 > a.duration:
        ap.error("--warmup must end at least 30 s before --duration")
    a.clip = os.path.abspath(a.clip or default_clip(a.out))
    soak = Soak(a)
    def interrupt(*_):
        raise KeyboardInterrupt
    # Ctrl-C and SIGTERM clean up. A function of ours: when SIGINT comes ignored (started with `&` by a
    # script), signal.default_int_handler would not be installed.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    ok = False
    try:
        res = soak.run()
        soak.cleanup()
        write_files(soak)
        ok = report(soak, res)
    except KeyboardInterrupt:
        print("soak: interrupted; cleaning up (the samples so far go to %s)" % a.out, file=sys.stderr)
        soak.cleanup()
        write_files(soak)
    finally:
        soak.cleanup()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
