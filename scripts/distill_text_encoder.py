"""A one-layer statement Transformer distilled from an encoder's two-layer one: the same embedding, far less work.

    python scripts/distill_text_encoder.py --sources-from build/corpus-real-sources.txt --every 3 \
        --out build/encoder-distilled [--teacher DIR] [--steps 2000] [--minutes 60]

Why: `mirtune embed` spends over half its CPU time in the statement Transformer (docs/results.md, "Embedding
speed"). In a one-layer encoder the last layer is the first, so only the [CLS] position goes through the attention
output and the feed-forward block; the keys and values come from the (token, position) table computed once per
distinct pair. A statement then costs about as much as one position of the two-layer encoder.

What it does:
1. compiles every `--every`-th file of the list (GCC's testsuites, `scripts/gcc_corpus_sources.py --select`, which
   leaves out every test the VF/IF task measures) at -O0 and -O2 with clang, and keeps each distinct statement's
   token ids (the teacher's tokenizer) with how often it occurs;
2. computes the teacher's final [CLS] state of each distinct statement (the numpy engine);
3. trains the student, the teacher's own config with one layer, started from the teacher's first layer and final
   norm, to give the same states (mean squared error weighted by occurrences); the token table (shared with the
   graph half) and the whole graph half are the teacher's, frozen, so the graph half of an embedding is unchanged;
4. holds out the statements of every 20th file (by a hash of its path) and reports the share of the teacher
   states' variance the student explains there (R^2), and writes a model folder `embed --model` reads, with the
   data, steps and held-out figures in its provenance.json.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.batch_pool import available_cpus, map_batches  # noqa: E402
from mirtune.embedding import default_model_dir, load_engine  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402

LEVELS = (0, 2)
HELD_OUT_EVERY = 20  # every 20th file (by a hash of its path) is held out


def held_out(path: str) -> bool:
    """Whether a file's statements are kept for the held-out figure (a hash of its path, the same on any machine)."""
    return int(hashlib.sha256(path.encode()).hexdigest()[:8], 16) % HELD_OUT_EVERY == 0


def statement_ids(paths: list[str], teacher_dir: str) -> list[tuple[str, np.ndarray | None]]:
    """(path, token ids [S, L] of its statements at every level of LEVELS, or None when it does not build)."""
    from mirtune.ir.inputs import load_ir

    tokenizer = load_engine(teacher_dir, engine="numpy").tokenizer
    out = []
    for path in paths:
        rows = []
        for level in LEVELS:
            try:
                rows.append(tokenizer.encode_ids(load_ir(path, opt=level, openmp=None).statements()))
            except MirtuneError:
                pass
        out.append((path, np.concatenate(rows) if rows else None))
    return out


def collect(files: list[str], teacher_dir: str, jobs: int) -> tuple[dict[bytes, list], int, int]:
    """Distinct statements -> [ids row, train occurrences, held-out occurrences]; files built, files failed."""
    table: dict[bytes, list] = {}
    built = failed = 0
    batches = ((None, files[i:i + 8]) for i in range(0, len(files), 8))
    t0 = time.monotonic()
    for _, results in map_batches(partial(statement_ids, teacher_dir=teacher_dir), batches, jobs,
                                  lambda p: (p, None)):
        for path, ids in results:
            if ids is None:
                failed += 1
                continue
            built += 1
            column = 2 if held_out(path) else 1
            for row in ids:
                entry = table.setdefault(row.tobytes(), [row, 0, 0])
                entry[column] += 1
        if (built + failed) % 400 < 8:
            print(f"  {built + failed}/{len(files)} files, {len(table):,} distinct statements, "
                  f"{time.monotonic() - t0:.0f} s", flush=True)
    return table, built, failed


