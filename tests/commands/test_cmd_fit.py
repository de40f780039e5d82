"""`mirtune fit`: a predictor from collector Parquet that `mirtune recommend --heads` then uses."""

from __future__ import annotations

import json
import statistics

import pytest

from mirtune.cli import main
from mirtune.measure.host import logical_cores
from mirtune.paths import REPO_DIR

KERNEL = REPO_DIR / "collectors" / "programs" / "vectorize" / "kernels" / "dot_float_0.c"


def test_fit_then_recommend_with_it(tmp_path, capsys):
    out = tmp_path / "heads" / "vectorize"
    assert main(["fit", "--task", "vectorize", "--data", str(REPO_DIR / "datasets" / "vectorize"), "-o", str(out),
                 "--no-ray", "--configs", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"wrote {out}: vectorize predictor")
    meta = json.loads((out / "predictor.json").read_text())
    assert meta["task"] == "vectorize" and len(meta["labels"]) == 36 and meta["trained_on"]["groups"] == 48
    assert main(["recommend", str(KERNEL), "--task", "vectorize", "--heads", str(tmp_path / "heads"), "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["label"] in meta["labels"] and set(rec["best"]) == {"vf", "if"}


def test_fit_on_the_context_features_alone(tmp_path, capsys):
    """`--embedding none`, openmp's default: the predictor reads the six context features and no embedding, and
    says so."""
    out = tmp_path / "heads" / "openmp"
    assert main(["fit", "--task", "openmp", "--data", str(REPO_DIR / "datasets" / "openmp"),  # none by default
                 "-o", str(out), "--no-ray", "--configs", "2"]) == 0
    capsys.readouterr()
    meta = json.loads((out / "predictor.json").read_text())
    assert meta["features"]["embedding"] == "none" and meta["features"]["fingerprint"] is None
    assert meta["features"]["dim"] == len(meta["features"]["context"]) == 6
    assert main(["recommend", str(REPO_DIR / "mirtune" / "assets" / "examples" / "heat2d.c"), "--task", "openmp",
                 "--heads", str(tmp_path / "heads"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] in meta["labels"]


PROFILES = REPO_DIR / "datasets" / "openmp-profile" / "profile.parquet"
SHORT_REGIONS = r"""
#include <stdio.h>
int main(int argc, char **argv) {
  int regions = argc > 1 ? atoi(argv[1]) : 0;
  long s = 0;
  for (int r = 0; r < regions; r++) {
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 8; i++) s += i;
  }
  printf("%ld\n", s);
  return 0;
}
"""


def test_fit_with_profiles_gives_a_predictor_that_recommend_feeds_a_profiled_run(tmp_path, capsys):
    """`--profiles`: the groups with a profile, their seven profile columns, the IR's shared-update count and the
    thread probe after the context; the predictor then answers only with --profile, from the IR and the runs."""
    from mirtune.profile.features import FITTED_COLUMNS, IR_COLUMNS, PROBE_COLUMNS, PROFILE_COLUMNS

    out = tmp_path / "heads" / "openmp-profile"
    assert main(["fit", "--task", "openmp", "--data", str(REPO_DIR / "datasets" / "openmp"), "--profiles",
                 str(PROFILES), "--heads", "gain,forest", "-o", str(out), "--no-ray", "--configs", "2",
                 "--risk", "0.5"]) == 0
    printed, err = capsys.readouterr()
    assert "groups have a profile" in err
    assert "before its risk" in printed  # the inner cross-validation scored the head without it
    meta = json.loads((out / "predictor.json").read_text())
    assert meta["features"]["profile"] == list(FITTED_COLUMNS) == [*PROFILE_COLUMNS, *IR_COLUMNS, *PROBE_COLUMNS]
    assert meta["features"]["dim"] == len(meta["features"]["context"]) == 6 + len(FITTED_COLUMNS)
    assert meta["trained_on"]["profiles"] == str(PROFILES) and meta["head"]["head"] in ("gain", "forest")
    assert meta["head"]["risk"] == 0.5  # chosen by the user, not by the inner cross-validation
    src = tmp_path / "short.c"
    src.write_text("#include <stdlib.h>\n" + SHORT_REGIONS)
    assert main(["recommend", str(src), "--task", "openmp", "--heads", str(out)]) == 2  # no profile: refused
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "reads a profiled run" in err and "add --profile" in err
    assert main(["recommend", str(src), "--task", "openmp", "--heads", str(out), "--profile", "--json", "--",
                 "200"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["label"] in meta["labels"] and rec["predictor"]["profile"] is True
    assert "answered from the IR and the profiled run" in rec["notes"]
    assert meta["features"]["probe_offsets"] is True  # the probes' measured gains start their configurations'
    n = logical_cores()
    if n > 1:
        probe = rec["profile"]["probe_s"]
        assert list(probe) == [f"{n} threads", "1 thread", f"{n} threads, guided,1"]
        gm = {what: statistics.geometric_mean(ts) for what, ts in probe.items()}
        assert rec["profile"]["features"]["one_thread_speedup"] == pytest.approx(gm[f"{n} threads"] / gm["1 thread"])
        assert rec["profile"]["features"]["guided_speedup"] == pytest.approx(
            gm[f"{n} threads"] / gm[f"{n} threads, guided,1"])


@pytest.mark.parametrize("argv, fragment", [
    (["--task", "numa"], "unknown task 'numa'"),
    (["--task", "vectorize", "--profiles", str(PROFILES)], "--profiles applies to --task openmp"),
    (["--task", "openmp", "--profiles", str(PROFILES), "--evaluate"], "--evaluate runs the leave-one-application"),
    (["--task", "openmp", "--profiles", "/nonexistent.parquet"], "--profiles: no such file"),
    (["--task", "openmp", "--profiles", str(REPO_DIR / "README.md")], "--profiles: not a profile table"),
    (["--task", "openmp", "--heads", "gain,tree"], "--heads takes gain, knn, forest"),
    (["--task", "devmap"], "fitted on the published data"),
    (["--task", "openmp", "--heads", "mlp"], "--heads takes gain, knn"),
    (["--task", "openmp", "--data", "/nonexistent"], "no such file"),
    (["--task", "vectorize", "--embedding", "none"], "vectorize has no context features"),
    (["--task", "openmp", "--risk", "-1"], "--risk takes a number of at least 0"),
    (["--task", "openmp", "--risk", "nan"], "--risk takes a number of at least 0"),
])
def test_bad_fit_arguments(tmp_path, capsys, argv, fragment):
    base = ["fit", "--data", str(REPO_DIR / "datasets" / "openmp"), "-o", str(tmp_path / "o"), "--no-ray"]
    assert main(base + argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err, err


def test_output_that_is_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["fit", "--task", "openmp", "--data", str(REPO_DIR / "datasets" / "openmp"), "-o",
                 str(tmp_path / "file"), "--no-ray"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_fit_coarsening_for_one_platform_from_the_published_data(shared_data, tmp_path, capsys):
    out = tmp_path / "coarsening"
    assert main(["fit", "--task", "coarsening", "--platform", "Fermi", "--data-dir", str(shared_data), "-o", str(out),
                 "--no-ray", "--configs", "2"]) == 0
    meta = json.loads((out / "Fermi" / "predictor.json").read_text())
    assert meta["labels"][0] == "factor=1" and meta["trained_on"]["groups"] == 17
    assert main(["fit", "--task", "coarsening", "--platform", "Volta", "-o", str(out), "--no-ray"]) == 2
    assert "unknown coarsening platform 'Volta'" in capsys.readouterr().err
    assert main(["fit", "--task", "devmap", "--data", str(tmp_path), "-o", str(out), "--no-ray"]) == 2
    assert "published data" in capsys.readouterr().err
