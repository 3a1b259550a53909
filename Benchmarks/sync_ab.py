#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# A/B of what synchronizing a collection costs a store and a delete, for two cofferd builds (a change and its parent).
#
#   python3 Benchmarks/sync_ab.py --a PARENT/cofferd --b CHANGED/cofferd [--sizes 100,1000] [--rounds 6]
#
# Each build runs twice, as run.py's cofferd and cofferd-sync rows (the same templates: N items, the login collection
# synchronized or not). A round starts all four fresh, then stores and deletes in turns, instance after instance,
# the order reversed every other turn, so the machine's noise hits all four alike. The cost of sync is the ratio of
# cofferd-sync to cofferd within the round, for each build; the table gives each round and the median over rounds.

import argparse
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import providers as prov  # noqa: E402
import run  # noqa: E402


def instances(binary, tag):
    plain, synced = prov.Cofferd(os.path.abspath(binary)), prov.CofferdSync(os.path.abspath(binary))
    plain.name, synced.name = "cofferd-" + tag, "cofferd-sync-" + tag
    return [plain, synced]


def one_round(args, client, providers, templates, n, rnd):
    """The median store and delete of each instance in one round (ms), and its provider CPU per call (µs)."""
    order = providers[rnd % len(providers):] + providers[:rnd % len(providers)]
    running, samples, cpu = {}, {}, {}
    try:
        for p in order:
            root = os.path.join(args.scratch, "runs", f"sync-ab-{p.name}-{n}")
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            shutil.copytree(templates[p.name], os.path.join(root, "home"), symlinks=True)
            running[p.name] = prov.Instance(p, root)
            running[p.name].start(client, n)
        for turn in range(args.turns):
            for p in (order if turn % 2 == 0 else order[::-1]):
                inst = running[p.name]
                before = inst.cpu_seconds()
                stores = run.run_client(client, inst, "store", args.calls, n, 3000)
                deletes = run.run_client(client, inst, "delete", 0, n, 0,
                                         stdin="".join(line[2] + "\n" for line in stores))
                used, calls = cpu.get(p.name, (0.0, 0))
                cpu[p.name] = (used + inst.cpu_seconds() - before, calls + len(stores) + len(deletes))
                for line in stores + deletes:
                    samples.setdefault((p.name, line[0]), []).append(int(line[1]) / 1e6)
    finally:
        for inst in running.values():
            inst.stop()
    medians = {key: statistics.median(values) for key, values in samples.items()}
    return medians, {name: 1e6 * used / calls for name, (used, calls) in cpu.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--a", required=True, help="the parent's cofferd (a release build)")
    parser.add_argument("--b", required=True, help="the changed cofferd, built the same way")
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--calls", type=int, default=15, help="stores (then deletes) per turn")
    parser.add_argument("--scratch", default=os.path.join(os.path.dirname(run.HERE), ".build-bench"))
    args = parser.parse_args()
    client, _ = run.build(args.scratch)
    providers = instances(args.a, "A") + instances(args.b, "B")
    for n in [int(s) for s in args.sizes.split(",")]:
        templates = {p.name: p.template(args.scratch, client, n, run.log) for p in providers}
        ratios = {}
        for rnd in range(args.rounds):
            medians, cpu = one_round(args, client, providers, templates, n, rnd)
            cells = []
            for op in ("store", "delete"):
                for tag in "AB":
                    plain, synced = medians[("cofferd-" + tag, op)], medians[("cofferd-sync-" + tag, op)]
                    ratios.setdefault((op, tag), []).append(synced / plain)
                    cells.append(f"{op} {tag} {plain:.3f} → {synced:.3f} ms ({synced / plain:.2f}×)")
            cells.append("CPU µs/call " + " ".join(f"{name} {value:.0f}" for name, value in sorted(cpu.items())))
            print(f"N = {n:,}, round {rnd + 1}: " + "; ".join(cells), flush=True)
        print(f"N = {n:,}, median over rounds: " + "; ".join(
            f"{op} {tag} {statistics.median(values):.2f}×" for (op, tag), values in ratios.items()), flush=True)


if __name__ == "__main__":
    main()
