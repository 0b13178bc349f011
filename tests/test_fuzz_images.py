"""Fuzzing the ways pixels come in from outside (issue 27): image files and arrays.

Shows: ``Mask.from_file`` on every truncation and on bit flips of small valid PNG, GIF, BMP
and WebP files, on headers claiming any size (up to 2**32 a side) and on random bytes either
returns a Mask of the size Pillow reads from the file, or raises a ``ValueError`` naming the
file: nothing else, no crash, no hang. ``Mask(pixels)`` and ``TileMap(grid)`` on arrays of odd
shapes and dtypes (0-d, 1-d, 3-d, empty, object, complex, strings, dates, NaN, zero-stride
arrays claiming 2**40 elements, non-contiguous views, ragged lists) either work (the same
shape, the same set pixels or tiles) or raise ``ValueError``/``TypeError`` naming the argument.

Every case runs in a child process with a time limit, many cases to a child, so a crash or a
hang fails the test (naming the case it was in) instead of killing or stalling the run.
``python tests/test_fuzz_images.py N`` runs N random batches and prints the counts.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

#: Time limit of one child process (seconds), whatever its batch.
TIMEOUT = 60


# ------------------------------------------------------------------ the seed images

def _save(img: Image.Image, fmt: str, **params: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **params)
    return buf.getvalue()


def _seeds() -> dict[str, bytes]:
    """Small valid files of several formats and modes (made with Pillow, fixed pixels)."""
    rng = np.random.default_rng(27)
    rgba = rng.integers(0, 256, (4, 5, 4), dtype=np.uint8)
    index = rng.integers(0, 4, (3, 6), dtype=np.uint8)
    pal = Image.fromarray(index, "P")
    pal.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])
    grey = Image.fromarray(rng.integers(0, 256, (5, 3), dtype=np.uint8), "L")
    return {
        "rgba.png": _save(Image.fromarray(rgba, "RGBA"), "PNG"),
        "palette.png": _save(pal, "PNG", transparency=bytes([255, 0, 128, 9])),
        "grey.png": _save(grey, "PNG", transparency=7),
        "palette.gif": _save(pal, "GIF", transparency=2),
        "rgb.bmp": _save(Image.fromarray(rgba[:, :, :3], "RGB"), "BMP"),
        "palette.bmp": _save(pal, "BMP"),
        "rgba.webp": _save(Image.fromarray(rgba, "RGBA"), "WEBP", lossless=True),
    }


SEEDS = _seeds()
SIGNATURES = [b"\x89PNG\r\n\x1a\n", b"GIF89a", b"BM", b"RIFF\x00\x00\x00\x00WEBPVP8L", b""]


def _png_with_size(data: bytes, width: int, height: int) -> bytes:
    """A PNG with its IHDR's width and height replaced (and its CRC made right again)."""
    body = struct.pack(">II", width, height) + data[24:29]
    return (data[:16] + body + struct.pack(">I", zlib.crc32(b"IHDR" + body) & 0xFFFFFFFF)
            + data[33:])


def _gif_with_size(data: bytes, width: int, height: int) -> bytes:
    """A GIF with its screen's and its first image's width and height replaced (16 bits)."""
    w, h = struct.pack("<H", width % 65536), struct.pack("<H", height % 65536)
    out = bytearray(data)
    out[6:10] = w + h
    at = data.find(b"\x2c\x00\x00\x00\x00")  # the image descriptor at (0, 0)
    if at > 0:
        out[at + 5:at + 9] = w + h
    return bytes(out)


def _bmp_with_size(data: bytes, width: int, height: int) -> bytes:
    """A BMP with its info header's width and height replaced (signed 32 bits)."""
    return data[:18] + struct.pack("<ii", _i32(width), _i32(height)) + data[26:]


def _i32(n: int) -> int:
    return (n + 2**31) % 2**32 - 2**31


# ------------------------------------------------------------------ mutated files

names = st.sampled_from(sorted(SEEDS))


@st.composite
def truncated(draw: st.DrawFn) -> bytes:
    data = SEEDS[draw(names)]
    return data[:draw(st.integers(0, len(data) - 1))]


@st.composite
def flipped(draw: st.DrawFn) -> bytes:
    data = bytearray(SEEDS[draw(names)])
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data) - 1))
        data[at] ^= 1 << draw(st.integers(0, 7))
    return bytes(data)


