#!/usr/bin/env python3
"""chaos -- the parallel runtime on a live cluster, under faults (make chaos).

  run.py --build DIR [--runs N] [--first SEED] [--seed SEED] [--short]
         [--port P] [--keep DIR] [--keep-all] [--lock FILE]

Each run is one seed.  The seed chooses a program with a known answer
(queens and fib, programs of tasks; cilkfib, cilksort, matmul and pi,
programs of threads, whose answers their serial twins give; consecutive
seeds take turns), how lossy the clearinghouse's network is, and a schedule
of faults: workers SIGKILLed, workers SIGSTOPped and continued a few
seconds later, owners coming back to their nodes and leaving again, a
CPU hog.  The run starts a fresh 4-node CilkLocal cluster (half a
second: a fresh one costs little and a run cannot inherit another's
mess, so a seed replays from the same start), runs the program's root
under tests/tools/lossy.c, applies the faults while the root runs, and
checks: the answer, that the root ended within 10x the program's time
alone + 60 s, and that no worker of the job outlives it.  Timing is not
replayed, only the schedule: a seed that failed once may pass again.

Workers are signalled by the pids the clearinghouse logs when they join
("worker N joined from ADDR (pid P)"), and only while that pid is still
a worker of this job (its command line names the job's clearinghouse).
The logs of a failing run (the root's output with the faults in one
timeline, the cluster's logs) are kept in --keep.  Exit status 0 when
every run gave the right answer, ended, and left no worker behind."""
import argparse
import fcntl
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

QUEENS = {10: 724, 11: 2680, 12: 14200, 13: 73712}
# (program, arguments): on 2 cores, 4-20 s alone and 3-8 s on the
# cluster (queens sleeps -d microseconds in each of its 3916, 8492,
# 16852, 31100 searches for N = 10-13; fib and the programs of threads
# compute); --short: 2-6 s (make check's 0840 runs seeds 1-3: a program
# of tasks of each kind and one of threads).
PROGRAMS = [("queens", ["-d", "3000", "10"]), ("queens", ["-d", "2000", "11"]),
            ("queens", ["-d", "1000", "12"]), ("queens", ["-d", "600", "13"]),
            ("fib", ["45"]), ("fib", ["46"]),
            ("cilkfib", ["39"]), ("cilksort", ["30000000"]),
            ("matmul", ["2400"]), ("pi", ["4000000000"])]
SHORT = [("queens", ["-d", "1000", "10"]), ("queens", ["-d", "400", "11"]),
         ("fib", ["43"]), ("cilkfib", ["35"]), ("pi", ["2000000000"])]
NODES = 4
IDLE = "idletime=1000000\nusers=0\nload=0,0,0\n"
BUSY = "idletime=0\nusers=0\nload=0,0,0\n"
LEFTOVER_WAIT = 45      # s a worker may outlive its job (30 s of silence)
LEFTOVER_QUIET = 3      # s with no worker of the job that count as none left
JOINED = re.compile(r"worker (\d+) joined from (\S+) \(pid (\d+)\)")
LISTENING = re.compile(r"CilkChouse: listening on \S+:(\d+)")


class Stop(Exception):
    """SIGTERM or SIGINT: clean up and leave."""


def on_signal(signum, frame):
    raise Stop(signal.Signals(signum).name)


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


NUMBER = re.compile(r"-?\d+(\.\d+)?\s*")


def number(text):
    """An answer line as a number: an int, or a float (pi's)."""
    text = text.strip()
    return float(text) if "." in text else int(text)


TWIN_ANSWERS = {}


def expected(build, prog, args):
    if prog == "queens":
        return QUEENS[int(args[-1])]
    if prog in ("fib", "cilkfib"):
        return fib(int(args[-1]))
    key = (prog, tuple(args))
    if key not in TWIN_ANSWERS:
        twin = os.path.join(build, "tests", prog + "_serial")
        out = subprocess.run([twin] + args, capture_output=True, text=True,
                             timeout=600, check=False)
        lines = [ln for ln in out.stdout.splitlines() if NUMBER.fullmatch(ln)]
        if out.returncode != 0 or not lines:
            sys.exit(f"chaos: {twin} {' '.join(args)}: exit "
                     f"{out.returncode}, no answer: broken build?")
        TWIN_ANSWERS[key] = number(lines[-1])
    return TWIN_ANSWERS[key]


