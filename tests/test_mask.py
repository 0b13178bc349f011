"""Pixel masks: packing, point tests and mask-against-mask overlaps against brute force.

Shows: two masks overlap exactly when two of their set pixels share area (checked against a
per-pixel loop on random masks, offsets and scales, whole and fractional, negative and far
from the origin); a point is in a mask exactly when it lies in a set pixel (left and bottom
sides included); the physics refuses a mask it cannot step yet, leaving the world as it was.
Masks from image files (written here with Pillow, which reads them): alpha thresholded in
every kind of image, transparent colours, the first frame of an animation; bad, crafted and
oversized files refused with a ValueError naming the file, never a crash (issue 27: a PNG
whose claimed size wrapped the old hand-written decoder's buffer length killed it).
"""

from __future__ import annotations

import io
import re
import struct
import subprocess
import sys
import zlib

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image

import ecsphys as ep
from ecsphys import geometry
from ecsphys.limits import MAX_MASK_PIXELS, MAX_MASK_SIDE
from ecsphys.mask import Mask, pack


def _pixel_boxes(m: Mask, pos: tuple[float, float]) -> np.ndarray:
    """World boxes (x0, y0, x1, y1) of the set pixels."""
    h = m.pixels.shape[0]
    rows, cols = np.nonzero(m.pixels)
    s = m.scale
    left = pos[0] + m.offset[0] - m.size[0] * s / 2
    top = pos[1] + m.offset[1] + h * s / 2
    return np.column_stack((left + cols * s, top - (rows + 1) * s, left + (cols + 1) * s,
                            top - rows * s))


def brute_overlap(a: Mask, pa: tuple[float, float], b: Mask, pb: tuple[float, float]) -> bool:
    """Some set pixel of a shares area with some set pixel of b (per-pixel loop)."""
    ba, bb = _pixel_boxes(a, pa), _pixel_boxes(b, pb)
    if not len(ba) or not len(bb):
        return False
    eps = 1e-9 * min(a.scale, b.scale)
    w = np.minimum(ba[:, None, 2], bb[None, :, 2]) - np.maximum(ba[:, None, 0], bb[None, :, 0])
    h = np.minimum(ba[:, None, 3], bb[None, :, 3]) - np.maximum(ba[:, None, 1], bb[None, :, 1])
    return bool(((w > eps) & (h > eps)).any())


def test_packing_puts_column_c_in_bit_c():
    px = np.zeros((3, 130), dtype=bool)
    px[0, 0] = px[1, 63] = px[1, 64] = px[2, 129] = True
    bits = pack(px)
    assert bits.shape == (3, 3)
    assert bits[0, 0] == 1 and bits[1, 0] == 1 << 63 and bits[1, 1] == 1
    assert bits[2, 2] == 1 << 1 and bits.sum() == 1 + (1 << 63) + 1 + 2


def test_two_round_sprites_whose_boxes_overlap_but_not_their_pixels():
    """Seed 001's figure: two balls, boxes overlapping at the corners, pixels apart."""
    yy, xx = np.mgrid[0:20, 0:20]
    ball = Mask((xx - 9.5) ** 2 + (yy - 9.5) ** 2 <= 10 ** 2)
    assert geometry.overlaps(ball, (0, 0), ball, (16, 16)) is False  # boxes overlap 4 x 4
    assert geometry.overlaps(ball, (0, 0), ball, (14, 14)) is True
    # one pixel overlapping: a single-pixel mask moved across a ball's edge
    dot = Mask([[1]])
    assert geometry.overlaps(ball, (0, 0), dot, (10.5, 0.5)) is False  # just outside x = 10
    assert geometry.overlaps(ball, (0, 0), dot, (9.5, 0.5)) is True
    assert geometry.overlaps(ball, (0, 0), dot, (10.0, 0.5)) is True  # half a pixel in


masks = hnp.arrays(np.bool_, st.tuples(st.integers(1, 70), st.integers(1, 9)))
offsets = st.one_of(st.integers(-90, 90).map(float),
                    st.integers(-360, 360).map(lambda q: q / 4),
                    st.floats(-90, 90, allow_nan=False))


@settings(max_examples=400, deadline=None)
@given(a=masks, b=masks, dx=offsets, dy=offsets, far=st.sampled_from([0.0, 1e4, -3e5]))
def test_overlap_matches_the_pixel_loop_same_scale(a, b, dx, dy, far):
    ma, mb = Mask(a), Mask(b.T)
    pa, pb = (far, -far), (far + dx / 3, -far + dy / 3)
    assert geometry.overlaps(ma, pa, mb, pb) == brute_overlap(ma, pa, mb, pb)
    assert geometry.overlaps(mb, pb, ma, pa) == brute_overlap(ma, pa, mb, pb)


@settings(max_examples=200, deadline=None)
@given(a=masks, b=masks, dx=offsets, dy=offsets,
       sa=st.sampled_from([1.0, 0.5, 2.0, 0.3]), sb=st.sampled_from([1.0, 0.25, 1.5, 0.7]))
