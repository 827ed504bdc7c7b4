#!/usr/bin/python3
"""Test clients for `scand run`'s Unix socket (used by Tests/scandTests/DaemonTests.swift).

client.py read SOCK OUT [--subscribe JSON] [--duration S]
    Reads lines until EOF or S seconds; writes each as "<receive time> <line>" to OUT.
client.py slow SOCK OUT --pause S --drain S --stall S [--timeout S]
    Does not read for --pause, reads everything for --drain, stops reading for --stall, then reads to
    EOF (or --timeout); OUT gets every line and a final "EOF <seconds>" or "TIMEOUT".
client.py garbage SOCK OUT [--duration S]
    Sends garbage, binary and an overlong line, then a half-close, and keeps reading; OUT as for read.
client.py churn SOCK --clients N --duration S
    N threads connect and disconnect in a loop (read banner / close at once / garbage / half-close);
    prints the number of connections made.
client.py activate SOCKPATH -- PROGRAM ARGS...
    Binds and listens on SOCKPATH, puts it on fd 3, sets LISTEN_FDS=1 and LISTEN_PID, execs PROGRAM.
client.py notify-listen PATH OUT
    Receives sd_notify datagrams on PATH, appends each to OUT.
"""
import os
import random
import socket
import sys
import threading
import time


def connect(path, timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)  # blocking: waits for room in the listen backlog instead of failing with EAGAIN
    s.settimeout(timeout)
    return s


def arg(name, default=None, conv=str):
    if name in sys.argv:
        return conv(sys.argv[sys.argv.index(name) + 1])
    return default


def read_lines(s, out, deadline, start):
    buf = b""
    while time.time() < deadline:
        s.settimeout(max(0.01, min(0.5, deadline - time.time())))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            out.write("RESET\n")
            return "reset"
        if not chunk:
            out.write("EOF %.3f\n" % (time.time() - start))
            return "eof"
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            out.write("%.6f %s\n" % (time.time(), line.decode("utf-8", "replace")))
        out.flush()
    out.write("TIMEOUT\n")
    return "timeout"


def cmd_read():
    path, outpath = sys.argv[2], sys.argv[3]
    sub = arg("--subscribe")
    duration = arg("--duration", 60.0, float)
    start = time.time()
    s = connect(path)
    if sub:
        s.sendall(sub.encode() + b"\n")
    with open(outpath, "w") as out:
        read_lines(s, out, start + duration, start)
    s.close()


def cmd_slow():
    path, outpath = sys.argv[2], sys.argv[3]
    pause, drain, stall = arg("--pause", 2.0, float), arg("--drain", 0.5, float), arg("--stall", 4.0, float)
    timeout = arg("--timeout", 20.0, float)
    start = time.time()
    s = connect(path)
    with open(outpath, "w") as out:
        time.sleep(pause)
        if read_lines(s, out, time.time() + drain, start) != "timeout":
            return
        time.sleep(stall)
        read_lines(s, out, time.time() + timeout, start)
    s.close()


def cmd_garbage():
    path, outpath = sys.argv[2], sys.argv[3]
    duration = arg("--duration", 3.0, float)
    start = time.time()
    s = connect(path)
    rng = random.Random(6)
    s.sendall(b"hello?\n")
    s.sendall(bytes(rng.randrange(256) for _ in range(3000)) + b"\n")
    s.sendall(b"\x00\xff\xfe\n")
    s.sendall(b'{"subscribe":{"types":["qr"],"events":["bogus"]}}\n')
    s.sendall(b'{"subscribe": 42}\n')
    s.sendall(b"A" * 10000 + b"\n")
    s.sendall(b'{"subscribe":{"types":["qr","ean13"]}}\n')
    s.shutdown(socket.SHUT_WR)  # half-close: we still read
    with open(outpath, "w") as out:
        read_lines(s, out, start + duration, start)
    s.close()


def cmd_churn():
    path = sys.argv[2]
    clients, duration = arg("--clients", 200, int), arg("--duration", 30.0, float)
    deadline = time.time() + duration
    count = [0]
    errors = []
    lock = threading.Lock()

    def worker(i):
        rng = random.Random(i)
        while time.time() < deadline:
            try:
                s = connect(path, timeout=5)
                mode = rng.randrange(4)
                if mode == 0:
                    s.recv(4096)  # the banner
                elif mode == 1:
                    pass  # close at once
                elif mode == 2:
                    s.sendall(bytes(rng.randrange(256) for _ in range(200)) + b"\n")
                    s.recv(4096)
                else:
                    s.shutdown(socket.SHUT_WR)
                    s.recv(4096)
                s.close()
                with lock:
                    count[0] += 1
            except Exception as e:  # noqa
                with lock:
                    errors.append(repr(e))
                time.sleep(0.05)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(count[0], len(errors))
    if errors:
        print("\n".join(sorted(set(errors))[:5]), file=sys.stderr)


def cmd_activate():
    path = sys.argv[2]
    argv = sys.argv[sys.argv.index("--") + 1:]
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(16)
    fd = s.fileno()
    if fd != 3:
        os.dup2(fd, 3)
        s.close()
    os.set_inheritable(3, True)
    env = dict(os.environ)
    env["LISTEN_FDS"] = "1"
    env["LISTEN_PID"] = str(os.getpid())
    os.execve(argv[0], argv, env)


def cmd_notify_listen():
    path, outpath = sys.argv[2], sys.argv[3]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    with open(outpath, "a") as out:
        out.write("LISTENING\n")
        out.flush()
        while True:
            data = s.recv(4096)
            out.write(data.decode("utf-8", "replace").replace("\n", " ") + "\n")
            out.flush()


if __name__ == "__main__":
    {"read": cmd_read, "slow": cmd_slow, "garbage": cmd_garbage, "churn": cmd_churn,
     "activate": cmd_activate, "notify-listen": cmd_notify_listen}[sys.argv[1]]()