def same_answer(got, want):
    """pi's sum may be added in another order on a cluster."""
    if got is None:
        return False
    if isinstance(want, float):
        return abs(got - want) <= 1e-9 * abs(want)
    return got == want


def answer_of(path):
    """The last line of the root's output that is a number, or None."""
    try:
        with open(path) as f:
            nums = [ln for ln in f if NUMBER.fullmatch(ln)]
    except OSError:
        return None
    return number(nums[-1]) if nums else None


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def is_worker_of(pid, port):
    """A worker of the job whose clearinghouse listens on port."""
    argv = cmdline(pid)
    return b"-NoChouse" in argv and f"-Port={port}".encode() in argv


def workers_of(port):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit() and is_worker_of(int(d), port):
            out.append(int(d))
    return sorted(out)


def descendants(root):
    """Every process under root, from /proc (children before parents)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out[::-1]


def signal_pid(pid, sig):
    try:
        os.kill(pid, sig)
        return True
    except OSError:
        return False


def lossy_preload(build, prog):
    """LD_PRELOAD for the shim; AddressSanitizer's runtime must come first."""
    shim = os.path.join(build, "tests", "lossy.so")
    try:
        ldd = subprocess.run(["ldd", prog], capture_output=True, text=True,
                             check=False).stdout
    except OSError:
        ldd = ""
    m = re.search(r"(\S*libasan\.so\S*) => (\S+)", ldd)
    return f"{m.group(2)} {shim}" if m else shim


class Timeline:
    """The root's standard error and the faults, in one timestamped log."""

    def __init__(self, path):
        self.f = open(path, "w", buffering=1)
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.port = None
        self.pids = {}          # pid -> worker number, as joined (not root)
        self.lost = 0
        self.summary = ""

    def now(self):
        return time.monotonic() - self.t0

    def say(self, line):
        with self.lock:
            self.f.write(f"[{self.now():7.2f}] {line}\n")

    def read(self, stream):
        for line in stream:
            line = line.rstrip("\n")
            self.say(line)
            with self.lock:
                m = LISTENING.search(line)
                if m and self.port is None:
                    self.port = int(m.group(1))
                m = JOINED.search(line)
                if m and m.group(2) != "root":
                    self.pids[int(m.group(3))] = int(m.group(1))
                if "its work is redone" in line:	# lost, gone or stopped
                    self.lost += 1
                if "every unit is final" in line:
                    self.summary = line.split("final: ", 1)[-1]

    def workers(self):
        with self.lock:
            return sorted(self.pids), self.port


def schedule(rng, horizon, gap):
    """The faults of a run: (seconds after the start, kind, duration),
    on average one every gap seconds; workers join within a second."""
    kinds = ["stop"] * 3 + ["flap"] * 3 + ["kill"] * 2 + ["hog"]
    out, t = [], rng.uniform(0.3, 1.0)
    while t < horizon:
        out.append((t, rng.choice(kinds), rng.uniform(1.0, 6.0)))
        t += rng.uniform(0.2, 1.8) * gap
    return out


