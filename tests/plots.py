#!/usr/bin/env python3
"""The SVG pictures of --plot-dir read cleanly (issue 30): no two labels (text boxes, rotated
ones included) and no two data points of the roofline intersect, in the roofline and the
memory chart of every bundled and shared workload. Prints 'N passed, N failed, N skipped'."""
import glob, math, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRISM = os.environ.get("PRISM", os.path.join(ROOT, "prism"))
SHARED = os.environ.get("PRISM_SHARED", os.path.join(ROOT, "..", "shared"))
CHAR_W, ASCENT, DESCENT = 0.602, 0.76, 0.24  # of the font size (DejaVu Sans Mono)


def attrs(tag):
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def rect_poly(x0, y0, x1, y1, rot=None):
    pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    if rot:
        a, cx, cy = rot
        c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
        pts = [(cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in pts]
    return pts


def overlap(p, q):
    """separating axis test of two convex polygons (touching edges do not count)"""
    for poly in (p, q):
        for i in range(len(poly)):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y1 - y2, x2 - x1
            a = [nx * x + ny * y for x, y in p]
            b = [nx * x + ny * y for x, y in q]
            if max(a) <= min(b) + 1e-6 or max(b) <= min(a) + 1e-6:
                return False
    return True


def boxes(svg):
    root = attrs(re.search(r"<svg [^>]*>", svg).group(0))
    base = float(root.get("font-size", "13"))
    texts, marks = [], []
    for m in re.finditer(r"<text ([^>]*)>(.*?)</text>", svg, re.S):
        a, s = attrs(m.group(1)), m.group(2)
        s = re.sub(r"&\w+;", "x", s)
        if not s.strip():
            continue
        fs = float(a.get("font-size", base))
        x, y, w = float(a["x"]), float(a["y"]), CHAR_W * fs * len(s.rstrip())
        lead = len(s) - len(s.lstrip())
        x += CHAR_W * fs * lead
        w -= CHAR_W * fs * lead
        anchor = a.get("text-anchor", "start")
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        rot = None
        t = re.match(r"rotate\(([-\d.]+) ([-\d.]+) ([-\d.]+)\)", a.get("transform", ""))
        if t:
            rot = tuple(float(v) for v in t.groups())
        texts.append((s.strip(), rect_poly(x0, y - ASCENT * fs, x0 + w, y + DESCENT * fs, rot)))
    for m in re.finditer(r"<(circle|rect|path) ([^>]*)/>", svg):
        a = attrs(m.group(2))
        if m.group(1) == "circle":
            cx, cy, r = float(a["cx"]), float(a["cy"]), float(a["r"])
            marks.append(rect_poly(cx - r, cy - r, cx + r, cy + r))
        elif m.group(1) == "path" and "fill" in a and a["fill"] != "none":
            nums = [float(v) for v in re.findall(r"[-\d.]+", a["d"])]
            xs, ys = nums[0::2], nums[1::2]
            marks.append(rect_poly(min(xs), min(ys), max(xs), max(ys)))
        elif m.group(1) == "rect" and "x" in a and a.get("fill") not in (None, "none", "white"):
            x, y = float(a["x"]), float(a["y"])
            marks.append(rect_poly(x, y, x + float(a["width"]), y + float(a["height"])))
    return texts, marks


def main():
    dirs = sorted(d for d in glob.glob(os.path.join(ROOT, "workloads-sample", "*", "*"))
                  + glob.glob(os.path.join(SHARED, "rocprof-workloads-3.3", "*", "*"))
                  if os.path.isfile(os.path.join(d, "pmc_perf.csv")))
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for d in dirs:
            out = os.path.join(tmp, re.sub(r"\W", "_", d))
            r = subprocess.run([PRISM, "analyze", "-p", d, "--plot-dir", out, "-o", os.devnull],
                               capture_output=True, text=True,
                               env=dict(os.environ, PRISM_DATA_DIR=ROOT))
            for name in ("roofline.svg", "memory_chart.svg"):
                f = os.path.join(out, name)
                if not os.path.isfile(f):
                    continue
                texts, marks = boxes(open(f, encoding="utf-8").read())
                bad = [(a[0], b[0]) for i, a in enumerate(texts) for b in texts[i + 1:]
                       if overlap(a[1], b[1])]
                bad += [("point", "point") for i, a in enumerate(marks) for b in marks[i + 1:]
                        if overlap(a, b)]
                ok = r.returncode == 0 and len(texts) > 5 and not bad
                passed += ok
                failed += not ok
                rel = os.path.relpath(d, os.path.dirname(ROOT))
                print(("ok   " if ok else "FAIL ") + f"{rel} {name}: {len(texts)} labels, "
                      f"{len(marks)} points" + ("" if ok else f"; overlapping: {bad[:3]}"))
    if passed + failed == 0:
        print("FAIL no picture written")
        failed = 1
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
