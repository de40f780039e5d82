#!/usr/bin/env python3
"""Writes fractal_frames_path.txt, the zoom parameters of fractal_frames.

The zoom starts on the whole Mandelbrot set and closes in on a point on the
boundary of the main cardioid (where a period-50 bulb is attached), so that the interior
share of the frames changes as the zoom goes on.
"""

LINES = [
    "# zoom path for fractal_frames",
    "fractal mandelbrot",
    "frames 36",
    "center_start -0.600000000000 0.000000000000",
    "center_end -0.380181943593 0.591780235071",
    "width_start 3.400000000000",
    "zoom_per_frame 0.800000",
    "maxiter_start 100",
    "maxiter_per_frame 10",
]

def main():
    with open("fractal_frames_path.txt", "w", newline="\n") as f:
        f.write("\n".join(LINES) + "\n")

if __name__ == "__main__":
    main()
