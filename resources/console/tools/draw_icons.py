#!/usr/bin/env python3
"""Draws the console's PNG icons (the SVG files beside them are the same pictures, for editing;
Qt here has no SVG image plugin). Shapes: filled circles, polygons and stroked polylines with
round caps, anti-aliased by 4x4 supersampling. Pure Python (zlib), no imaging library.
Run from resources/console: python3 tools/draw_icons.py"""
import math, struct, zlib

def png(path, size, pixels):
    raw = b''.join(b'\0' + bytes(v for px in row for v in px) for row in pixels)
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    data = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', size, size, 8, 6, 0, 0, 0))
    data += chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')
    open(path, 'wb').write(data)

def hexc(h):
    h = h.lstrip('#')
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))

def seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    l = dx * dx + dy * dy
    t = 0 if l == 0 else max(0, min(1, ((px - ax) * dx + (py - ay) * dy) / l))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)

def inside_poly(x, y, pts):
    c = False
    for i in range(len(pts)):
        (x1, y1), (x2, y2) = pts[i], pts[i - 1]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            c = not c
    return c

def render(size, view, shapes):
    s = size / view
    out = []
    for j in range(size):
        row = []
        for i in range(size):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sj in range(4):
                for si in range(4):
                    x = (i + (si + 0.5) / 4) / s
                    y = (j + (sj + 0.5) / 4) / s
                    col = None
                    for sh in shapes:
                        kind = sh[0]
                        if kind == 'circle' and math.hypot(x - sh[1], y - sh[2]) <= sh[3]:
                            col = sh[4]
                        elif kind == 'rect' and sh[1] <= x <= sh[1] + sh[3] and sh[2] <= y <= sh[2] + sh[4]:
                            col = sh[5]
                        elif kind == 'poly' and inside_poly(x, y, sh[1]):
                            col = sh[2]
                        elif kind == 'line':
                            pts, w = sh[1], sh[2]
                            if any(seg_dist(x, y, *pts[k], *pts[k + 1]) <= w / 2 for k in range(len(pts) - 1)):
                                col = sh[3]
                    if col is not None:
                        r, g, b = hexc(col)
                        acc[0] += r; acc[1] += g; acc[2] += b; acc[3] += 1
            a = acc[3]
            row.append((0, 0, 0, 0) if a == 0 else
                       (round(acc[0] / a), round(acc[1] / a), round(acc[2] / a), round(255 * a / 16)))
        out.append(row)
    return out

icons = {
    'live': [('circle', 16, 16, 14, '#4cc36a'), ('line', [(9, 16.5), (14, 21.5), (23, 11.5)], 3.5, '#ffffff')],
    'late': [('circle', 16, 16, 14, '#f0b429'), ('line', [(16, 8), (16, 16.5), (21.5, 20)], 3.2, '#1b1d21')],
    'expired': [('circle', 16, 16, 14, '#ff6b6b'), ('line', [(10.5, 10.5), (21.5, 21.5)], 3.5, '#ffffff'),
                ('line', [(21.5, 10.5), (10.5, 21.5)], 3.5, '#ffffff')],
    'unknown': [('circle', 16, 16, 14, '#80848a'),
                ('line', [(12.3, 12), (13.5, 9.6), (16, 8.6), (18.6, 9.6), (19.8, 12.3), (18.6, 15), (16, 17), (16, 19.5)], 3, '#ffffff'),
                ('circle', 16, 24, 1.8, '#ffffff')],
    'alert': [('poly', [(16, 3), (30, 28), (2, 28)], '#f0b429'), ('line', [(16, 11), (16, 19)], 3.2, '#1b1d21'),
              ('circle', 16, 23.5, 1.9, '#1b1d21')],
}
for name, shapes in icons.items():
    png('icons/%s.png' % name, 32, render(32, 32, shapes))
app = [('rect', 2, 2, 60, 60, '#25282c'),
       ('poly', [(32, 8), (39, 14), (42, 24), (42, 34), (38, 42), (26, 42), (22, 34), (22, 24), (25, 14)], '#6cb6ff'),
       ('circle', 32, 26, 5, '#25282c'),
       ('poly', [(22, 34), (15, 44), (24, 42)], '#2f6fb3'), ('poly', [(42, 34), (49, 44), (40, 42)], '#2f6fb3'),
       ('poly', [(27, 44), (32, 56), (37, 44)], '#f0b429')]
png('icons/qrocket-console.png', 64, render(64, 64, app))
