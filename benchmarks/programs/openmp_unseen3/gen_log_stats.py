#!/usr/bin/env python3
"""Generate a web server access log (common-log-format-like lines plus a latency field)."""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_log_stats.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(9090)
    urls = ["/", "/index.html", "/login", "/logout", "/search", "/cart", "/checkout",
            "/static/app.js", "/static/style.css", "/favicon.ico", "/api/health"]
    for i in range(120):
        urls.append("/api/items/%d" % i)
    for i in range(60):
        urls.append("/products/%s-%d" % (rng.choice(["chair", "desk", "lamp", "sofa", "shelf"]), i))
    for i in range(40):
        urls.append("/blog/%d/%02d/post-%d" % (2020 + i % 5, 1 + i % 12, i))
    order = list(range(len(urls)))
    rng.shuffle(order)
    weights = [0.0] * len(urls)
    for rank, u in enumerate(order):
        weights[u] = 1.0 / (rank + 1) ** 1.2
    base_lat = [rng.uniform(2000, 60000) for _ in urls]
    methods = ["GET"] * 8 + ["POST", "HEAD"]
    months = ["Jan", "Feb", "Mar"]
    n = 15500
    with open(os.path.join(out, "log_stats_access.log"), "w", newline="\n") as f:
        t = 0
        for _ in range(n):
            t += rng.randint(0, 40)
            day = 1 + (t // 86400) % 28
            hh, mm, ss = (t // 3600) % 24, (t // 60) % 60, t % 60
            ui = rng.choices(range(len(urls)), weights=weights)[0]
            u = rng.random()
            if u < 0.86:
                status = 200
            elif u < 0.91:
                status = 304
            elif u < 0.93:
                status = 301
            elif u < 0.97:
                status = 404
            elif u < 0.985:
                status = 403
            else:
                status = rng.choice([500, 502, 503])
            size = 0 if status in (304, 301) else int(rng.lognormvariate(8, 1.2))
            lat = int(base_lat[ui] * rng.lognormvariate(0, 0.6))
            if rng.random() < 0.02:
                lat *= rng.randint(5, 30)
            ip = "10.%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 255), rng.randint(1, 254))
            f.write('%s - - [%02d/%s/2024:%02d:%02d:%02d +0000] "%s %s HTTP/1.1" %d %d %d\n'
                    % (ip, day, months[(t // (86400 * 28)) % 3], hh, mm, ss,
                       rng.choice(methods), urls[ui], status, size, lat))


if __name__ == "__main__":
    main()
