#!/bin/busybox sh
# /init of the V4L2 test VM (see run-v4l2-tests). Prints `SCANDVM: PASS|FAIL name detail` lines, then
# `SCANDVM: DONE`, and powers off.
/bin/busybox --install -s /bin
echo
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
echo 1 > /proc/sys/kernel/printk 2>/dev/null

say() { echo "SCANDVM: $*"; }
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
T=/tmp
# scandvm.only=a,b on the kernel command line (SCAND_VM_ONLY) runs only those checks.
ONLY=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^scandvm.only=//p')
want() { [ -z "$ONLY" ] && return 0; case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

for m in $(cat /modules/order); do
    case "$m" in
        vivid.ko) insmod /modules/vivid.ko n_devs=2 node_types=0x20101,0x20101 num_inputs=1,1 input_types=0,0 ;;
        *) insmod "/modules/$m" ;;
    esac || fail modules "insmod $m failed"
done
insmod /modules/v4l2loopback.ko video_nr=10 exclusive_caps=1 card_label=scand-loopback || fail modules "insmod v4l2loopback failed"
sleep 0.3
say "INFO init started at $(now) s uptime"
say "INFO nodes: $(ls /dev/video* | tr '\n' ' ')"

# Helpers over scand's JSON lines (keys are sorted, one event per line).
field() { grep -o "\"$1\":\"[^\"]*\"" | head -1 | sed 's/^[^:]*:"//;s/"$//'; }
# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN.
wait_for() {
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null; do
        i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && return 1; sleep 0.1
    done
}
events() { grep '"event":"device"' "$1" | grep -o '"kind":"[^"]*"' | sed 's/"kind":"//;s/"$//' | tr '\n' ' '; }

# No udev here: make the by-id link udev would make, so by-id names are exercised too.
mkdir -p /dev/v4l/by-id
ln -s ../../video0 /dev/v4l/by-id/platform-vivid-000-video-index0

# --- 1. scand devices: every capture node listed with the driver's real formats, nothing else.
if want devices; then
t=$(now)
scand devices --log-level info >$T/devices.json 2>$T/devices.err
rc=$?
ok=1; detail=""
for n in /dev/video*; do
    kind=$(vmtool caps "$n" | cut -d' ' -f1)
    if [ "$kind" = capture ]; then
        line=$(grep "\"path\":\"$n\"" $T/devices.json)
        if [ -z "$line" ]; then ok=0; detail="$detail $n(capture)missing"; continue; fi
        want=$(vmtool formats "$n" | tr '\n' ' ')
        got=$(echo "$line" | grep -o '"fourcc":"[^"]*"' | sed 's/"fourcc":"//;s/"//' | tr '\n' ' ')
        if [ "$want" != "$got" ]; then ok=0; detail="$detail $n formats want[$want] got[$got]"; fi
        detail="$detail $n=$(echo "$line" | field driver):$(echo "$got" | wc -w)formats"
    else
        if grep -q "\"path\":\"$n\"" $T/devices.json; then ok=0; detail="$detail $n(not capture)listed"; else detail="$detail $n=skipped"; fi
    fi
