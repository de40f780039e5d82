#!/usr/bin/env python3
"""Write stream.cfg: array length, pass count and kernel constants."""

def main():
    with open("stream.cfg", "w", newline="\n") as f:
        f.write("# stream_scale configuration\n")
        f.write("elements 16000000   # doubles per array\n")
        f.write("passes   5\n")
        f.write("scale    0.75       # s in scale and triad\n")
        f.write("clamp    2.5        # normalised values are clamped to [-clamp, clamp]\n")
        f.write("block    65536      # elements per partial sum\n")

if __name__ == "__main__":
    main()
