#!/usr/bin/env python3
"""Issue 52's reproduction: MQTT events lost when scand reloads (SIGHUP) around broker outages.

Starts a mosquitto with persistence on a free loopback port, a persistent QoS 1 subscriber
(`mosquitto_sub -c -q 1 -i ...`), and `scand run --config FILE --input CLIP --loop --mqtt ... --mqtt-spool DIR
--mqtt-metadata` with stdout to a file. Then, OUTAGES times: stops the broker for OUTAGE seconds (SIGTERM: it
saves its persistence), sending scand a SIGHUP at HUP_AT seconds into the outage (negative: before it), the
config file switching between two versions each time. At the end scand is stopped (SIGTERM), the broker is
given time to deliver, and every event line scand printed on stdout is looked for among what the subscriber
received (by `seq`). Prints one JSON line per run: scand's exit status, the reloads it applied (its
`configuration` events), printed, received, lost (the seq numbers), duplicates.

As root, mosquitto switches to user `mosquitto` unless told `user root`, and then cannot save its persistence
in a root-only directory: the subscriber's session and its queued messages vanish at each restart, and events
look lost that scand delivered. The broker here runs as root for that reason.

Usage: bench/soak/reload_loss.py [--scand PATH] [--clip Y4M] [--outages 5] [--outage 3] [--hup-at 1.5]
       [--runs N]
Exit status: 0 when no run lost an event, 1 otherwise.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from soak import free_port, wait_port  # the same folder: one copy of the port helpers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Broker:
    def __init__(self, work, port):
        self.work, self.port, self.proc = work, port, None
        self.conf = os.path.join(work, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                    f"persistence_location {work}/\nautosave_interval 1\nmax_queued_messages 0\n"
                    f"log_dest file {work}/mosquitto.log\nlog_type all\n")
            if os.getuid() == 0:  # as root, mosquitto would switch to user 'mosquitto' and not save its store
                f.write("user root\n")

    def start(self):
        self.proc = subprocess.Popen(["mosquitto", "-c", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if not wait_port(self.port):
            sys.exit("reload_loss: mosquitto did not listen on %d" % self.port)

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=10)
            self.proc = None


def write_config(path, config):
    """Replaces the config file in one step (a reload never reads it half written)."""
    with open(path + ".tmp", "w") as f:
        json.dump(config, f)
    os.replace(path + ".tmp", path)


def one_run(args, run):
    work = tempfile.mkdtemp(prefix="scand-reload-loss-")
    try:
        port = free_port()
        broker = Broker(work, port)
        broker.start()
        received_path = os.path.join(work, "received.txt")
        sub_id = "reload-loss-sub-%d" % os.getpid()
        sub_cmd = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-c", "-q", "1", "-i", sub_id,
                   "-t", "scand/reload/events"]
        received = open(received_path, "ab")
        sub = subprocess.Popen(sub_cmd, stdout=received, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        configs = []
        for i, density in enumerate((1, 2)):
            c = {"input": args.clip, "loop": True, "scanDensity": density,
                 "mqtt": {"url": f"mqtt://127.0.0.1:{port}", "id": "reload", "metadata": True,
                          "spool": os.path.join(work, "spool")}}
            if args.no_metadata_key:  # scand before ff818ee's successors sent metadata to MQTT with no such key
                del c["mqtt"]["metadata"]
            configs.append(c)
        os.mkdir(os.path.join(work, "spool"))
        config = os.path.join(work, "scand.json")
        write_config(config, configs[0])
        printed_path = os.path.join(work, "printed.jsonl")
        printed = open(printed_path, "wb")
        log = open(os.path.join(work, "scand.log"), "wb")
        scand = subprocess.Popen([args.scand, "run", "--config", config, "--stdout", "--models", os.path.join(ROOT, "Models")],
                                 stdout=printed, stderr=log)
        time.sleep(2)
        for k in range(args.outages):
            if args.hup_at < 0:
                if not args.no_hup:
                    write_config(config, configs[(k + 1) % 2])
                    scand.send_signal(signal.SIGHUP)
                time.sleep(-args.hup_at)
            broker.stop()
            write_config(config, configs[(k + 1) % 2])
            if args.hup_at >= 0:
                time.sleep(args.hup_at)
                if not args.no_hup:
                    scand.send_signal(signal.SIGHUP)
                time.sleep(max(0, args.outage - args.hup_at))
            else:
                time.sleep(args.outage)
            broker.start()
            # The subscriber's session resumes when it reconnects (it exits when the broker goes away).
            if sub.poll() is not None:
                sub = subprocess.Popen(sub_cmd, stdout=received, stderr=subprocess.DEVNULL)
            time.sleep(2)
        scand.send_signal(signal.SIGTERM)
        rc = scand.wait(timeout=30)
        printed.close()
        # Let the subscriber catch up.
        lines = []
        deadline = time.time() + 10
        with open(printed_path, "rb") as f:
            out = [json.loads(l) for l in f.read().splitlines() if l.strip()]
        want = [e["seq"] for e in out if "seq" in e]
        while time.time() < deadline:
            if sub.poll() is not None:
                sub = subprocess.Popen(sub_cmd, stdout=received, stderr=subprocess.DEVNULL)
            received.flush()
            with open(received_path, "rb") as f:
                lines = [l for l in f.read().splitlines() if l.strip()]
            got = []
            for l in lines:
                try:
                    got.append(json.loads(l).get("seq"))
                except ValueError:
                    pass
            if set(want) <= set(got):
                break
            time.sleep(0.5)
        sub.terminate()
        sub.wait()
        broker.stop()
        lost = sorted(set(want) - set(got))
        dup = len(got) - len(set(got))
        reloads = sum(1 for e in out if e.get("event") == "configuration" and e.get("origin") == "reload")
        result = {"run": run, "scand_exit": rc, "reloads": reloads, "printed": len(want), "received": len(set(got)),
                  "lost": len(lost), "lost_seq": lost[:20], "duplicates": dup, "work": work}
        print(json.dumps(result), flush=True)
        return result
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scand", default=os.path.join(ROOT, ".build", "debug", "scand"))
    ap.add_argument("--clip", required=True, help="a Y4M clip (Tests' kiosk.y4m: Tests/Fixtures/daemon/make_fixtures.py)")
    ap.add_argument("--outages", type=int, default=5)
    ap.add_argument("--outage", type=float, default=3.0)
    ap.add_argument("--hup-at", type=float, default=1.5, help="seconds into each outage (negative: before it)")
    ap.add_argument("--no-hup", action="store_true", help="no SIGHUP at all (the control run)")
    ap.add_argument("--no-metadata-key", action="store_true",
                    help="leave out mqtt.metadata (older scand, which sends per-frame events to MQTT anyway)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the work directories")
    args = ap.parse_args()
    bad = 0
    for r in range(args.runs):
        if one_run(args, r)["lost"]:
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
