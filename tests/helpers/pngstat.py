#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Pixel statistics of a PNG, standard library only (zlib + struct).

    pngstat.py FILE.png [--region X0,Y0,X1,Y1] [--tol N] NAME=#rrggbb ...

prints
    size W H
    nonwhite N                  (pixels in the region that are not white)
    color NAME COUNT YMIN RUNS  (RUNS: x ranges "a-b,c-d" of the columns
                                 holding that colour in the region, or "-")
Colours match within +-tol per channel (default 8). Handles 8-bit
greyscale, RGB, RGBA and grey+alpha, non-interlaced, all five filters;
alpha is composited over white.
"""
import struct
import sys
import zlib


def decode(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('%s: not a PNG file' % path)
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, ctype = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if ctype == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif ctype == b'IDAT':
            idat.append(body)
        elif ctype == b'IEND':
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or interlace != 0 or ctype not in (0, 2, 4, 6):
        sys.exit('%s: unsupported PNG (depth %d, colour type %d, interlace %d)'
                 % (path, depth, ctype, interlace))
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    # "Up" rows bytewise in one big-integer operation (no carries between bytes)
    low7 = int.from_bytes(b'\x7f' * stride, 'big')
    high = int.from_bytes(b'\x80' * stride, 'big')
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 0 or ft == 2:
            if ft == 2:
                a, b = int.from_bytes(line, 'big'), int.from_bytes(prev, 'big')
                line = bytearray((((a & low7) + (b & low7)) ^ ((a ^ b) & high)).to_bytes(stride, 'big'))
            rows.append(line)
            prev = line
            continue
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
            elif ft != 0:
                sys.exit('%s: bad filter type %d' % (path, ft))
        rows.append(line)
        prev = line

    def pixel(x, y):
        p = rows[y][x * bpp:(x + 1) * bpp]
        if ctype == 0:
            r = g = bl = p[0]
            al = 255
        elif ctype == 4:
            r = g = bl = p[0]
            al = p[1]
        elif ctype == 2:
            r, g, bl = p
            al = 255
        else:
            r, g, bl, al = p
        # over white
        return tuple((v * al + 255 * (255 - al)) // 255 for v in (r, g, bl))
    def raw_pixel(x, y):
        return bytes(rows[y][x * bpp:(x + 1) * bpp])
    return w, h, pixel, raw_pixel


def main(argv):
    path, region, tol, colors = None, None, 8, []
    args = iter(argv[1:])
    for a in args:
        if a == '--region':
            region = [int(v) for v in next(args).split(',')]
        elif a == '--tol':
            tol = int(next(args))
        elif '=' in a:
            name, hexc = a.split('=', 1)
            hexc = hexc.lstrip('#')
            colors.append((name, tuple(int(hexc[i:i + 2], 16) for i in (0, 2, 4))))
        else:
            path = a
    w, h, pixel, raw_pixel = decode(path)
    x0, y0, x1, y1 = region if region else (0, 0, w, h)
    x1, y1 = min(x1, w), min(y1, h)
    nonwhite = 0
    stats = {name: [0, None, set()] for name, _ in colors}
    cache = {}	# a pixel value -> (not white, the names of the colours it matches)
    for y in range(y0, y1):
        for x in range(x0, x1):
            hit = cache.get(raw_pixel(x, y))
            if hit is None:
                p = pixel(x, y)
                hit = (p != (255, 255, 255),
                       [name for name, c in colors if all(abs(p[i] - c[i]) <= tol for i in range(3))])
                cache[raw_pixel(x, y)] = hit
            if hit[0]:
                nonwhite += 1
            for name in hit[1]:
                s = stats[name]
                s[0] += 1
                s[1] = y if s[1] is None else min(s[1], y)
                s[2].add(x)
    print('size %d %d' % (w, h))
    print('nonwhite %d' % nonwhite)
    for name, _ in colors:
        count, ymin, xs = stats[name]
        runs, start, last = [], None, None
        for x in sorted(xs):
            if start is None:
                start = last = x
            elif x == last + 1:
                last = x
            else:
                runs.append('%d-%d' % (start, last))
                start = last = x
        if start is not None:
            runs.append('%d-%d' % (start, last))
        print('color %s %d %d %s' % (name, count, -1 if ymin is None else ymin,
                                     ','.join(runs) if runs else '-'))


if __name__ == '__main__':
    main(sys.argv)
