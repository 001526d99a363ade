#!/bin/sh
# Benchmark of the fair-share rule in CilkSim: the thesis rule against the
# improved policy (medians over 20 seeds), and the simulator's speed.
#   tests/bench/sched.sh BUILD	(or the path of the CilkSim binary)
set -u
if [ -x "${1:-}" ] && [ ! -d "$1" ]; then
	S=$1
else
	S=${1:-build}/bin/CilkSim
fi
[ -x "$S" ] || { echo "sched.sh: no CilkSim at $S" >&2; exit 1; }

# medians ARGS...: "within-one / exact", the JSON medians of one CilkSim run.
medians() {
	n='\([0-9.]*\|null\)'
	q="\"median_quanta\": $n, \"median_exact\": $n"
	"$S" --json "$@" 2>/dev/null | sed -n "s/.*$q.*/\1 \/ \2/p"
}
# exact ARGS...: the JSON median_exact of one CilkSim run.
exact() {
	medians "$@" | sed 's/.* \/ //'
}

echo "P=10000 J=100, spread, 20 seeds: median quanta (within one / exact)"
for p in thesis improved targeted; do
	printf '  %-21s %s\n' "$p" \
	    "$(medians -P 10000 -J 100 --seeds 20 --policy $p)"
done
for f in 0.1 0.5; do
	printf '  %-21s %s\n' "improved, stale $f" \
	    "$(medians -P 10000 -J 100 --seeds 20 --policy improved \
	    --stale $f)"
done

echo "end game P=2J, 20 seeds: median quanta to exact"
printf '  %6s %10s %10s %10s\n' J thesis improved targeted
for j in 50 500 5000; do
	p=$((2 * j))
	printf '  %6s' "$j"
	for pol in thesis improved targeted; do
		printf ' %10s' "$(exact -P $p -J $j --init endgame \
		    --seeds 20 --max-quanta 1000000 --policy $pol)"
	done
	printf '\n'
done

echo "speed, P=1000000 J=1000, thesis rule, one run"
"$S" -P 1000000 -J 1000 --max-quanta 30 2>/dev/null |
    sed -n 's/^simulated /  first 30 quanta (every node pairs): /p'
"$S" -P 1000000 -J 1000 2>/dev/null |
    sed -n 's/^median quanta to within one: /  within one at quantum /p;
	s/^median quanta to exact: /  exact at quantum /p;
	s/^simulated /  whole run: /p'