def test_overlap_matches_the_pixel_loop_any_scale(a, b, dx, dy, sa, sb):
    ma, mb = Mask(a, scale=sa), Mask(b, scale=sb, offset=(0.5, -0.25))
    pa, pb = (0.0, 0.0), (dx / 4, dy / 4)
    assert geometry.overlaps(ma, pa, mb, pb) == brute_overlap(ma, pa, mb, pb)
    assert geometry.overlaps(mb, pb, ma, pa) == brute_overlap(ma, pa, mb, pb)


def test_points_at_inside_and_outside_the_edges():
    m = Mask([[1, 0], [1, 1]], scale=2.0, offset=(100, -50))  # pixels 2 x 2, centre (100, -50)
    at = (1000.0, 2000.0)  # far from the origin
    x0, y0 = at[0] + 100 - 2, at[1] - 50 - 2  # the mask's bottom-left corner
    inside = [(x0 + 1, y0 + 1), (x0 + 3, y0 + 1), (x0 + 1, y0 + 3)]
    empty = [(x0 + 3, y0 + 3)]  # the top-right pixel is not set
    outside = [(x0 - 0.01, y0 + 1), (x0 + 1, y0 - 0.01), (x0 + 4.01, y0 + 1),
               (x0 + 1, y0 + 4.01), (x0 - 1e6, y0 + 1)]
    for p in inside:
        assert geometry.point_in(m, at, p), p
    for p in empty + outside:
        assert not geometry.point_in(m, at, p), p
    # sides: the left and bottom sides of a pixel belong to it
    assert geometry.point_in(m, at, (x0, y0 + 1))  # the mask's left side
    assert geometry.point_in(m, at, (x0 + 1, y0))  # its bottom side
    # between the set top-left pixel and the empty top-right one: the empty one's left side
    assert not geometry.point_in(m, at, (x0 + 2, y0 + 3))
    assert geometry.point_in(m, at, (x0 + 2, y0 + 1))  # the bottom-right pixel's left side
    assert not geometry.point_in(m, at, (x0 + 4, y0 + 1))  # the right side: outside


@settings(max_examples=200, deadline=None)
@given(px=hnp.arrays(np.bool_, st.tuples(st.integers(1, 80), st.integers(1, 9))),
       x=st.floats(-50, 50), y=st.floats(-50, 50), scale=st.sampled_from([1.0, 0.5, 3.0]))
def test_point_matches_the_pixel_loop(px, x, y, scale):
    m = Mask(px, scale=scale, offset=(1.5, -2.0))
    boxes = _pixel_boxes(m, (0.0, 0.0))
    inside = ((boxes[:, 0] <= x) & (x < boxes[:, 2]) & (boxes[:, 1] <= y) & (y < boxes[:, 3]))
    on_edge = np.isclose(np.concatenate((boxes[:, 0] - x, boxes[:, 2] - x, boxes[:, 1] - y,
                                         boxes[:, 3] - y)), 0.0, atol=1e-9).any()
    if not on_edge:
        assert geometry.point_in(m, (0.0, 0.0), (x, y)) == bool(inside.any())


def test_masks_from_images_and_bad_input():
    class Image:  # pyglet's image interface: RGBA rows from the bottom
        width, height = 3, 2

        def get_image_data(self):
            return self

        def get_data(self, fmt, pitch):
            assert fmt == "RGBA" and pitch == 12
            rgba = np.zeros((2, 3, 4), dtype=np.uint8)
            rgba[0, 0, 3] = 255  # bottom-left
            rgba[1, 2, 3] = 200  # top-right
            rgba[1, 1, 3] = 100  # under the threshold
            return rgba.tobytes()

    m = Mask.from_image(Image())
    assert m.pixels.tolist() == [[False, False, True], [True, False, False]]
    assert Mask.from_image(Image(), threshold=50).count == 3
    with pytest.raises(TypeError, match="get_image_data"):
        Mask.from_image(object())
    with pytest.raises(ValueError, match="threshold"):
        Mask.from_image(Image(), threshold=300)
    for bad, exc in [(np.zeros((2, 2, 2)), ValueError), (np.zeros((0, 3)), ValueError),
                     (np.array([["a"]]), TypeError)]:
        with pytest.raises(exc, match="Mask.pixels"):
            Mask(bad)
    with pytest.raises(ValueError, match="Mask.scale"):
        Mask([[1]], scale=0)
    assert Mask([[1, 0]]) == Mask(np.array([[True, False]]))
    assert Mask([[1, 0]]) != Mask([[1, 0]], scale=2.0)


def test_exact_distances_with_masks_are_refused_clearly():
    m = Mask([[1]])
    with pytest.raises(TypeError, match="Mask"):
        geometry.distance(m, (0, 0), ep.Circle(1), (5, 0))


def brute_line(m: Mask, pos: tuple[float, float], line: geometry.Line) -> bool:
    """Some set pixel's square has corners on both sides of the line (or within the
    tolerance of it)."""
    boxes = _pixel_boxes(m, pos)
    nx, ny = line.normal
    k = nx * line.base[0] + ny * line.base[1]
    xs = boxes[:, [0, 2, 0, 2]]
    ys = boxes[:, [1, 1, 3, 3]]
    proj = nx * xs + ny * ys
    tol = geometry.TOUCH_TOLERANCE
    return bool(np.any((proj.min(axis=1) - tol <= k) & (k <= proj.max(axis=1) + tol)))


