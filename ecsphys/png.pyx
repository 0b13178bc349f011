# cython: embedsignature=True
"""PNG files read into RGBA arrays, with no image library (for ``Mask.from_file``).

Guarantees:
- ``read_png(path_or_bytes)`` returns a ``(height, width, 4)`` uint8 array, row 0 on top, for
  every PNG the standard allows: bit depths 1, 2, 4, 8 and 16; grey, grey + alpha, RGB, RGBA
  and palette images; a ``tRNS`` chunk (a palette's alphas, or the one transparent grey or
  RGB colour); interlaced (Adam7) or not. 16-bit samples keep their high byte; grey and
  palette samples of fewer bits are scaled to 0 .. 255 (a 1-bit 1 is 255);
- every chunk's CRC is checked; a file that is not a PNG, is cut short, has a bad CRC, an
  unknown filter, colour type or bit depth, or a missing palette raises ``ValueError`` naming
  the file and what is wrong; the gamma, colour-space and text chunks are ignored;
- the rows are unfiltered by one compiled call per image (or per Adam7 pass).
"""

import struct
import zlib
from pathlib import Path

import numpy as np

__all__ = ["read_png"]

cdef bytes SIGNATURE = b"\x89PNG\r\n\x1a\n"

# colour type: samples per pixel
cdef dict CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
cdef dict DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}

# Adam7 passes: first row, first column, row step, column step
cdef tuple ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2),
                    (0, 1, 2, 2), (1, 0, 2, 1))


cdef inline int _paeth(int a, int b, int c) noexcept nogil:
    cdef int p = a + b - c
    cdef int pa = p - a if p >= a else a - p
    cdef int pb = p - b if p >= b else b - p
    cdef int pc = p - c if p >= c else c - p
    if pa <= pb and pa <= pc:
        return a
    if pb <= pc:
        return b
    return c


cdef int _unfilter(const unsigned char* src, unsigned char* dst, long rows, long stride,
                   int bpp) noexcept nogil:
    """Undo the per-row filters of ``rows`` rows of ``stride`` bytes (each led by its filter
    type byte in ``src``) into ``dst``; ``bpp`` is the bytes per pixel (at least 1). Returns
    the first row whose filter type is unknown, or -1."""
    cdef long r, i
    cdef int kind, left, up, upleft
    cdef const unsigned char* line
    cdef unsigned char* out
    cdef unsigned char* prev
    for r in range(rows):
        line = src + r * (stride + 1)
        kind = line[0]
        line += 1
        out = dst + r * stride
        prev = out - stride if r > 0 else NULL
        if kind > 4:
            return <int> r
        for i in range(stride):
            left = out[i - bpp] if i >= bpp else 0
            up = prev[i] if prev != NULL else 0
            upleft = prev[i - bpp] if prev != NULL and i >= bpp else 0
            if kind == 0:
                out[i] = line[i]
            elif kind == 1:
                out[i] = <unsigned char> (line[i] + left)
            elif kind == 2:
                out[i] = <unsigned char> (line[i] + up)
            elif kind == 3:
                out[i] = <unsigned char> (line[i] + ((left + up) >> 1))
            else:
                out[i] = <unsigned char> (line[i] + _paeth(left, up, upleft))
    return -1


def _unfiltered(const unsigned char[::1] src, long rows, long stride, int bpp, str name):
    """The image bytes of ``rows`` filtered rows (one compiled pass)."""
    out = np.zeros(rows * stride, dtype=np.uint8)
    cdef unsigned char[::1] dst = out
    cdef int bad
    if rows == 0 or stride == 0:
        return out.reshape(rows, stride)
    if src.shape[0] < rows * (stride + 1):
        raise ValueError(f"{name}: the image data is cut short")
    with nogil:
        bad = _unfilter(&src[0], &dst[0], rows, stride, bpp)
    if bad >= 0:
        raise ValueError(f"{name}: unknown filter type {src[bad * (stride + 1)]} in row {bad}")
    return out.reshape(rows, stride)


