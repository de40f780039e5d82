#!/usr/bin/env python3
"""Write cnn_weights.txt and cnn_images.txt for cnn_infer.

Images: 400 grey 28x28 digits drawn from seven-segment style stroke
templates with random shift, scale, stroke width, slant and noise; each
image line starts with its true label.

Weights: the three 3x3 convolution layers get random (He-scaled) filters
with a few hand-made edge detectors mixed in; the dense layer is a nearest
class-centroid classifier built from the network's own features of one
clean template image per digit (so the predictions mean something).
"""
import math
import random

SEED = 4242
N_IMAGES = 400
H = W = 28
C1, C2, C3 = 8, 16, 16
NCLASS = 10

# seven segments: a (top), b (top right), c (bottom right), d (bottom),
# e (bottom left), f (top left), g (middle), in a unit box x:[0,1] y:[0,2]
SEGMENTS = {
    "a": ((0, 0), (1, 0)), "b": ((1, 0), (1, 1)), "c": ((1, 1), (1, 2)),
    "d": ((0, 2), (1, 2)), "e": ((0, 1), (0, 2)), "f": ((0, 0), (0, 1)),
    "g": ((0, 1), (1, 1)),
}
DIGITS = ["abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc",
          "abcdefg", "abcdfg"]


def draw_digit(label, rng, clean=False):
    if clean:
        sx, sy, ox, oy, width, slant, noise = 8.0, 7.5, 10.0, 6.5, 1.6, 0.0, 0.0
    else:
        sx = rng.uniform(6.5, 9.5)
        sy = rng.uniform(6.5, 8.5)
        ox = 14.0 - sx / 2 + rng.uniform(-2.0, 2.0)
        oy = 14.0 - sy + rng.uniform(-1.5, 1.5)
        width = rng.uniform(1.1, 2.2)
        slant = rng.uniform(-0.25, 0.25)
        noise = rng.uniform(0.0, 40.0)
    segs = []
    for s in DIGITS[label]:
        (x0, y0), (x1, y1) = SEGMENTS[s]
        p0 = (ox + x0 * sx + slant * (2 - y0) * sy / 2, oy + y0 * sy)
        p1 = (ox + x1 * sx + slant * (2 - y1) * sy / 2, oy + y1 * sy)
        segs.append((p0, p1))
    img = []
    for y in range(H):
        for x in range(W):
            px, py = x + 0.5, y + 0.5
            dmin = 1e9
            for (ax, ay), (bx, by) in segs:
                vx, vy = bx - ax, by - ay
                t = ((px - ax) * vx + (py - ay) * vy) / (vx * vx + vy * vy)
                t = min(1.0, max(0.0, t))
                dx, dy = px - (ax + t * vx), py - (ay + t * vy)
                dmin = min(dmin, math.sqrt(dx * dx + dy * dy))
            v = 255.0 * min(1.0, max(0.0, width - dmin + 0.5))
            if noise:
                v += rng.gauss(0.0, noise)
            img.append(int(min(255, max(0, round(v)))))
    return img


def conv(inp, cin, h, w, weights, bias, cout):
    out = []
    for oc in range(cout):
        plane = [bias[oc]] * (h * w)
        for ic in range(cin):
            src = inp[ic]
            for ky in range(3):
                for kx in range(3):
                    wv = weights[((oc * cin + ic) * 3 + ky) * 3 + kx]
                    if wv == 0.0:
                        continue
                    for y in range(h):
                        iy = y + ky - 1
                        if iy < 0 or iy >= h:
                            continue
                        row = iy * w
                        base = y * w
                        for x in range(w):
                            ix = x + kx - 1
                            if 0 <= ix < w:
                                plane[base + x] += wv * src[row + ix]
        out.append([v if v > 0.0 else 0.0 for v in plane])
    return out


def pool(inp, h, w):
    oh, ow = h // 2, w // 2
    out = []
    for p in inp:
        q = []
        for y in range(oh):
            for x in range(ow):
                i = 2 * y * w + 2 * x
                q.append(max(p[i], p[i + 1], p[i + w], p[i + w + 1]))
        out.append(q)
    return out