def test_lines_through_a_mask_touch_only_set_pixels():
    ring = Mask([[1, 1, 1], [1, 0, 1], [1, 1, 1]])  # pixels -1.5 .. 1.5, a hole in the middle
    hole = Mask([[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    assert geometry.line_overlaps(geometry.Line((0, 0), (1, 0)), ring, (0, 0))
    assert geometry.line_overlaps(geometry.Line((0, 0), (1, 0)), hole, (0, 0))
    # the hole's pixel spans y -0.5 .. 0.5: a horizontal line at 0.6 misses it, at 0.5 touches
    assert not geometry.line_overlaps(geometry.Line((0, 0.6), (1, 0)), hole, (0, 0))
    assert geometry.line_overlaps(geometry.Line((0, 0.5), (1, 0)), hole, (0, 0))
    # a diagonal just past the ring's corner misses; through the corner it touches
    assert not geometry.line_overlaps(geometry.Line((1.6, 1.6), (1, -1)), ring, (0, 0))
    assert geometry.line_overlaps(geometry.Line((1.5, 1.5), (1, -1)), ring, (0, 0))
    assert geometry.line_overlaps(geometry.Line((1e5 + 1.5, 1.5), (1, -1)), ring, (1e5, 0))


@settings(max_examples=300, deadline=None)
@given(px=hnp.arrays(np.bool_, st.tuples(st.integers(1, 12), st.integers(1, 140))),
       bx=st.floats(-40, 40), by=st.floats(-15, 15), ang=st.floats(0, 6.283),
       scale=st.sampled_from([1.0, 0.5, 0.3]), axis=st.booleans())
def test_line_overlaps_matches_the_pixel_loop(px, bx, by, ang, scale, axis):
    m = Mask(px, scale=scale, offset=(0.5, -0.25))
    d = (1.0, 0.0) if axis else (float(np.cos(ang)), float(np.sin(ang)))
    line = geometry.Line((bx * scale, by * scale), d)
    assert geometry.line_overlaps(line, m, (0.0, 0.0)) == brute_line(m, (0.0, 0.0), line)
    part = ep.Compound([ep.Circle(0.1, offset=(500.0, 0.0)), m])
    assert geometry.line_overlaps(line, part, (0.0, 0.0)) == (
        brute_line(m, (0.0, 0.0), line) or geometry.line_overlaps(line, ep.Circle(0.1),
                                                                   (500.0, 0.0)))


@settings(max_examples=300, deadline=None)
@given(px=hnp.arrays(np.bool_, st.tuples(st.integers(1, 12), st.integers(1, 70))),
       ox=st.floats(-30, 30), oy=st.floats(-30, 30), ang=st.floats(0, 6.283),
       scale=st.sampled_from([1.0, 0.5, 0.3]))
def test_rays_hit_the_first_set_pixel(px, ox, oy, ang, scale):
    """The first hit is the nearest hit among the set pixels' squares (brute force)."""
    m = Mask(px, scale=scale, offset=(0.7, -0.4))
    at = (2.0, 1.0)
    direction = (float(np.cos(ang)), float(np.sin(ang)))
    got = geometry.raycast(m, at, (ox, oy), direction, 80.0)
    best = None
    square = ep.Rect(scale, scale)
    for x0, y0, x1, y1 in _pixel_boxes(m, at):
        hit = geometry.raycast(square, ((x0 + x1) / 2, (y0 + y1) / 2), (ox, oy), direction, 80.0)
        if hit is not None and (best is None or hit[0] < best[0]):
            best = hit
    if best is None:
        assert got is None
        return
    assert got is not None, (best, direction)
    assert got[0] == pytest.approx(best[0], abs=1e-7)
    hx, hy = ox + direction[0] * got[0], oy + direction[1] * got[0]
    u = (hx - (at[0] + 0.7 - m.size[0] * scale / 2)) / scale
    v = (hy - (at[1] - 0.4 - m.size[1] * scale / 2)) / scale
    on_corner = abs(u - round(u)) < 1e-6 and abs(v - round(v)) < 1e-6
    if got[0] > 0.0 and not on_corner:
        assert got[1] == pytest.approx(best[1], abs=1e-9)


# ------------------------------------------------------------------ Mask.from_file

def _save(img, fmt: str, **params) -> bytes:
    """The bytes of a Pillow image saved as ``fmt``."""
    buf = io.BytesIO()
    img.save(buf, fmt, **params)
    return buf.getvalue()


def _rgba_sprite() -> np.ndarray:
    rgba = np.zeros((3, 4, 4), dtype=np.uint8)
    rgba[..., 0] = 200
    rgba[0, 0, 3] = 255   # top left opaque
    rgba[2, 3, 3] = 200   # bottom right mostly opaque
    rgba[1, 1, 3] = 100   # under the default threshold
    return rgba


def test_a_file_on_disk_and_a_mask_from_it(tmp_path):
    path = tmp_path / "sprite.png"
    path.write_bytes(_save(Image.fromarray(_rgba_sprite(), "RGBA"), "PNG"))
    m = Mask.from_file(path, scale=2.0)
    assert m.size == (4, 3) and m.scale == 2.0
    assert m.pixels.tolist() == [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]
    assert Mask.from_file(str(path), threshold=50).count == 3
    assert Mask.from_file(path.read_bytes()) == Mask(m.pixels)  # the file's bytes
    assert Mask.from_file(bytearray(path.read_bytes())) == Mask(m.pixels)
    with open(path, "rb") as f:  # a binary file object
        assert Mask.from_file(f) == Mask(m.pixels)
    assert Mask.from_file(path, threshold=255).count == 0
    assert Mask.from_file(path, threshold=0).count == 3


def test_images_without_alpha_are_all_set_but_for_their_transparent_colour():
    grey = np.array([[0, 7], [7, 0]], dtype=np.uint8)
    assert Mask.from_file(_save(Image.fromarray(grey, "L"), "PNG")).count == 4
    keyed = _save(Image.fromarray(grey, "L"), "PNG", transparency=7)  # a tRNS grey
    assert Mask.from_file(keyed).pixels.tolist() == [[1, 0], [0, 1]]
    rgb = np.zeros((2, 2, 3), dtype=np.uint8)
    rgb[0, 1] = (1, 2, 3)
    assert Mask.from_file(_save(Image.fromarray(rgb, "RGB"), "BMP")).count == 4
    keyed = _save(Image.fromarray(rgb, "RGB"), "PNG", transparency=(1, 2, 3))
    assert Mask.from_file(keyed).pixels.tolist() == [[1, 0], [1, 1]]
    jpeg = _save(Image.fromarray(np.full((5, 6, 3), 90, np.uint8), "RGB"), "JPEG")
    assert Mask.from_file(jpeg).size == (6, 5) and Mask.from_file(jpeg).count == 30


def test_palette_grey_alpha_and_16_bit_images_threshold_their_alpha():
    index = np.array([[0, 1, 2], [2, 1, 0]], dtype=np.uint8)
    pal = Image.fromarray(index, "P")
    pal.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0])
    want = [[1, 0, 1], [1, 0, 1]]
    for fmt in ("PNG", "GIF"):  # one transparent index
        assert Mask.from_file(_save(pal, fmt, transparency=1)).pixels.tolist() == want, fmt
    # a palette's alphas (PNG tRNS of several entries)
    alphas = _save(pal, "PNG", transparency=bytes([255, 0, 100]))
    assert Mask.from_file(alphas).pixels.tolist() == [[1, 0, 0], [0, 0, 1]]
    assert Mask.from_file(alphas, threshold=99).pixels.tolist() == [[1, 0, 1], [1, 0, 1]]
    assert Mask.from_file(alphas, threshold=100).pixels.tolist() == [[1, 0, 0], [0, 0, 1]]
    la = np.zeros((2, 2, 2), dtype=np.uint8)
    la[0, 0, 1] = 255
    la[1, 1, 1] = 128
    assert Mask.from_file(_save(Image.fromarray(la, "LA"), "PNG")).pixels.tolist() == [
        [1, 0], [0, 1]]
    rgba = _rgba_sprite()
    for fmt, params in (("WEBP", {"lossless": True}), ("TIFF", {}), ("TGA", {}),
                        ("QOI", {})):
        got = Mask.from_file(_save(Image.fromarray(rgba, "RGBA"), fmt, **params))
        assert got.pixels.tolist() == [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]], fmt
    # 16-bit RGBA: alpha 0x7F80 keeps its high byte 127 (not set), 0x8000 is 128 (set)
    raw = b"\0" + struct.pack(">8H", 0, 0, 0, 0x7F80, 0, 0, 0, 0x8000)
    sixteen = _png_claiming(2, 1, 16, 6, zlib.compress(raw))
    assert Mask.from_file(sixteen).pixels.tolist() == [[0, 1]]


