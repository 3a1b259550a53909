#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The side-by-side benchmark: cofferd, gnome-keyring and a null provider (the floor), driven by one C client.
#
#   python3 Benchmarks/run.py --cofferd PATH [--quick] [--sizes 100,1000] [--rounds 5]
#                             [--keychain-bench PATH [--keychain-baseline PATH] [--library-only]]
#
# Each round starts every provider fresh from its cached N-item state, then runs each operation in short turns,
# provider after provider (the order rotates per round), so machine noise hits all of them alike. A round's value is
# the median of its calls; the table shows the median over rounds, and ratios are taken within each round first.

import argparse
import datetime
import filecmp
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import providers as prov  # noqa: E402
import report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["client.c", "sscall.c", "sscrypto.c", "nullprovider.c"]

# operation -> (calls per turn, metrics the client prints)
OPERATIONS = {"lookup": 200, "search1": 200, "search100": 50, "get100": 30, "store": 30}

# The Keychain library's rows (--keychain-bench): how many items its searches return, and calls per turn.
LIBRARY_ITEMS = 100
LIBRARY_OPERATIONS = {"one": 200, "all": 50, "libsecret": 200}


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def build(scratch):
    """Compiles the C client and null provider into the scratch directory."""
    out = os.path.join(scratch, "bin")
    os.makedirs(out, exist_ok=True)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "dbus-1", "libgcrypt"], capture_output=True,
                           text=True, check=True).stdout.split()
    src = os.path.join(HERE, "provider")
    common = [os.path.join(src, f) for f in ("sscall.c", "sscrypto.c")]
    for name, main in (("coffer-bench-client", "client.c"), ("coffer-bench-null", "nullprovider.c")):
        target = os.path.join(out, name)
        subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", target + ".new", os.path.join(src, main)]
                       + common + flags, check=True)
        keep_if_unchanged(target + ".new", target)
    return os.path.join(out, "coffer-bench-client"), os.path.join(out, "coffer-bench-null")


def keep_if_unchanged(new, target):
    """Moves a fresh build into place only when it differs: cofferd tells applications apart by their executable's
    inode, so an unchanged client keeps its identity (and the items it stored in cached templates) across runs."""
    if os.path.exists(target) and filecmp.cmp(new, target, shallow=False):
        os.remove(new)
    else:
        os.replace(new, target)


def build_libsecret_lookup(scratch):
    """Compiles the libsecret lookup the library's rows are compared with (libsecret-1-dev)."""
    out = os.path.join(scratch, "bin", "coffer-bench-libsecret")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsecret-1"], capture_output=True, text=True,
                           check=True).stdout.split()
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", out, os.path.join(HERE, "provider", "libsecretlookup.c")]
                   + flags, check=True)
    return out