def _samples(raw, long width, int depth, int channels):
    """Rows of bytes as samples (``(rows, width * channels)``, uint16 for 16 bits)."""
    if depth == 16:
        return raw.view(">u2")[:, :width * channels].astype(np.uint16)
    if depth == 8:
        return raw[:, :width * channels]
    bits = np.unpackbits(raw, axis=1)  # MSB first, as PNG packs them
    n = width * channels
    bits = bits[:, :n * depth].reshape(raw.shape[0], n, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    return (bits * weights).sum(axis=2).astype(np.uint8)


def _chunks(bytes data, str name):
    """(type, body) of each chunk, CRCs checked."""
    cdef Py_ssize_t at = 8, n = len(data)
    while at < n:
        if at + 8 > n:
            raise ValueError(f"{name}: cut short in a chunk header")
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        end = at + 8 + length
        if end + 4 > n:
            raise ValueError(f"{name}: cut short in chunk {kind!r}")
        body = data[at + 8:end]
        (crc,) = struct.unpack(">I", data[end:end + 4])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError(f"{name}: bad CRC in chunk {kind!r}")
        yield kind, body
        if kind == b"IEND":
            return
        at = end + 4
    raise ValueError(f"{name}: no IEND chunk (cut short)")


def read_png(source) -> np.ndarray:
    """The pixels of a PNG file (a path, or the file's bytes) as a ``(height, width, 4)``
    uint8 RGBA array, row 0 on top. Raises ``ValueError`` for a file that is not a readable
    PNG (see the module docstring), ``TypeError`` for a source that is neither a path nor
    bytes, and ``OSError`` as ``open`` does."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), "PNG data"
    elif isinstance(source, (str, Path)):
        name = str(source)
        data = Path(source).read_bytes()
    else:
        raise TypeError(f"read_png takes a path or bytes, got {type(source).__name__}")
    if not data.startswith(SIGNATURE):
        raise ValueError(f"{name}: not a PNG file (no PNG signature)")
    header = None
    palette = None
    trns = None
    idat = []
    for kind, body in _chunks(data, name):
        if kind == b"IHDR":
            if len(body) != 13:
                raise ValueError(f"{name}: IHDR has {len(body)} bytes, not 13")
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            if len(body) % 3 or not body:
                raise ValueError(f"{name}: PLTE of {len(body)} bytes is not RGB triples")
            palette = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
    if header is None:
        raise ValueError(f"{name}: no IHDR chunk")
    width, height, depth, colour, method, filtering, interlace = header
    if width == 0 or height == 0:
        raise ValueError(f"{name}: size {width}x{height} is empty")
    if colour not in CHANNELS:
        raise ValueError(f"{name}: unknown colour type {colour}")
    if depth not in DEPTHS[colour]:
        raise ValueError(f"{name}: bit depth {depth} is not allowed for colour type {colour}")
    if method != 0 or filtering != 0 or interlace not in (0, 1):
        raise ValueError(f"{name}: unknown compression {method}, filter method {filtering} "
                         f"or interlace {interlace}")
    if colour == 3 and palette is None:
        raise ValueError(f"{name}: a palette image without a PLTE chunk")
    if not idat:
        raise ValueError(f"{name}: no IDAT chunk")
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as exc:
        raise ValueError(f"{name}: the image data does not decompress ({exc})") from exc
    channels = CHANNELS[colour]
    bpp = max(1, channels * depth // 8)
    src = np.frombuffer(raw, dtype=np.uint8)
    if interlace == 0:
        stride = (width * channels * depth + 7) // 8
        samples = _samples(_unfiltered(src, height, stride, bpp, name), width, depth,
                           channels)
    else:
        samples = np.zeros((height, width * channels),
                           dtype=np.uint16 if depth == 16 else np.uint8)
        at = 0
        for r0, c0, dr, dc in ADAM7:
            rows = (height - r0 + dr - 1) // dr if height > r0 else 0
            cols = (width - c0 + dc - 1) // dc if width > c0 else 0
            if rows == 0 or cols == 0:
                continue
            stride = (cols * channels * depth + 7) // 8
            part = _samples(_unfiltered(src[at:], rows, stride, bpp, name), cols, depth,
                            channels)
            at += rows * (stride + 1)
            view = samples.reshape(height, width, channels)
            view[r0::dr, c0::dc] = part.reshape(rows, cols, channels)
    return _rgba(samples.reshape(height, width, channels), depth, colour, palette, trns, name)


def _rgba(px, int depth, int colour, palette, trns, str name):
    """Samples as 8-bit RGBA, transparency applied."""
    h, w = px.shape[:2]
    out = np.empty((h, w, 4), dtype=np.uint8)
    if colour == 3:
        idx = px[:, :, 0]
        if idx.max() >= len(palette):
            raise ValueError(f"{name}: palette index {int(idx.max())} beyond the "
                             f"{len(palette)} colours of PLTE")
        alphas = np.full(len(palette), 255, dtype=np.uint8)
        if trns is not None:
            given = np.frombuffer(trns, dtype=np.uint8)[:len(palette)]
            alphas[:len(given)] = given
        out[:, :, :3] = palette[idx]
        out[:, :, 3] = alphas[idx]
        return out
    key = None
    if trns is not None and colour in (0, 2):  # one fully transparent colour, at file depth
        want = 2 if colour == 0 else 6
        if len(trns) >= want:
            key = np.array(struct.unpack(">" + "H" * (want // 2), trns[:want]))
    if depth == 16:
        eight = ((px.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8)
    elif depth < 8:
        eight = (px.astype(np.uint16) * 255 // ((1 << depth) - 1)).astype(np.uint8)
    else:
        eight = px.astype(np.uint8)
    if colour in (0, 4):
        out[:, :, :3] = eight[:, :, :1]
    else:
        out[:, :, :3] = eight[:, :, :3]
    if colour in (4, 6):
        out[:, :, 3] = eight[:, :, -1]
    else:
        out[:, :, 3] = 255
        if key is not None:
            out[:, :, 3][np.all(px[:, :, :len(key)] == key, axis=2)] = 0
    return out
