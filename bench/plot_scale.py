#!/usr/bin/python3
"""Draws the scale benchmark's cost curve (bench/scale_bench.py's JSON lines) as a PNG and prints
the figures as a Markdown table, for docs/performance.md. Needs Debian's python3-matplotlib.

  bench/plot_scale.py scale-results.jsonl [--run STAMP] [--png docs/images/scale-cost-curve.png]

Per store and number of elections, the newest steady run (or the runs of --run) is drawn.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

COLUMNS = [
    ("store", "store", "{}"),
    ("elections", "elections", "{:,}"),
    ("server CPU %", "server_cpu_pct", "{:.0f}"),
    ("etcd CPU %", "etcd_cpu_pct", "{:.0f}"),
    ("server RSS MiB", "server_rss_mib", "{:.0f}"),
    ("KiB/lease", "server_kib_per_lease", "{:.1f}"),
    ("renewals/s", "renewals_per_s", "{:,.0f}"),
    ("renew p50 ms", "renew_p50_ms", "{:.1f}"),
    ("renew p99 ms", "renew_p99_ms", "{:.1f}"),
    ("renew max ms", "renew_max_ms", "{:.0f}"),
    ("terms lost", "terms_lost", "{}"),
    ("requests/s", "server_requests_per_s", "{:,.0f}"),
    ("watch events/s", "watch_events_per_s", "{:,.0f}"),
    ("candidates CPU %", "candidate_cpu_pct", "{:.0f}"),
    ("KiB/elector", "candidate_kib_per_elector", "{:.1f}"),
]


def load(path: str, run: str | None) -> list[dict]:
    newest: dict[tuple[str, str, int], dict] = {}
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if run and r.get("run") != run:
                continue
            size = r.get("elections", r.get("leases", 0))
            newest[(r["kind"], r["store"], size)] = r  # later lines win
    return list(newest.values())


def table(rows: list[dict]) -> str:
    out = ["| " + " | ".join(h for h, _, _ in COLUMNS) + " |",
           "|" + "|".join("---:" if i > 0 else "---" for i in range(len(COLUMNS))) + "|"]
    for r in sorted(rows, key=lambda r: (r["store"], r["elections"])):
        cells = []
        for _, key, fmt in COLUMNS:
            value = r.get(key)
            cells.append("n/a" if value is None else fmt.format(value))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def plot(rows: list[dict], png: str) -> None:
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot_scale.py needs python3-matplotlib (apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        ("server CPU (% of one core)", [("server_cpu_pct", "")]),
        ("server RSS (MiB)", [("server_rss_mib", "")]),
        ("renewal latency (ms, log)", [("renew_p50_ms", " p50"), ("renew_p99_ms", " p99")]),
        ("candidates: CPU % (all processes) and KiB per elector", [("candidate_cpu_pct", " CPU %"),
                                                           ("candidate_kib_per_elector", " KiB/elector")]),
    ]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    stores = sorted({r["store"] for r in rows})
    for ax, (title, series) in zip(axes.flat, panels):
        for store in stores:
            points = sorted((r for r in rows if r["store"] == store), key=lambda r: r["elections"])
            xs = [r["elections"] for r in points]
            for key, suffix in series:
                ax.plot(xs, [r.get(key, 0) for r in points], marker="o", label=f"{store}{suffix}")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("elections (2 candidates each)")
        ax.set_xscale("log")
        sizes = sorted({r["elections"] for r in rows})
        ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
        ax.minorticks_off()
        if "log" in title:
            ax.set_yscale("log")
            ax.grid(True, which="major", alpha=0.3)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("tenure serve: cost against the number of elections (default timings 15 s / 10 s / 2 s, 2 cores)",
                 fontsize=11)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--run", help="only the runs started at this stamp (the JSON's \"run\")")
    ap.add_argument("--png", default=os.path.join(REPO, "docs", "images", "scale-cost-curve.png"))
    args = ap.parse_args()
    rows = load(args.results, args.run)
    steady = [r for r in rows if r["kind"] == "steady" and "error" not in r]
    if not steady:
        sys.exit(f"no steady runs in {args.results}")
    print(table(steady))
    for r in sorted((r for r in rows if "error" in r), key=lambda r: (r["store"], r["elections"])):
        print(f"\n{r['store']}, {r['elections']:,} elections: not carried ({r['error']})")
    for r in sorted((r for r in rows if r["kind"] == "failover" and "error" not in r),
                    key=lambda r: r["store"]):
        print(f"\nfailover, {r['store']}: {r['leases']:,} leases; takeover after the last renewal p50 "
              f"{r['takeover_p50_s']:.3f} s, p99 {r['takeover_p99_s']:.3f} s, max {r['takeover_max_s']:.3f} s; "
              f"last takeover {r['last_takeover_after_kill_s']:.2f} s after the kill; "
              f"server CPU peak {r['server_cpu_peak_pct']:.0f} %")
    plot(steady, args.png)


if __name__ == "__main__":
    main()
