#!/usr/bin/env python3
"""Writes transpose_params.txt (seed and matrix size) for transpose_stream."""
with open("transpose_params.txt", "w", newline="\n") as f:
    f.write("# parameters for transpose_stream\n")
    f.write("seed 918273645\n")
    f.write("size 8192\n")
