"""Output checks of ordinary programs (mirtune/measure/check.py), and measure() using them on real runs."""

from __future__ import annotations

import json
import textwrap

import pytest

from mirtune.measure.check import OutputCheck, lines_match, numbers_match
from mirtune.measure.build import BuildSpec, build
from mirtune.measure.measurement import measure
from mirtune.errors import UsageError


def test_parse_rejects_bad_checks():
    assert OutputCheck.parse("stdout").kind == "stdout"
    assert OutputCheck.parse("regex:^r=(\\S+)").arg == "^r=(\\S+)"
    for bad in ("bogus", "regex:", "regex:(", "file:../x", "file:a/b", "stdout:x"):
        with pytest.raises(UsageError):
            OutputCheck.parse(bad)


def test_numbers_match_within_tolerance_or_last_printed_digit():
    assert numbers_match("1.000000e+00", "1.000001e+00", 1e-9)      # one unit in the last digit printed
    assert not numbers_match("1.000000e+00", "1.000003e+00", 1e-9)
    assert numbers_match("3.14159265", "3.14159266", 1e-6)
    assert not numbers_match("10", "12", 1e-6)
    assert numbers_match("nan", "nan", 0) and not numbers_match("inf", "-inf", 0)
    assert lines_match("sum = 1.5 after 3 steps", "sum = 1.5 after 3 steps", 0)
    assert not lines_match("sum = 1.5 after 3 steps", "sum = 1.5 after 4 steps", 1e-6)
    assert not lines_match("sum = 1.5", "total = 1.5", 1e-6)


def test_stdout_reference_masks_volatile_lines():
    check = OutputCheck("stdout", rtol=1e-6)
    a = check.answer("result 42\ntime 0.51 s\n")
    b = check.answer("result 42\ntime 0.73 s\n")
    ref = check.reference([a, b])
    assert json.loads(ref) == ["result 42", None]
    assert check.volatile_lines(ref) == [2]
    assert check.mismatch(check.answer("result 42\ntime 9 s\n"), ref) is None
    assert "line 1" in check.mismatch(check.answer("result 41\ntime 9 s\n"), ref)
    assert "output lines" in check.mismatch(check.answer("result 42\n"), ref)
    clock = check.reference([check.answer("r 1\nat 12815.563520445\n"), check.answer("r 1\nat 12815.570000000\n")])
    assert json.loads(clock) == ["r 1", None]             # within rtol of each other, still a moving clock
    assert check.volatile_lines(check.reference([check.answer("s 1.000000e+00\n"),
                                                 check.answer("s 1.000001e+00\n")])) == []  # last-digit rounding
    everything = check.stable_problem([check.answer("t 1\n"), check.answer("t 2\n")])
    assert everything and "nothing stable" in everything


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("builds")


def _exe(cache, name: str, text: str) -> str:
    res = build(BuildSpec(name=name, source=textwrap.dedent(text)), cache)
    assert res.status == "ok", res.reason
    return res.exe


READER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s FILE N\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    double x, s = 0; long n = atol(argv[2]);
    while (fscanf(f, "%lf", &x) == 1) s += x * n;
    fclose(f);
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    printf("sum %.6e\nelapsed %ld ns\n", s, (long)t.tv_nsec);
    FILE *o = fopen("out.txt", "w"); fprintf(o, "%.3f\n", s); fclose(o);
    return 0;
}
"""


def test_measure_with_inputs_and_stdout_check(cache):
    exe = _exe(cache, "reader", READER)
    inputs = {"data.txt": b"1.5 2.5 3\n"}
    check = OutputCheck("stdout", rtol=1e-6)
    default = measure([exe, "data.txt", "2"], repeats=2, warmup=1, check=check, inputs=inputs)
    assert default.status == "ok", default.reason
    assert check.volatile_lines(default.checksum) == [2]  # the elapsed line changes between runs
    assert json.loads(default.checksum)[0] == "sum 1.400000e+01"
    same = measure([exe, "data.txt", "2"], repeats=1, warmup=0, check=check, inputs=inputs, reference=default.checksum)
    assert same.status == "ok"
    other = measure([exe, "data.txt", "3"], repeats=1, warmup=0, check=check, inputs=inputs, reference=default.checksum)
    assert other.status == "wrong_output" and "line 1" in other.reason
    missing = measure([exe, "nope.txt", "2"], repeats=1, warmup=0, check=check, inputs=inputs)
    assert missing.status == "crash" and "nope.txt" in missing.reason


def test_measure_file_and_regex_checks(cache):
    exe = _exe(cache, "reader", READER)
    inputs = {"data.txt": b"1 2\n"}
    fcheck = OutputCheck("file", "out.txt", rtol=1e-9)
    ref = measure([exe, "data.txt", "1"], repeats=1, warmup=0, check=fcheck, inputs=inputs)
    assert ref.status == "ok" and json.loads(ref.checksum) == ["3.000"]
    bad = measure([exe, "data.txt", "2"], repeats=1, warmup=0, check=fcheck, inputs=inputs, reference=ref.checksum)
    assert bad.status == "wrong_output"
    nofile = OutputCheck("file", "absent.txt")
    assert measure([exe, "data.txt", "1"], repeats=1, warmup=0, check=nofile, inputs=inputs).status == "wrong_output"
    rcheck = OutputCheck("regex", r"^sum (\S+)", rtol=1e-9)
    r = measure([exe, "data.txt", "1"], repeats=2, warmup=0, check=rcheck, inputs=inputs)
    assert r.status == "ok" and json.loads(r.checksum) == ["3.000000e+00"]


def test_a_backtracking_regex_is_bounded_by_the_run_time_limit(cache):
    # issue 33 item 4: `(a+)+$` on 30 a's and a b backtracks for minutes; the check ends at the time limit
    import time

    from mirtune.measure.check import CheckTimeout
    from mirtune.measure.sandbox import RunLimits

    check = OutputCheck.parse("regex:(a+)+$")
    assert check.answer("aaa\n", timeout_s=5.0) == json.dumps(["aaa"])  # an ordinary match, in its own process
    start = time.monotonic()
    with pytest.raises(CheckTimeout, match="took more than the 1s time limit"):
        check.answer("a" * 30 + "b\n", timeout_s=1.0)
    assert time.monotonic() - start < 5
    exe = _exe(cache, "thirty_a", r"""
        #include <stdio.h>
        int main(void) { printf("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n"); return 0; }
    """)
    start = time.monotonic()
    m = measure([exe], repeats=1, warmup=0, check=check, limits=RunLimits(timeout_s=2.0))
    assert time.monotonic() - start < 10
    assert m.status == "timeout" and "--check regex" in m.reason and "2s" in m.reason, m.reason