def test_an_animated_image_gives_its_first_frame():
    frames = [Image.fromarray(np.array([[0, 1], [1, 1]], np.uint8) * k, "P") for k in (1, 2)]
    for f in frames:
        f.putpalette([0, 0, 0, 255, 255, 255, 9, 9, 9])
    data = _save(frames[0], "GIF", save_all=True, append_images=frames[1:], transparency=0)
    assert Image.open(io.BytesIO(data)).n_frames == 2
    assert Mask.from_file(data).pixels.tolist() == [[0, 1], [1, 1]]


def test_bad_files_are_refused_naming_the_file(tmp_path):
    noise = np.random.default_rng(5).integers(0, 256, (32, 32, 4), dtype=np.uint8)
    good = _save(Image.fromarray(noise, "RGBA"), "PNG")
    path = tmp_path / "sprite.png"
    cases = {
        "not an image": b"GIF87 is what this is not",
        "empty": b"",
        "signature only": b"\x89PNG\r\n\x1a\n",
        "cut in the header": good[:30],
        "bad CRC": good[:30] + bytes([good[30] ^ 1]) + good[31:],  # inside IHDR's body
        "cut in the pixels": good[:len(good) // 2],
    }
    for data in cases.values():
        path.write_bytes(data)
        with pytest.raises(ValueError, match=re.escape(str(path))):
            Mask.from_file(path)
        with pytest.raises(ValueError, match="the image bytes"):
            Mask.from_file(data)
    # Pillow needs no more than the pixels: a file cut after them (no IEND) still reads
    assert Mask.from_file(good[:-12]) == Mask(noise[:, :, 3] > 127)
    with pytest.raises(FileNotFoundError):
        Mask.from_file(tmp_path / "missing.png")
    with pytest.raises(IsADirectoryError):
        Mask.from_file(tmp_path)
    with pytest.raises(TypeError, match="Mask.from_file path"):
        Mask.from_file(3)
    with pytest.raises(TypeError, match="Mask.threshold"):
        Mask.from_file(good, threshold=0.5)
    with pytest.raises(ValueError, match="Mask.threshold"):
        Mask.from_file(good, threshold=-1)


def test_eps_is_not_opened(tmp_path):
    """Pillow reads EPS by running Ghostscript on it: not for untrusted files."""
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 2 2\n0 0 moveto\nshowpage\n%%EOF\n"
    path = tmp_path / "sprite.eps"
    path.write_bytes(eps)
    with pytest.raises(ValueError, match=re.escape(str(path))):
        Mask.from_file(path)


def test_images_beyond_the_limits_are_refused_before_decoding(monkeypatch):
    side = _save(Image.new("L", (MAX_MASK_SIDE + 1, 1)), "PNG")
    with pytest.raises(ValueError, match=f"at most {MAX_MASK_SIDE} a side"):
        Mask.from_file(side)
    many = _png_claiming(8193, 8192, 8, 6, zlib.compress(bytes(8)))  # cut short: never read
    with pytest.raises(ValueError, match=f"at most {MAX_MASK_PIXELS} pixels in all"):
        Mask.from_file(many)
    assert Mask.from_file(_save(Image.new("L", (MAX_MASK_SIDE, 1)), "PNG")).size == (
        MAX_MASK_SIDE, 1)
    # Pillow's own guard is obeyed when it is lower than ours: what it warns of is refused
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)
    small = _save(Image.new("L", (11, 10)), "PNG")
    with pytest.raises(ValueError, match="DecompressionBomb"):
        Mask.from_file(small)
    assert Mask.from_file(_save(Image.new("L", (10, 10)), "PNG")).count == 100