class Chaos:
    """Applies one run's faults and undoes them: continues what it
    stopped, gives nodes back to idleness, ends its hog."""

    def __init__(self, rng, tl, cluster):
        self.rng, self.tl, self.cluster = rng, tl, cluster
        self.undo = []          # (when, what, argument)
        self.stopped = set()
        self.busy = set()
        self.hog = None
        self.count = {"kill": 0, "stop": 0, "flap": 0, "hog": 0}

    def sensors(self, node, text):
        path = os.path.join(self.cluster, "nodes", node, "sensors")
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.chmod(path + ".tmp", 0o644)
        os.replace(path + ".tmp", path)

    def victim(self):
        pids, port = self.tl.workers()
        live = [p for p in pids if p not in self.stopped and port and
                is_worker_of(p, port)]
        return self.rng.choice(live) if live else None

    def apply(self, kind, secs):
        now = self.tl.now()
        if kind in ("kill", "stop"):
            pid = self.victim()
            if pid is None:
                self.tl.say(f"chaos: {kind}: no worker to {kind}")
                return
            if kind == "kill":
                signal_pid(pid, signal.SIGKILL)
                self.tl.say(f"chaos: SIGKILL worker pid {pid}")
            else:
                signal_pid(pid, signal.SIGSTOP)
                self.stopped.add(pid)
                self.undo.append((now + secs, "cont", pid))
                self.tl.say(f"chaos: SIGSTOP worker pid {pid} for {secs:.1f} s")
        elif kind == "flap":
            free = [f"127.0.0.{i + 2}" for i in range(NODES)
                    if f"127.0.0.{i + 2}" not in self.busy]
            if len(self.busy) >= NODES // 2 or not free:
                self.tl.say("chaos: flap: enough owners are back already")
                return
            node = self.rng.choice(free)
            self.sensors(node, BUSY)
            self.busy.add(node)
            self.undo.append((now + secs, "idle", node))
            self.tl.say(f"chaos: owner back on {node} for {secs:.1f} s")
        elif kind == "hog":
            if self.hog is not None:
                self.tl.say("chaos: hog: one runs already")
                return
            self.hog = subprocess.Popen([sys.executable, "-c",
                                         "while True: pass"])
            self.undo.append((now + secs, "unhog", self.hog.pid))
            self.tl.say(f"chaos: CPU hog pid {self.hog.pid} for {secs:.1f} s")
        self.count[kind] += 1

    def undo_due(self, everything=False):
        now = self.tl.now()
        keep = []
        for when, what, arg in self.undo:
            if not everything and when > now:
                keep.append((when, what, arg))
                continue
            if what == "cont":
                _, port = self.tl.workers()
                # the pid may be dead and reused: continue only our worker
                if port and is_worker_of(arg, port):
                    signal_pid(arg, signal.SIGCONT)
                    self.tl.say(f"chaos: SIGCONT worker pid {arg}")
                self.stopped.discard(arg)
            elif what == "idle":
                self.sensors(arg, IDLE)
                self.busy.discard(arg)
                self.tl.say(f"chaos: owner of {arg} gone again")
            elif what == "unhog" and self.hog is not None:
                self.hog.kill()
                self.hog.wait()
                self.hog = None
                self.tl.say(f"chaos: CPU hog pid {arg} ended")
        self.undo = keep

    def faults(self):
        return " ".join(f"{v} {k}" for k, v in self.count.items() if v)


