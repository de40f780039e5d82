"""`mirtune model info [--preset P | --model DIR]`: the encoder's configuration, parameter counts per part and
provenance; `mirtune model export CHECKPOINT --corpus DIR --out DIR`: a model folder from a pre-training checkpoint."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("model", help="inspect MIREncoder presets and trained models")
    msub = p.add_subparsers(dest="model_command", metavar="ACTION", required=True)
    i = msub.add_parser("info", help="configuration and parameter counts per part")
    src = i.add_mutually_exclusive_group()
    src.add_argument("--preset", help="a named preset (small, medium, paper, tiny); default small")
    src.add_argument("--model", metavar="DIR", help="a trained model directory (default: the shipped encoder, "
                                                     "else the small preset)")
    i.add_argument("--tokenizer", metavar="JSON", help="size a preset's vocabulary to this tokenizer.json "
                                                       "(default vocabulary: 8000)")
    i.add_argument("--modality", default="both", choices=("both", "text", "graph"),
                   help="size a preset for one modality only (the ablation encoders); default both")
    i.add_argument("--json", action="store_true", help="print JSON")
    i.set_defaults(func=run_info)
    e = msub.add_parser("export", help="a model folder from a pre-training checkpoint (to try it before the run ends)")
    e.add_argument("checkpoint", help="a step-NNNNNNNN checkpoint folder, or a run's folder (its newest checkpoint)")
    e.add_argument("--corpus", required=True, help="the run's corpus folder (its tokenizer and split sizes)")
    e.add_argument("--out", required=True, help="model folder to write (weights, provenance, metrics, curves)")
    e.add_argument("--preset", help="the run's preset (default: the one whose shapes the weights have)")
    e.set_defaults(func=run_export)


WEIGHT_CHECKS = {"verified": "sha256 verified against provenance.json, all values finite"}


def _count(module, skip: set[int] = frozenset()) -> int:
    return sum(p.numel() for p in module.parameters() if id(p) not in skip) if module is not None else 0


def run_info(args: argparse.Namespace) -> int:
    import json

    from mirtune.model.config import preset
    from mirtune.model.encoder import MIREncoder
    from mirtune.model.objectives import PretrainingHeads

    provenance = None
    source = None
    weights = None
    if args.model or (not args.preset and _shipped()):
        from mirtune.embedding import default_model_dir
        from mirtune.model.io import load_model

        model_dir = default_model_dir(args.model)
        loaded = load_model(model_dir, require_tokenizer=False)
        cfg, encoder, provenance, source = loaded.config, loaded.encoder, loaded.provenance, str(model_dir)
        weights = {"file": str(model_dir / "model.safetensors"), "check": loaded.weights_check,
                   "sha256": (provenance.get("weights_sha256") or {}).get("model.safetensors")}
    else:
        tokenizer = None
        if args.tokenizer:
            from mirtune.ir.tokenizer import IRTokenizer

            tokenizer = IRTokenizer.load(args.tokenizer)
        cfg = preset(args.preset or "small", tokenizer, args.modality)
        encoder = MIREncoder(cfg)
        source = f"preset {cfg.preset}"
    heads = PretrainingHeads(cfg)
    counts = encoder.parameter_counts()
    head_counts = {"mlm_head": _count(heads.mlm), "flow_decoders": _count(heads.flows),
                   "matching_head": _count(heads.matching)}
    info = {
        "source": source, "preset": cfg.preset, "config": cfg.to_dict(), "embedding_dim": cfg.embedding_dim,
        "parameters": {**{k: v for k, v in counts.items() if k != "total"}, "encoder_total": counts["total"],
                       **head_counts, "pretraining_total": counts["total"] + sum(head_counts.values())},
    }
    if weights is not None:
        info["weights"] = weights
    if provenance:
        info["provenance"] = {k: provenance.get(k) for k in ("preset", "steps", "corpus", "heldout_metrics",
                                                             "training", "command", "tokenizer_sha256", "created",
                                                             "distilled_from", "distillation") if k in provenance}
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    halves = [f"text {cfg.d_model}"] * cfg.has_text + [f"graph {cfg.gcn_hidden}"] * cfg.has_graph
    print(f"{source}: preset {cfg.preset}, modality {cfg.modality}, vocabulary {cfg.vocab_size}, embedding "
          f"{cfg.embedding_dim} = {' ++ '.join(halves)}")
    print(f"  transformer: {cfg.n_layers} layer{'s' * (cfg.n_layers != 1)}, d_model {cfg.d_model}, {cfg.n_heads} heads, ff {cfg.d_ff}; "
          f"GCN: {cfg.gcn_layers} layers, hidden {cfg.gcn_hidden}")
    width = max(len(k) for k in info["parameters"])
    for name, n in info["parameters"].items():
        print(f"  {name:<{width}}  {n:>12,}")
    if weights is not None:
        print(f"  weights: {WEIGHT_CHECKS[weights['check']]}")
    if provenance:
        teacher = provenance.get("distilled_from")
        if isinstance(teacher, dict):
            print(_distilled_line(provenance, teacher))
            provenance = teacher.get("provenance") or {}
        seen = (provenance.get("training") or {}).get("samples_seen")
        if provenance:
            print(f"  {'teacher ' if teacher else ''}trained {provenance.get('steps')} steps"
                  + (f" ({seen:,} files seen)" if seen else "") + "; held-out: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in (provenance.get("heldout_metrics") or {}).items()
                              if isinstance(v, (int, float))))
    return 0


def _distilled_line(provenance: dict, teacher: dict) -> str:
    """One line on a distilled encoder: its teacher (fingerprint, and the commit that holds it), its data and fit."""
    corpus = provenance.get("corpus") or {}
    where = f", git {teacher['git_commit'][:7]}:{teacher.get('directory')}" if teacher.get("git_commit") else ""
    held = provenance.get("heldout_metrics") or {}
    return (f"  distilled from encoder {teacher.get('fingerprint', '?')}{where}: {provenance.get('steps')} steps on "
            f"{corpus.get('distinct_statements', 0):,} statements of {corpus.get('package') or corpus.get('list')}; "
            "held-out " + ", ".join(f"{k} {v:.3f}" for k, v in held.items() if isinstance(v, (int, float))))


def run_export(args: argparse.Namespace) -> int:
    from mirtune.pretrain.train import export_model

    command = ["mirtune", "model", "export", args.checkpoint, "--corpus", args.corpus, "--out", args.out]
    res = export_model(args.checkpoint, args.corpus, args.out, args.preset,
                       command=command + (["--preset", args.preset] if args.preset else []))
    print(f"model folder {res.out} from {res.checkpoint} (step {res.steps}"
          + (f"; held-out MLM accuracy {res.heldout['mlm_accuracy']:.3f}" if "mlm_accuracy" in res.heldout else "")
          + ")")
    return 0


def _shipped() -> bool:
    from mirtune.embedding import DEFAULT_MODEL_DIR

    return (DEFAULT_MODEL_DIR / "model.safetensors").is_file()
