#!/bin/sh
# Benchmark: CilkSim's convergence on workstations of several processors
# (1:50%,8:30%,32:20% of the nodes) beside single-processor nodes, at
# P = 10^3, 10^4, 10^5 with J = 100, pairing within samples of 32 peer
# nodes as the broker's pushes give them; the ratios multi / single, and
# the growth with log2 P (the thesis's O(log P)).  About 30 s.
#   tests/bench/slots-sim.sh BUILD	(or the path of the CilkSim binary)
set -u
if [ -x "${1:-}" ] && [ ! -d "$1" ]; then
	S=$1
else
	S=${1:-build}/bin/CilkSim
fi
[ -x "$S" ] || { echo "slots-sim.sh: no CilkSim at $S" >&2; exit 1; }
MIX=1:50%,8:30%,32:20%
SEEDS=${BENCH_SEEDS:-21}

# medians ARGS...: "within exact", the JSON medians of one CilkSim run.
medians() {
	n='\([0-9.]*\|null\)'
	"$S" --json "$@" 2>/dev/null |
	    sed -n "s/.*\"median_quanta\": $n, \"median_exact\": $n.*/\1 \2/p"
}
# ratio A B: A / B to two places, or - when either is missing.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0)
	    printf "%.2f", a / b; else printf "-" }'
}

echo "J=100, peers 32, $SEEDS seeds: median quanta to within one / to exact"
printf '  %7s %13s %13s %9s %9s %11s\n' P single "$MIX" within exact \
    "within/log2P"
printf '  %7s %13s %13s %9s %9s %11s\n' "" "" "" multi/1 multi/1 \
    "single multi"
for P in 1000 10000 100000; do
	set -- $(medians -P $P -J 100 --peers 32 --seeds "$SEEDS" \
	    --max-quanta 5000)
	sq=${1:-} se=${2:-}
	set -- $(medians -P $P -J 100 --peers 32 --seeds "$SEEDS" \
	    --max-quanta 5000 --slots $MIX)
	mq=${1:-} me=${2:-}
	[ -n "$sq" ] && [ -n "$mq" ] || { echo "slots-sim.sh: CilkSim failed" \
	    "at P=$P" >&2; exit 1; }
	lg=$(awk -v p=$P 'BEGIN { printf "%.4f", log(p) / log(2) }')
	printf '  %7s %13s %13s %9s %9s %5s %5s\n' $P "$sq / $se" \
	    "$mq / $me" "$(ratio "$mq" "$sq")" "$(ratio "$me" "$se")" \
	    "$(ratio "$sq" "$lg")" "$(ratio "$mq" "$lg")"
done

# The thesis's figure 4-2 experiment: quanta to within one against
# log2 P, for J = 2, 10, P/100, P/10 and P up to 10^5.
echo "growth with P (CilkSim --grid, peers 32, 10 seeds): least-squares" \
    "slope of the mean quanta to within one, quanta per doubling of P"
for sl in "" "--slots $MIX"; do
	printf '  %-27s' "${sl:---slots 1:100%}"
	"$S" --grid --seeds 10 --peers 32 $sl 2>/dev/null |
	    awk '/quanta per doubling/ { sub(/^ +/, ""); n = $0
		sub(/ +[-0-9.]+ quanta per doubling of P$/, "", n)
		printf " %s: %s;", n, $(NF - 5) } END { printf "\n" }'
done

# Without a sample every processor already meets a uniformly random
# processor, whatever the nodes: the runs are the same, draw for draw.
a=$(medians -P 10000 -J 100 --seeds 5)
b=$(medians -P 10000 -J 100 --seeds 5 --slots $MIX)
printf '  no sample, P=10000: single %s, %s %s (%s)\n' "$a" "$MIX" "$b" \
    "$([ "$a" = "$b" ] && echo identical || echo DIFFERENT)"

# Churn per node: an owner's return takes all its processors at once.
dist() {
	"$S" --json "$@" 2>/dev/null | grep -o '"mean_distance": [0-9.]*' |
	    awk '{ s += $2; n++ } END { if (n) printf "%.2f", s / n }'
}
a=$(dist -P 10000 -J 100 --peers 32 --leave-rate 0.02 --join-rate 0.02 \
    --max-quanta 100 --seeds 5)
b=$(dist -P 10000 -J 100 --peers 32 --leave-rate 0.02 --join-rate 0.02 \
    --max-quanta 100 --seeds 5 --slots $MIX)
printf '  churn 2%% of the nodes a quantum, P=10000, 5 seeds: mean distance %s\n' \
    "from fair single $a, $MIX $b (multi/1 $(ratio "$b" "$a"))"
