# SPDX-License-Identifier: Apache-2.0
# Medians over rounds, ratios paired per round, the table and the targets.

import statistics

# metric key -> (label, unit, scale, lower is better)
METRICS = [
    ("lookup", "lookup p50", "ms", 1e-6, True),
    ("search1", "SearchItems, 1 match", "ms", 1e-6, True),
    ("search100", "SearchItems, 100 matches", "ms", 1e-6, True),
    ("get100", "GetSecrets, 100 items", "ms", 1e-6, True),
    ("store", "store one item", "ms", 1e-6, True),
    ("delete", "delete one item", "ms", 1e-6, True),
    ("concurrent", "4 clients, lookups/s", "/s", 1, False),
    ("lookup_p99", "lookup p99, alone", "ms", 1e-6, True),
    ("lookup_p50_stores", "lookup p50, another client storing", "ms", 1e-6, True),
    ("lookup_p99_stores", "lookup p99, another client storing", "ms", 1e-6, True),
    ("cold", "cold start to first lookup", "s", 1, True),
    ("kdf", "  of which KDF (Argon2id, apart)", "s", 1, True),
    ("cold_beyond_kdf", "  cold start beyond the KDF", "s", 1, True),
    ("rss", "RSS of a fresh daemon", "MB", 1e-6, True),
    ("disk", "bytes on disk per item", "B", 1, True),
    ("cpu_lookup", "provider CPU per lookup", "µs", 1e6, True),
    ("cpu_store", "provider CPU per store", "µs", 1e6, True),
]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def paired_ratio(results, n, metric, a, b):
    """Median over rounds of a/b, each ratio taken within one round."""
    ra, rb = results.get((n, a, metric), []), results.get((n, b, metric), [])
    ratios = [x / y for x, y in zip(ra, rb) if x is not None and y]
    return statistics.median(ratios) if ratios else None


def fmt(value, scale):
    if value is None:
        return "—"
    v = value * scale
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 0.1 else f"{v:.3f}"


def ratio(value):
    return "—" if value is None else f"{value:.2f}×"


def table(results, sizes, providers):
    names = [p for p in ("null", "cofferd", "cofferd-sync", "baseline", "gnome-keyring") if p in providers]
    head = ["N", "metric"] + names + [f"{p}/floor" for p in names if p != "null"]
    if "cofferd" in names and "gnome-keyring" in names:
        head.append("cofferd/gnome-keyring")
    if "baseline" in names:
        head.append("cofferd/baseline")
    # The cost of a synchronized collection (docs/SYNC.md): goal ≤ 1.2× on stores.
    if "cofferd" in names and "cofferd-sync" in names:
        head.append("sync/cofferd")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in sizes:
        for key, label, unit, scale, _ in METRICS:
            cells = [median(results.get((n, p, key), [])) for p in names]
            if all(c is None for c in cells):
                continue
            row = [f"{n:,}", f"{label} ({unit})"] + [fmt(c, scale) for c in cells]
            for p in names:
                if p != "null":
                    row.append(ratio(paired_ratio(results, n, key, p, "null")) if "null" in names else "—")
            if "cofferd" in names and "gnome-keyring" in names:
                row.append(ratio(paired_ratio(results, n, key, "cofferd", "gnome-keyring")))
            if "baseline" in names:
                row.append(ratio(paired_ratio(results, n, key, "cofferd", "baseline")))
            if "cofferd" in names and "cofferd-sync" in names:
                row.append(ratio(paired_ratio(results, n, key, "cofferd-sync", "cofferd")))
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def metric_ratio(results, n, provider, a, b):
    """Median over rounds of metric a / metric b on one provider, each ratio taken within one round."""
    ra, rb = results.get((n, provider, a), []), results.get((n, provider, b), [])
    ratios = [x / y for x, y in zip(ra, rb) if x is not None and y]
    return statistics.median(ratios) if ratios else None


