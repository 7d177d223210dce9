"""A PNG reader in plain Python (struct, zlib): 8-bit RGB or RGBA, not
interlaced, as headless Chromium writes its screenshots; no PIL needed."""
import struct
import zlib


def unfilter(raw, w, h, bpp):
    """PNG's row filters undone (Sub, Up, Average, Paeth); Up, the common one,
    as one big-integer addition with no carry between bytes."""
    n = w * bpp
    lo7 = int.from_bytes(b"\x7f" * n, "big")
    hi1 = int.from_bytes(b"\x80" * n, "big")
    prev, rows = bytes(n), []
    for r in range(h):
        f, line = raw[r * (n + 1)], raw[r * (n + 1) + 1:(r + 1) * (n + 1)]
        if f == 0:
            cur = line
        elif f == 2:
            a, b = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            cur = (((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)).to_bytes(n, "big")
        else:
            out = bytearray(line)
            for i in range(n):
                left = out[i - bpp] if i >= bpp else 0
                if f == 1:
                    out[i] = (out[i] + left) & 255
                elif f == 3:
                    out[i] = (out[i] + ((left + prev[i]) >> 1)) & 255
                else:
                    up, ul = prev[i], prev[i - bpp] if i >= bpp else 0
                    p = left + up - ul
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                    out[i] = (out[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
            cur = bytes(out)
        rows.append(cur)
        prev = cur
    return rows


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    return w, h, bpp, unfilter(zlib.decompress(b"".join(idat)), w, h, bpp)