@st.composite
def overwritten(draw: st.DrawFn) -> bytes:
    data = bytearray(SEEDS[draw(names)])
    at = draw(st.integers(0, len(data) - 1))
    chunk = draw(st.binary(min_size=1, max_size=8))
    data[at:at + len(chunk)] = chunk
    return bytes(data)


sizes = st.one_of(st.integers(0, 40), st.sampled_from([16384, 16385, 65535, 65536, 2**31 - 1,
                                                       2**31, 2**32 - 1]),
                  st.integers(0, 2**32 - 1))


@st.composite
def resized(draw: st.DrawFn) -> bytes:
    """A valid file whose header claims another size (data left as it was)."""
    fmt = draw(st.sampled_from(["png", "gif", "bmp"]))
    width, height = draw(sizes), draw(sizes)
    if fmt == "png":
        return _png_with_size(SEEDS[draw(st.sampled_from(
            ["rgba.png", "palette.png", "grey.png"]))], width, height)
    if fmt == "gif":
        return _gif_with_size(SEEDS["palette.gif"], width, height)
    return _bmp_with_size(SEEDS[draw(st.sampled_from(["rgb.bmp", "palette.bmp"]))], width,
                          height)


random_bytes = st.builds(lambda sig, rest: sig + rest, st.sampled_from(SIGNATURES),
                         st.binary(max_size=300))

files = st.one_of(truncated(), flipped(), overwritten(), resized(), random_bytes)


_READ_FILES = """
import json, sys
from pathlib import Path
from PIL import Image
from ecsphys.mask import Mask
for i, path in enumerate(sorted(Path(sys.argv[1]).iterdir(), key=lambda p: int(p.stem))):
    print(json.dumps(["start", int(path.stem)]), flush=True)
    try:
        m = Mask.from_file(path)
    except ValueError as e:
        out = ["refused", str(path) in str(e), str(e)[:200]]
    except Exception as e:
        out = ["other", type(e).__name__, str(e)[:200]]
    else:
        with Image.open(path) as im:
            size = list(im.size)
        out = ["answer", list(m.size) == size and m.pixels.shape == (size[1], size[0]),
               [list(m.size), size]]
    print(json.dumps(out), flush=True)
"""


def _run_child(script: str, *args: str) -> list[list[object]]:
    """The outcome of each case of a batch run by ``script`` in a child process, which prints
    ``["start", case]`` before a case and its outcome after it; a crash or a hang is one more
    outcome, on the case it happened in."""
    try:
        proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                              text=True, timeout=TIMEOUT)
        stdout, code = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        code = None
    outcomes: list[list[object]] = []
    case = None
    for line in stdout.splitlines():
        item = json.loads(line)
        if item[0] == "start":
            case = item[1]
        else:
            outcomes.append([case, *item])
    if code is None:
        outcomes.append([case, "hang", f"over {TIMEOUT} s"])
    elif code != 0:
        outcomes.append([case, "crash", f"exit {code}"])
    return outcomes


def read_files(batch: list[bytes]) -> list[list[object]]:
    """Mask.from_file on each file of ``batch``, in one child process."""
    with tempfile.TemporaryDirectory() as tmp:
        for i, data in enumerate(batch):
            Path(tmp, f"{i}.img").write_bytes(data)
        return _run_child(_READ_FILES, tmp)


def _check(outcomes: list[list[object]], cases: list[object], n: int) -> Counter[str]:
    bad = [o for o in outcomes if o[1] not in ("refused", "answer") or o[2] is not True]
    assert not bad, [(o, cases[o[0]] if o[0] is not None else None) for o in bad[:5]]
    assert len(outcomes) == n
    return Counter(o[1] for o in outcomes)


def test_every_truncation_and_header_bit_flip_of_the_seeds():
    """Each seed cut at every length, and two bits of each of its first 32 bytes (the
    headers: signature, sizes, depths, colour types) flipped, one at a time."""
    batch = []
    for data in SEEDS.values():
        batch += [data[:n] for n in range(len(data))]
        for at in range(32):
            for bit in (at % 7, 7):
                flipped_ = bytearray(data)
                flipped_[at] ^= 1 << bit
                batch.append(bytes(flipped_))
    batch += list(SEEDS.values())
    counts = _check(read_files(batch), batch, len(batch))
    assert counts["answer"] >= len(SEEDS) and counts["refused"] > len(batch) // 2


