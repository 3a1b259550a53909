#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates Sources/cofferd/cofferd.order, the list of functions cofferd runs from launch to its first answers.
#
# The installed cofferd is linked with that list (Makefile, STATIC_LAYOUT), so the code a fresh daemon runs sits
# together at the front of its text instead of being spread over the whole binary. A page fault maps a page's
# neighbours too, so spread-out code makes most of the binary resident; see docs/PERFORMANCE.md for the figures.
#
#   bash Benchmarks/symbol_order.sh UNSTRIPPED-COFFERD
#
# UNSTRIPPED-COFFERD is a static build with the same layout flags but without -s (`make symbol-order` builds it).
# The workload runs cofferd under callgrind on a private bus twice: first with its default options on a fresh data
# directory, then with access control off on the same one; each time it drives cofferd with the clients people use
# (secret-tool, python3-secretstorage and python3-keyring). Callgrind is told to keep names as the linker spells
# them: demangled, the Swift runtime's C++ functions (which start the process) matched nothing and stayed spread out.
# A name that labels more than one function in the binary (compiler-made helpers repeated in every object) is left out:
# ordering by it would pull every copy, and the large sections that hold some of them, to the front.
set -euo pipefail
binary=$1
out=${ORDER_FILE:-Sources/cofferd/cofferd.order}
work=$(mktemp -d /tmp/coffer-order.XXXXXX)
trap 'rm -rf "$work"' EXIT

run_workload() { # $1: callgrind output, $2: data home (kept between runs), $3...: extra cofferd options
    local profile=$1 home=$2; shift 2
    local dir; dir=$(mktemp -d "$work/run.XXXX")
    mkdir -p "$home" "$dir/run"
    cat > "$dir/bus.conf" <<EOF
<busconfig><type>session</type><listen>unix:path=$dir/run/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy></busconfig>
EOF
    # The address is read from the bus's own output, so nothing polls for it.
    coproc BUS { exec dbus-daemon --config-file="$dir/bus.conf" --nofork --print-address=1 2> /dev/null; }
    local bus=$BUS_PID address
    read -r address <&"${BUS[0]}"
    # The log exists before anyone follows it: the daemon's shell may open it only after tail starts below.
    : > "$dir/log"
    printf pw | HOME="$home" XDG_RUNTIME_DIR="$dir/run" valgrind --tool=callgrind --callgrind-out-file="$profile" \
        --dump-instr=no --compress-strings=no --compress-pos=no --demangle=no \
        "$binary" --address "$address" --foreground --unlock --kdf-iterations 1 --kdf-memory 256 "$@" \
        2> "$dir/log" &
    local daemon=$!
    # cofferd logs "serving" once it owns the name; under callgrind that takes a few seconds.
    timeout 300 grep -q -m1 serving <(tail -f "$dir/log")
    export DBUS_SESSION_BUS_ADDRESS=$address
    secret-tool lookup nothing here || true
    for i in 1 2 3; do printf "s$i" | secret-tool store --label "item $i" svc bench account "a$i"; done
    secret-tool lookup svc bench account a2 > /dev/null
    secret-tool search --all svc bench > /dev/null 2>&1 || true
    secret-tool clear svc bench account a3
    /usr/bin/python3 - <<'EOF' || true
import keyring, secretstorage
keyring.set_password("svc", "user", "password")
keyring.get_password("svc", "user")
keyring.delete_password("svc", "user")
connection = secretstorage.dbus_init()
collection = secretstorage.get_default_collection(connection)
for item in collection.search_items({"svc": "bench"}):
    item.get_attributes(); item.get_label()
    try:
        item.get_secret()
    except secretstorage.exceptions.LockedException:
        pass  # with access control on, secret-tool's items are another program's: the question is not asked here
EOF
    kill -TERM "$daemon"; wait "$daemon" || true
    kill "$bus"; wait "$bus" 2> /dev/null || true
}

# The first run creates the login collection; the second unlocks it from its file, as every later start does.
run_workload "$work/default.out" "$work/home"
run_workload "$work/off.out" "$work/home" --access-control off
# Names defined more than once in the binary (local helpers such as value witnesses and merged thunks).
nm "$binary" | awk 'NF == 3 { print $3 }' | sort | uniq -d > "$work/repeated"
cat "$work/default.out" "$work/off.out" | sed -n 's/^fn=//p' | grep -v '^0x' | awk '!seen[$0]++' \
    | grep -v -x -F -f "$work/repeated" > "$out"
echo "$(wc -l < "$out") functions in $out"
