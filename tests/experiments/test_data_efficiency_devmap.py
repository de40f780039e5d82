"""The data-efficiency study on device mapping: the heads-only study in process, its curves, factors and costs."""

from __future__ import annotations

import dataclasses

from mirtune.experiments import data_efficiency_report as report
from mirtune.experiments.data_efficiency_devmap import run_devmap


def test_heads_only_study_in_process(shared_data):
    from mirtune.experiments.finetune import E2EConfig
    from mirtune.predict.heads import HeadConfig

    config = dataclasses.replace(E2EConfig(), head=HeadConfig(epochs=5))
    result = run_devmap(shared_data, [0.1, 1.0], ["frozen", "ir2vec"], 2, folds=[0, 1], config=config,
                        use_ray=False, note=lambda m: None)
    assert result["status"] == "complete" and result["comparison_folds"] == [0, 1]
    for p in ("amd", "nvidia"):
        for m in ("frozen", "ir2vec"):
            curve = result["curves"][p][m]
            assert [c["fraction"] for c in curve] == [0.1, 1.0] and all(c["repeats"] == 2 for c in curve)
            assert curve[0]["n_train"] < curve[1]["n_train"]
            assert all(0 <= c["error_mean"] <= 1 for c in curve)
        assert result["factor"][p]["data_reduction_factor"] is None  # no scratch model to compare with
    assert "frozen_fit_s" in result["cost"]["1.0"]
    assert "data_reduction_factor" in report.table(result)