done
grep -q '"driver":"vivid"' $T/devices.json || { ok=0; detail="$detail no-vivid"; }
grep '"path":"/dev/video0"' $T/devices.json | grep -q '"id":"platform-vivid-000-video-index0"' || { ok=0; detail="$detail no-by-id-name"; }
grep -q '"width":1280,"height":720\|"height":720.*"width":1280' $T/devices.json || true
[ $rc = 0 ] && [ $ok = 1 ] && pass devices "$detail ($(since $t)s)" || fail devices "rc=$rc$detail"
say "INFO vivid formats: $(grep '"driver":"vivid"' $T/devices.json | grep -o '"fourcc":"[^"]*"' | sed 's/"fourcc":"//;s/"//' | tr '\n' ' ')"
say "INFO vivid sizes (first format): $(grep '"driver":"vivid"' $T/devices.json | sed 's/},{"compressed".*//' | grep -o '"height":[0-9]*,"intervals":\[[^]]*\],"width":[0-9]*' | sed 's/"height":\([0-9]*\),"intervals":\[\([^]]*\)\],"width":\([0-9]*\)/\3x\1/' | tr '\n' ' ')"

fi
scand devices >$T/devices.json 2>/dev/null
VIVID=$(grep '"driver":"vivid"' $T/devices.json | field path | head -1)
[ -n "$VIVID" ] || VIVID=/dev/video0

# --- 2. Frame rate at 640x480 and 1280x720: capture rate from the frame index and the driver timestamps.
rate_check() { # name size fps seconds
    name=$1; size=$2; fps=$3; secs=$4
    t=$(now)
    scand scan --device "$VIVID" --size "$size" --fps "$fps" --duration "$secs" --log-level info >$T/$name.json 2>$T/$name.err
    rc=$?
    negotiated=$(grep '"kind":"started"' $T/$name.json | head -1 | sed -n 's/.* at \([0-9.]*\) fps.*/\1/p')
    w=${size%x*}; h=${size#*x}
    # frame index counts every captured frame (delivered or dropped late); time is the driver timestamp.
    stats=$(grep '"event":"metadata"' $T/$name.json | sed -n 's/.*"frame":\([0-9]*\),"height":\([0-9]*\),.*"time":\([0-9.]*\),"width":\([0-9]*\).*/\1 \2 \3 \4/p' | awk -v w="$w" -v h="$h" '
        NR==1 {f0=$1; t0=$3} {f1=$1; t1=$3; n++; if ($2!=h || $4!=w) bad++}
        END { if (n<2 || t1<=t0) {print "0 0 " n " " bad+0; exit} printf "%.2f %.2f %d %d\n", (f1-f0)/(t1-t0), n/(t1-t0), n, bad+0 }')
    set -- $stats
    cap=$1; delivered=$2; n=$3; bad=$4
    okr=$(echo "$negotiated $cap" | awk '{ if ($1>0 && $2>=0.8*$1 && $2<=1.2*$1) print 1; else print 0 }')
    detail="size=$size asked=${fps}fps negotiated=${negotiated}fps captured=${cap}fps scanned=${delivered}fps frames=$n wrongsize=$bad rc=$rc ($(since $t)s) $(grep -o 'captured [0-9]*, scanned.*' $T/$name.err | head -1)"
    if [ "$rc" = 0 ] && [ "$okr" = 1 ] && [ "$bad" = 0 ] && [ "$n" -gt 3 ]; then pass "$name" "$detail"; else fail "$name" "$detail"; tail -3 $T/$name.err; fi
}
want rate && rate_check rate-640x480 640x480 30 3
want rate && rate_check rate-1280x720 1280x720 15 3

# --- Library checks against vivid (Swift Testing, Tests/ScanCaptureTests/LiveCaptureTests.swift):
# commitConfiguration restarts streaming once, refused commits apply nothing, the newest frame wins,
# device events as an AsyncStream.
if want session && [ -x /bin/scand-tests ]; then
    t=$(now)
    NO_COLOR=1 TERM=dumb SCAND_TEST_DEVICE="$VIVID" scand-tests --testing-library swift-testing --filter LiveCaptureTests >$T/unit.log 2>&1
    rc=$?
    ran=$(grep -c 'Test .*() passed after' $T/unit.log)
    skipped=$(grep -c 'skipped' $T/unit.log)
    grep -a '^. Test .*\(passed\|failed\)\|recorded an issue\|Expectation failed' $T/unit.log | sed 's/^/SCANDVM: INFO   /'
    if [ $rc = 0 ] && [ "$ran" -ge 3 ] && [ "$skipped" = 0 ]; then pass session-tests "$ran live CaptureSession tests passed ($(since $t)s)"
    else fail session-tests "rc=$rc passed=$ran skipped=$skipped"; tail -20 $T/unit.log; fi
fi

# --- 3+4. QR frames through v4l2loopback, in order; the writer stalls, a new writer resumes.
LOOP=/dev/video10
if want loopback; then
t=$(now)
rm -f $T/go1 $T/go2
# Writer 1 shows white until scand streams, then 6 codes for 1 s each, then exits (a stall).
vmtool write $LOOP 5 $T/go1 5 0 /qr/000.txt /qr/001.txt /qr/002.txt /qr/003.txt /qr/004.txt /qr/005.txt >$T/w1.log 2>&1 &
w1=$!
sleep 0.3
scand scan --device $LOOP --types qr --no-inverted --stall-timeout 1 --duration 30 --log-level info >$T/loop.json 2>$T/loop.err &
sp=$!
wait_for $T/loop.json '"kind":"started"' 10; touch $T/go1
wait $w1
w1rc=$?
# The stall: scand reports wasInterrupted and reopens; then writer 2 shows white until scand reports
# interruptionEnded, then 4 more codes.
wait_for $T/loop.json '"kind":"wasInterrupted"' 5
vmtool write $LOOP 5 $T/go2 5 0.5 /qr/006.txt /qr/007.txt /qr/008.txt /qr/009.txt >$T/w2.log 2>&1 &
w2=$!
wait_for $T/loop.json '"kind":"interruptionEnded"' 10; touch $T/go2
wait $w2
w2rc=$?
kill -INT $sp
wait $sp
rc=$?
want="scand-qr-000 scand-qr-001 scand-qr-002 scand-qr-003 scand-qr-004 scand-qr-005 scand-qr-006 scand-qr-007 scand-qr-008 scand-qr-009 "
got=$(grep '"event":"metadata"' $T/loop.json | grep -o '"value":"[^"]*"' | sed 's/"value":"//;s/"$//' | uniq | tr '\n' ' ')
if [ "$got" = "$want" ] && [ $rc = 0 ]; then pass loopback-qr "10 payloads exact and in order, writers rc=$w1rc/$w2rc, scand rc=$rc after SIGINT ($(since $t)s) $(grep -o 'captured [0-9]*, scanned.*' $T/loop.err | head -1)"
else fail loopback-qr "rc=$rc writers=$w1rc/$w2rc got[$got] want[$want]"; tail -5 $T/loop.err; cat $T/w1.log $T/w2.log; fi
ev=$(events $T/loop.json)
# wasInterrupted after the first writer, interruptionEnded before the second writer's codes.
order=$(awk '/"kind":"wasInterrupted"/ && !i {i=NR} /"kind":"interruptionEnded"/ && !e {e=NR} /scand-qr-006/ && !q {q=NR} END {print (i>0 && e>i && q>e) ? 1 : 0}' $T/loop.json)
if [ "$order" = 1 ]; then pass loopback-stall "events: $ev"; else fail loopback-stall "events: $ev"; fi
fi

# --- 5. Unplug (sysfs unbind of vivid) and re-bind: deviceDisconnected, no crash, resumes by itself.
if want unplug; then
t=$(now)
scand scan --device "$VIVID" --size 640x480 --fps 15 --duration 30 --log-level info >$T/unplug.json 2>$T/unplug.err &
sp=$!
wait_for $T/unplug.json '"event":"metadata"' 10
sleep 1
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind
wait_for $T/unplug.json '"kind":"deviceDisconnected"' 5
sleep 1
echo vivid.0 >/sys/bus/platform/drivers/vivid/bind
u=$(now)
wait_for $T/unplug.json '"kind":"deviceConnected"' 10
resumed=$(since $u)
sleep 2
kill -INT $sp
wait $sp
rc=$?
ev=$(events $T/unplug.json)
after=$(awk '/"kind":"deviceConnected"/ {c=1} c && /"event":"metadata"/ {n++} END {print n+0}' $T/unplug.json)
before=$(awk '/"kind":"deviceDisconnected"/ {exit} /"event":"metadata"/ {n++} END {print n+0}' $T/unplug.json)
if [ $rc = 0 ] && echo "$ev" | grep -q 'deviceDisconnected.*deviceConnected' && [ "$after" -gt 3 ]; then
    pass unplug "rc=$rc events: $ev frames before=$before after-reconnect=$after, resumed ${resumed}s after bind ($(since $t)s)"
else fail unplug "rc=$rc events: $ev frames before=$before after=$after"; tail -5 $T/unplug.err; fi
fi

# --- 6. A second scand on a busy device gets a clear error.
if want busy; then
t=$(now)
scand scan --device "$VIVID" --size 640x480 --duration 30 >$T/busy1.json 2>$T/busy1.err &
sp=$!
wait_for $T/busy1.json '"event":"metadata"' 10
scand scan --device "$VIVID" --size 640x480 --duration 1.5 >$T/busy2.json 2>$T/busy2.err
rc2=$?
kill -INT $sp
wait $sp
rc1=$?
msg=$(grep -i 'busy' $T/busy2.err | tail -1)
if [ $rc1 = 0 ] && [ $rc2 = 2 ] && [ -n "$msg" ] && grep -q '"kind":"runtimeError".*busy' $T/busy2.json; then
    pass busy "second scand rc=$rc2: $msg ($(since $t)s)"
else fail busy "rc1=$rc1 rc2=$rc2 msg=[$msg]"; cat $T/busy2.err | tail -3; fi
fi

# --- Error buffers and a fatal streaming error (vivid's error injection), device named by its by-id name.
if want errors; then
t=$(now)
BYID=platform-vivid-000-video-index0
scand scan --device $BYID --size 640x480 --fps 15 --duration 30 --log-level info >$T/err.json 2>$T/err.err &
sp=$!
wait_for $T/err.json '"event":"metadata"' 10
for i in 1 2 3; do vmtool ctrl "$VIVID" "Inject V4L2_BUF_FLAG_ERROR" 1; sleep 0.4; done
vmtool ctrl "$VIVID" "Inject Fatal Streaming Error" 1
wait_for $T/err.json '"kind":"runtimeError".*EIO' 5
sleep 1.5
kill -INT $sp
wait $sp
rc=$?
errbufs=$(sed -n 's/.*error buffers \([0-9]*\), EIO \([0-9]*\), stream starts \([0-9]*\).*/\1 \2 \3/p' $T/err.err)
set -- $errbufs
ev=$(events $T/err.json)
after=$(awk '/"kind":"runtimeError"/ {c=1} c && /"event":"metadata"/ {n++} END {print n+0}' $T/err.json)
if [ $rc = 0 ] && [ "${1:-0}" -ge 1 ] && [ "${2:-0}" -ge 5 ] && [ "${3:-0}" -ge 2 ] && [ "$after" -gt 3 ] && grep -q '"source":"platform-vivid-000-video-index0"' $T/err.json; then
    pass errors "by-id name; flagged buffers dropped=$1, EIO=$2 then reopen (stream starts $3), frames after=$after, events: $ev ($(since $t)s)"
else fail errors "rc=$rc counters[error buffers, EIO, starts]=[$errbufs] after=$after events: $ev"; tail -5 $T/err.err; fi
fi

# --- 7. A size the device refuses: clear error listing what it offers.
if want refused; then
scand scan --device "$VIVID" --size 1000x700 --duration 1 >$T/refuse.json 2>$T/refuse.err
rc=$?
msg=$(tail -1 $T/refuse.err)
if [ $rc = 2 ] && echo "$msg" | grep -q 'does not offer 1000x700; it offers: .*640x480'; then pass refused-size "rc=$rc: $(echo "$msg" | cut -c1-160)…"
else fail refused-size "rc=$rc: $msg"; fi
fi

# --- 8. The daemon on a real device: `scand run --device` over a Unix socket, through an unplug and re-bind.
# A socket client (busybox nc) sees the hello banner, metadata, and device events in one gapless seq stream;
# SIGTERM removes the socket file.
if want daemon; then
t=$(now)
SOCK=$T/scand.sock
scand run --device "$VIVID" --size 640x480 --fps 15 --socket $SOCK --stdout --log-level info >$T/run.json 2>$T/run.err &
dp=$!
wait_for $T/run.json '"event":"metadata"' 15
mode=$(stat -c %a $SOCK 2>/dev/null)
vmtool sockread $SOCK 6 >$T/client.json 2>$T/client.err &
cp=$!
sleep 1
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind
wait_for $T/run.json '"kind":"deviceDisconnected"' 5
sleep 1
echo vivid.0 >/sys/bus/platform/drivers/vivid/bind
wait_for $T/run.json '"kind":"deviceConnected"' 10
sleep 2
kill -TERM $dp
wait $dp
rc=$?
wait $cp 2>/dev/null
gone=$([ -e $SOCK ] && echo present || echo removed)
ev=$(events $T/run.json)
seqs=$(grep -o '"seq":[0-9]*' $T/run.json | cut -d: -f2)
gaps=$(echo "$seqs" | awk 'NR>1 && $1 != p+1 {g++} {p=$1} END {print g+0}')
hello=$(head -1 $T/client.json | grep -c '"event":"hello"')
cdev=$(grep -c '"event":"device"' $T/client.json)
after=$(awk '/"kind":"deviceConnected"/ {c=1} c && /"event":"metadata"/ {n++} END {print n+0}' $T/run.json)
if [ $rc = 0 ] && [ "$mode" = 660 ] && [ $gone = removed ] && [ "$gaps" = 0 ] && [ "$hello" = 1 ] && [ "$cdev" -ge 2 ] \
   && echo "$ev" | grep -q 'deviceDisconnected.*deviceConnected' && [ "$after" -gt 3 ] \
   && [ "$(echo $ev | cut -d' ' -f1-2)" != "started started" ]; then
    pass daemon "socket $mode, client got hello + $cdev device events, seq gapless ($(echo "$seqs" | wc -l) events), events: $ev, frames after re-bind=$after, SIGTERM rc=$rc socket $gone ($(since $t)s)"
else fail daemon "rc=$rc mode=$mode socket=$gone gaps=$gaps hello=$hello client-device=$cdev after=$after events: $ev"; tail -5 $T/run.err; head -3 $T/client.json; fi
fi

# --- 9. Waiting for the camera: `scand run --device` on an absent node keeps running, reports `waiting`,
# starts streaming when the node appears, and exits 0 on SIGTERM; --fail-fast exits 2 at once instead. A node
# that is there but does not offer the size asked for is an error at once, not a wait.
if want waiting; then
t=$(now)
scand run --device "$VIVID" --size 320x240 --stdout >$T/size.json 2>$T/size.err
sizerc=$?
if [ $sizerc != 0 ] && grep -q 'does not offer 320x240' $T/size.err && ! grep -q '"kind":"waiting"' $T/size.json; then
    pass refused-size "rc=$sizerc: $(grep -o 'does not offer 320x240[^;]*' $T/size.err | head -1)"
else fail refused-size "rc=$sizerc $(tail -2 $T/size.err) $(head -2 $T/size.json)"; fi
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind
sleep 0.5
absent=$([ -e "$VIVID" ] && echo present || echo absent)
scand run --device "$VIVID" --size 640x480 --fps 15 --stdout --fail-fast >$T/ff.json 2>$T/ff.err
ffrc=$?
scand run --device "$VIVID" --size 640x480 --fps 15 --stdout --log-level info >$T/wait.json 2>$T/wait.err &
wp=$!
wait_for $T/wait.json '"kind":"waiting"' 10
sleep 2
alive=$(kill -0 $wp 2>/dev/null && echo alive || echo exited)
echo vivid.0 >/sys/bus/platform/drivers/vivid/bind
wait_for $T/wait.json '"event":"metadata"' 15
sleep 1
kill -TERM $wp
wait $wp
rc=$?
ev=$(events $T/wait.json)
frames=$(grep -c '"event":"metadata"' $T/wait.json)
if [ $absent = absent ] && [ $ffrc = 2 ] && [ $alive = alive ] && [ $rc = 0 ] && [ "$frames" -gt 3 ] \
   && echo "$ev" | grep -q '^waiting deviceConnected started .*stopped'; then
    pass waiting "node $absent: --fail-fast rc=$ffrc; waiting then $alive after 2 s; bound: events: $ev, frames=$frames, SIGTERM rc=$rc ($(since $t)s)"
else fail waiting "node=$absent fail-fast rc=$ffrc alive=$alive rc=$rc frames=$frames events: $ev"; tail -5 $T/wait.err; tail -2 $T/ff.err; fi
fi
# --- 10. Camera controls (issue 18) against vivid's user controls.
# ctlval NAME: the control's current value as `scand devices` reads it (keys are sorted: name, step, type, value).
ctlval() { scand devices 2>/dev/null | grep "\"path\":\"$VIVID\"" | grep -o "\"name\":\"$1\",\"step\":[0-9]*,\"type\":\"[a-z0-9]*\",\"value\":-\?[0-9]*" | sed 's/.*"value"://'; }
# The library checks (Swift Testing, Tests/ScanCaptureTests/LiveControlTests.swift), run once for both checks below:
# picture follows brightness, control-only commits without a restart, read back, lockForConfiguration, exposure loop.
if { want controls || want exposure-roi; } && [ -x /bin/scand-tests ]; then
    t=$(now)
    NO_COLOR=1 TERM=dumb SCAND_TEST_DEVICE="$VIVID" scand-tests --testing-library swift-testing --filter LiveControlTests >$T/ctlunit.log 2>&1
    ctlunit_rc=$?
    grep -a '^. Test .*\(passed\|failed\)\|recorded an issue\|Expectation failed\|FIGURES' $T/ctlunit.log | sed 's/^/SCANDVM: INFO   /'
    say "INFO LiveControlTests rc=$ctlunit_rc ($(since $t)s)"
fi
testok() { grep -q "Test $1.* passed after" $T/ctlunit.log 2>/dev/null && ! grep -q "Test $1.*failed" $T/ctlunit.log; }
if want controls; then
t=$(now); ok=1; detail=""
scand devices >$T/ctl-devices.json 2>/dev/null
line=$(grep "\"path\":\"$VIVID\"" $T/ctl-devices.json)
names=$(echo "$line" | grep -o '"name":"[a-z0-9_]*","step"' | sed 's/"name":"//;s/","step"//' | tr '\n' ' ')
say "INFO vivid controls: $names"
say "INFO vivid supportedModes: $(echo "$line" | grep -o '"supportedModes":{[^}]*}')"
for c in brightness contrast saturation hue; do
    echo " $names " | grep -q " $c " || { ok=0; detail="$detail missing-$c"; }
done
echo "$line" | grep -q '"default":128,"flags":\["slider"\],"id":9963776,"label":"Brightness","max":255,"min":0,"name":"brightness"' \
    || { ok=0; detail="$detail brightness-fields"; }
echo "$line" | grep -q '"inactive"' || { ok=0; detail="$detail no-inactive-flag"; }
echo "$line" | grep -q '"menu":\[{"index":' || { ok=0; detail="$detail no-menu-items"; }
[ $ok = 1 ] && pass controls-list "$(echo $names | wc -w) controls, id/type/min/max/step/default/value/menu/flags ($(since $t)s)" || fail controls-list "$detail names: $names"

# Set by name, read back.
t=$(now)
scand scan --device "$VIVID" --size 640x480 --fps 15 --frames 3 --control brightness=200 --control saturation=10 --control menu=menu_item_4 >$T/ctlset.json 2>$T/ctlset.err
rc=$?
b=$(ctlval brightness); s=$(ctlval saturation); m=$(ctlval menu)
if [ $rc = 0 ] && [ "$b" = 200 ] && [ "$s" = 10 ] && [ "$m" = 4 ]; then pass controls-set "brightness=200 saturation=10 menu=menu_item_4 read back as $b/$s/$m ($(since $t)s)"
else fail controls-set "rc=$rc read back brightness=$b saturation=$s menu=$m"; tail -3 $T/ctlset.err; fi

# The picture follows the control, and control-only commits do not restart streaming (library test).
if [ -x /bin/scand-tests ]; then
    if testok brightnessRaisesLuma && testok lockForConfiguration; then pass controls-picture "$(grep -o 'CONTROLS-FIGURES: .*' $T/ctlunit.log | sed 's/CONTROLS-FIGURES: //'); lockForConfiguration exclusive"
    else fail controls-picture "see the LiveControlTests lines above"; fi
fi

# Re-applied after unplug and re-bind (vivid's controls come back at their defaults).
t=$(now)
scand scan --device "$VIVID" --size 640x480 --fps 15 --duration 30 --control brightness=180 --log-level info >$T/ctlplug.json 2>$T/ctlplug.err &
sp=$!
wait_for $T/ctlplug.json '"event":"metadata"' 10
before=$(ctlval brightness)
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind
wait_for $T/ctlplug.json '"kind":"deviceDisconnected"' 5
echo vivid.0 >/sys/bus/platform/drivers/vivid/bind
wait_for $T/ctlplug.json '"kind":"deviceConnected"' 10
sleep 1
after=$(ctlval brightness)
kill -INT $sp; wait $sp; rc=$?
if [ $rc = 0 ] && [ "$before" = 180 ] && [ "$after" = 180 ]; then pass controls-replug "brightness=180 before unplug, $after after re-bind (the driver's default is 128) ($(since $t)s)"
else fail controls-replug "rc=$rc before=$before after=$after events: $(events $T/ctlplug.json)"; tail -3 $T/ctlplug.err; fi

# Errors: an unknown name lists the names; out of range is an error (never clamped); a mode vivid lacks lists what it can do.
scand scan --device "$VIVID" --size 640x480 --frames 1 --control brightnes=3 >/dev/null 2>$T/ctlerr1.err; rc1=$?
scand scan --device "$VIVID" --size 640x480 --frames 1 --control brightness=300 >/dev/null 2>$T/ctlerr2.err; rc2=$?
scand scan --device "$VIVID" --size 640x480 --frames 1 --focus-mode continuousAutoFocus >/dev/null 2>$T/ctlerr3.err; rc3=$?
m1=$(tail -1 $T/ctlerr1.err); m2=$(tail -1 $T/ctlerr2.err); m3=$(tail -1 $T/ctlerr3.err)
if [ $rc1 = 2 ] && echo "$m1" | grep -q "unknown control 'brightnes'; the device has: brightness, contrast" \
   && [ $rc2 = 2 ] && echo "$m2" | grep -q "control 'brightness': 300 is out of range 0...255" \
   && [ $rc3 = 2 ] && echo "$m3" | grep -q "focus-mode 'continuousAutoFocus' is not supported.*it supports: none"; then
    pass controls-errors "rc=$rc1/$rc2/$rc3: $(echo "$m1" | cut -c1-110)… | $(echo "$m2" | sed 's/.*control /control /') | $(echo "$m3" | sed 's/.*--focus/--focus/' | cut -c1-120)"
else fail controls-errors "rc=$rc1/$rc2/$rc3 [$m1] [$m2] [$m3]"; fi

# A change by another process (vmtool: S_CTRL, as v4l2-ctl --set-ctrl does) becomes a controlChanged event.
t=$(now)
scand scan --device "$VIVID" --size 640x480 --fps 15 --duration 30 >$T/ctlev.json 2>$T/ctlev.err &
sp=$!
wait_for $T/ctlev.json '"event":"metadata"' 10
vmtool ctrl "$VIVID" Brightness 77
wait_for $T/ctlev.json '"control":"brightness".*"kind":"controlChanged".*"value":77' 5
kill -INT $sp; wait $sp; rc=$?
ev=$(grep '"kind":"controlChanged"' $T/ctlev.json | grep '"control":"brightness"' | head -1)
others=$(grep '"kind":"controlChanged"' $T/ctlev.json | grep -vc '"control":"brightness"')
if [ $rc = 0 ] && echo "$ev" | grep -q '"control":"brightness".*"value":77' && [ "$others" = 0 ]; then pass controls-event "another process set Brightness=77: $ev, other controlChanged events: $others ($(since $t)s)"
else fail controls-event "rc=$rc event=[$ev]"; tail -3 $T/ctlev.err; fi
fi

# Locked exposure keeps the value of its lock across an unplug and re-bind (issue 52). vivid has automatic gain and
# no auto_exposure, so `locked` is gain_automatic=0 with gain written back. Gain is set to 37 first (automatic
# gain off), away from the driver's default (100, under automatic gain again after a re-bind).
if want controls; then
t=$(now)
vmtool ctrl "$VIVID" "Gain, Automatic" 0; vmtool ctrl "$VIVID" Gain 37
scand scan --device "$VIVID" --size 640x480 --fps 15 --duration 40 --exposure-mode locked --log-level info >$T/lock.json 2>$T/lock.err &
sp=$!
wait_for $T/lock.json '"event":"metadata"' 10
g1=$(ctlval gain); a1=$(ctlval gain_automatic)
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind
wait_for $T/lock.json '"kind":"deviceDisconnected"' 5
echo vivid.0 >/sys/bus/platform/drivers/vivid/bind
wait_for $T/lock.json '"kind":"deviceConnected"' 10
sleep 1
g2=$(ctlval gain); a2=$(ctlval gain_automatic)
kill -INT $sp; wait $sp; rc=$?
# What a re-bind alone leaves (no scand): the driver's defaults, automatic gain on.
echo vivid.0 >/sys/bus/platform/drivers/vivid/unbind; sleep 0.5; echo vivid.0 >/sys/bus/platform/drivers/vivid/bind
i=0; while [ ! -e "$VIVID" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
a3=$(ctlval gain_automatic)
if [ $rc = 0 ] && [ "$g1" = 37 ] && [ "$a1" = 0 ] && [ "$g2" = 37 ] && [ "$a2" = 0 ] && [ "$a3" = 1 ]; then
    pass exposure-locked-replug "gain 37, gain_automatic 0 when locked; $g2/$a2 after re-bind (a re-bind alone: gain_automatic $a3) ($(since $t)s)"
else fail exposure-locked-replug "rc=$rc locked $g1/$a1, after re-bind $g2/$a2, re-bind alone gain_automatic=$a3 events: $(events $T/lock.json)"; tail -3 $T/lock.err; fi

# SIGHUP re-reads the camera controls of `scand run --config` and applies them to the running stream.
t=$(now)
echo '{"controls": {"brightness": 150}}' >$T/hup-config.json
scand run --device "$VIVID" --size 640x480 --fps 15 --config $T/hup-config.json --stdout --log-level info >$T/hup.json 2>$T/hup.err &
sp=$!
wait_for $T/hup.json '"event":"metadata"' 30
b1=$(ctlval brightness)
echo '{"controls": {"brightness": 60}}' >$T/hup-config.json
kill -HUP $sp
wait_for $T/hup.err 'camera settings applied' 10
sleep 0.5
b2=$(ctlval brightness)
alive=$(kill -0 $sp 2>/dev/null && echo alive || echo gone)
starts=$(grep -c '"kind":"started"' $T/hup.json)
kill -TERM $sp; wait $sp; rc=$?
if [ $rc = 0 ] && [ "$b1" = 150 ] && [ "$b2" = 60 ] && [ $alive = alive ]; then
    pass controls-sighup "brightness 150 from the config, 60 after editing it and SIGHUP; $starts stream start(s) ($(since $t)s)"
else fail controls-sighup "rc=$rc $alive brightness $b1 then $b2; $(grep -a SIGHUP $T/hup.err | tail -2)"; tail -3 $T/hup.err; fi
fi

# --- 11. Software exposure on a region: converges within 10% of the target in <= 30 frames from a dark and a
# bright start and stays there (library test; luma measured by the test over every pixel of the region).
if want exposure-roi && [ -x /bin/scand-tests ]; then
    figs=$(grep -o 'EXPOSURE-ROI-FIGURES: .*' $T/ctlunit.log | sed 's/EXPOSURE-ROI-FIGURES: //' | tr '\n' ';')
    if testok exposureOnARegionConverges && [ "$(grep -c 'EXPOSURE-ROI-FIGURES' $T/ctlunit.log)" = 2 ]; then pass exposure-roi "$figs"
    else fail exposure-roi "$figs see the LiveControlTests lines above"; fi
    # The CLI end to end: --exposure-point-of-interest reports adjustingExposure start and end as device events.
    t=$(now)
    vmtool ctrl "$VIVID" Brightness 0
    scand scan --device "$VIVID" --size 640x480 --fps 15 --duration 6 --exposure-point-of-interest 0.5,0.5 >$T/roi.json 2>$T/roi.err
    rc=$?
    ev=$(events $T/roi.json)
    final=$(ctlval brightness)
    if [ $rc = 0 ] && echo "$ev" | grep -q 'adjustingExposureStarted.*adjustingExposureEnded' && [ "$final" -gt 0 ]; then
        pass exposure-roi-cli "brightness 0 -> $final, events: $(echo "$ev" | tr ' ' '\n' | grep -v controlChanged | tr '\n' ' ')+ $(echo "$ev" | tr ' ' '\n' | grep -c controlChanged) controlChanged ($(since $t)s)"
    else fail exposure-roi-cli "rc=$rc final=$final events: $ev"; tail -3 $T/roi.err; fi
fi

# --- 12. Several cameras in one run (issue 49): both vivid devices and the loopback device in one `scand run
# --config` with a `cameras` section. Mid-run the loopback's writer stops (a stalled camera) and then the loopback
# device is unplugged: v4l2loopback 0.12.7 (Debian 12) has no call that removes a device, and rmmod is refused
# while a reader holds it, but scand closes a stalled device to open it again, and without a writer the node is
# no capture device (exclusive_caps=1), so an rmmod retried every 0.1 s gets in between and the node disappears.
# scand reports it `deviceDisconnected` after its `wasInterrupted`. Both vivid cameras must keep their rate
# through the stall and the unplug. Then the second vivid device is
# unplugged too (vivid's own Disconnect control, which unregisters that instance's nodes as a USB unplug does; a
# sysfs unbind would take both instances) and the first keeps going. Each camera's device events name it.
if want multicam; then
t=$(now)
VIVID2=$(scand devices 2>/dev/null | grep '"driver":"vivid"' | grep -o '"path":"[^"]*"' | sed -n 2p | sed 's/^"path":"//;s/"$//')
cat >$T/mc-config.json <<EOF
{"stdout": true, "types": ["qr"], "size": "640x480", "fps": 10, "stallTimeout": 1,
 "cameras": {"a": {"device": "$VIVID"}, "b": {"device": "$VIVID2"}, "loop": {"device": "$LOOP", "size": "640x480"}}}
EOF
rm -f $T/go3
# The loopback writer: white until go3 exists, then one QR code for 4 s, then it exits (the stall).
vmtool write $LOOP 10 $T/go3 40 0 /qr/000.txt >$T/w3.log 2>&1 &
w3=$!
sleep 0.3
scand run --config $T/mc-config.json --log-level info >$T/mc.json 2>$T/mc.err &
mp=$!
for c in a b loop; do wait_for $T/mc.json "\"camera\":\"$c\",\"device\":\"[^\"]*\",\"event\":\"device\",\"kind\":\"started\"" 20; done
touch $T/go3
meta() { grep -c "\"camera\":\"$1\",\"event\":\"metadata\"" $T/mc.json; }
rate() { awk -v c="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", c / (b - a) }'; }
sleep 1; a1=$(meta a); b1=$(meta b); t1=$(now); sleep 3; a2=$(meta a); b2=$(meta b); t2=$(now)
wait $w3
w3rc=$?
wait_for $T/mc.json '"camera":"loop".*"kind":"wasInterrupted"' 5
i=0; while ! rmmod v4l2loopback 2>/dev/null; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
unplugged=0; [ -e $LOOP ] || unplugged=1
sleep 1; a3=$(meta a); b3=$(meta b); t3=$(now); sleep 3; a4=$(meta a); b4=$(meta b); t4=$(now)
vmtool ctrl "$VIVID2" Disconnect 1
wait_for $T/mc.json '"camera":"b".*"kind":"deviceDisconnected"' 5
sleep 1; a5=$(meta a); t5=$(now); sleep 2; a6=$(meta a); t6=$(now)
kill -TERM $mp
wait $mp
rc=$?
abefore=$(rate $((a2 - a1)) $t1 $t2); bbefore=$(rate $((b2 - b1)) $t1 $t2)
aafter=$(rate $((a4 - a3)) $t3 $t4); bafter=$(rate $((b4 - b3)) $t3 $t4); alast=$(rate $((a6 - a5)) $t5 $t6)
kept=$(awk -v a="$abefore" -v b="$bbefore" -v c="$aafter" -v d="$bafter" -v e="$alast" \
    'BEGIN { print (a > 0 && b > 0 && c >= 0.8 * a && d >= 0.8 * b && e >= 0.8 * a) ? 1 : 0 }')
qr=$(grep '"camera":"loop"' $T/mc.json | grep -c '"event":"appeared".*"value":"scand-qr-000"')
nameless=$(grep -vc '"camera":"' $T/mc.json)
grep '"camera":"a"' $T/mc.json >$T/mc-a.json; grep '"camera":"b"' $T/mc.json >$T/mc-b.json
grep '"camera":"loop"' $T/mc.json >$T/mc-loop.json
aev=$(events $T/mc-a.json); bev=$(events $T/mc-b.json); lev=$(events $T/mc-loop.json)
if [ $rc = 0 ] && [ "$kept" = 1 ] && [ "$unplugged" = 1 ] && [ "$qr" = 1 ] && [ "$nameless" = 0 ] \
   && [ "$aev" = "started stopped " ] && echo "$bev" | grep -q '^started deviceDisconnected' \
   && echo "$lev" | grep -q '^started wasInterrupted deviceDisconnected'; then
    pass multicam "a/b $abefore/$bbefore fps before, $aafter/$bafter fps after the loopback stalled and was unplugged (rmmod after $i tries), a $alast fps after b was unplugged; a: $aev; b: $bev; loop: $lev; QR on loop=$qr, writer rc=$w3rc, SIGTERM rc=$rc ($(since $t)s)"
else fail multicam "rc=$rc a=$abefore->$aafter->$alast b=$bbefore->$bafter fps kept=$kept unplugged=$unplugged (rmmod tries $i) qr=$qr nameless=$nameless a: $aev b: $bev loop: $lev vivid2=$VIVID2 lines a/b/loop: $(wc -l <$T/mc-a.json)/$(wc -l <$T/mc-b.json)/$(wc -l <$T/mc-loop.json)"; head -3 $T/mc-a.json | cut -c1-200; grep -v '"event":"metadata"' $T/mc.json | head -12 | cut -c1-200; grep -i 'warn\|error' $T/mc.err | head -5; fi
fi

say DONE
poweroff -f
