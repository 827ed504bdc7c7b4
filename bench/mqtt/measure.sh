#!/bin/bash
# Figures for `scand run --mqtt` (issue 19), each against a real local mosquitto the driver starts itself:
#   1. events/s from the client's deliver() to the last PUBACK at QoS 1 (burst of N events), with
#      mosquitto_pub -l (the reference client, same broker, same lines, QoS 1) as the baseline in the same run;
#      then the same client with --mqtt-spool (write-through segment files) in the same run: the spool's cost,
#      end to end and for deliver() alone (the part the pipeline's thread pays);
#   2. outbox memory at its bound (broker down, 20,000 events offered to the default bound of 10,000 / 16 MiB);
#   3. seconds to drain 10,000 queued events once the broker comes up.
# Usage: bench/mqtt/measure.sh [RUNS] [EVENT_BYTES]   (defaults 5 runs, 300-byte events ~ a one-code metadata line)
# Prints each run's JSON line to stderr and a Markdown table of medians to stdout.
set -euo pipefail
RUNS=${1:-5}
BYTES=${2:-300}
cd "$(dirname "$0")/../.."
swift build -c release --product scand-mqtt-bench >&2
BIN=$(swift build -c release --show-bin-path)/scand-mqtt-bench
runs() { for _ in $(seq "$RUNS"); do "$BIN" "$@"; done | tee /dev/stderr; }
median() { python3 -c 'import sys,json,statistics as s; k=sys.argv[1]; v=[json.loads(l)[k] for l in sys.stdin if l.strip()]; print(round(s.median(v),3))' "$1"; }
T=$(runs throughput 10000 "$BYTES")
M=$(runs memory 20000 "$BYTES")
M1K=$(runs memory 20000 1000)
D=$(runs drain 10000 "$BYTES")
echo "| figure ($RUNS runs, median) | value |"
echo "|---|---|"
echo "| events/s, QoS 1, 10,000 × ${BYTES} B, scand client | $(median eventsPerSecond <<<"$T") |"
echo "| events/s, QoS 1, 10,000 × ${BYTES} B, scand client with --mqtt-spool | $(median spoolEventsPerSecond <<<"$T") |"
echo "| deliver() calls/s (the pipeline's side), without / with --mqtt-spool | $(median deliverPerSecond <<<"$T") / $(median spoolDeliverPerSecond <<<"$T") |"
echo "| events/s, QoS 1, same lines, mosquitto_pub -l (baseline) | $(median mosquittoPubEventsPerSecond <<<"$T") |"
echo "| outbox at bound, ${BYTES} B events: messages kept / bytes / RSS growth | $(median queued <<<"$M") / $(median outboxBytes <<<"$M") / $(median rssGrowth <<<"$M") |"
echo "| outbox at bound, 1000 B events: messages kept / bytes / RSS growth | $(median queued <<<"$M1K") / $(median outboxBytes <<<"$M1K") / $(median rssGrowth <<<"$M1K") |"
echo "| drain 10,000 queued events, from the broker's start: s to connected / s to last PUBACK | $(median secondsToConnect <<<"$D") / $(median secondsToDrain <<<"$D") |"
