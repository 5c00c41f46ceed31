"""Regenerate the fidelity comparisons of docs/fidelity.md and print each published figure beside gpusim's.

    scripts/reproduce.sh [NAME ...] [--quick] [--list] [--gpusim PATH] [--data DIR]

Exit 0 when every judged figure holds (within its tolerance, or a mean over seeds within the seeds'
noise), 1 when one does not, 2 on bad input."""
import argparse
import os
import shutil
import sys

from common import ROOT, new_context
import cant_be_late
import distserve
import fgd_packing
import tiresias
import vllm_serving

COMPARISONS = {c.name: c for c in fgd_packing.COMPARISONS + tiresias.COMPARISONS + cant_be_late.COMPARISONS +
               vllm_serving.COMPARISONS + distserve.COMPARISONS}


def number(x):
    return x if isinstance(x, str) else f"{x:,.3f}"


def signed(x):
    return x if isinstance(x, str) else f"{x:+,.3f}"


def print_rows(rows):
    table = [("figure", "published", "gpusim", "difference", "tolerance", "")]
    for r in rows:
        tolerance = "" if r.tolerance is None else f"±{r.tolerance:g}"
        table.append((r.what, number(r.published), number(r.gpusim), signed(r.difference()), tolerance,
                      "" if r.within_tolerance() or isinstance(r.published, str) else
                      f"within seed noise ({r.difference() / r.noise:+.1f} SE)" if r.holds() else "OUTSIDE"))
    texts = [i for i, r in enumerate(rows, 1) if isinstance(r.published, str)]
    width = [max(len(line[c]) for i, line in enumerate(table) if i not in texts) for c in range(6)]
    for i, line in enumerate(table):
        if i in texts:  # a ranking does not fit the columns: one line each
            print(f"  {line[0]}: published {line[1]}\n  {' ' * len(line[0])}  gpusim    {line[2]}  ({line[3]})")
        else:
            print("  " + "  ".join(cell.ljust(width[c]) if c == 0 else cell.rjust(width[c]) for c, cell in enumerate(line)).rstrip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="comparisons to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="only the quick ones (the test command runs these)")
    parser.add_argument("--list", action="store_true", help="list the comparisons and exit")
    built = os.path.join(ROOT, "build", "bin", "gpusim")
    parser.add_argument("--gpusim", default=built if os.path.exists(built) else shutil.which("gpusim") or built,
                        help="the gpusim executable (default: build/bin/gpusim, else gpusim on the PATH)")
    parser.add_argument("--data", default=os.environ.get("GPUSIM_DATA") or os.path.join(ROOT, "data"),
                        help="data directory (default: $GPUSIM_DATA, else data/ in the repo)")
    args = parser.parse_args()
    if args.list:
        for c in COMPARISONS.values():
            print(f"{c.name:<20} {'quick  ' if c.quick else '       '}{c.title}")
        return 0
    unknown = [n for n in args.names if n not in COMPARISONS]
    if unknown:
        print(f"reproduce: no comparison named {', '.join(unknown)} (known: {', '.join(COMPARISONS)})", file=sys.stderr)
        return 2
    chosen = [COMPARISONS[n] for n in args.names] or [c for c in COMPARISONS.values() if c.quick or not args.quick]
    context = new_context(args.gpusim, args.data)
    outside = 0
    try:
        for c in chosen:
            missing = [p for p in c.needs if not os.path.exists(os.path.join(args.data, p))]
            print(f"== {c.name}: {c.title}\n   {c.command}")
            if missing:
                if args.names:  # asked for by name: its data must be there
                    print(f"reproduce: {c.name} needs {', '.join(missing)} in the data directory {args.data} "
                          "(--data DIR or GPUSIM_DATA; data/README.md says where each trace comes from)", file=sys.stderr)
                    return 2
                print(f"   skipped: {', '.join(missing)} not in {args.data}\n")
                continue
            rows = c.compare(context)
            print_rows(rows)
            bad = sum(not r.holds() for r in rows)
            judged = sum(r.tolerance is not None or isinstance(r.published, str) for r in rows)
            noisy = sum(r.holds() and not r.within_tolerance() for r in rows if not isinstance(r.published, str))
            print(f"   {judged - bad} of {judged} judged figures hold"
                  + (f" ({noisy} only within the seeds' noise)" if noisy else "") + "\n")
            outside += bad
    finally:
        shutil.rmtree(context.scratch, ignore_errors=True)
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