def test_without_pillow_the_core_imports_and_from_file_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL raises ImportError
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=re.escape('pip install "ecsphys[images]"')):
        Mask.from_file(b"\x89PNG\r\n\x1a\n")
    out = subprocess.run([sys.executable, "-c", (
        "import sys; sys.modules['PIL'] = None\n"
        "import ecsphys, ecsphys.mask\n"
        "print(sorted(m for m in sys.modules if m.startswith('PIL')))")],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "['PIL']", (out.stdout, out.stderr)

# ------------------------------------------------------------------ Mask.from_file: crafted files
# (each read in a child process: a crash there fails the test, not the run)

def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def _png_claiming(width: int, height: int, depth: int, colour: int, idat: bytes) -> bytes:
    """A PNG whose IHDR (checksums right) claims ``width`` x ``height``, with ``idat`` as its
    one IDAT chunk's body."""
    return (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))


def _zeros_deflated(n_mib: int) -> bytes:
    """A zlib stream of ``n_mib`` MiB of zero bytes, made in a blink: one fully flushed
    deflate block of 1 MiB of zeros repeated (each such block stands alone), then the final
    empty block and the Adler-32 of the zeros."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    n = n_mib << 20
    return b"\x78\xda" + block * n_mib + c.flush() + struct.pack(">I", (n % 65521) << 16 | 1)


#: Runs Mask.from_file in a child process on the file named by argv[1] (so a crash is seen,
#: not suffered); exit 0 and the message if it raised ValueError, 3 if it answered a Mask;
#: argv[2] is the most NumPy and Python may allocate meanwhile (bytes, traced: exit 4 if more);
#: argv[3] == "noguard" turns Pillow's decompression-bomb guard off (ours must hold alone).
_READ = """
import sys, tracemalloc
from PIL import Image
from ecsphys.mask import Mask
if sys.argv[3:] == ["noguard"]:
    Image.MAX_IMAGE_PIXELS = None
tracemalloc.start()
try:
    Mask.from_file(sys.argv[1])
except ValueError as e:
    print("ValueError:", e)
    peak = tracemalloc.get_traced_memory()[1]
    if len(sys.argv) > 2 and peak > int(sys.argv[2]):
        print("allocated", peak, "bytes")
        sys.exit(4)
    sys.exit(0)