def library_table(results, sizes, providers):
    """The Keychain library's SecItemCopyMatching beside libsecret's lookup, per provider (p50 of each call)."""
    names = [p for p in ("cofferd", "baseline", "gnome-keyring") if p in providers]
    with_old = any(results.get((n, p, "keychain1_base")) for n in sizes for p in names)
    head = ["N", "provider", "libsecret lookup (ms)", "SecItemCopyMatching, 1 item (ms)", "1 item / libsecret",
            "100 items + data, all (ms)", "100 items / 1 item"]
    if with_old:
        head += ["old build: 1 item (ms)", "old build: 100 items (ms)", "1 item new/old", "100 items new/old"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in sizes:
        for p in names:
            cell = lambda key: fmt(median(results.get((n, p, key), [])), 1e-6)  # noqa: E731
            row = [f"{n:,}", p, cell("libsecret1"), cell("keychain1"),
                   ratio(metric_ratio(results, n, p, "keychain1", "libsecret1")), cell("keychain100"),
                   ratio(metric_ratio(results, n, p, "keychain100", "keychain1"))]
            if with_old:
                row += [cell("keychain1_base"), cell("keychain100_base"),
                        ratio(metric_ratio(results, n, p, "keychain1", "keychain1_base")),
                        ratio(metric_ratio(results, n, p, "keychain100", "keychain100_base"))]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def targets(results, sizes):
    """The issue's targets, each with the measured figure and met / not met."""
    out = []

    def check(label, value, limit, at_most=True):
        if value is None:
            out.append(f"- {label}: not measured")
            return
        met = value <= limit if at_most else value >= limit
        bound = "≤" if at_most else "≥"
        out.append(f"- {label}: {value:.2f} (target {bound} {limit}) — {'met' if met else 'NOT met'}")

    for n in sizes:
        check(f"lookup p50 / floor at {n:,}", paired_ratio(results, n, "lookup", "cofferd", "null"), 1.5)
    small, large = min(sizes), max(sizes)
    if large > small:
        s_small, s_large = median(results.get((small, "cofferd", "store"), [])), \
            median(results.get((large, "cofferd", "store"), []))
        check(f"store into {large:,} / store into {small:,}", s_large / s_small if s_small and s_large else None, 1.5)
    gk_lookup = paired_ratio(results, large, "lookup", "gnome-keyring", "cofferd")
    gk_store = paired_ratio(results, large, "store", "gnome-keyring", "cofferd")
    check(f"lookup speed-up over gnome-keyring at {large:,}", gk_lookup, 3, at_most=False)
    check(f"store speed-up over gnome-keyring at {large:,}", gk_store, 50, at_most=False)
    check(f"4 clients at {large:,} (lookups/s)", median(results.get((large, "cofferd", "concurrent"), [])), 1500,
          at_most=False)
    for n in sizes:
        alone, busy = results.get((n, "cofferd", "lookup_p99"), []), results.get((n, "cofferd", "lookup_p99_stores"), [])
        ratios = [b / a for a, b in zip(alone, busy) if a]
        check(f"lookup p99 with another client storing / alone at {n:,}", median(ratios) if ratios else None, 2.0)
    check(f"cold start beyond the KDF at {large:,} (s)",
          median(results.get((large, "cofferd", "cold_beyond_kdf"), [])), 0.5)
    for n in sizes:
        if results.get((n, "cofferd", "keychain1")):
            check(f"SecItemCopyMatching, 1 item / libsecret lookup on cofferd at {n:,}",
                  metric_ratio(results, n, "cofferd", "keychain1", "libsecret1"), 1.5)
            check(f"SecItemCopyMatching, 100 items + data / 1 item on cofferd at {n:,}",
                  metric_ratio(results, n, "cofferd", "keychain100", "keychain1"), 3)
    check(f"RSS cofferd / gnome-keyring at {large:,}", paired_ratio(results, large, "rss", "cofferd", "gnome-keyring"),
          1.0)
    return "\n".join(out)