@settings(max_examples=3, deadline=None)
@given(st.lists(files, min_size=60, max_size=120))
def test_mutated_and_random_files_are_read_or_refused_naming_the_file(batch):
    _check(read_files(batch), batch, len(batch))


def test_headers_claiming_huge_sizes_are_refused_before_decoding():
    claims = [(2**32 - 1, 2**32 - 1), (4_294_705_160, 536_903_681), (16385, 1), (1, 16385),
              (8193, 8192), (65535, 65535), (2**31, 1), (0, 5), (5, 0)]
    batch = [_png_with_size(SEEDS[k], w, h) for w, h in claims
             for k in ("rgba.png", "palette.png", "grey.png")]
    batch += [_gif_with_size(SEEDS["palette.gif"], w, h) for w, h in claims]
    batch += [_bmp_with_size(SEEDS["rgb.bmp"], w, h) for w, h in claims]
    batch += [_bmp_with_size(SEEDS["rgb.bmp"], w, -h) for w, h in claims]
    outcomes = read_files(batch)
    _check(outcomes, batch, len(batch))
    for case, kind, *_ in outcomes:
        assert kind == "refused", (case, batch[case][:40])


# ------------------------------------------------------------------ odd arrays

#: What each dtype is filled with (values NumPy can hold in it); source text, run here and
#: in the child that builds the arrays (NaN and complex numbers are no JSON).
_FILLS = """
FILLS = {
    "bool": [False, True],
    "int8": [0, 1, -1, -128],
    "uint8": [0, 255],
    "int64": [0, 7, -1, 2**63 - 1],
    "uint64": [0, 2**64 - 1],
    "float16": [0.0, 1.0, float("nan"), float("inf")],
    "float64": [0.0, -0.0, 0.5, float("nan"), float("-inf")],
    "complex128": [0j, 1 + 1j],
    "object": [None, 0, 1, "#"],
    "<U1": ["", "#", "."],
    "datetime64[s]": [0, 1],
    "V2": [b"\\0\\0", b"ab"],
}
"""
_scope: dict[str, dict[str, list[object]]] = {}
exec(_FILLS, _scope)  # noqa: S102 - our own text
FILLS = _scope["FILLS"]

#: Claimed sizes of zero-stride arrays: one element of memory, any shape.
HUGE = [0, 1, 3, 16384, 16385, 2**22 + 1, 2**31, 2**40]

recipes = st.one_of(
    st.tuples(st.just("plain"), st.sampled_from(sorted(FILLS)),
              st.lists(st.integers(0, 5), max_size=4).map(tuple), st.integers(0, 3),
              st.integers(0, 2**32 - 1)),
    st.tuples(st.just("zero"), st.sampled_from(sorted(FILLS)),
              st.lists(st.sampled_from(HUGE), max_size=3).map(tuple), st.integers(0, 3),
              st.just(0)),
    st.tuples(st.sampled_from(["strided", "transposed", "ragged"]),
              st.sampled_from(sorted(FILLS)),
              st.tuples(st.integers(1, 6), st.integers(1, 6)), st.integers(0, 3),
              st.integers(0, 2**32 - 1)),
)

_BUILD_ARRAYS = """
import json, sys
import numpy as np
from numpy.lib.stride_tricks import as_strided
import ecsphys as ep
exec(sys.argv[2])
def fill(dtype, k, seed, shape):
    values = FILLS[dtype]
    if k < len(values) and seed == 0:
        return np.full(shape, values[k], dtype=dtype)
    picks = np.random.default_rng(seed).integers(0, len(values), shape)
    out = np.empty(shape, dtype=dtype)
    for at in np.ndindex(*shape):
        out[at] = values[picks[at]]
    return out
def build(layout, dtype, shape, k, seed):
    if layout == "plain":
        return fill(dtype, k, seed, tuple(shape))
    if layout == "zero":
        one = fill(dtype, k, 0, ())
        return as_strided(one, shape=tuple(shape), strides=(0,) * len(shape))
    if layout == "strided":
        return fill(dtype, k, seed, (2 * shape[0], 3 * shape[1]))[::2, ::3]
    if layout == "transposed":
        return fill(dtype, k, seed, tuple(shape[::-1])).T
    rows = fill(dtype, k, seed, tuple(shape)).tolist()
    return [r[:i + 1] for i, r in enumerate(rows)]  # ragged rows
recipes = json.loads(open(sys.argv[1] + "/recipes.json").read())
for i, (layout, dtype, shape, k, seed) in enumerate(recipes):
    print(json.dumps(["start", i]), flush=True)
    try:
        arr = build(layout, dtype, shape, k, seed)
    except Exception as e:
        print(json.dumps(["setup", True, type(e).__name__]), flush=True)
        continue
    try:
        a = np.asarray(arr)
    except Exception:
        a = None  # ragged rows: no array
    for what, make, name in (("mask", ep.Mask, "Mask.pixels"),
                             ("tilemap", lambda g: ep.TileMap(g, 1.0), "TileMap.grid")):
        try:
            got = make(arr)
        except (ValueError, TypeError) as e:
            out = ["refused", name in str(e), what + ": " + str(e)[:200]]
        except Exception as e:
            out = ["other", what, type(e).__name__ + ": " + str(e)[:200]]
        else:
            cells = got.pixels if what == "mask" else got.grid
            same = a is not None and cells.shape == a.shape
            if same and a.size <= 10**6:
                want = a != 0 if what == "mask" else a.astype(np.int64)
                same = bool(np.array_equal(cells, want))
            out = ["answer", same, what + " " + str(a.shape if a is not None else None)]
        print(json.dumps(out), flush=True)
"""