sys.exit(3)
"""


def _read_in_child(path, limit: int = 1 << 40,
                   guard: bool = True) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-c", _READ, str(path), str(limit)] + ([] if guard else ["noguard"])
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def test_a_png_whose_size_wraps_the_buffer_length_is_refused_not_a_crash(tmp_path):
    """Issue 27: a 0.5 MB PNG claiming 4,294,705,160 x 536,903,681 RGBA16 pixels made the
    old decoder's ``rows * stride`` wrap to 64 bytes in a C long; unfiltering then wrote past
    that buffer (SIGSEGV). It is refused before anything is decoded."""
    path = tmp_path / "wrap.png"
    path.write_bytes(_png_claiming(4_294_705_160, 536_903_681, 16, 6, _zeros_deflated(513)))
    assert path.stat().st_size < 600_000
    for guard in (True, False):
        out = _read_in_child(path, guard=guard)
        assert out.returncode == 0, (guard, out.returncode, out.stdout, out.stderr[-2000:])
        assert out.stdout.startswith("ValueError:") and str(path) in out.stdout, out.stdout


@pytest.mark.parametrize(("width", "height", "depth", "colour"), [
    (4_294_967_295, 4_294_967_295, 16, 6),  # rows * stride wraps negative
    (1_000_000, 1_000_000, 8, 0),           # a terabyte claimed
    (30_000, 30_000, 8, 6),                 # 3.6 GB claimed
    (2, 0, 8, 6),                           # empty
])
def test_a_68_byte_png_claiming_any_size_is_refused_naming_the_file(tmp_path, width, height,
                                                                     depth, colour):
    data = _png_claiming(width, height, depth, colour, zlib.compress(bytes(8), 9))
    assert len(data) == 68
    path = tmp_path / "claim.png"
    path.write_bytes(data)
    for guard in (True, False):  # with Pillow's guard off, the size limits refuse it alone
        out = _read_in_child(path, limit=32 << 20, guard=guard)
        assert out.returncode == 0, (guard, out.returncode, out.stdout, out.stderr[-2000:])
        assert out.stdout.startswith("ValueError:") and str(path) in out.stdout, out.stdout


# ------------------------------------------------------------------ masks in the step

DT = 1 / 60


def _ball(scale: float = 0.1) -> Mask:
    yy, xx = np.mgrid[0:20, 0:20]
    return Mask((xx - 9.5) ** 2 + (yy - 9.5) ** 2 <= 100, scale=scale)  # 2 units wide


def _log(physics):
    log = []
    physics.on_touch(lambda c: log.append(("touch", physics.steps, c.pair)))
    physics.on_separate(lambda c: log.append(("separate", physics.steps, c.pair)))
    return log


def test_a_mask_sprite_dropped_on_a_floor_comes_to_rest_and_touches_once(world):
    physics = ep.Physics(fixed_dt=DT)
    floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(20, 1)))
    ball = esper.create_entity(ep.Position(0.3, 4), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -9.8)), ep.Collider(ep.ACTIVE),
                               ep.Geometry(_ball()))
    log = _log(physics)
    pos = esper.component_for_entity(ball, ep.Position)
    vel = esper.component_for_entity(ball, ep.Velocity)
    for _ in range(90):
        esper.process(DT)
    assert pos.y == pytest.approx(1.5, abs=1e-3)  # its lowest pixels on the floor's top
    rest = pos.xy
    for _ in range(120):  # and it stays there, still, touching
        esper.process(DT)
        assert pos.xy == pytest.approx(rest, abs=1e-6)
    assert vel.xy == pytest.approx((0.0, 0.0), abs=1e-6)
    assert [(name, pair) for name, _, pair in log] == [("touch", (floor, ball))]
    c = physics.contacts_of(ball)[0]
    assert c.normal_from(floor) == pytest.approx((0.0, 1.0), abs=1e-6)


def test_a_mask_pushed_into_a_wall_slides_along_it(world):
    ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(3, 0), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(1, 40)))
    ball = esper.create_entity(ep.Position(0, 0), ep.Velocity(4, -3), ep.Collider(ep.ACTIVE),
                               ep.Geometry(_ball()))
    pos = esper.component_for_entity(ball, ep.Position)
    vel = esper.component_for_entity(ball, ep.Velocity)
    ys = []
    for _ in range(60):
        vel.xy = (4.0, -3.0)  # pressing into the wall and moving down
        esper.process(DT)
        ys.append(pos.y)
    assert pos.x == pytest.approx(1.5, abs=1e-3)  # against the wall's face at x = 2.5
    steps = np.diff(ys[-30:]) / DT
    assert steps == pytest.approx(np.full(len(steps), -3.0), abs=1e-6)  # slides at 3


@pytest.mark.parametrize("speed", [300.0, 900.0, 3000.0])
def test_a_fast_mask_never_passes_a_thin_wall(world, speed):
    ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(10, 0), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Rect(0.1, 40)))
    ball = esper.create_entity(ep.Position(0, 0), ep.Velocity(speed, 7), ep.Collider(ep.ACTIVE),
                               ep.Geometry(_ball(0.05)))  # 1 unit wide
    pos = esper.component_for_entity(ball, ep.Position)
    for _ in range(20):
        esper.process(DT)
        assert pos.x <= 10 - 0.05 - 0.5 + 1e-3


def test_masks_in_compounds_with_layers_and_sensors(world):
    layers = ep.Layers("player", "ghost", "wall")
    physics = ep.Physics(fixed_dt=DT)
    wall = esper.create_entity(ep.Position(3, 0), ep.Collider(ep.STATIC, layer=layers.wall),
                               ep.Geometry(ep.Rect(1, 40)))
    sensor = esper.create_entity(ep.Position(1.5, 6), ep.Collider(ep.STATIC, sensor=True),
                                 ep.Geometry(_ball()))
    body = ep.Compound([_ball(), ep.Circle(0.5, offset=(0, -2))])  # a mask with a foot
    player = esper.create_entity(ep.Position(0, 6), ep.Velocity(4, 0),
                                 ep.Collider(ep.ACTIVE, layer=layers.player),
                                 ep.Geometry(body))
    ghost = esper.create_entity(ep.Position(0, -6), ep.Velocity(4, 0),
                                ep.Collider(ep.ACTIVE, layer=layers.ghost,
                                            mask=layers.mask("player")),
                                ep.Geometry(_ball()))
    log = _log(physics)
    for _ in range(90):
        esper.process(DT)
    px = esper.component_for_entity(player, ep.Position).x
    gx = esper.component_for_entity(ghost, ep.Position).x
    assert px == pytest.approx(1.5, abs=1e-3)  # the compound's mask stopped by the wall
    assert gx > 5.0  # the ghost's mask ignores walls: it passed through
    pairs = [(name, pair) for name, _, pair in log]
    assert ("touch", (wall, player)) in pairs
    assert ("touch", (sensor, player)) in pairs  # the sensor mask is met, not pushed
    assert esper.component_for_entity(sensor, ep.Position).xy == (1.5, 6.0)
    assert not any(ghost in pair for _, pair in pairs)


# ------------------------------------------------------------------ reduced boxes


def test_reduced_collision_boxes_from_sprites():
    """Seed 001's 80% box: centred on the image, per-axis scales, an anchor at the feet."""
    box = ep.Rect.from_sprite(40, 20)
    assert (box.width, box.height, box.offset) == (32.0, 16.0, (0.0, 0.0))
    feet = ep.Rect.from_sprite(40, 20, scale=(0.5, 0.9), anchor=(0.5, 0.0))
    assert (feet.width, feet.height) == (20.0, 18.0)
    assert feet.bounds() == pytest.approx((-10.0, 1.0, 10.0, 19.0))  # centred on the image
    corner = ep.Rect.from_sprite(10, 10, scale=1.0, anchor=(0.0, 0.0))
    assert corner.bounds() == pytest.approx((0.0, 0.0, 10.0, 10.0))
    assert ep.Rect.from_sprite(8, 8, scale=np.float64(0.5)).width == 4.0
    # two balls drawn 40 px wide, corners 5 px into each other: full boxes overlap, 80% not
    full, reduced = ep.Rect(40, 40), ep.Rect.from_sprite(40, 40)
    assert geometry.overlaps(full, (0, 0), full, (35, 35))
    assert not geometry.overlaps(reduced, (0, 0), reduced, (35, 35))
    for kwargs, field in [({"width": 0, "height": 1}, "width"),
                          ({"width": 1, "height": -2}, "height"),
                          ({"width": 1, "height": 1, "scale": 0}, "scale"),
                          ({"width": 1, "height": 1, "scale": (1, 0)}, r"scale\.y"),
                          ({"width": 1, "height": 1, "anchor": (0.5, float("nan"))}, "anchor")]:
        with pytest.raises(ValueError, match=f"Rect.from_sprite {field}"):
            ep.Rect.from_sprite(**kwargs)
    with pytest.raises((TypeError, ValueError), match="Rect.from_sprite scale.*'big'"):
        ep.Rect.from_sprite(1, 1, scale="big")