def library_rounds(args, order, instances, libsecret, record_sample):
    """The Keychain library's SecItemCopyMatching (one item; all LIBRARY_ITEMS with their data) and libsecret's
    lookup of the same item, on each provider that stores items, in turns like the other operations. With
    --keychain-baseline, an older build of the library runs the same searches beside it (metrics *_base)."""
    tools = [(args.keychain_bench, "")] + ([(args.keychain_baseline, "_base")] if args.keychain_baseline else [])
    stores = [p for p in order if p.name != "null"]
    for p in stores:
        run_tool([args.keychain_bench, "seed", str(LIBRARY_ITEMS)], instances[p.name])
    for op, count in LIBRARY_OPERATIONS.items():
        calls = str(max(3, count // args.turns // args.scale))
        for _ in range(args.turns):
            for p in stores:
                if op == "libsecret":
                    commands = [([libsecret, calls], "")]
                else:
                    extra = [str(LIBRARY_ITEMS)] if op == "all" else []
                    commands = [([tool, op, calls] + extra, suffix) for tool, suffix in tools]
                for command, suffix in commands:
                    for line in run_tool(command, instances[p.name]):
                        record_sample(p.name, line[0] + suffix, int(line[1]))


def run_tool(command, instance):
    done = subprocess.run(command, env=instance.env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{instance.provider.name}: {' '.join(command[:2])} failed: {done.stderr.strip()}")
    return [line.split() for line in done.stdout.splitlines()]


def run_client(client, instance, op, count, n, budget_ms, stdin=None):
    env = dict(instance.env, BENCH_BUDGET_MS=str(budget_ms))
    done = subprocess.run([client, op, str(count), str(n)], env=env, input=stdin, capture_output=True, text=True,
                          timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{instance.provider.name}: {op} failed: {done.stderr.strip()}")
    return [line.split() for line in done.stdout.splitlines()]


def concurrent(client, instance, n, count, budget_ms):
    """Four clients doing lookups at once; lookups per second over the span they all ran. Each stops after the
    same time budget, so a slow provider is measured as long as a fast one."""
    env = dict(instance.env, BENCH_BUDGET_MS=str(budget_ms))
    procs = [subprocess.Popen([client, "concurrent", str(count), str(n)], env=env, stdout=subprocess.PIPE,
                              text=True) for _ in range(4)]
    spans = []
    for p in procs:
        out, _ = p.communicate(timeout=3600)
        if p.returncode != 0:
            raise RuntimeError(f"{instance.provider.name}: concurrent lookups failed")
        _, start, end, done = out.split()
        spans.append((int(start), int(end), int(done)))
    total = sum(s[2] for s in spans)
    return total / ((max(s[1] for s in spans) - min(s[0] for s in spans)) / 1e9)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def lookups_under_stores(client, instance, count, n, budget_ms, blocks=3):
    """Lookup latency from one client, alone and while another client stores without pause: a provider whose
    writes hold up its reads (an fsync on the thread that answers lookups) shows it in the second p99.

    The two sides alternate in `blocks` turns of count/blocks lookups each, and each side's percentiles are taken
    over all its turns. On a shared 2-core machine a slow spell (another tenant's burst, a page-cache flush) moves
    a p99 of one turn by half or more; taken in one turn per side, it lands on one side only and decides the ratio."""
    alone, busy = [], []
    for _ in range(blocks):
        alone += [int(line[1]) for line in run_client(client, instance, "lookup", count // blocks, n, budget_ms)]
        writer = subprocess.Popen([client, "storeloop", "0", str(n)], env=instance.env, stdout=subprocess.PIPE,
                                  text=True)
        try:
            if writer.stdout.readline().strip() != "storing":
                raise RuntimeError(f"{instance.provider.name}: the storing client did not start")
            busy += [int(line[1]) for line in run_client(client, instance, "lookup", count // blocks, n, budget_ms)]
        finally:
            writer.kill()
            writer.wait()
    return {"lookup_p99": percentile(alone, 0.99), "lookup_p50_stores": statistics.median(busy),
            "lookup_p99_stores": percentile(busy, 0.99)}


def one_round(args, providers, templates, client, n, rnd, results, scratch, libsecret=None):
    order = providers[rnd % len(providers):] + providers[:rnd % len(providers)]
    instances = {}

    def record(provider, metric, value):
        results.setdefault((n, provider.name, metric), []).append(value)

    try:
        for p in order:
            root = os.path.join(scratch, "runs", f"{p.name}-{n}-r{rnd}")
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            if templates[p.name]:
                shutil.copytree(templates[p.name], os.path.join(root, "home"), symlinks=True)
            inst = prov.Instance(p, root)
            record(p, "cold", inst.start(client, n))
            record(p, "rss", inst.rss_bytes())
            if p.data_dir(inst.home):
                record(p, "disk", prov.data_bytes(p.data_dir(inst.home)) / n)
            instances[p.name] = inst
            if p.name == "cofferd":
                kdf = float(run_client(client, inst, "kdf", 1, 0, 0)[0][1]) / 1e9
                record(p, "kdf", kdf)
                record(p, "cold_beyond_kdf", results[(n, p.name, "cold")][-1] - kdf)
        samples, cpu = {}, {}
        for op, count in ({} if args.library_only else OPERATIONS).items():
            for _ in range(args.turns):
                for p in order:
                    inst = instances[p.name]
                    before = inst.cpu_seconds()
                    lines = run_client(client, inst, op, max(3, count // args.turns // args.scale), n, args.budget_ms)
                    calls = len(lines)
                    if op == "store":
                        deletes = run_client(client, inst, "delete", 0, n, 0,
                                             stdin="".join(line[2] + "\n" for line in lines))
                        lines = lines + deletes
                    spent = inst.cpu_seconds() - before
                    if op in ("lookup", "store"):
                        used, made = cpu.get((p.name, op), (0.0, 0))
                        cpu[(p.name, op)] = (used + (spent if op == "lookup" else spent / 2), made + calls)
                    for line in lines:
                        samples.setdefault((p.name, line[0]), []).append(int(line[1]))
        for (name, metric), values in samples.items():
            results.setdefault((n, name, metric), []).append(statistics.median(values))
        for (name, op), (used, made) in cpu.items():
            results.setdefault((n, name, "cpu_" + op), []).append(used / made if made else None)
        for p in ([] if args.library_only else order):
            record(p, "concurrent", concurrent(client, instances[p.name], n, max(20, 500 // args.scale),
                                               args.budget_ms))
        for p in ([] if args.library_only else order):
            for metric, value in lookups_under_stores(client, instances[p.name], max(300, 3000 // args.scale), n,
                                                      args.budget_ms).items():
                record(p, metric, value)
        if args.keychain_bench:
            # Last, so the items it seeds change nothing the other rows measure.
            library = {}
            library_rounds(args, order, instances, libsecret,
                           lambda name, metric, value: library.setdefault((name, metric), []).append(value))
            for (name, metric), values in library.items():
                results.setdefault((n, name, metric), []).append(statistics.median(values))
    finally:
        for inst in instances.values():
            inst.stop()


def sync_merge(args, provider, template, client, n, results, scratch):
    """The time a second machine takes to merge a journal of N records: a cofferd-sync instance publishes its N items
    (its start), then a fresh cofferd joins a copy of the folder. The join's wall time less the two Argon2id runs it
    makes (opening the wrap, the new collection's password), measured on the joining instance."""
    root = os.path.join(scratch, "runs", f"sync-merge-{n}")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    shutil.copytree(template, os.path.join(root, "first", "home"), symlinks=True)
    first = prov.Instance(provider, os.path.join(root, "first"))
    first.start(client, n)
    first.stop()
    joiner = prov.Instance(prov.Cofferd(provider.binary, name="joiner"), os.path.join(root, "second"))
    joiner.start(client, 0)
    try:
        folder = os.path.join(joiner.home, "Sync")
        shutil.copytree(prov.CofferdSync.folder(first.home), folder)
        kdf = float(run_client(client, joiner, "kdf", 1, 0, 0)[0][1]) / 1e9
        coffer = os.path.join(os.path.dirname(provider.binary), "coffer")
        began = time.monotonic()
        joined = subprocess.run([coffer, "sync", "join", folder, "--label", "Joined"], env=joiner.env,
                                input=prov.PASSWORD + "\n", capture_output=True, text=True, timeout=3600)
        spent = time.monotonic() - began
        if joined.returncode != 0:
            raise RuntimeError(f"coffer sync join failed: {joined.stderr.strip()}")
        results.setdefault((n, provider.name, "sync_merge"), []).append(spent - 2 * kdf)
    finally:
        joiner.stop()


def machine():
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = os.getloadavg()
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
            f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cofferd", required=True, help="the cofferd binary (a release build)")
    parser.add_argument("--quick", action="store_true", help="smoke test: N = 100, one round, few calls")
    parser.add_argument("--sizes", help="comma-separated item counts (default 100,1000,10000)")
    parser.add_argument("--rounds", type=int, help="rounds per size (default 5)")
    parser.add_argument("--turns", type=int, default=2, help="turns per operation and provider in a round")
    parser.add_argument("--providers", default="null,cofferd,cofferd-sync,gnome-keyring")
    parser.add_argument("--baseline", help="another cofferd binary to run side by side as 'baseline' (A/B of a change)")
    parser.add_argument("--keychain-bench", help="the keychain-bench binary: adds the Keychain library's rows")
    parser.add_argument("--keychain-baseline", help="an older keychain-bench build to run beside it (A/B)")
    parser.add_argument("--access-control", choices=["off", "ask", "strict"], default="off",
                        help="cofferd's access control (off by default: the Keychain rows cross two programs)")
    parser.add_argument("--library-only", action="store_true",
                        help="only the Keychain library's rows (needs --keychain-bench; with "
                        "--providers cofferd,gnome-keyring the floor is not started either)")
    parser.add_argument("--scratch", default=os.path.join(os.path.dirname(HERE), ".build-bench"))
    parser.add_argument("--json", help="also write the raw per-round results here")
    args = parser.parse_args()
    if args.access_control != "off" and args.keychain_bench:
        log("the Keychain rows read what another program stored: left out under --access-control "
            + args.access_control)
        args.keychain_bench = None
    if args.library_only and not args.keychain_bench:
        parser.error("--library-only needs --keychain-bench")
    args.scale = 10 if args.quick else 1
    args.budget_ms = 300 if args.quick else 3000
    sizes = [int(s) for s in (args.sizes or ("100" if args.quick else "100,1000,10000")).split(",")]
    rounds = args.rounds or (1 if args.quick else 5)
    scratch = os.path.abspath(args.scratch)
    client, null_binary = build(scratch)
    libsecret = build_libsecret_lookup(scratch) if args.keychain_bench else None
    wanted = args.providers.split(",")
    if "gnome-keyring" in wanted and not os.path.exists(prov.GnomeKeyring.binary):
        log("gnome-keyring-daemon is not installed; comparing cofferd with the floor only")
        wanted.remove("gnome-keyring")
    catalogue = {"null": prov.NullProvider(null_binary),
                 "cofferd": prov.Cofferd(os.path.abspath(args.cofferd), access_control=args.access_control),
                 "cofferd-sync": prov.CofferdSync(os.path.abspath(args.cofferd), access_control=args.access_control),
                 "gnome-keyring": prov.GnomeKeyring()}
    if args.baseline:
        catalogue["baseline"] = prov.Cofferd(os.path.abspath(args.baseline), name="baseline",
                                             access_control=args.access_control)
        wanted.append("baseline")
    providers = [catalogue[w] for w in wanted]
    results = {}
    began = time.monotonic()
    for n in sizes:
        templates = {p.name: p.template(scratch, client, n, log) for p in providers}
        for rnd in range(rounds):
            log(f"N = {n:,}: round {rnd + 1} of {rounds}")
            one_round(args, providers, templates, client, n, rnd, results, scratch, libsecret)
        if "cofferd-sync" in templates and not args.library_only:
            sync_merge(args, catalogue["cofferd-sync"], templates["cofferd-sync"], client, n, results, scratch)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Coffer benchmark, {stamp}; {machine()}; {rounds} round(s) of {args.turns} turn(s), "
          f"{'quick' if args.quick else 'full'} mode, {time.monotonic() - began:.0f} s\n")
    if not args.library_only:
        print(report.table(results, sizes, wanted))
    if args.keychain_bench:
        print("\nThe Keychain library beside libsecret, same provider, same item:\n")
        print(report.library_table(results, sizes, wanted))
    if not args.library_only:
        print("\nTargets:\n" + report.targets(results, sizes))
    merges = [(n, results[(n, "cofferd-sync", "sync_merge")][0]) for n in sizes if (n, "cofferd-sync", "sync_merge") in results]
    if merges:
        print("\nSynchronized collections: merging another device's journal of N records (coffer sync join, less its "
              "two key derivations):\n" + "\n".join(f"  N = {n:,}: {seconds:.2f} s" for n, seconds in merges))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"|".join(map(str, k)): v for k, v in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()