def build_arrays(batch: list[tuple[object, ...]]) -> list[list[object]]:
    """Mask(pixels) and TileMap(grid) on the array of each recipe, in one child process."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "recipes.json").write_text(json.dumps(batch))
        return _run_child(_BUILD_ARRAYS, tmp, _FILLS)


def _check_arrays(outcomes: list[list[object]], batch: list[tuple[object, ...]]) -> Counter[str]:
    bad = [o for o in outcomes if o[1] not in ("refused", "answer", "setup") or o[2] is not True]
    assert not bad, [(o, batch[o[0]] if o[0] is not None else None) for o in bad[:5]]
    return Counter(o[1] for o in outcomes)


def test_odd_arrays_named_in_every_shape_and_dtype():
    batch: list[tuple[object, ...]] = [
        ("plain", dtype, shape, k, 0)
        for dtype in FILLS for k in range(len(FILLS[dtype]))
        for shape in [(), (3,), (0, 4), (4, 0), (2, 3), (2, 2, 2)]]
    batch += [("zero", "bool", shape, 1, 0) for shape in
              [(2**40, 2**40), (1, 2**40), (2**40, 1), (16385, 1), (16384, 16384),
               (2**22 + 1, 1), (2**31, 2**31), (0, 2**40), (2**40,), (2**20, 2**20, 2)]]
    batch += [("strided", "uint8", (5, 4), 1, 0), ("transposed", "int64", (3, 6), 1, 0),
              ("ragged", "int8", (3, 3), 1, 0)]
    counts = _check_arrays(build_arrays(batch), batch)
    assert counts["answer"] and counts["refused"]


@settings(max_examples=3, deadline=None)
@given(st.lists(recipes, min_size=30, max_size=60))
def test_random_odd_arrays_work_or_are_refused_naming_the_argument(batch):
    _check_arrays(build_arrays(batch), batch)


@pytest.mark.parametrize("grid", [np.zeros((16385, 1), bool), ["#" * 16385],
                                  ["#"] * 2049 + ["#" * 2048]])
def test_tile_maps_beyond_the_limits_are_refused_before_they_are_made(grid):
    from ecsphys import TileMap
    with pytest.raises(ValueError, match="TileMap.grid is .* at most"):
        TileMap(grid, 1.0)


# ------------------------------------------------------------------ counts, by hand

def _tally(outcomes: list[list[object]]) -> Counter[str]:
    """Outcomes by kind; a refusal that does not name the file or argument, or an answer of
    the wrong size or pixels, counted apart."""
    return Counter(o[1] if o[2] is True or o[1] in ("hang", "crash", "other", "setup")
                   else f"{o[1]} (wrong)" for o in outcomes)


def main(rounds: int) -> None:
    """Random batches of files and arrays, and the count of each outcome."""
    files_count: Counter[str] = Counter()
    arrays_count: Counter[str] = Counter()
    file_batches = st.lists(files, min_size=200, max_size=200)
    array_batches = st.lists(recipes, min_size=100, max_size=100)
    for r in range(rounds):
        files_count.update(_tally(read_files(file_batches.example())))
        arrays_count.update(_tally(build_arrays(array_batches.example())))
        print(f"round {r + 1}: files {dict(files_count)}, arrays (Mask and TileMap each) "
              f"{dict(arrays_count)}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