class Session:
    def __init__(self, opts):
        self.o = opts
        self.bin = os.path.join(opts.build, "bin")
        self.alone = {}
        self.results = []

    def locked(self):
        if not self.o.lock:
            return None
        f = open(self.o.lock, "a")
        fcntl.flock(f, fcntl.LOCK_EX)
        return f

    def measure_alone(self, prog, args):
        key = (prog, tuple(args))
        if key not in self.alone:
            t = time.monotonic()
            out = subprocess.run([os.path.join(self.bin, prog), "-Alone"] +
                                 args, capture_output=True, text=True,
                                 timeout=600, check=False)
            self.alone[key] = time.monotonic() - t
            got = out.stdout.split()[-1] if out.stdout.split() else ""
            if out.returncode != 0 or not NUMBER.fullmatch(got) or \
                    not same_answer(number(got),
                                    expected(self.o.build, prog, args)):
                sys.exit(f"chaos: {prog} -Alone {' '.join(args)} printed "
                         f"{got!r}, exit {out.returncode}: broken build?")
        return self.alone[key]

    def cilklocal(self, *args, log):
        env = dict(os.environ, CILKNOW_SBIN=os.path.join(self.o.build, "sbin"))
        with open(log, "a") as f:
            return subprocess.run([os.path.join(self.bin, "CilkLocal")] +
                                  list(args), stdout=f, stderr=f, env=env,
                                  timeout=120, check=False).returncode

    def run(self, seed):
        rng = random.Random(seed)
        menu = SHORT if self.o.short else PROGRAMS
        prog, args = menu[seed % len(menu)]    # consecutive seeds: each one
        want = expected(self.o.build, prog, args)
        lossy = None
        if rng.random() < 0.8:
            lossy = (f"loss={rng.uniform(0, 0.10):.3f},"
                     f"dup={rng.uniform(0, 0.05):.3f},"
                     f"reorder={rng.uniform(0, 0.10):.3f},seed={seed}")
        events = schedule(rng, 600, 0.7 if self.o.short else 1.5)
        lock = self.locked()
        try:
            alone = self.measure_alone(prog, args)
            return self.run_cluster(seed, rng, prog, args, want, lossy,
                                    events, alone)
        finally:
            if lock:
                lock.close()

    def run_cluster(self, seed, rng, prog, args, want, lossy, events, alone):
        work = tempfile.mkdtemp(prefix=f"cilknow-chaos-{seed}.")
        os.chmod(work, 0o755)   # the service user reads the sensor files
        cluster = os.path.join(work, "cluster")
        tl = Timeline(os.path.join(work, "timeline.log"))
        what = f"{prog} {' '.join(args)}"
        tl.say(f"chaos: seed {seed}: {what}, want {want}, "
               f"lossy {lossy or 'no'}, alone {alone:.2f} s")
        r = {"seed": seed, "what": what, "alone": alone, "lossy": lossy,
             "verdict": "ok", "secs": None, "got": None}
        chaos = Chaos(rng, tl, cluster)
        root = None
        log = os.path.join(work, "cilklocal.log")
        if self.cilklocal("start", "-n", str(NODES), "-d", cluster, "-p",
                          str(self.o.port), "-o", "register_interval=1",
                          "-o", "stop_grace=2", log=log) != 0:
            self.cilklocal("stop", "-d", cluster, log=log)
            r["verdict"] = "no cluster"
            return self.done(r, work, tl, chaos)
        try:
            env = dict(os.environ, CILKNOW_CONF=f"{cluster}/cilknow.conf",
                       CILKNOW_STATS="1",
                       CILKNOW_SBIN=os.path.join(self.o.build, "sbin"))
            env.pop("CILKNOW_CHECKPOINT", None)
            path = os.path.join(self.bin, prog)
            if lossy:
                env["CILKNOW_LOSSY"] = lossy
                env["LD_PRELOAD"] = lossy_preload(self.o.build, path)
            limit = 10 * alone + 60
            out = os.path.join(work, "answer.out")
            start = time.monotonic()
            with open(out, "w") as f:
                root = subprocess.Popen([path] + args, stdout=f,
                                        stderr=subprocess.PIPE, env=env,
                                        text=True, cwd=work)
            reader = threading.Thread(target=tl.read, args=(root.stderr,),
                                      daemon=True)
            reader.start()
            tl.say(f"chaos: root pid {root.pid}")
            while root.poll() is None and time.monotonic() - start < limit:
                while events and events[0][0] <= tl.now():
                    _, kind, secs = events.pop(0)
                    chaos.apply(kind, secs)
                chaos.undo_due()
                time.sleep(0.05)
            r["secs"] = time.monotonic() - start
            if root.poll() is None:
                r["verdict"] = "did not finish"
                tl.say(f"chaos: the root did not end within {limit:.0f} s")
                self.snapshot(tl, cluster)
            chaos.undo_due(everything=True)
            if root.poll() is None:
                for p in descendants(root.pid) + [root.pid]:
                    signal_pid(p, signal.SIGCONT)
                    signal_pid(p, signal.SIGKILL)
                root.wait()
            reader.join(5)
            tl.say(f"chaos: root exit {root.returncode}")
            r["got"] = answer_of(out)
            if r["verdict"] == "ok" and (root.returncode != 0 or
                                         not same_answer(r["got"], want)):
                r["verdict"] = "wrong answer"
            self.leftovers(r, tl)
        finally:
            chaos.undo_due(everything=True)
            if root is not None and root.poll() is None:
                root.kill()
                root.wait()
            self.cilklocal("stop", "-d", cluster, log=log)
        r["lost"], r["units"] = tl.lost, tl.summary
        return self.done(r, work, tl, chaos)

    def leftovers(self, r, tl):
        """Every worker of the job must end with it (30 s of silence at
        most, a stopped one included)."""
        _, port = tl.workers()
        if port is None:
            return
        # None for LEFTOVER_QUIET in a row: a task given out before the
        # job ended may start after it (seen at 1.7 s on a busy machine)
        # and must end in its turn, so one empty look is not enough.
        end = time.monotonic() + LEFTOVER_WAIT
        quiet_since = None
        left = workers_of(port)
        while time.monotonic() < end:
            now = time.monotonic()
            if left:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            elif now - quiet_since >= LEFTOVER_QUIET:
                break
            time.sleep(0.2)
            left = workers_of(port)
        if left:
            tl.say(f"chaos: workers left behind: {left}")
            for p in left:
                tl.say(f"chaos:   {p}: {b' '.join(cmdline(p)).decode()}")
            if r["verdict"] == "ok":
                r["verdict"] = "left workers behind"

    def snapshot(self, tl, cluster):
        env = dict(os.environ, CILKNOW_CONF=f"{cluster}/cilknow.conf")
        for tool in ("CilkPs", "CilkNodes"):
            out = subprocess.run([os.path.join(self.bin, tool)], env=env,
                                 capture_output=True, text=True, timeout=30,
                                 check=False)
            for line in (out.stdout + out.stderr).splitlines():
                tl.say(f"chaos: {tool}: {line}")

    def done(self, r, work, tl, chaos):
        r["faults"] = chaos.faults()
        tl.say(f"chaos: verdict {r['verdict']}")
        tl.f.close()
        if r["verdict"] == "ok" and not self.o.keep_all:
            shutil.rmtree(work, ignore_errors=True)
        else:
            dest = os.path.join(self.o.keep, f"seed-{r['seed']}")
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(self.o.keep, exist_ok=True)
            shutil.move(work, dest)
            r["kept"] = dest
        self.results.append(r)
        return r


