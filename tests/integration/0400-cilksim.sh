#!/bin/bash
# CilkSim: usage and exit codes, the JSON of DESIGN.md section 7, the
# trace and the plot, the grid, and the improved policy's end game.
. "$(dirname "$0")/lib.sh"
S=$BIN/CilkSim

"$S" -h >"$T/h.out" 2>&1
exit_is $? 0 "-h answers with usage"
contains "$T/h.out" "usage: CilkSim -P procs -J jobs" "usage names -P and -J"
"$S" -V >"$T/v.out" 2>&1
exit_is $? 0 "-V"
contains "$T/v.out" "^CilkSim [0-9]" "-V prints the version"

# usage ARGS... : must exit 2 and say something on stderr.
usage() {
	"$S" "$@" >"$T/u.out" 2>"$T/u.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ -s "$T/u.err" ] && [ ! -s "$T/u.out" ]
	ok $? "usage error, exit 2 (got $rc): $*"
}
usage
usage -P 100
usage -P 0 -J 1
usage -P 10 -J 11
usage -P 10x -J 2
usage -P 100 -J 2 --policy bogus
usage -P 100 -J 2 --init sideways
usage -P 100 -J 3 --weights 1,2
usage -P 100 -J 2 --weights 1,0
usage -P 100 -J 2 --caps 10,20
usage -P 100 -J 2 --leave-rate 1.5
usage -P 100 -J 2 --fixed-p -0.1
usage -P 100 -J 2 --seeds 0
usage -P 4 -J 3 --init endgame
usage -P 100 -J 2 --frobnicate
usage -P 100 -J 2 extra
usage --grid -P 100
contains "$T/u.err" "grid" "the message says what is wrong"
# --slots: what is wrong with it, in so many words.
slots_usage() {
	usage -P 100 -J 2 --slots "$1"
	contains "$T/u.err" "$2" "--slots $1: says \"$2\""
}
slots_usage 1:50%,8:40% "sum to 90, not 100"
slots_usage 1:50%,8:60% "sum to 110, not 100"
slots_usage 0:100% "not a number of processors in 1..256"
slots_usage 257:100% "not a number of processors in 1..256"
slots_usage x:100% "not a number of processors"
slots_usage 8:abc% "not a percentage"
slots_usage 8:100 "not a percentage in \\(0, 100\\] followed by %"
slots_usage 1:0%,8:100% "not a percentage"
slots_usage 8 "not slots:percent%"
slots_usage 8:50%,8:50% "8 processors listed twice"
slots_usage "" "not slots:percent%"

"$S" -P 1000 -J 10 --seeds 3 --json >"$T/j.out" 2>"$T/j.err"
exit_is $? 0 "--json runs"
run='"runs": \[\{"seed": 1, "quanta": [0-9]+, "exact": [0-9]+, '
run=$run'"messages": [0-9]+\}'
for k in '"schema": 1' '"P": 1000' '"J": 10' '"policy": "thesis"' "$run" \
    '"median_quanta": [0-9.]+' '"median_exact": [0-9.]+\}$'; do
	contains "$T/j.out" "$k" "JSON has $k"
done
[ "$(wc -l <"$T/j.out")" -eq 1 ] && [ ! -s "$T/j.err" ]
ok $? "one JSON document, nothing on stderr"
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"schema", "P", "J", "policy", "runs", "median_quanta",
    "median_exact"}, d.keys()
assert len(d["runs"]) == 3
for r in d["runs"]:
	assert set(r) == {"seed", "quanta", "exact", "messages"}, r.keys()
' "$T/j.out"
	ok $? "the JSON parses and has exactly the keys of DESIGN.md"
fi
"$S" -P 1000 -J 10 --peers 8 --slots 1:50%,8:30%,32:20% --seeds 3 \
    --json >"$T/s.out" 2>"$T/s.err"
exit_is $? 0 "--slots runs"
contains "$T/s.out" '^\{"schema": 1, "P": 1000, "J": 10, "policy": "thesis", "slots": "1:50%,8:30%,32:20%", "runs": ' \
    "JSON: schema 1 with \"slots\" after the policy"
contains "$T/s.out" '"median_quanta": [0-9.]+, "median_exact": [0-9.]+\}$' \
    "mixed nodes converge"
"$S" -P 1000 -J 10 --peers 8 --slots 1:100% --seeds 3 --json |
    sed 's/"slots": "1:100%", //' >"$T/s1.out"
"$S" -P 1000 -J 10 --peers 8 --seeds 3 --json >"$T/s0.out"
cmp -s "$T/s0.out" "$T/s1.out"
ok $? "--slots 1:100% is the single-processor run"
"$S" -P 1000 -J 10 --slots 8:100% >"$T/st.out" 2>&1
contains "$T/st.out" "^CilkSim: P=1000 J=10 .* slots=8:100% " \
    "the summary names the slots"
"$S" --grid --seeds 1 --slots 1:50%,32:50% >"$T/sg.out" 2>/dev/null
exit_is $? 0 "--grid --slots"
contains "$T/sg.out" "slots=1:50%,32:50%" "the grid names the slots"
"$S" -h | grep -q -- "--slots"
ok $? "-h shows --slots"
"$S" -P 1000 -J 10 --policy naive --max-quanta 5 --json >"$T/n.out"
contains "$T/n.out" '"quanta": null, "exact": null' "never is null"
contains "$T/n.out" '"median_quanta": null, "median_exact": null' \
    "so are the medians"

"$S" -P 1000 -J 500 --init endgame --policy improved --json >"$T/e.out"
contains "$T/e.out" '"quanta": 0, "exact": 1,' \
    "improved: the end game is exact in one quantum"

"$S" -P 200 -J 4 --trace "$T/t.csv" --plot "$T/p.svg" >"$T/tp.out"
exit_is $? 0 "--trace and --plot"
contains "$T/t.csv" "^quantum,job,count$" "the trace has its header"
contains "$T/t.csv" "^0,1,197$" "quantum 0: job 1 holds the rest"
[ "$(awk -F, 'NR > 1 && $1 == 0 { s += $3 } END { print s }' \
    "$T/t.csv")" -eq 200 ]
ok $? "the counts of a quantum sum to P"
contains "$T/p.svg" "^<svg xmlns=" "the plot is SVG"
[ "$(grep -c '<polyline' "$T/p.svg")" -eq 4 ]
ok $? "one line per job"
"$S" -P 200 -J 4 --plot /nonexistent/dir/p.svg >/dev/null 2>&1
exit_is $? 1 "an unwritable plot is a failure"

"$S" -P 100 -J 3 --weights 2,1,1 --caps 0,0,20 --json >"$T/w.out"
exit_is $? 0 "weights and caps"
contains "$T/w.out" '"median_exact": [0-9]+' "and they converge"

"$S" -P 2000 -J 20 --leave-rate 0.02 --join-rate 0.02 --max-quanta 50 \
    >"$T/c.out"
exit_is $? 0 "churn"
contains "$T/c.out" "distance = mean over quanta" "churn reports distance"

"$S" --grid --seeds 2 >"$T/g.out" 2>"$T/g.err"
exit_is $? 0 "--grid"
contains "$T/g.out" "^  100000   10000 " "the grid reaches P=100000 J=10000"
contains "$T/g.out" "all points +[0-9.]+ quanta per doubling of P" \
    "and fits a slope"
contains "$T/g.err" "grid 14/14" "progress on stderr"
finish
