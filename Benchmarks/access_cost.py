#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What cofferd's access control (`ask`, its default) costs a client working with the items it stored itself: the
same operations against two cofferd instances on copies of one keyring, one with access control off and one with
`ask`, in alternating turns. Prints the medians per operation and their ratio (goal: lookups at most 10 % dearer),
and each provider's CPU over all turns (all threads, so also the access log's writing off the serving thread), which
other work on the machine disturbs less than it disturbs the latencies.

    python3 Benchmarks/access_cost.py --cofferd .build/release/cofferd [--size 1000] [--turns 16]
"""

import argparse
import os
import shutil
import statistics
import sys
import time

import providers as prov
import run

OPERATIONS = {"lookup": 200, "search100": 50, "get100": 30}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cofferd", required=True, help="the cofferd binary (a release build)")
    parser.add_argument("--size", type=int, default=1000, help="items in the keyring (default 1000)")
    # Each turn takes a fraction of a second: with few of them, one burst of other work on a shared machine
    # decides a median.
    parser.add_argument("--turns", type=int, default=16, help="alternating turns per mode (default 16)")
    parser.add_argument("--scratch", default=os.path.join(os.path.dirname(run.HERE), ".build-bench"))
    args = parser.parse_args()
    scratch = os.path.abspath(args.scratch)
    client, _ = run.build(scratch)
    instances = {}
    samples = {}
    cpu = {}
    try:
        for mode in ("off", "ask"):
            provider = prov.Cofferd(os.path.abspath(args.cofferd), access_control=mode)
            # The template's items are the client's own: it stored them (run.build keeps its identity).
            template = provider.template(scratch, client, args.size, run.log)
            root = os.path.join(scratch, "runs", f"access-{mode}")
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            shutil.copytree(template, os.path.join(root, "home"), symlinks=True)
            instances[mode] = prov.Instance(provider, root)
            instances[mode].start(client, args.size)
        for mode, instance in instances.items():
            cpu[mode] = -instance.cpu_seconds()
        for _ in range(args.turns):
            for mode, instance in instances.items():
                for op, count in OPERATIONS.items():
                    for line in run.run_client(client, instance, op, count, args.size, 100000):
                        samples.setdefault((mode, line[0]), []).append(int(line[1]))
        # The access log writes the last uses up to 200 ms after them (AccessLog.useBatchInterval).
        time.sleep(0.5)
        for mode, instance in instances.items():
            cpu[mode] += instance.cpu_seconds()
    finally:
        for instance in instances.values():
            instance.stop()
    print(f"access control ask vs off, N = {args.size:,}, {args.turns} turns; {run.machine()}")
    for op in OPERATIONS:
        off = statistics.median(samples[("off", op)]) / 1e6
        ask = statistics.median(samples[("ask", op)]) / 1e6
        print(f"{op:10s} off {off:.3f} ms   ask {ask:.3f} ms   ask/off {ask / off:.2f}")
    ratio = cpu["ask"] / max(cpu["off"], 1e-9)
    print(f"CPU        off {cpu['off']:.2f} s     ask {cpu['ask']:.2f} s     ask/off {ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
