"""One sitting of a long VF/IF sweep: chunks of programs in a fixed order, each built then timed, until a deadline.

    python scripts/vectorize_sitting.py --order datasets/vectorize-gcc/order.txt --out datasets/vectorize-gcc-xeon
        --minutes 150 [--chunk 8] [--exclude vect-tsvc-] [--repeats 3 --warmup 1]

Each chunk is the next `--chunk` programs of the order not yet measured whole in `--out`: `mirtune collect vectorize
--build-only` builds them (the only compiling of the sitting), then the same command without it times them with
nothing else of the sitting running (the rows record the load around each point; the load printed before timing
still counts the build). A chunk starts only when the last chunk's duration still fits before the deadline, so a sitting
keeps whole programs. The dataset must have been measured on this CPU (its rows' `host_cpu_tag`): labels do not
carry across CPUs, and the script refuses to mix them. Every line goes to stdout with a UTC time; keep the log.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.measure.host import cpu_tag  # noqa: E402
from mirtune.measure.records import read_rows  # noqa: E402


def say(msg: str) -> None:
    """Print one line with the UTC time, flushed (the log is read while the sitting runs)."""
    print(time.strftime("%H:%M:%S", time.gmtime()), msg, flush=True)


def pending(order: list[str], out: str) -> list[str]:
    """The programs of `order` (in order) with fewer points in `out` than the fullest program there (a chunk cut
    short leaves some half measured)."""
    rows = read_rows(out) if Path(out).is_dir() else None
    counts = {} if rows is None or rows.empty else rows["program"].value_counts().to_dict()
    full = max(counts.values(), default=0)
    return [p for p in order if not full or counts.get(Path(p).stem, 0) < full]


def check_cpu(out: str) -> None:
    """Refuse to add rows to a dataset measured on another CPU."""
    rows = read_rows(out) if Path(out).is_dir() else None
    if rows is None or rows.empty or "host_cpu_tag" not in rows:
        return
    tags = set(rows["host_cpu_tag"].dropna())
    here = cpu_tag()
    if tags and here not in tags:
        sys.exit(f"vectorize_sitting: {out} was measured on CPU {', '.join(sorted(tags))}; this one is {here}")


def collect(programs: list[str], out: str, extra: list[str], build_only: bool) -> int:
    """Run `mirtune collect vectorize` on `programs` (no shell), its output into this log; the exit status."""
    cmd = [str(Path(sys.executable).with_name("mirtune")), "collect", "vectorize", "--no-progress", "--out", out,
           "--programs", *programs, *extra]
    if build_only:
        cmd.append("--build-only")
    return subprocess.run(cmd, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--order", required=True, help="a file of program paths, one per line, in measuring order")
    ap.add_argument("--out", required=True, help="the dataset folder")
    ap.add_argument("--minutes", type=float, required=True, help="no chunk starts that would end after this")
    ap.add_argument("--chunk", type=int, default=8, help="programs per chunk (default 8)")
    ap.add_argument("--exclude", action="append", default=[], metavar="PART",
                    help="leave out programs whose path contains PART (repeatable), e.g. vect-tsvc-")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--space", nargs="+", default=None, metavar="KEY=V1,V2",
                    help="restrict the space, as mirtune collect vectorize --space (default: the whole space)")
    args = ap.parse_args(argv)

    deadline = time.monotonic() + 60 * args.minutes
    order = [line.strip() for line in Path(args.order).read_text().splitlines()
             if line.strip() and not any(x in line for x in args.exclude)]
    missing = [p for p in order if not Path(p).is_file()]
    if missing:
        sys.exit(f"vectorize_sitting: {len(missing)} program(s) of the order are not built, e.g. {missing[0]} "
                 "(python -m collectors.gccvect_build ... --recorded datasets/gccvect/programs.json.gz)")
    check_cpu(args.out)
    extra = ["--repeats", str(args.repeats), "--warmup", str(args.warmup)]
    if args.space:
        extra += ["--space", *args.space]
    say(f"cpu {cpu_tag()}; {len(pending(order, args.out))} program(s) to measure")
    last = 0.0
    done = 0
    previous: list[str] = []
    while True:
        todo = pending(order, args.out)[:args.chunk]
        if todo and todo == previous:
            say("the chunk wrote no rows; stopping (see the lines above)")
            return 1
        if not todo:
            say("nothing left to measure")
            break
        if time.monotonic() + last > deadline:
            say(f"no time for another chunk ({last:.0f} s each); {done} program(s) this sitting")
            break
        start = time.monotonic()
        say("build: " + " ".join(todo))
        rc = collect(todo, args.out, extra, build_only=True)
        say(f"time (load {os.getloadavg()[0]:.2f}): {len(todo)} program(s)")
        rc = collect(todo, args.out, extra, build_only=False) or rc
        last = time.monotonic() - start
        done += len(todo)
        say(f"rc={rc} chunk {last:.0f} s; {done} program(s) this sitting")
        previous = todo
    return 0


if __name__ == "__main__":
    sys.exit(main())
