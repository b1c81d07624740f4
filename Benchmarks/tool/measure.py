"""Whole-process measurements for Benchmarks/tool/run.sh (which sets the environment).

Every case is one child process. Its CPU time (user + system) and peak resident memory come from
GNU time (os.wait4 without it), its wall time from the clock around it. The cases run interleaved: each round runs every
case once, in turn, so that other work on the machine falls on all of them alike; a case's figure
is its best time over the rounds and its largest peak. Ratios are taken between best times of the
same run.
"""
import os
import subprocess
import sys
import time

ROUNDS = int(os.environ["ROUNDS"])
TOOL = os.environ["TOOL"]
BASELINE = os.environ.get("BASELINE") or None
RUST = os.environ.get("RUST") or None
FOUNDATION = os.environ.get("FOUNDATION_TOOL") or None
WORK = os.environ["WORK"]
APPLE_XML = os.environ.get("APPLE_XML") or None
APPLE_BINARY = os.environ.get("APPLE_BINARY") or None
FLEET = os.path.join(WORK, "FLEET.bplist")
FLEET_COPY = os.path.join(WORK, "FLEET-copy.bplist")
FLEET_XML = os.path.join(WORK, "FLEET.xml")
ALLOW = ",".join("keyedarchive_fleet_benchmark." + name for name in ["FPilot", "FAirplane", "FPoweredAirplane", "FGlider"])


def out(name):
    return os.path.join(WORK, "out-" + name)


def tool_commands(tool, label, fleet, fleet_copy, fleet_xml, allow):
    """Every command of the tool on one input: (row name, argv, input bytes)."""
    size = os.path.getsize(fleet)
    return [
        (f"dump", [tool, "dump", fleet], size),
        (f"json", [tool, "json", fleet], size),
        (f"plist", [tool, "plist", fleet], size),
        (f"convert --to binary", [tool, "convert", fleet, "--to", "binary", "-o", out(label + ".bplist")], size),
        (f"convert --to xml", [tool, "convert", fleet, "--to", "xml", "-o", out(label + ".xml")], size),
        (f"convert XML --to binary", [tool, "convert", fleet_xml, "--to", "binary", "-o", out(label + "-x.bplist")], os.path.getsize(fleet_xml)),
        (f"diff (A against a copy)", [tool, "diff", fleet, fleet_copy], size + os.path.getsize(fleet_copy)),
        (f"schema", [tool, "schema", fleet], size),
        (f"validate", [tool, "validate", fleet, "--allow", allow], size),
    ]


TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
TIME_OUTPUT = os.path.join(WORK, "time.txt")


