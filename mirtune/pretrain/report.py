"""What a pre-training run shows and leaves behind: progress lines while it trains, metrics.csv kept up to date,
heldout.csv and the learning curves figure at the end."""

from __future__ import annotations

import csv
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

METRIC_KEYS = ("loss", "mlm_loss", "mlm_accuracy", "recon_loss", "recon_loss_control", "recon_loss_data",
               "recon_loss_call", "auc_control", "auc_data", "auc_call", "match_loss", "match_accuracy")
CSV_FIELDS = ("step", "epoch", "samples", "time_s", "samples_per_s", "lr") + METRIC_KEYS


class ProgressPrinter:
    """Drains the (kind, payload) messages rank 0 puts on a Ray queue: prints progress lines and keeps
    OUT/metrics.csv up to date while training runs (a restarted step replaces its earlier row)."""

    def __init__(self, queue: Any, metrics_csv: Path, history: list[dict[str, Any]]) -> None:
        self.queue, self.metrics_csv = queue, metrics_csv
        self.rows: dict[int, dict[str, Any]] = {int(r["step"]): r for r in history}
        self.dirty = False
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.last_rate: float | None = None

    def __enter__(self) -> "ProgressPrinter":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self._drain()
        self._flush()

    def _run(self) -> None:
        last = time.monotonic()
        while not self.stop.is_set():
            self._drain()
            if time.monotonic() - last > 10:
                self._flush()
                last = time.monotonic()
            self.stop.wait(1.0)

    def _flush(self) -> None:
        if self.dirty:
            rows = [self.rows[k] for k in sorted(self.rows)]
            tmp = self.metrics_csv.with_name(self.metrics_csv.name + ".tmp")
            try:
                write_metrics_csv(tmp, rows, CSV_FIELDS)
                os.replace(tmp, self.metrics_csv)
            except OSError:
                return
            self.dirty = False

    def _drain(self) -> None:
        from mirtune.progress import note

        try:
            items = self.queue.get_nowait_batch(self.queue.qsize()) if self.queue.qsize() else []
        except Exception:
            return
        for kind, p in items:
            if kind == "rows":
                for r in p["rows"]:
                    step = int(r["step"])
                    for later in [k for k in self.rows if k > step]:  # a restart went back: drop the future
                        del self.rows[later]
                    self.rows[step] = r
                self.dirty = True
            elif kind == "progress":
                self.last_rate = p.get("samples_per_s")
                note(f"step {p['step']}/{p['steps']}  loss {p['loss']:.3f}  {objective_figures(p, True)}  "
                     f"lr {p['lr']:.2e}  {p['samples_per_s']:.1f} samples/s")
            elif kind == "heldout":
                note(f"held-out at step {p['step']}: {objective_figures(p, False)}")
            elif kind == "note":
                note(p["line"])


def objective_figures(p: dict[str, Any], losses: bool) -> str:
    """The figures of the objectives a run has (a single-modality encoder has one), for progress lines."""
    def has(key: str) -> bool:
        v = p.get(key)
        return isinstance(v, (int, float)) and math.isfinite(v)

    parts = []
    if has("mlm_accuracy"):
        parts.append(f"mlm {p['mlm_loss']:.3f} (acc {p['mlm_accuracy']:.3f})" if losses and has("mlm_loss")
                     else f"mlm acc {p['mlm_accuracy']:.3f}")
    if has("auc_control"):
        aucs = f"{p['auc_control']:.3f}/{p.get('auc_data', float('nan')):.3f}/{p.get('auc_call', float('nan')):.3f}"
        parts.append(f"recon {p['recon_loss']:.3f} (auc c/d/k {aucs})" if losses and has("recon_loss")
                     else f"auc c/d/k {aucs}")
    if has("match_accuracy"):
        parts.append(f"match {p['match_loss']:.3f} (acc {p['match_accuracy']:.3f})" if losses and has("match_loss")
                     else f"match acc {p['match_accuracy']:.3f}")
    return "  ".join(parts)


def write_metrics_csv(path: Path, rows: list[dict[str, Any]], fields: tuple[str, ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None or (isinstance(r.get(k), float) and math.isnan(r[k]))
                            else r.get(k)) for k in fields})


def plot_learning_curves(path: Path, history: list[dict[str, Any]], heldout: list[dict[str, Any]]) -> Path:
    """A PNG with the losses, MLM accuracy, matching accuracy and per-flow reconstruction AUC."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    def series(rows: list[dict[str, Any]], key: str) -> tuple[list[int], list[float]]:
        xs, ys = [], []
        for r in rows:
            v = r.get(key)
            if isinstance(v, (int, float)) and math.isfinite(v):
                xs.append(r["step"])
                ys.append(v)
        return xs, ys

    def smooth(ys: list[float], k: int) -> list[float]:
        if k <= 1 or len(ys) < k:
            return ys
        out, acc = [], 0.0
        for i, y in enumerate(ys):
            acc += y
            if i >= k:
                acc -= ys[i - k]
            out.append(acc / min(i + 1, k))
        return out

    k = max(1, len(history) // 100)
    panels = [("losses", ["loss", "mlm_loss", "recon_loss", "match_loss"]),
              ("MLM accuracy", ["mlm_accuracy"]),
              ("IR-graph matching accuracy", ["match_accuracy"]),
              ("reconstruction AUC per flow", ["auc_control", "auc_data", "auc_call"])]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    for ax, (title, keys) in zip(axes.flat, panels):
        for key in keys:
            xs, ys = series(history, key)
            if xs:
                line, = ax.plot(xs, smooth(ys, k), label=f"{key} (train)", linewidth=1.2)
                hx, hy = series(heldout, key)
                if hx:
                    ax.plot(hx, hy, "o--", color=line.get_color(), label=f"{key} (held-out)", markersize=4)
        ax.set_title(title)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        if ax.get_lines():
            ax.legend(fontsize=7)
        else:  # an objective this encoder does not have (a single-modality run)
            ax.text(0.5, 0.5, "not trained in this run", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle("MIREncoder pre-training" + (f" (train curves smoothed over {k} steps)" if k > 1 else ""))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    save(fig, path, dpi=110)
    return path
