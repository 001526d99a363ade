#!/bin/sh
# No loop of files that call each other (TAP, one line per folder).
#   tests/lint-cycles.sh [DIR...]   (default: every daemons/* and utils/*
#                                    folder with more than one .c file)
# A file calls another when it names, as a word, a function the other
# defines without static (its name at column 0, after a line that does
# not begin with "static"), comments and string literals left out.
# The files of a folder so linked must form no loop: a folder's files
# are layers, each calling only those below it.
cd "$(dirname "$0")/.." || exit 1
if [ $# -eq 0 ]; then
	for d in daemons/* utils/*; do
		set -- "$@" "$d"
	done
fi
exec python3 - "$@" <<'PY'
import collections, glob, os, re, sys

dirs = [os.path.relpath(d) for d in sys.argv[1:]]

def strip(text):
	"""The C text with comments and string and character literals blanked
	out (newlines kept)."""
	out, i, n = [], 0, len(text)
	while i < n:
		c = text[i]
		if text.startswith("/*", i):
			j = text.find("*/", i + 2)
			j = n if j < 0 else j + 2
			out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
		elif text.startswith("//", i):
			j = text.find("\n", i)
			j = n if j < 0 else j
			out.append(" " * (j - i)); i = j
		elif c in "\"'":
			j = i + 1
			while j < n and text[j] != c and text[j] != "\n":
				j += 2 if text[j] == "\\" else 1
			j = min(j + 1, n)
			out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c); i = j
		else:
			out.append(c); i += 1
	return "".join(out)

def defined(text):
	"""Names of the functions a file defines without static."""
	names, prev = set(), ""
	for line in text.split("\n"):
		m = re.match(r"([a-z_0-9]+)\(", line)
		if m and not prev.startswith("static"):
			names.add(m.group(1))
		prev = line
	return names

def loops(files):
	"""The loops (strongly connected components of more than one file)
	and the calls between their files."""
	text = {f: strip(open(f, errors="replace").read()) for f in files}
	words = {f: set(re.findall(r"\b[A-Za-z_][A-Za-z_0-9]*\b", t))
	    for f, t in text.items()}
	edges, names = collections.defaultdict(set), collections.defaultdict(set)
	for f in files:
		for fn in defined(text[f]):
			for g in files:
				if g != f and fn in words[g]:
					edges[g].add(f); names[(g, f)].add(fn)
	index, low, stack, on, res = {}, {}, [], set(), []
	def visit(v):
		index[v] = low[v] = len(index); stack.append(v); on.add(v)
		for w in sorted(edges[v]):
			if w not in index:
				visit(w); low[v] = min(low[v], low[w])
			elif w in on:
				low[v] = min(low[v], index[w])
		if low[v] == index[v]:
			comp = []
			while True:
				w = stack.pop(); on.discard(w); comp.append(w)
				if w == v: break
			if len(comp) > 1: res.append(sorted(comp))
	sys.setrecursionlimit(10000)
	for v in sorted(files):
		if v not in index: visit(v)
	return res, names

n, bad = 0, 0
for d in dirs:
	files = sorted(glob.glob(os.path.join(d, "*.c")))
	if len(files) < 2:
		continue
	n += 1
	res, names = loops(files)
	if not res:
		print("ok %d - no loop of calls among %s/*.c" % (n, d))
		continue
	bad += 1
	print("not ok %d - loop of calls among %s/*.c" % (n, d))
	for r in res:
		b = [os.path.basename(f) for f in r]
		print("# loop of %d files: %s" % (len(b), " ".join(b)))
		for (g, f), fns in sorted(names.items()):
			if g in r and f in r:
				print("#    %s -> %s: %s" % (os.path.basename(g),
				    os.path.basename(f), " ".join(sorted(fns))))
print("1..%d" % n)
sys.exit(1 if bad else 0)
PY
