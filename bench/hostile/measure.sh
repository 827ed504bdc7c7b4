#!/bin/bash
# Prints exit code, wall time and peak RSS of `scand scan` on each hostile input (a Markdown table).
# Usage: bench/hostile/measure.sh [SCAND_BINARY] [INPUT_DIR] [TIMEOUT_SECONDS]
#   defaults: .build/debug/scand, Tests/Fixtures/generated/hostile (made by Tests/Fixtures/make_hostile_inputs.py), 60
# A run over TIMEOUT_SECONDS of CPU time is killed (prlimit --cpu) and shows "killed"; its RSS is the peak until then.
set -u
BIN=${1:-.build/debug/scand}
DIR=${2:-Tests/Fixtures/generated/hostile}
LIMIT=${3:-60}
[ -d "$DIR" ] || /usr/bin/python3 "$(dirname "$0")/../../Tests/Fixtures/make_hostile_inputs.py" "$DIR" >/dev/null
echo "| input | size (bytes) | exit | wall (s) | peak RSS (MB) | stdout lines | stderr (first line) |"
echo "|---|---|---|---|---|---|---|"
for f in bomb-16k.png bomb-32k.png header-only.pgm bomb.bmp bomb.tiff cmyk.jpg truncated.mp4 truncated.mkv truncated.avi \
         ok-h264.mp4 ok-mpeg4.mkv ok-mjpeg.avi ok-vp9.webm; do
    [ -e "$DIR/$f" ] || continue
    out=$(mktemp) err=$(mktemp) tim=$(mktemp)
    /usr/bin/time -o "$tim" -f "%e %M" prlimit --cpu="$LIMIT" "$BIN" scan "$DIR/$f" >"$out" 2>"$err"
    code=$?
    [ $code -eq 152 ] || [ $code -eq 137 ] && code="killed (CPU limit)"
    read -r wall rss < <(grep -E '^[0-9.]+ [0-9]+$' "$tim" | tail -1)
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$f" "$(stat -c %s "$DIR/$f")" "$code" "$wall" \
        "$(( ${rss:-0} / 1024 ))" "$(wc -l <"$out")" "$(head -1 "$err" | cut -c1-150 | sed 's/|/\\|/g')"
    rm -f "$out" "$err" "$tim"
done
