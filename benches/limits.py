#!/usr/bin/env python3
"""How well `check`'s limits bound the whole process, measured from outside it: for every
strategy on every kind of input (EM traces, a DroidRacer abc_log, an event model, a SmartApps
pair, SmartApps homes), three runs of the binary:

- `--time-limit T`: the process's wall time (from spawn to exit, so reading, setting up, the
  work after the search, printing and exiting all count) against T; it must stay within
  1.1 T + 1 s;
- `--max-memory M` (and `--time-limit T` so that a search that does not grow ends): the process's
  peak resident memory (the kernel's `ru_maxrss` of the child, what `/usr/bin/time` prints)
  against M; within 1.1 M, whatever stopped the run;
- Ctrl-C (SIGINT) C seconds after the start: the seconds from the signal to the exit (within 1 s)
  and whether the report was printed (its JSON parses, `stopped_by` is `interrupt`).

Inputs are read from ../shared (EM-Explorer's mytracks, IoTCheck's app lists and SmartApps) or
generated into a temporary folder (benches/gen_mix.py, benches/gen_abc_log.py, and an event model
of 78 events over 16 variables, the largest of benches/events.rs). Prints one Markdown row per
(input, strategy) and a last line counting the limits that did not hold.

Usage: benches/limits.py [--binary PATH] [--seconds T] [--memory M] [--interrupt C]
                         [--kinds em,abc,events,pair,home]
Defaults: target/release/tracepor, T = 10, M = 300, C = 3, every kind. Run on a quiet machine
and quote `uptime` beside the table: the figures are wall times."""
import argparse, json, os, pathlib, signal, subprocess, sys, tempfile, threading, time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT / "../shared"

EM = ["full", "full-stateless", "dpor", "dpor-sleep", "em-dpor", "em-dpor-sleep", "optimal", "stateful-dpor"]
STATEFUL = ["full", "stateful-dpor"]
STATELESS = ["full-stateless", "dpor", "dpor-sleep"]


def event_model(path, events=78, variables=16):
    """benches/events.rs's generated model: event i reads variable i, updates i+1 from it, and
    every fourth one toggles the next event (a cyclic state space where events interfere)."""
    lines = ["model events"] + [f"var v{v} = 0" for v in range(variables)]
    for e in range(events):
        if e % 8 == 0:
            lines.append(f"app A{e // 8} {{")
        a, b = e % variables, (e + 1) % variables
        lines.append(f"  on e{e} {{")
        lines.append(f"    if v{a} < 2 {{ v{b} = (v{b} + v{a} + 1) % 3 }} else {{ v{a} = 0 }}")
        if e % 4 == 3:
            n = (e + 1) % events
            lines.append(f"    if v{b} == 0 {{ disable e{n} }} else {{ enable e{n} }}")
        lines.append("  }")
        if e % 8 == 7 or e + 1 == events:
            lines.append("}")
    path.write_text("\n".join(lines) + "\n")
    return path


def cases(kinds, tmp):
    """(kind, input name, arguments before the options, extra options, strategies)."""
    out = []
    apps = SHARED / "smartthings/smartapps"
    lists = SHARED / "smartthings/appLists"
    if "em" in kinds:
        mytracks = SHARED / "traces/em-explorer/tacas-2016/mytracks"
        out.append(("EM trace", "mytracks (453 ops)", [str(mytracks)], [], EM))
        mix = tmp / "mix" / "trace.txt"
        mix.parent.mkdir()
        with open(mix, "w") as f:
            subprocess.run([sys.executable, str(HERE / "gen_mix.py"), "200000"], stdout=f, check=True)
        out.append(("EM trace", "gen_mix.py 200000", [str(mix.parent)], [], EM))
    if "abc" in kinds:
        log = tmp / "abc" / "abc_log.txt"
        log.parent.mkdir()
        with open(log, "w") as f:
            subprocess.run([sys.executable, str(HERE / "gen_abc_log.py"), "4"], stdout=f, check=True)
        out.append(("abc_log", "gen_abc_log.py 4 (4 MB)", [str(log)], [], EM))
    if "events" in kinds:
        model = event_model(tmp / "generated.events")
        out.append(("event model", "78 events, 16 vars", [str(model)], [], STATEFUL))
        out.append(("event model", "78 events, 16 vars, --bound 3", [str(model)], ["--bound", "3"], STATELESS))
    if "pair" in kinds:
        # The study's pair with the most states (it did not finish in 50,000).
        pair = [str(apps / "FireCO2Alarm.groovy"), str(apps / "thermostat-mode-director.groovy")]
        name = "FireCO2Alarm + thermostat-mode-director"
        out.append(("SmartApps pair", name, pair, ["--conflicts"], STATEFUL + ["monitors"]))
        out.append(("SmartApps pair", name + ", --bound 4", pair, ["--conflicts", "--bound", "4"], STATELESS))
    if "home" in kinds:
        for home in ["locksAppList", "lightSwitchesAppList"]:
            out.append(("SmartApps home", home, [str(lists / home)], ["--conflicts"], STATEFUL + ["monitors"]))
    return out


