"""PNG files read without an image library (``ecsphys.png``), checked against pyglet's own
pure-Python PNG reader on files written by a test encoder that uses every filter type, every
colour type and bit depth, transparency chunks and Adam7 interlacing; and bad files refused
with errors that say what is wrong."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyglet.extlibs import png as pypng

from ecsphys.mask import Mask
from ecsphys.png import read_png

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
         (1, 0, 2, 1))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def _row_bytes(samples: np.ndarray, depth: int) -> np.ndarray:
    """Rows of samples ``(rows, n)`` packed at ``depth`` bits (MSB first, rows padded)."""
    if depth == 16:
        return samples.astype(">u2").view(np.uint8).reshape(samples.shape[0], -1)
    if depth == 8:
        return samples.astype(np.uint8)
    shifts = np.arange(depth - 1, -1, -1)
    bits = (samples[:, :, None].astype(np.uint8) >> shifts) & 1
    return np.packbits(bits.reshape(samples.shape[0], -1), axis=1)


def _filter(raw: np.ndarray, kinds: list[int], bpp: int) -> bytes:
    """Each row filtered by its kind (0 .. 4), vectorised along the row."""
    out = []
    prev = np.zeros(raw.shape[1], dtype=np.int32)
    for row, kind in zip(raw.astype(np.int32), kinds, strict=True):
        left = np.concatenate((np.zeros(bpp, np.int32), row[:-bpp]))[:len(row)]
        upleft = np.concatenate((np.zeros(bpp, np.int32), prev[:-bpp]))[:len(row)]
        if kind == 0:
            f = row
        elif kind == 1:
            f = row - left
        elif kind == 2:
            f = row - prev
        elif kind == 3:
            f = row - (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
            f = row - pred
        out.append(bytes([kind]) + (f % 256).astype(np.uint8).tobytes())
        prev = row
    return b"".join(out)


def encode(samples: np.ndarray, colour: int, depth: int, kinds: list[int], interlace: bool,
           palette: bytes | None = None, trns: bytes | None = None) -> bytes:
    """A PNG of ``samples`` ``(height, width, channels)``, row filters taken from ``kinds``
    in turn."""
    h, w, c = samples.shape
    bpp = max(1, c * depth // 8)
    k = iter(kinds * 1000)
    if not interlace:
        raw = _row_bytes(samples.reshape(h, w * c), depth)
        data = _filter(raw, [next(k) for _ in range(h)], bpp)
    else:
        data = b""
        for r0, c0, dr, dc in ADAM7:
            sub = samples[r0::dr, c0::dc]
            if sub.size == 0:
                continue
            raw = _row_bytes(sub.reshape(sub.shape[0], -1), depth)
            data += _filter(raw, [next(k) for _ in range(sub.shape[0])], bpp)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(
        b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, int(interlace)))
    if palette is not None:
        out += _chunk(b"PLTE", palette)
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    z = zlib.compress(data)
    return out + _chunk(b"IDAT", z[:7]) + _chunk(b"IDAT", z[7:]) + _chunk(b"IEND", b"")


def oracle(data: bytes) -> np.ndarray:
    w, h, rows, _ = pypng.Reader(bytes=data).asRGBA8()
    return np.array([list(r) for r in rows], dtype=np.uint8).reshape(h, w, 4)


@st.composite
def images(draw):
    colour = draw(st.sampled_from(sorted(CHANNELS)))
    depth = draw(st.sampled_from(DEPTHS[colour]))
    h, w = draw(st.integers(1, 19)), draw(st.integers(1, 19))
    top = (1 << depth) - 1
    palette = trns = None
    if colour == 3:
        n = draw(st.integers(1, min(256, top + 1)))
        top = n - 1
        palette = bytes(draw(st.lists(st.integers(0, 255), min_size=3 * n, max_size=3 * n)))
        if draw(st.booleans()):
            trns = bytes(draw(st.lists(st.integers(0, 255), max_size=n)))
    seed = draw(st.integers(0, 2**32 - 1))
    samples = np.random.default_rng(seed).integers(0, top + 1, (h, w, CHANNELS[colour]))
    if colour in (0, 2) and draw(st.booleans()):
        key = samples[0, 0] if draw(st.booleans()) else np.zeros(CHANNELS[colour], int)
        trns = struct.pack(">" + "H" * len(key), *(int(v) for v in key))
    kinds = draw(st.lists(st.integers(0, 4), min_size=1, max_size=6))
    return samples.astype(np.uint16), colour, depth, kinds, draw(st.booleans()), palette, trns


@settings(max_examples=300, deadline=None)
@given(images())
def test_every_kind_of_png_reads_as_pyglets_reader_reads_it(image):
    data = encode(*image)
    assert np.array_equal(read_png(data), oracle(data))


def test_a_file_on_disk_and_a_mask_from_it(tmp_path):
    rgba = np.zeros((3, 4, 4), dtype=np.uint8)
    rgba[0, 0, 3] = 255   # top left opaque
    rgba[2, 3, 3] = 200   # bottom right mostly opaque
    rgba[1, 1, 3] = 100   # under the default threshold
    path = tmp_path / "sprite.png"
    path.write_bytes(encode(rgba, 6, 8, [4, 1], False))
    assert np.array_equal(read_png(path), rgba)
    m = Mask.from_file(path, scale=2.0)
    assert m.size == (4, 3) and m.scale == 2.0
    assert m.pixels.tolist() == [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]
    assert Mask.from_file(str(path), threshold=50).count == 3
    assert Mask.from_file(path.read_bytes()) == m.__class__(m.pixels)
    # an image without alpha is all set, but for its transparent colour
    grey = np.array([[[0], [7]], [[7], [0]]], dtype=np.uint16)
    assert Mask.from_file(encode(grey, 0, 8, [0], False)).count == 4
    keyed = encode(grey, 0, 8, [0], False, trns=struct.pack(">H", 7))
    assert Mask.from_file(keyed).pixels.tolist() == [[1, 0], [0, 1]]


@pytest.mark.parametrize("interlace", [False, True])
def test_files_pyglets_writer_wrote_read_back(tmp_path, interlace):
    rgba = np.random.default_rng(3).integers(0, 256, (9, 11, 4), dtype=np.uint8)
    path = tmp_path / "written.png"
    with open(path, "wb") as f:
        writer = pypng.Writer(11, 9, greyscale=False, alpha=True, interlace=interlace)
        writer.write(f, rgba.reshape(9, -1))
    assert np.array_equal(read_png(path), rgba)
    grey16 = np.random.default_rng(4).integers(0, 65536, (4, 5), dtype=np.uint16)
    with open(path, "wb") as f:
        pypng.Writer(5, 4, greyscale=True, bitdepth=16, interlace=interlace).write(f, grey16)
    got = read_png(path)
    assert np.array_equal(got[:, :, 0], (grey16.astype(np.int64) * 255 + 32767) // 65535)
    assert (got[:, :, 3] == 255).all()


def test_bad_files_are_refused_saying_why(tmp_path):
    good = encode(np.zeros((2, 2, 4), np.uint16), 6, 8, [0], False)
    with pytest.raises(ValueError, match="not a PNG"):
        read_png(b"GIF89a")
    with pytest.raises(ValueError, match="cut short"):
        read_png(good[:-20])
    broken = bytearray(good)
    broken[30] ^= 1  # inside IHDR's body
    with pytest.raises(ValueError, match="bad CRC.*IHDR"):
        read_png(bytes(broken))
    with pytest.raises(ValueError, match="unknown filter type 9"):
        read_png(_tiny(kind=9))
    with pytest.raises(ValueError, match="bit depth 4 is not allowed for colour type 2"):
        read_png(_tiny(colour=2, depth=4))
    with pytest.raises(ValueError, match="without a PLTE"):
        read_png(encode(np.zeros((1, 1, 1), np.uint16), 3, 8, [0], False))
    with pytest.raises(ValueError, match="palette index 5"):
        read_png(encode(np.full((1, 1, 1), 5, np.uint16), 3, 8, [0], False, palette=b"abc"))
    path = tmp_path / "sprite.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ValueError, match=f"{path}: no IEND"):
        Mask.from_file(path)
    with pytest.raises(FileNotFoundError):
        Mask.from_file(tmp_path / "missing.png")
    with pytest.raises(TypeError, match="Mask.from_file path"):
        Mask.from_file(3)
    with pytest.raises(TypeError, match="Mask.threshold"):
        Mask.from_file(good, threshold=0.5)
    with pytest.raises(ValueError, match="Mask.threshold"):
        Mask.from_file(good, threshold=-1)


def _tiny(kind: int = 0, colour: int = 0, depth: int = 8) -> bytes:
    """A 1x1 PNG (checksums right) whose one row claims filter type ``kind``."""
    data = zlib.compress(bytes([kind, 0, 0, 0]))
    return (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, depth, colour, 0, 0, 0))
            + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))
