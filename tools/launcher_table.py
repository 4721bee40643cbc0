#!/usr/bin/env python3
"""Who started a report's ranks, as a markdown table (the rows that ran on ranks).

    tools/launcher_table.py REPORT [--reference REF_REPORT]

Columns: row, status, launcher, nodes, host of each rank, test acc. With
--reference (the same rows started another way, e.g. by ftbench's own
launcher), two more: ranks, and whether accuracy, test loss and every
epoch's training loss equal the reference's bit for bit ("equal", or what
differs). tools/two_nodes.sh writes nodes.md with it; tools/launcher_runs.sh
the srun/mpirun tables.
"""
import argparse
import json
import sys


def rows_of(path):
    return [x for x in json.load(open(path))["results"] if x.get("distributed")]


def same_training(x, r):
    if r is None:
        return "no such row"
    differs = [k for k in ("accuracy", "loss") if x.get(k) != r.get(k)]
    if [e.get("train_loss") for e in x.get("epochs", [])] != [e.get("train_loss") for e in r.get("epochs", [])]:
        differs.append("train loss")
    return "equal" if not differs else "differ: " + ", ".join(differs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--reference")
    a = ap.parse_args()
    ref = None
    if a.reference:
        ref = {x["scenario"]: x for x in rows_of(a.reference)}
        launchers = sorted({x["distributed"].get("launcher", "") for x in ref.values()})
        print("| row | status | launcher | nodes | ranks | host of each rank | test acc | "
              f"losses and accuracy vs {', '.join(launchers)}'s launcher |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print("| row | status | launcher | nodes | host of each rank | test acc |")
        print("|---|---|---|---|---|---|")
    for x in rows_of(a.report):
        d = x["distributed"]
        acc = x.get("accuracy", {}).get("test")
        acc = "" if acc is None else f"{100 * acc:.2f} %"
        head = f"| {x['scenario']} | {x['status']} | {d.get('launcher', '')} | {d.get('nodes', '')} | "
        hosts = ", ".join(d.get("hosts", []))
        if ref is None:
            print(f"{head}{hosts} | {acc} |")
        else:
            print(f"{head}{x.get('world_size', '')} | {hosts} | {acc} | {same_training(x, ref.get(x['scenario']))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