def line(r):
    secs = f"{r['secs']:.1f} s" if r["secs"] is not None else "-"
    slow = (f"x{r['secs'] / r['alone']:.2f}"
            if r["secs"] is not None and r["verdict"] != "did not finish"
            else "-")
    lossy = r["lossy"].rsplit(",seed", 1)[0] if r["lossy"] else "no loss"
    s = (f"seed {r['seed']}: {r['what']} -> {r['got']} {r['verdict']}, "
         f"{secs} (alone {r['alone']:.1f} s, {slow}); {lossy}; "
         f"{r['faults'] or 'no faults'}; {r.get('lost', 0)} lost")
    if r.get("units"):
        s += f"; {r['units']}"
    if r.get("kept"):
        s += f"; logs in {r['kept']}"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--first", type=int, default=None,
                    help="first seed (default: a random one)")
    ap.add_argument("--seed", type=int, default=None, help="one run: replay")
    ap.add_argument("--short", action="store_true",
                    help="short programs, for make check")
    ap.add_argument("--port", type=int, default=18600)
    ap.add_argument("--keep", default=None,
                    help="where the logs of failing runs go")
    ap.add_argument("--keep-all", action="store_true",
                    help="keep the logs of every run")
    ap.add_argument("--lock", default=None,
                    help="a file to flock around each run")
    o = ap.parse_args()
    o.build = os.path.abspath(o.build)
    o.keep = os.path.abspath(o.keep or os.path.join(o.build, "chaos-failed"))
    if o.seed is not None:
        seeds = [o.seed]
    else:
        first = o.first if o.first is not None else \
            int.from_bytes(os.urandom(3), "big")
        seeds = list(range(first, first + o.runs))
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    s = Session(o)
    t0 = time.monotonic()
    mode = " (short)" if o.short else ""
    print(f"chaos: {len(seeds)} runs{mode}, seeds {seeds[0]}..{seeds[-1]}, "
          f"cluster of {NODES} nodes on port {o.port}", flush=True)
    try:
        for i, seed in enumerate(seeds):
            r = s.run(seed)
            print(f"run {i + 1}/{len(seeds)}: {line(r)}", flush=True)
    except Stop as e:
        print(f"chaos: stopped by {e}", flush=True)
    res = s.results
    wrong = [r for r in res if r["verdict"] == "wrong answer"]
    unfinished = [r for r in res if r["verdict"] == "did not finish"]
    behind = [r for r in res if r["verdict"] == "left workers behind"]
    other = [r for r in res if r["verdict"] not in
             ("ok", "wrong answer", "did not finish", "left workers behind")]
    slow = [r["secs"] / r["alone"] for r in res
            if r["verdict"] != "did not finish" and r["secs"] is not None]
    print("chaos: summary")
    for r in res:
        print(f"  {line(r)}")
    print(f"chaos: {len(res)} runs in {time.monotonic() - t0:.0f} s, "
          f"{len(wrong)} wrong answers, "
          f"{len(unfinished)} did not finish, {len(behind)} left workers "
          f"behind" + (f", {len(other)} without a cluster" if other else ""))
    if slow:
        print(f"chaos: slowdown against the program alone: median "
              f"{statistics.median(slow):.2f}, worst {max(slow):.2f}")
    bad = wrong + unfinished + behind + other
    if bad:
        print(f"chaos: logs of the failing runs in {o.keep}; replay one "
              f"with: python3 {sys.argv[0]} --build {o.build} --seed "
              f"{bad[0]['seed']}{' --short' if o.short else ''}")
    return 1 if bad or len(res) < len(seeds) else 0


if __name__ == "__main__":
    sys.exit(main())