def run(argv):
    """(wall s, CPU s, peak RSS bytes, exit status) of one child. The peak is GNU time's (the
    issue's measurements were `/usr/bin/time`'s): os.wait4 on a child this process starts would
    also count this Python process's own memory, which a child started by vfork inherits as its
    high-water mark. Without GNU time, os.wait4 on the child itself."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        if TIME:
            # CPU from wait4 on GNU time (its reaped child's time counts, in microseconds, where
            # time itself prints hundredths); the peak as time reports it, the child's alone.
            process = subprocess.Popen([TIME, "-f", "%x %M", "-o", TIME_OUTPUT] + argv, stdout=devnull, stderr=devnull)
            _, _, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - start
            with open(TIME_OUTPUT) as report:
                status, peak = report.read().split()[-2:]
            return wall, usage.ru_utime + usage.ru_stime, int(peak) * 1024, int(status)
        process = subprocess.Popen(argv, stdout=devnull, stderr=devnull)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def measure(cases):
    """Runs the cases interleaved; returns {name: (best wall, best CPU, largest peak, statuses)}."""
    results = {name: [float("inf"), float("inf"), 0, set()] for name, _, _ in cases}
    for round_number in range(ROUNDS):
        for name, argv, _ in cases:
            wall, cpu, peak, status = run(argv)
            entry = results[name]
            entry[0] = min(entry[0], wall)
            entry[1] = min(entry[1], cpu)
            entry[2] = max(entry[2], peak)
            entry[3].add(status)
        print(f"   round {round_number + 1} of {ROUNDS} done", file=sys.stderr)
    return results


def mb(value):
    return f"{value / 1e6:.1f} MB"


def ms(value):
    return f"{value * 1000:.1f} ms" if value < 0.1 else f"{value * 1000:.0f} ms"


def table(title, cases, results, baseline_names=None):
    print()
    print(f"### {title}")
    print()
    if baseline_names:
        print("| command | input | before: CPU (wall) | before: peak | after: CPU (wall) | after: peak | peak / input | CPU after / before |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print("| command | input | CPU (wall) | peak | peak / input |")
        print("|---|---|---|---|---|")
    for name, argv, size in cases:
        wall, cpu, peak, statuses = results[name]
        status = "" if statuses <= {0, 1} else f" (exit {sorted(statuses)})"
        if baseline_names:
            before = results[baseline_names[name]]
            print(f"| {name}{status} | {mb(size)} | {ms(before[1])} ({ms(before[0])}) | {mb(before[2])} | {ms(cpu)} ({ms(wall)}) | {mb(peak)} | {peak / size:.2f}× | {cpu / max(before[1], 1e-6):.2f} |")
        else:
            print(f"| {name}{status} | {mb(size)} | {ms(cpu)} ({ms(wall)}) | {mb(peak)} | {peak / size:.2f}× |")


def suite(label, fleet, fleet_copy, fleet_xml, allow, anchors):
    cases = tool_commands(TOOL, label, fleet, fleet_copy, fleet_xml, allow)
    baseline_names = None
    all_cases = list(cases)
    if BASELINE:
        before = tool_commands(BASELINE, label + "-before", fleet, fleet_copy, fleet_xml, allow)
        baseline_names = {name: "before: " + name for name, _, _ in cases}
        all_cases += [("before: " + name, argv, size) for name, argv, size in before]
    all_cases += anchors
    results = measure(all_cases)
    table(label, cases, results, baseline_names)
    return results


print(f"{ROUNDS} interleaved rounds; CPU = user + system time of the process, best of the rounds; peak = largest peak RSS.")

APPLE_ONLY = os.environ.get("APPLE_ONLY") == "1"
anchors = []
if RUST and not APPLE_ONLY:
    anchors.append(("Rust plist: read + binary write", [RUST, FLEET, "--to", "binary", out("rust.bplist")], os.path.getsize(FLEET)))
    anchors.append(("Rust plist: read + XML write", [RUST, FLEET, "--to", "xml", out("rust.xml")], os.path.getsize(FLEET)))
    anchors.append(("Rust plist: XML read + binary write", [RUST, FLEET_XML, "--to", "binary", out("rust-x.bplist")], os.path.getsize(FLEET_XML)))
fleet_results = {} if APPLE_ONLY else suite("24 MB Foundation-made fleet archive", FLEET, FLEET_COPY, FLEET_XML, ALLOW, anchors)

foundation_results = {}
if FOUNDATION and not APPLE_ONLY:
    # Foundation takes tens of seconds here: two runs each, interleaved with ours.
    global_rounds = ROUNDS
    ROUNDS = min(ROUNDS, 2)
    foundation_cases = [
        ("Foundation: binary --to xml", [FOUNDATION, "--foundation-convert", FLEET, "xml", out("foundation.xml")], os.path.getsize(FLEET)),
        ("Foundation: XML --to binary", [FOUNDATION, "--foundation-convert", FLEET_XML, "binary", out("foundation-x.bplist")], os.path.getsize(FLEET_XML)),
        ("ours: convert --to xml", [TOOL, "convert", FLEET, "--to", "xml", "-o", out("again.xml")], os.path.getsize(FLEET)),
        ("ours: convert XML --to binary", [TOOL, "convert", FLEET_XML, "--to", "binary", "-o", out("again-x.bplist")], os.path.getsize(FLEET_XML)),
    ]
    foundation_results = measure(foundation_cases)
    ROUNDS = global_rounds

if not APPLE_ONLY:
    print()
    print("### Anchors: the same conversions by other implementations, whole process")
    print()
    print("| conversion | ours: CPU (wall), peak | other: CPU (wall), peak | ours faster by (CPU) | (wall) |")
    print("|---|---|---|---|---|")


def anchor_row(label, ours, theirs):
    print(f"| {label} | {ms(ours[1])} ({ms(ours[0])}), {mb(ours[2])} | {ms(theirs[1])} ({ms(theirs[0])}), {mb(theirs[2])} | {theirs[1] / ours[1]:.2f}× | {theirs[0] / ours[0]:.2f}× |")


if RUST and not APPLE_ONLY:
    anchor_row("binary → binary, Rust plist crate", fleet_results["convert --to binary"], fleet_results["Rust plist: read + binary write"])
    anchor_row("binary → XML, Rust plist crate", fleet_results["convert --to xml"], fleet_results["Rust plist: read + XML write"])
    anchor_row("XML → binary, Rust plist crate", fleet_results["convert XML --to binary"], fleet_results["Rust plist: XML read + binary write"])
if FOUNDATION and not APPLE_ONLY:
    anchor_row("binary → XML, Foundation", foundation_results["ours: convert --to xml"], foundation_results["Foundation: binary --to xml"])
    anchor_row("XML → binary, Foundation", foundation_results["ours: convert XML --to binary"], foundation_results["Foundation: XML --to binary"])

for label, path in [("largest Apple-made XML archive (1.9 MB xcuserstate)", APPLE_XML), ("largest Apple-made binary archive (0.3 MB xcuserstate)", APPLE_BINARY)]:
    if not path:
        continue
    copy = out(os.path.basename(path) + "-copy")
    xml_form = out(os.path.basename(path) + ".xml")
    with open(path, "rb") as source, open(copy, "wb") as target:
        target.write(source.read())
    subprocess.run([TOOL, "convert", path, "--to", "xml", "-o", xml_form], check=True)
    suite(label, path, copy, xml_form, "", [])
