#!/usr/bin/env python3
"""Regenerate the input files of the held-out OpenMP programs (deterministic, standard library only).

    python3 make_inputs.py [outdir]

Writes points.txt (k-means), graph.txt (personalized PageRank), seqs.fasta (Smith-Waterman) and
corpus.txt (word statistics) into outdir (default: the folder this script is in). The committed files
were produced by this script; running it again gives byte-identical files.
"""
import math
import os
import random
import sys


def write_points(path, rng):
    # 8000 points in 4-D drawn from 14 Gaussian blobs of different sizes and spreads, plus 3% uniform noise.
    n, d, nblobs = 8000, 4, 14
    centres = [[rng.uniform(-50, 50) for _ in range(d)] for _ in range(nblobs)]
    spreads = [rng.uniform(1.5, 9.0) for _ in range(nblobs)]
    weights = [rng.uniform(0.3, 3.0) for _ in range(nblobs)]
    with open(path, "w") as f:
        f.write("# synthetic 4-D points for k-means, one point per line\n")
        f.write(f"{n} {d}\n")
        for _ in range(n):
            if rng.random() < 0.03:
                p = [rng.uniform(-70, 70) for _ in range(d)]
            else:
                b = rng.choices(range(nblobs), weights)[0]
                p = [rng.gauss(centres[b][k], spreads[b]) for k in range(d)]
            f.write(" ".join(f"{x:.3f}" for x in p) + "\n")


def write_graph(path, rng):
    # Preferential attachment: node v links to 3 earlier nodes chosen with probability ~ in-degree + 1, and some
    # of those nodes link back. Early (low-numbered) nodes become hubs with very large in-degree.
    n, m = 8000, 3
    targets = [0, 1, 2, 3]  # multiset: a node appears once per in-link, plus once for itself
    edges = [(1, 0), (2, 0), (2, 1), (3, 0), (3, 2), (0, 1)]
    targets += [0, 0, 1, 2, 0, 1]
    for v in range(4, n):
        chosen = set()
        while len(chosen) < m:
            chosen.add(rng.choice(targets))
        for u in sorted(chosen):
            edges.append((v, u))
            targets.append(u)
            if rng.random() < 0.25:
                edges.append((u, v))
                targets.append(v)
        targets.append(v)
    with open(path, "w") as f:
        f.write(f"# directed graph, preferential attachment, {n} nodes, {len(edges)} edges\n")
        f.write("# from to\n")
        for a, b in edges:
            f.write(f"{a} {b}\n")


def mutate(seq, rng, rate):
    out = []
    for ch in seq:
        r = rng.random()
        if r < rate * 0.6:
            out.append(rng.choice("ACGT"))
        elif r < rate * 0.8:
            continue  # deletion
        elif r < rate:
            out.append(ch)
            out.append(rng.choice("ACGT"))  # insertion
        else:
            out.append(ch)
    return "".join(out)


def write_fasta(path, rng):
    a = "".join(rng.choice("ACGT") for _ in range(5600))
    core = mutate(a[1200:4800], rng, 0.18)
    b = "".join(rng.choice("ACGT") for _ in range(900)) + core + "".join(rng.choice("ACGT") for _ in range(1100))
    with open(path, "w") as f:
        for name, s in (("seqA synthetic reference", a), ("seqB synthetic read, mutated copy of seqA[1200:4800]", b)):
            f.write(f">{name}\n")
            for i in range(0, len(s), 70):
                f.write(s[i:i + 70] + "\n")


COMMON = ("the of and to a in is it you that he was for on are with as his they be at one have this from or had by "
          "not word but what some we can out other were all there when up use your how said an each she which do "
          "their time if will way about many then them write would like so these her long make thing see him two "
          "has look more day could go come did number sound no most people my over know water than call first who "
          "may down side been now find any new work part take get place made live where after back little only "
          "round man year came show every good me give our under name very through just form sentence great think "
          "say help low line differ turn cause much mean before move right boy old too same tell does set three "
          "want air well also play small end put home read hand port large spell add even land here must big high "
          "such follow act why ask men change went light kind off need house picture try us again animal point "
          "mother world near build self earth father head stand own page should country found answer school grow "
          "study still learn plant cover food sun four between state keep eye never last let thought city tree "
          "cross farm hard start might story saw far sea draw left late run while press close night real life few "
          "north open seem together next white children begin got walk example ease paper group always music those "
          "both mark often letter until mile river car feet care second book carry took science eat room friend "
          "began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl "
          "usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song "
          "measure door product black short numeral class wind question happen complete ship area half rock order "
          "fire south problem piece told knew pass since top whole king space heard best hour better true during "
          "hundred five remember step early hold west ground interest reach fast verb sing listen six table travel "
          "less morning ten simple several vowel toward war lay against pattern slow center love person money "
          "serve appear road map rain rule govern pull cold notice voice unit power town fine certain fly fall lead "
          "cry dark machine note wait plan figure star box noun field rest correct able pound done beauty drive "
          "stood contain front teach week final gave green oh quick develop ocean warm free minute strong special "
          "mind behind clear tail produce fact street inch multiply nothing course stay wheel full force blue "
          "object decide surface deep moon island foot system busy test record boat common gold possible plane "
          "stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow tire bring "
          "yes distant fill east paint language among").split()


def write_corpus(path, rng):
    syll = ["ka", "lo", "mi", "ren", "tas", "vo", "qui", "dar", "sel", "por", "un", "eth", "ba", "zo", "fen", "gri"]
    rare = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(3500)})
    vocab = COMMON + rare
    zipf = [1.0 / (r + 2.7) ** 1.05 for r in range(len(vocab))]
    cum, acc = [], 0.0
    for w in zipf:
        acc += w
        cum.append(acc)
    out, line = [], ""
    size = 0
    while size < 285_000:
        nwords = rng.randint(5, 22)
        ws = rng.choices(vocab, cum_weights=cum, k=nwords)
        ws[0] = ws[0].capitalize()
        for i in range(1, nwords - 1):
            if rng.random() < 0.07:
                ws[i] += ","
        sent = " ".join(ws) + rng.choice([".", ".", ".", "?", "!", ";"])
        for tok in sent.split():
            if len(line) + len(tok) + 1 > 72:
                out.append(line)
                size += len(line) + 1
                line = tok
            else:
                line = tok if not line else line + " " + tok
        if rng.random() < 0.12:
            out.append(line)
            out.append("")
            size += len(line) + 2
            line = ""
    if line:
        out.append(line)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    write_points(os.path.join(outdir, "points.txt"), random.Random(1001))
    write_graph(os.path.join(outdir, "graph.txt"), random.Random(2002))
    write_fasta(os.path.join(outdir, "seqs.fasta"), random.Random(3003))
    write_corpus(os.path.join(outdir, "corpus.txt"), random.Random(4004))


if __name__ == "__main__":
    main()