# ------------------------------------------------------------------ contacts of two masks


def test_contacts_of_two_masks():
    """Approximate contacts (see geometry/mask.pyx): the normal against the overlap's
    gradient, the depth b must move along it to share no pixel, the overlap's centre."""
    square = Mask(np.ones((10, 10)))
    c = geometry.contact(square, (0, 0), square, (8, 0))  # 2 pixels into each other
    assert c.normal == pytest.approx((1.0, 0.0)) and c.depth == pytest.approx(2.0, abs=0.01)
    assert c.point == pytest.approx((4.0, 0.0))
    c = geometry.contact(square, (0, 0), square, (0, -7.5))  # 2.5 pixels, from below
    assert c.normal == pytest.approx((0.0, -1.0)) and c.depth == pytest.approx(2.5, abs=0.01)
    assert c.point == pytest.approx((0.0, -3.75))
    c = geometry.contact(square, (0, 0), square, (8, 8))  # corners: along the diagonal
    assert c.normal == pytest.approx((2 ** -0.5, 2 ** -0.5))
    assert c.depth == pytest.approx(2 * 2 ** 0.5, abs=0.01)
    # sides that touch: a contact of depth 0; a gap: none
    c = geometry.contact(square, (0, 0), square, (10, 0))
    assert c.normal == pytest.approx((1.0, 0.0)) and c.depth == 0.0
    assert geometry.contact(square, (0, 0), square, (10.5, 0)) is None
    # a ball half a pixel into a floor: pushed up
    yy, xx = np.mgrid[0:20, 0:20]
    ball = Mask((xx - 9.5) ** 2 + (yy - 9.5) ** 2 <= 100)
    floor = Mask(np.ones((4, 60)))
    c = geometry.contact(floor, (0, 0), ball, (3, 11.5))
    assert c.normal == pytest.approx((0.0, 1.0)) and c.depth == pytest.approx(0.5, abs=0.01)
    # swapped: the same contact, the normal flipped
    d = geometry.contact(ball, (3, 11.5), floor, (0, 0))
    assert d.normal == pytest.approx((0.0, -1.0)) and d.depth == pytest.approx(c.depth)
    assert d.point == pytest.approx(c.point)