def teacher_record(teacher_dir: Path, provenance: dict) -> dict:
    """What the student's provenance keeps of its teacher: where it was (its folder and, inside this repository, the
    last commit that holds it, which `git show COMMIT:FOLDER/FILE` reads back once the folder holds another
    encoder), its fingerprint and its whole provenance (corpus, steps, held-out figures)."""
    import subprocess

    from mirtune.embedding_cache import model_fingerprint
    from mirtune.paths import REPO_DIR

    teacher_dir = teacher_dir.resolve()
    inside = teacher_dir.is_relative_to(REPO_DIR)
    directory = str(teacher_dir.relative_to(REPO_DIR)) if inside else str(teacher_dir)
    commit = None
    if inside:
        log = subprocess.run(["git", "-C", str(REPO_DIR), "log", "-1", "--format=%H", "--", directory],
                             capture_output=True, text=True, check=False)
        commit = log.stdout.strip() or None
    return {"directory": directory, "git_commit": commit, "fingerprint": model_fingerprint(teacher_dir),
            "weights_sha256": provenance.get("weights_sha256"), "provenance": provenance}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources-from", required=True, help="a list of source files, one per line")
    ap.add_argument("--every", type=int, default=3, help="take every N-th file of the list (default 3)")
    ap.add_argument("--teacher", default=None, help="the encoder to distil (default: the shipped one)")
    ap.add_argument("--out", required=True, help="the model folder to write")
    ap.add_argument("--steps", type=int, default=2000, help="training steps (default 2000)")
    ap.add_argument("--minutes", type=float, default=60.0, help="stop training after this long at most (default 60)")
    ap.add_argument("--batch", type=int, default=512, help="statements per step (default 512)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    from sklearn.metrics import r2_score

    from mirtune.model.config import EncoderConfig
    from mirtune.model.encoder import MIREncoder
    from mirtune.model.io import load_model, make_provenance, save_model

    teacher_dir = str(default_model_dir(args.teacher).resolve())
    lines = [ln.strip() for ln in Path(args.sources_from).read_text().splitlines() if ln.strip()]
    files = lines[::args.every]
    print(f"compiling {len(files)} files at -O{' and -O'.join(map(str, LEVELS))}", flush=True)
    t0 = time.monotonic()
    table, built, failed = collect(files, teacher_dir, available_cpus())
    rows = list(table.values())
    ids = np.stack([r[0] for r in rows])
    train_w = np.array([r[1] for r in rows], np.float64)
    held_w = np.array([r[2] for r in rows], np.float64)
    print(f"{built} files built, {failed} failed; {len(rows):,} distinct statements "
          f"({int(train_w.sum()):,} train and {int(held_w.sum()):,} held-out occurrences), "
          f"{time.monotonic() - t0:.0f} s", flush=True)

    teacher_np = load_engine(teacher_dir, engine="numpy")
    t1 = time.monotonic()
    target = np.concatenate([teacher_np.cls_states(ids[i:i + 20_000]) for i in range(0, len(ids), 20_000)])
    print(f"teacher states: {time.monotonic() - t1:.0f} s", flush=True)

    teacher = load_model(teacher_dir)
    cfg = EncoderConfig.from_dict({**teacher.config.to_dict(), "n_layers": 1, "dropout": 0.0})
    torch.manual_seed(args.seed)
    student = MIREncoder(cfg)
    state = {k: v for k, v in teacher.encoder.state_dict().items() if not k.startswith("text.layers.layers.1.")}
    student.load_state_dict(state, strict=True)
    for n, p in student.named_parameters():  # the text half's own weights; the shared token table stays frozen
        p.requires_grad_(n.startswith("text.") and "token_embedding" not in n)
    trained = [p for p in student.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trained, lr=args.lr, weight_decay=0.0)

    ids_t, target_t = torch.from_numpy(ids), torch.from_numpy(target)
    train_rows = np.flatnonzero(train_w > 0)
    held_rows = np.flatnonzero(held_w > 0)
    p = train_w[train_rows] / train_w[train_rows].sum()
    rng = np.random.default_rng(args.seed)
    pad = cfg.pad_id

    def cls(rows_: np.ndarray) -> torch.Tensor:
        x = ids_t[rows_]
        keep = x != pad
        w = max(int(keep.sum(1).max()), 1)
        return student.text._run(x[:, :w], keep[:, :w])[:, 0]

    novel_rows = np.flatnonzero((held_w > 0) & (train_w == 0))

    def r2_of(rows_: np.ndarray) -> float:
        """1 - squared error / variance of the teacher's states over `rows_`, each weighted by its held-out
        occurrences (nan when there are none)."""
        if rows_.size == 0:
            return float("nan")
        with torch.no_grad():
            student.eval()
            got = torch.cat([cls(rows_[i:i + 4096]) for i in range(0, len(rows_), 4096)]).numpy()
        return float(r2_score(target[rows_], got, sample_weight=held_w[rows_], multioutput="variance_weighted"))

    r2_start = r2_of(held_rows)
    print(f"held-out R^2 of the teacher's states: {r2_start:.4f} at the start (its first layer alone)", flush=True)
    deadline = time.monotonic() + 60 * args.minutes
    step, total = 0, None
    student.train()
    curve = [(0, r2_start)]
    while step < args.steps and time.monotonic() < deadline:
        batch = rng.choice(train_rows, size=args.batch, p=p)
        loss = ((cls(batch) - target_t[batch]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        total = loss.item() if total is None else 0.98 * total + 0.02 * loss.item()
        if step % 500 == 0:
            r2 = r2_of(held_rows)
            student.train()
            curve.append((step, r2))
            print(f"step {step}: train loss {total:.5f}, held-out R^2 {r2:.4f}", flush=True)
    r2 = r2_of(held_rows)
    r2_novel = r2_of(novel_rows)
    curve.append((step, r2))
    print(f"done: {step} steps, held-out R^2 {r2:.4f}; on the {novel_rows.size:,} held-out statements never in "
          f"training {r2_novel:.4f}", flush=True)
    from_gcc = all("/gcc-12-source/" in f for f in files)  # scripts/gcc_corpus_sources.py's cache folder
    data = {"package": "gcc-12-source" if from_gcc else None, "list": str(Path(args.sources_from)),
            "list_sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest(), "every": args.every,
            "files": len(files), "built": built, "failed": failed, "levels": list(LEVELS),
            "distinct_statements": len(rows), "held_out_every": HELD_OUT_EVERY}
    prov = make_provenance(cfg, teacher.tokenizer, steps=step, heldout={"text_state_r2": r2, "text_state_r2_unseen": r2_novel},
                           command=[sys.executable, *sys.argv], corpus=data,
                           distilled_from=teacher_record(Path(teacher_dir), teacher.provenance),
                           distillation={"batch": args.batch, "lr": args.lr, "seed": args.seed,
                                         "steps": args.steps, "minutes": args.minutes,
                                         "r2_curve": curve})
    save_model(args.out, student.eval(), cfg, teacher.tokenizer, prov)
    print(f"wrote {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
