#!/bin/bash
# The runtime under chaos, briefly (make chaos runs 50 such runs):
# three seeded runs of short programs with known answers (queens and fib,
# programs of tasks; cilkfib, a program of threads) on a 4-node
# CilkLocal cluster, workers SIGKILLed and SIGSTOPped, owners coming
# back and leaving, a CPU hog, the clearinghouse's network lossy
# (tests/chaos/run.py); every answer is right, every run ends, and no
# worker outlives its job.
# cpu: the chaos runs: parallel programs under faults
# ports: 18620-18639
. "$(dirname "$0")/lib.sh"
[ -f "$TOOLS/lossy.so" ] || skip_all "no $TOOLS/lossy.so (make testprogs)"
python3 "$CILKNOW_TOP/tests/chaos/run.py" --build "$CILKNOW_BUILD" \
    --short --first 1 --runs 3 --port 18620 \
    --keep "$CILKNOW_BUILD/chaos-failed" >"$T/chaos.out" 2>&1
rc=$?
while read -r line; do
	case "$line" in
	*" ok, "*) ok 0 "${line#run }" ;;
	*) ok 1 "${line#run }" ;;
	esac
done < <(grep '^run [0-9]*/' "$T/chaos.out")
grep -v '^run [0-9]*/' "$T/chaos.out" | sed 's/^/# /'
exit_is $rc 0 "tests/chaos/run.py --short: 3 runs"
finish