def run(cmd, interrupt_at=None, outer=None):
    """Runs `cmd`; returns (wall seconds, peak RSS MiB, stdout, exit code, seconds from the
    signal to the exit, None when it ended before the signal was due).

    The peak RSS is measured by /usr/bin/time around the binary, not from this process's
    wait4: Python starts a child with vfork, and the kernel keeps the high-water mark of the
    memory the child ran in before its exec, this script's (hundreds of MiB after parsing a
    large JSON report), as the child's `ru_maxrss`. /usr/bin/time's own child starts from its
    small image. Ctrl-C runs go without it (GNU time ignores SIGINT) and measure no memory."""
    rss_file = None
    if interrupt_at is None:
        rss_file = tempfile.NamedTemporaryFile(prefix="tracepor-rss-", delete=False)
        rss_file.close()
        cmd = ["/usr/bin/time", "-q", "-f", "%M", "-o", rss_file.name] + cmd
    start = time.monotonic()
    # A session of its own: the outer kill reaches the binary under /usr/bin/time too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT, start_new_session=True)
    # Read stdout on a thread so that a large report never blocks the child.
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
    reader.start()
    sent = killed = None
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        now = time.monotonic()
        if interrupt_at is not None and sent is None and now - start >= interrupt_at:
            os.kill(p.pid, signal.SIGINT)
            sent = now
        if outer is not None and now - start > outer and not killed:
            os.killpg(p.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.005)
    end = time.monotonic()
    p.returncode = os.waitstatus_to_exitcode(status)
    reader.join()
    after = None if sent is None else end - sent
    rss = float("nan")
    if rss_file is not None:
        with open(rss_file.name) as f:
            kb = [line for line in f.read().split() if line.isdigit()]
        os.unlink(rss_file.name)
        rss = int(kb[-1]) / 1024 if kb else float("nan")
    return end - start, rss, (chunks[0] if chunks else b""), (None if killed else p.returncode), after


def report_of(stdout):
    try:
        return json.loads(stdout)
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=str(ROOT / "target/release/tracepor"))
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--memory", type=int, default=300)
    ap.add_argument("--interrupt", type=float, default=3.0)
    ap.add_argument("--kinds", default="em,abc,events,pair,home")
    args = ap.parse_args()
    t, m = args.seconds, args.memory
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracepor-limits-"))
    print(f"`benches/limits.py --seconds {t:g} --memory {m} --interrupt {args.interrupt:g}`; "
          f"load at the start: {os.getloadavg()[0]:.1f}\n")
    print("| input | strategy | time: stopped by | search s | process s | over T | memory: stopped by "
          "| peak RSS MiB | over M | Ctrl-C: exit after s | report |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    broken = 0
    for kind, name, inputs, extra, strategies in cases(set(args.kinds.split(",")), tmp):
        for s in strategies:
            base = [args.binary, "check", *inputs, "--strategy", s, "--json", "--no-progress", *extra]
            outer = 3 * t + 60
            # Time: memory out of the way.
            wall, _, out, _, _ = run(base + ["--time-limit", str(t), "--max-memory", "16000"], outer=outer)
            r = report_of(out) or {}
            stop_t = r.get("stopped_by") or ("finished" if r.get("finished") else "no report")
            over_t = wall / t - 1
            held_t = wall <= 1.1 * t + 1
            # Memory: the time limit only ends a search that never grows to M.
            _, rss, out, _, _ = run(base + ["--time-limit", str(t), "--max-memory", str(m)], outer=outer)
            rm = report_of(out) or {}
            stop_m = rm.get("stopped_by") or ("finished" if rm.get("finished") else "no report")
            over_m = rss / m - 1
            # Whatever stopped the run, the process never grows past 1.1 M.
            held_m = rss <= 1.1 * m
            # Ctrl-C: no limit but a far one.
            _, _, out, _, after = run(base + ["--time-limit", str(10 * t)], interrupt_at=args.interrupt,
                                      outer=outer)
            ri = report_of(out)
            if after is None:
                ctrl, printed, held_c = "ended first", "-", True
            else:
                ctrl = f"{after:.2f}"
                printed = "yes" if ri is not None and ri.get("stopped_by") == "interrupt" else (
                    "finished" if ri is not None else "no")
                held_c = after <= 1.0 and printed != "no"
            broken += (not held_t) + (not held_m) + (not held_c)
            mark = lambda ok: "" if ok else " **!**"
            print(f"| {kind}: {name} | {s} | {stop_t} | {r.get('time_s', float('nan')):.2f} | {wall:.2f}{mark(held_t)} "
                  f"| {100 * over_t:+.0f}% | {stop_m} | {rss:.0f}{mark(held_m)} | {100 * over_m:+.0f}% "
                  f"| {ctrl}{mark(held_c)} | {printed} |", flush=True)
    print(f"\n{broken} limits did not hold (marked **!**); load at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