def features(img, net):
    (w1, b1), (w2, b2), (w3, b3) = net
    x = [[v / 255.0 for v in img]]
    x = conv(x, 1, 28, 28, w1, b1, C1)
    x = conv(x, C1, 28, 28, w2, b2, C2)
    x = conv(x, C2, 28, 28, w3, b3, C3)
    x = pool(x, 28, 28)
    return [v for p in x for v in p]


def rounded(vals):
    return [float("%.6g" % v) for v in vals]


def main():
    rng = random.Random(SEED)
    # first layer: a few fixed edge/bar detectors plus random filters
    fixed = [
        [-1, 0, 1, -2, 0, 2, -1, 0, 1],
        [-1, -2, -1, 0, 0, 0, 1, 2, 1],
        [1, 0, -1, 2, 0, -2, 1, 0, -1],
        [1, 2, 1, 0, 0, 0, -1, -2, -1],
        [-1, 2, -1, -1, 2, -1, -1, 2, -1],
        [-1, -1, -1, 2, 2, 2, -1, -1, -1],
    ]
    w1 = []
    for k in range(C1):
        if k < len(fixed):
            w1.extend(v * 0.5 for v in fixed[k])
        else:
            w1.extend(rng.gauss(0.0, math.sqrt(2.0 / 9)) for _ in range(9))
    b1 = [0.0] * C1
    w2 = [rng.gauss(0.0, math.sqrt(2.0 / (9 * C1))) for _ in range(C2 * C1 * 9)]
    b2 = [rng.uniform(-0.05, 0.05) for _ in range(C2)]
    w3 = [rng.gauss(0.0, math.sqrt(2.0 / (9 * C2))) for _ in range(C3 * C2 * 9)]
    b3 = [rng.uniform(-0.05, 0.05) for _ in range(C3)]
    w1, b1, w2, b2, w3, b3 = map(rounded, (w1, b1, w2, b2, w3, b3))
    net = ((w1, b1), (w2, b2), (w3, b3))

    # dense layer: centred, normalised class centroids of the clean templates
    feats = [features(draw_digit(d, rng, clean=True), net) for d in range(NCLASS)]
    nfeat = len(feats[0])
    mean = [sum(f[i] for f in feats) / NCLASS for i in range(nfeat)]
    wd, bd = [], []
    for f in feats:
        c = [f[i] - mean[i] for i in range(nfeat)]
        norm = math.sqrt(sum(v * v for v in c)) or 1.0
        c = [v / norm for v in c]
        wd.extend(c)
        bd.append(-sum(c[i] * (f[i] + mean[i]) / 2 for i in range(nfeat)))
    wd, bd = rounded(wd), rounded(bd)

    def block(f, vals, per_line):
        for i in range(0, len(vals), per_line):
            f.write(" ".join("%.6g" % v for v in vals[i:i + per_line]) + "\n")

    with open("cnn_weights.txt", "w", newline="\n") as f:
        f.write("conv %d %d 3\n" % (C1, 1))
        block(f, w1, 9)
        block(f, b1, C1)
        f.write("conv %d %d 3\n" % (C2, C1))
        block(f, w2, 9)
        block(f, b2, C2)
        f.write("conv %d %d 3\n" % (C3, C2))
        block(f, w3, 9)
        block(f, b3, C3)
        f.write("dense %d %d\n" % (NCLASS, nfeat))
        block(f, wd, 16)
        block(f, bd, NCLASS)

    with open("cnn_images.txt", "w", newline="\n") as f:
        f.write("images %d %d %d\n" % (N_IMAGES, H, W))
        for _ in range(N_IMAGES):
            label = rng.randrange(NCLASS)
            img = draw_digit(label, rng)
            f.write("%d %s\n" % (label, " ".join(map(str, img))))


if __name__ == "__main__":
    main()