@settings(max_examples=100, deadline=None)
@given(a=masks, b=masks, dx=offsets, dy=offsets)
def test_mask_contacts_agree_with_overlaps_and_separate_along_the_normal(a, b, dx, dy):
    ma, mb = Mask(a), Mask(b.T)
    pb = (dx / 3, dy / 3)
    c = geometry.contact(ma, (0.0, 0.0), mb, pb)
    if geometry.overlaps(ma, (0.0, 0.0), mb, pb):
        assert c is not None and c.depth > 0.0
        assert abs(c.normal[0] ** 2 + c.normal[1] ** 2 - 1.0) < 1e-9
        # b moved by the depth along the normal shares no pixel (for ragged masks the first
        # such place along the way: they may meet again further on)
        moved = (pb[0] + c.normal[0] * c.depth, pb[1] + c.normal[1] * c.depth)
        assert not geometry.overlaps(ma, (0.0, 0.0), mb, moved)
    else:
        assert c is None or c.depth == 0.0


# ------------------------------------------------------------------ masks against other shapes

SHAPES = [ep.Circle(2.3), ep.Rect(3.0, 1.5), ep.OrientedRect(4.0, 1.0, 30.0),
          ep.Segment((-2.0, -1.0), (2.5, 1.5)), ep.Polygon([(-2, -1), (2, -1.5), (0.5, 2)]),
          ep.Compound([ep.Circle(1.0, offset=(-1.5, 0)), ep.Rect(1.0, 2.0, offset=(1.5, 0))])]


def brute_meets(m: Mask, pm: tuple[float, float], shape: ep.Shape,
                ps: tuple[float, float]) -> bool:
    """Some set pixel of m, as a square, overlaps or touches the shape (pixel by pixel)."""
    pixel = ep.Rect(m.scale, m.scale)
    for x0, y0, x1, y1 in _pixel_boxes(m, pm):
        if geometry.overlaps(pixel, ((x0 + x1) / 2, (y0 + y1) / 2), shape, ps):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(px=hnp.arrays(np.bool_, st.tuples(st.integers(1, 12), st.integers(1, 12))),
       k=st.integers(0, len(SHAPES) - 1), x=st.floats(-8, 8), y=st.floats(-8, 8),
       scale=st.sampled_from([1.0, 0.5, 0.75]))
def test_a_mask_meets_a_shape_where_a_pixel_does(px, k, x, y, scale):
    m, shape = Mask(px, scale=scale), SHAPES[k]
    want = brute_meets(m, (0.0, 0.0), shape, (x, y))
    assert geometry.overlaps(m, (0.0, 0.0), shape, (x, y)) == want
    assert geometry.overlaps(shape, (x, y), m, (0.0, 0.0)) == want
    c = geometry.contact(m, (0.0, 0.0), shape, (x, y))
    assert (c is not None) == want
    if c is not None:
        assert abs(c.normal[0] ** 2 + c.normal[1] ** 2 - 1.0) < 1e-9
        if not isinstance(shape, ep.Compound):  # a group's contact is its deepest part's
            away = (x + c.normal[0] * (c.depth + 1e-6), y + c.normal[1] * (c.depth + 1e-6))
            assert not geometry.overlaps(m, (0.0, 0.0), shape, away)


def test_a_ball_mask_on_a_rect_floor():
    yy, xx = np.mgrid[0:20, 0:20]
    ball = Mask((xx - 9.5) ** 2 + (yy - 9.5) ** 2 <= 100, scale=0.1)  # 2 units wide
    floor = ep.Rect(10, 1)  # top at y = 0.5
    c = geometry.contact(floor, (0, 0), ball, (0.3, 1.45))  # 0.05 into the floor
    assert c.normal == pytest.approx((0.0, 1.0)) and c.depth == pytest.approx(0.05, abs=1e-5)
    assert c.point[0] == pytest.approx(0.3, abs=0.1) and c.point[1] == pytest.approx(0.5, abs=0.1)
    assert geometry.contact(floor, (0, 0), ball, (0.3, 1.6)) is None
    resting = geometry.contact(floor, (0, 0), ball, (0.3, 1.5))  # exactly on it: touching
    assert resting is not None and resting.normal == pytest.approx((0.0, 1.0))
    assert resting.depth == pytest.approx(0.0, abs=1e-5)


def test_touch_events_follow_pixels_not_boxes(world):
    """Two sensor masks in the step: boxes overlapping, pixels apart: no touch; one pixel
    into the other: a touch; apart again: a separate."""
    physics = ep.Physics(fixed_dt=DT)
    log = _log(physics)
    ball = _ball(scale=1.0)  # 20 pixels of 1 unit
    a = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC, sensor=True),
                            ep.Geometry(ball))
    b = esper.create_entity(ep.Position(16, 16), ep.Velocity(0, 0),
                            ep.Collider(ep.ACTIVE, sensor=True), ep.Geometry(ball))
    pos = esper.component_for_entity(b, ep.Position)
    esper.process(DT)
    assert log == []  # the boxes overlap by 4 x 4 units, the round pixels do not
    pos.xy = (13.0, 13.0)
    esper.process(DT)
    assert [(name, pair) for name, _, pair in log] == [("touch", (a, b))]
    pos.xy = (30.0, 0.0)
    esper.process(DT)
    assert [name for name, _, _ in log] == ["touch", "separate"]
