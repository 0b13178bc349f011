"""Tiled files are checked before pytiled-parser reads them (``ecsphys.tiled_files``).

Shows: bombs built here (zlib and gzip maps of 8192 x 8192 and 16384 x 16384 tiles of zeros,
a small layer whose data decodes to a gigabyte, a CSV of too many numbers, a layer over
``MAX_TILES``, a tileset or template that is a FIFO, ``/dev/zero``, a directory or a symlink
to ``/dev/zero``, a sparse file of 100 GB, an XML entity bomb), in ``.tmx`` and ``.tmj`` form,
are each refused with a ``ValueError`` naming the file, in well under a second of CPU and
under 200 MB (a FIFO and ``/dev/zero`` never opened), and nothing is made; while maps whose
data is exactly what their layers declare, in every encoding Tiled writes, still load.
"""

from __future__ import annotations

import base64
import builtins
import functools
import gzip
import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tiled import level_map

import ecsphys as ep
from ecsphys import tiled
from ecsphys.limits import MAX_TILES
from ecsphys.tiled_files import (
    MAX_MAP_FILE_BYTES,
    MAX_MAP_FILE_ITEMS,
    MAX_MAP_READ_BYTES,
    check_map_file,
)

MIB = 2**20
#: FIFOs, /dev/zero and the resource module are POSIX's
POSIX = pytest.mark.skipif(os.name != "posix", reason="needs FIFOs and /dev/zero")
SECONDS = 2.0  # of CPU for a refusal: generous (they take milliseconds; before, 29 to 150 s)
MEMORY = 200 * MIB  # for a refusal (before, 1.3 to 5.5 GB)

# ------------------------------------------------------------------ writing maps and bombs


@functools.cache
def _deflate_zeros(mib: int) -> bytes:
    """A raw deflate stream of ``mib`` MiB of zeros, made without compressing them all: one
    MiB compressed and flushed in full (which leaves nothing to refer back to) is the same
    bytes every time, so it is repeated."""
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = raw.compress(bytes(MIB)) + raw.flush(zlib.Z_FULL_FLUSH)
    return block * mib + raw.flush()


@functools.cache
def zeros(compression: str, size: int) -> bytes:
    """``size`` bytes (a whole number of MiB) of zeros as zlib or gzip data, checksums and all
    (zeros' Adler-32 is known; their CRC-32 is worked out a MiB at a time)."""
    mib = size // MIB
    assert mib * MIB == size
    if compression == "zlib":
        return (b"\x78\xda" + _deflate_zeros(mib)
                + struct.pack(">I", ((size % 65521) << 16) | 1))
    crc = 0
    block = bytes(MIB)
    for _ in range(mib):
        crc = zlib.crc32(block, crc)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + _deflate_zeros(mib)
            + struct.pack("<II", crc, size & 0xFFFFFFFF))


TILESET = {"firstgid": 1, "name": "t", "tilewidth": 16, "tileheight": 16, "tilecount": 4,
           "columns": 4, "image": "t.png", "imagewidth": 64, "imageheight": 16, "margin": 0,
           "spacing": 0}
TSX = ('<?xml version="1.0" encoding="UTF-8"?>\n<tileset version="1.10" name="t" '
       'tilewidth="16" tileheight="16" tilecount="4" columns="4"><image source="t.png" '
       'width="64" height="16"/></tileset>\n')


def write_map(path: Path, width: int, height: int, data: str | list[int] | None = None,
              encoding: str | None = "base64", compression: str | None = "zlib",
              tileset: str | None = None, objects: list[dict] | None = None,
              infinite: bool = False, head: str = "", layers: int = 1) -> Path:
    """A map with ``layers`` tile layers (``walls``, ``walls2``, ...) of ``width`` x
    ``height`` tiles holding ``data`` as given (CSV text, base64 text, or for ``.tmj`` with
    no encoding a list), and an object layer of ``objects`` ({"x", "y", and "template" or
    "w" and "h"}); ``.tmx`` (XML, ``head`` before the ``<map>``) or else JSON."""
    objects = objects or []
    if path.suffix == ".tmx":
        ts = (f'<tileset firstgid="1" source="{tileset}"/>' if tileset else
              '<tileset firstgid="1" name="t" tilewidth="16" tileheight="16" tilecount="4" '
              'columns="4"><image source="t.png" width="64" height="16"/></tileset>')
        enc = f' encoding="{encoding}"' if encoding else ""
        comp = f' compression="{compression}"' if compression else ""
        body = "" if data is None else f"<data{enc}{comp}>{data}</data>"
        tiles = "".join(f'<layer id="{i + 1}" name="walls{i + 1 if i else ""}" width="{width}" '
                        f'height="{height}">{body}</layer>' for i in range(layers))
        objs = "".join(
            f'<object id="{i + 1}" x="{o["x"]}" y="{o["y"]}"'
            + (f' template="{o["template"]}"/>' if "template" in o
               else f' width="{o["w"]}" height="{o["h"]}"/>') for i, o in enumerate(objects))
        path.write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n{head}<map version="1.10" '
            f'tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" '
            f'width="{width}" height="{height}" tilewidth="16" tileheight="16" '
            f'infinite="{int(infinite)}" nextlayerid="9" nextobjectid="9">{ts}{tiles}'
            f'<objectgroup id="8" name="objects">{objs}</objectgroup></map>\n')
        return path
    layer: dict[str, object] = {"name": "walls", "type": "tilelayer", "width": width,
                                "height": height, "opacity": 1, "visible": True, "x": 0,
                                "y": 0}
    if data is not None:
        layer["data"] = data
    if encoding:
        layer.update(encoding=encoding, compression=compression or "")
    tile_layers = [{**layer, "id": i + 1, "name": f"walls{i + 1 if i else ''}"}
                   for i in range(layers)]
    objs = [{"id": i + 1, "name": "", "type": "", "x": o["x"], "y": o["y"], "rotation": 0,
             "visible": True, **({"template": o["template"]} if "template" in o
                                 else {"width": o["w"], "height": o["h"]})}
            for i, o in enumerate(objects)]
    doc = {"compressionlevel": -1, "width": width, "height": height, "infinite": infinite,
           "orientation": "orthogonal", "renderorder": "right-down", "tiledversion": "1.10.2",
           "tilewidth": 16, "tileheight": 16, "type": "map", "version": "1.10",
           "nextlayerid": 9, "nextobjectid": 9,
           "layers": [*tile_layers, {"id": 8, "name": "objects", "type": "objectgroup",
                                     "draworder": "topdown", "opacity": 1, "visible": True,
                                     "x": 0, "y": 0, "objects": objs}],
           "tilesets": [{"firstgid": 1, "source": tileset} if tileset else TILESET]}
    path.write_text(json.dumps(doc))
    return path


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def encode(gids: list[int], how: str, tmx: bool) -> tuple[str | list[int], str | None,
                                                          str | None]:
    """Tile ids as (data, encoding, compression): "csv" (in JSON a list), "base64", "zlib",
    "gzip", or "gzip-members" (two gzip members with zero bytes between, which Tiled does
    not write but gzip.decompress reads)."""
    if how == "csv":
        return (",".join(map(str, gids)) if tmx else gids), ("csv" if tmx else None), None
    raw = struct.pack(f"<{len(gids)}I", *gids)
    if how == "base64":
        return b64(raw), "base64", None
    if how == "zlib":
        return b64(zlib.compress(raw)), "base64", "zlib"
    if how == "gzip":
        return b64(gzip.compress(raw)), "base64", "gzip"
    half = len(raw) // 2
    return (b64(gzip.compress(raw[:half]) + bytes(7) + gzip.compress(raw[half:])), "base64",
            "gzip")


def refused(path: Path, *parts: str, read: Callable[[Path], object] | None = None) -> str:
    """The ``ValueError`` message reading the map gives (``read``, or
    ``TileMap.from_tiled``), checked to name the file and hold each of ``parts``, raised in
    under ``SECONDS`` of CPU (timed alone) and ``MEMORY`` of Python allocations (traced in a
    second reading: tracing slows allocation down)."""
    read = read or ep.TileMap.from_tiled
    start = time.process_time()
    with pytest.raises(ValueError) as info:
        read(path)
    cpu = time.process_time() - start
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as again:
            read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert str(again.value) == message
    assert str(path) in message, message
    for part in parts:
        assert part in message, message
    assert cpu < SECONDS, (cpu, message)
    assert peak < MEMORY, (peak, message)
    return message


# ------------------------------------------------------------------ the tile data


@pytest.mark.parametrize("side", [8192, 16384])
@pytest.mark.parametrize("compression", ["zlib", "gzip"])
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_map_declaring_too_many_tiles_is_refused_before_its_bomb_is_decoded(
        tmp_path, suffix, compression, side, world):
    data = zeros(compression, side * side * 4)  # 256 MiB or 1 GiB of zeros, in 0.3 or 1 MB
    path = write_map(tmp_path / f"bomb{suffix}", side, side, b64(data), compression=compression)
    assert path.stat().st_size < 1.5 * MIB
    refused(path, f"tile layer 'walls' is declared {side} x {side} tiles",
            f"at most {MAX_TILES:,} (MAX_TILES)")
    refused(path, f"{side} x {side}", read=tiled.add_objects)
    assert len(esper.get_component(ep.Collider)) == 0


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_side_over_the_limit_is_refused(tmp_path, suffix):
    path = write_map(tmp_path / f"long{suffix}", 16385, 1, "", encoding="csv",
                     compression=None)
    refused(path, "is declared 16385 x 1 tiles: each side must be from 1 to 16384")


@pytest.mark.parametrize("compression", ["zlib", "gzip"])
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_data_that_decodes_past_its_layers_size_is_refused_in_bounded_memory(
        tmp_path, suffix, compression):
    path = write_map(tmp_path / f"bomb{suffix}", 64, 64, b64(zeros(compression, 1024 * MIB)),
                     compression=compression)  # 64 x 64 tiles declared: 16 KiB
    refused(path, "tile layer 'walls' holds more tile data than the 4,096 tiles it declares "
            f"(16,384 bytes): its {compression} data decodes past that")


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_csv_of_more_numbers_than_tiles_is_refused_by_counting_commas(tmp_path, suffix):
    numbers = 5_000_000 if suffix == ".tmx" else 1_000_000  # 10 MB of CSV, 3 MB of JSON
    data = "0," * (numbers - 1) + "0" if suffix == ".tmx" else [0] * numbers
    path = write_map(tmp_path / f"csv{suffix}", 64, 64, data, encoding="csv" if suffix == ".tmx"
                     else None, compression=None)
    refused(path, "tile layer 'walls' holds more tile ids than the 4,096 it declares")


HOW = ["csv", "base64", "zlib", "gzip", "gzip-members"]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_data_of_exactly_the_declared_size_loads_and_one_tile_more_is_refused(
        tmp_path, suffix, how):
    rng = np.random.default_rng(7)
    gids = rng.integers(0, 3, size=6 * 12).tolist()  # tiles 1 and 2 of the tileset, or none
    data, enc, comp = encode(gids, how, suffix == ".tmx")
    path = write_map(tmp_path / f"ok{suffix}", 12, 6, data, encoding=enc, compression=comp)
    got = ep.TileMap.from_tiled(path)
    assert np.array_equal(got.grid, np.reshape(gids, (6, 12)) != 0)
    data, enc, comp = encode([*gids, 1], how, suffix == ".tmx")
    path = write_map(tmp_path / f"more{suffix}", 12, 6, data, encoding=enc, compression=comp)
    refused(path, "tile layer 'walls' holds more tile")


@settings(max_examples=25, deadline=None)
@given(width=st.integers(1, 300), height=st.integers(1, 40), how=st.sampled_from(HOW[1:]),
       wrap=st.integers(1, 200), indent=st.sampled_from(["", " ", "\n   ", "\r\n\t"]),
       seed=st.integers(0, 2**32 - 1))
def test_base64_data_split_anywhere_is_measured_as_pytiled_parser_decodes_it(
        tmp_path_factory, width, height, how, wrap, indent, seed):
    """Base64 broken into lines (as Tiled writes it, or any other way), across the 64 KiB
    pieces it is read in: exactly the declared size loads, tile for tile."""
    gids = np.random.default_rng(seed).integers(0, 3, size=width * height).tolist()
    data, enc, comp = encode(gids, how, True)
    lines = [str(data)[at:at + wrap] for at in range(0, len(str(data)), wrap)]
    text = indent + indent.join(lines) + indent
    path = write_map(tmp_path_factory.mktemp("b64") / "split.tmx", width, height, text,
                     encoding=enc, compression=comp)
    check_map_file(path)
    got = ep.TileMap.from_tiled(path) if any(gids) else None
    assert got is None or np.array_equal(got.grid, np.reshape(gids, (height, width)) != 0)


def test_base64_past_the_size_by_one_byte_is_refused(tmp_path):
    raw = bytes(4 * 12 * 6 + 1)
    path = write_map(tmp_path / "byte.tmx", 12, 6, b64(raw), compression=None)
    refused(path, "holds more tile data than the 72 tiles it declares (288 bytes): its data "
            "is past that")


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_zstd_data_is_refused_as_its_size_cannot_be_checked(tmp_path, suffix):
    path = write_map(tmp_path / f"z{suffix}", 4, 4, b64(b"(\xb5/\xfd" + bytes(20)),
                     compression="zstd")
    refused(path, "holds zstd-compressed tile data", "zlib or gzip")


def test_data_that_does_not_decompress_is_refused(tmp_path):
    path = write_map(tmp_path / "bad.tmx", 4, 4, b64(b"not zlib at all"))
    refused(path, "holds zlib tile data that does not decompress")


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_layers_adding_up_to_more_than_four_at_the_tile_limit_are_refused(tmp_path, suffix):
    data = b64(zeros("zlib", 2048 * 2048 * 4))  # each layer at MAX_TILES: 16 MiB of zeros
    path = write_map(tmp_path / f"five{suffix}", 2048, 2048, data, layers=5)
    refused(path, "its tile layers declare more than 16,777,216 tiles (MAX_MAP_TILES)")


def test_infinite_maps_and_chunks_are_refused_before_the_chunks_are_decoded(tmp_path):
    bomb = b64(zeros("zlib", 1024 * MIB))
    chunk = f'<chunk x="0" y="0" width="16" height="16">{bomb}</chunk>'
    path = write_map(tmp_path / "inf.tmx", 16, 16, chunk, infinite=True)
    refused(path, "infinite maps are not supported")
    path = write_map(tmp_path / "chunks.tmx", 16, 16, chunk)  # declared finite
    refused(path, "tile layer 'walls' holds chunks, the tiles of an infinite map")
    path = write_map(tmp_path / "chunks.tmj", 16, 16)
    doc = json.loads(path.read_text())
    doc["layers"][0].update(chunks=[{"x": 0, "y": 0, "width": 16, "height": 16, "data": bomb}],
                            encoding="base64", compression="zlib")
    path.write_text(json.dumps(doc))
    refused(path, "tile layer 'walls' holds chunks")


def test_a_tile_layer_in_a_json_tilesets_tile_is_checked_too(tmp_path):
    """pytiled-parser reads a tile's objectgroup as a layer of whatever type it says."""
    bomb = {"type": "tilelayer", "name": "hidden", "width": 4, "height": 4, "opacity": 1,
            "visible": True, "x": 0, "y": 0, "encoding": "base64", "compression": "zlib",
            "data": b64(zeros("zlib", 256 * MIB))}
    (tmp_path / "t.tsj").write_text(json.dumps({**TILESET, "tiles": [
        {"id": 0, "objectgroup": bomb}]}))
    path = write_map(tmp_path / "ts.tmj", 4, 4, [1] * 16, encoding=None, tileset="t.tsj")
    refused(path, f"tileset 't.tsj' ({tmp_path / 't.tsj'}): tile layer 'hidden' holds more "
            f"tile data than the 16 tiles")


# ------------------------------------------------------------------ the files


def _special(kind: str, where: Path) -> Path:
    """A path that is no regular file: a FIFO, ``/dev/zero``, a directory, or a symlink to
    ``/dev/zero``."""
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "directory":
        where.mkdir()
    elif kind == "symlink":
        where.symlink_to("/dev/zero")
    else:
        return Path("/dev/zero")
    return where


KINDS = {"fifo": "is a FIFO (named pipe), not a regular file",
         "dev-zero": "is a character device, not a regular file",
         "directory": "is a directory, not a regular file",
         "symlink": "is a character device, not a regular file"}


class NeverOpened:
    """Refuses (AssertionError, before opening) any open of the given paths, by ``open``,
    ``io.open`` or ``os.open``, as a guard: such an open would block (a FIFO) or read
    without end (``/dev/zero``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
        self.paths = {os.path.realpath(p) for p in paths}
        for module, name in ((builtins, "open"), (io, "open"), (os, "open")):
            monkeypatch.setattr(module, name, self._guard(getattr(module, name)))

    def _guard(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(file: object, *args: Any, **kwargs: Any) -> Any:
            if isinstance(file, (str, bytes, os.PathLike)) and os.path.realpath(
                    file) in self.paths:
                raise AssertionError(f"opened {file}")
            return real(file, *args, **kwargs)
        return guarded


def within_seconds(call: Callable[[], object], seconds: float = 20.0,
                   fifo: Path | None = None) -> None:
    """Run ``call`` in a thread; fail (unblocking a reader of ``fifo``) if it has not ended
    in ``seconds``: the test never hangs."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        if fifo is not None:
            with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
                pass  # the blocked reader gets an empty file
        pytest.fail(f"still reading after {seconds} s")
    if failure:
        raise failure[0]


@POSIX
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_map_that_is_no_regular_file_is_refused_unopened(tmp_path, kind, monkeypatch):
    path = _special(kind, tmp_path / "level.tmx")
    NeverOpened(monkeypatch, path)
    within_seconds(lambda: refused(path, f"{path}: the map file {KINDS[kind]}"),
                   fifo=path if kind == "fifo" else None)


@POSIX
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_tileset_that_is_no_regular_file_is_refused_unopened(tmp_path, suffix, kind,
                                                               monkeypatch, world):
    external = "terrain.tsx" if suffix == ".tmx" else "terrain.tsj"
    path = level_map(tmp_path, suffix, external)
    (tmp_path / external).unlink()
    target = _special(kind, tmp_path / external)
    if kind == "dev-zero":  # the map names /dev/zero itself
        path.write_text(path.read_text().replace(external, "/dev/zero"))
        external = "/dev/zero"
    NeverOpened(monkeypatch, target)
    within_seconds(lambda: refused(path, f"tileset {external!r}", KINDS[kind]),
                   fifo=target if kind == "fifo" else None)
    within_seconds(lambda: refused(path, KINDS[kind], read=tiled.add_objects))
    assert len(esper.get_component(ep.Collider)) == 0


def _template(tmp_path: Path, tileset: str | None = None) -> Path:
    ts = f'<tileset firstgid="1" source="{tileset}"/>' if tileset else ""
    path = tmp_path / "box.tx"
    path.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<template>{ts}'
                    f'<object width="16" height="8"/></template>\n')
    return path


TEMPLATED = [{"x": 0, "y": 16, "template": "box.tx"}, {"x": 32, "y": 16, "w": 8, "h": 8}]


@POSIX
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_template_that_is_no_regular_file_is_refused_unopened(tmp_path, kind, monkeypatch,
                                                                world):
    path = write_map(tmp_path / "level.tmx", 4, 4, ",".join(["1"] * 16), encoding="csv",
                     compression=None, objects=TEMPLATED)
    target = _special(kind, tmp_path / "box.tx")
    if kind == "dev-zero":
        path.write_text(path.read_text().replace("box.tx", "/dev/zero"))
    named = "/dev/zero" if kind == "dev-zero" else "box.tx"
    NeverOpened(monkeypatch, target)
    within_seconds(lambda: refused(path, f"template {named!r}", KINDS[kind],
                                   read=tiled.add_objects),
                   fifo=target if kind == "fifo" else None)
    assert len(esper.get_component(ep.Collider)) == 0


@POSIX
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_templates_tileset_that_is_no_regular_file_is_refused_unopened(
        tmp_path, kind, monkeypatch, world):
    path = write_map(tmp_path / "level.tmj", 4, 4, [1] * 16, encoding=None, objects=TEMPLATED)
    target = _special(kind, tmp_path / "t.tsx")
    named = "/dev/zero" if kind == "dev-zero" else "t.tsx"
    _template(tmp_path, named)
    NeverOpened(monkeypatch, target)
    within_seconds(lambda: refused(path, f"template 'box.tx' ({tmp_path / 'box.tx'}), its "
                                   f"tileset {named!r}", KINDS[kind], read=tiled.add_objects),
                   fifo=target if kind == "fifo" else None)
    assert len(esper.get_component(ep.Collider)) == 0


def test_a_map_with_a_template_and_its_tileset_still_loads(tmp_path, world):
    (tmp_path / "t.tsx").write_text(TSX)
    _template(tmp_path, "t.tsx")
    path = write_map(tmp_path / "level.tmx", 4, 4, ",".join(["1"] * 16), encoding="csv",
                     compression=None, objects=TEMPLATED)
    assert len(tiled.add_objects(path)) == 2


def test_a_missing_template_is_file_not_found_naming_it(tmp_path):
    objects = [{"x": 0, "y": 16, "template": "gone.tx"}]
    path = write_map(tmp_path / "level.tmj", 4, 4, [1] * 16, encoding=None, objects=objects)
    with pytest.raises(FileNotFoundError, match="gone.tx"):
        tiled.add_objects(path)


def test_a_template_read_once_per_object_counts_each_time(tmp_path, world):
    """pytiled-parser reads a template again for each object made from it: 40,000 objects
    from a 4 KiB one is 160 MiB read, past MAX_MAP_READ_BYTES."""
    _template(tmp_path)
    objects = [{"x": i % 64, "y": 16, "template": "box.tx"} for i in range(40_000)]
    path = write_map(tmp_path / "many.tmx", 4, 4, ",".join(["1"] * 16), encoding="csv",
                     compression=None, objects=objects)
    assert 40_000 * 4096 > MAX_MAP_READ_BYTES
    refused(path, "(MAX_MAP_READ_BYTES)", "is read 40,000 times", read=tiled.add_objects)
    assert len(esper.get_component(ep.Collider)) == 0


@pytest.mark.parametrize("size", [MAX_MAP_FILE_BYTES + 1, 100 * 2**30])
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_an_oversized_file_is_refused_by_its_size_unread(tmp_path, suffix, size):
    sparse = tmp_path / f"huge{suffix}"
    with open(sparse, "wb") as f:
        f.truncate(size)  # sparse: no disk, no time
    refused(sparse, f"the map file is {size:,} bytes", "(MAX_MAP_FILE_BYTES)")
    external = "huge.tsx" if suffix == ".tmx" else "huge.tsj"
    sparse.rename(tmp_path / external)
    path = level_map(tmp_path, suffix, "terrain.tsx")
    path.write_text(path.read_text().replace("terrain.tsx", external))
    refused(path, f"tileset {external!r}", f"is {size:,} bytes")


BILLION_LAUGHS = ('<!DOCTYPE map [<!ENTITY a0 "xxxxxxxxxx">'
                  + "".join(f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
                  + "]>\n")


@POSIX
@pytest.mark.parametrize("head", [BILLION_LAUGHS, '<!DOCTYPE map SYSTEM "/dev/zero">\n',
                                  "<!DOCTYPE map>\n"])
def test_a_doctype_is_refused_entity_bombs_with_it(tmp_path, head, monkeypatch):
    NeverOpened(monkeypatch, Path("/dev/zero"))
    path = write_map(tmp_path / "laughs.tmx", 4, 4, ",".join(["1"] * 16), encoding="csv",
                     compression=None, head=head)
    text = path.read_text()
    path.write_text(text.replace('name="walls"', 'name="&a9;"') if "a9" in head else text)
    refused(path, "the file declares a DOCTYPE ('map')")
    (tmp_path / "t.tsx").write_text(TSX.replace("<tileset", head + "<tileset", 1))
    path = write_map(tmp_path / "ts.tmx", 4, 4, ",".join(["1"] * 16), encoding="csv",
                     compression=None, tileset="t.tsx")
    refused(path, f"tileset 't.tsx' ({tmp_path / 't.tsx'}): the file declares a DOCTYPE")


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_file_of_more_than_a_million_items_is_refused(tmp_path, suffix):
    path = write_map(tmp_path / f"items{suffix}", 4, 4, ",".join(["1"] * 16), encoding="csv",
                     compression=None)
    text = path.read_text()
    if suffix == ".tmx":
        text = text.replace("</map>", "<a/>" * MAX_MAP_FILE_ITEMS + "</map>")
    else:
        text = text[:-1] + ', "junk": [' + "[]," * MAX_MAP_FILE_ITEMS + "[]]}"
    path.write_text(text)
    what = "XML elements" if suffix == ".tmx" else "JSON objects and arrays"
    refused(path, f"the file holds more than {MAX_MAP_FILE_ITEMS:,} {what}")


@POSIX
def test_a_refusal_takes_little_memory_in_a_process_of_its_own(tmp_path):
    """The resident memory (not only Python's allocations) of refusing the 16384^2 zlib map
    and a small layer holding a gigabyte of gzip data (before: 5.2 and 5.5 GB)."""
    paths = [write_map(tmp_path / "bomb.tmx", 16384, 16384, b64(zeros("zlib", 1024 * MIB))),
             write_map(tmp_path / "past.tmj", 64, 64, b64(zeros("gzip", 1024 * MIB)),
                       compression="gzip")]
    code = textwrap.dedent("""
        import resource, sys
        import ecsphys as ep, pytiled_parser
        limit = 2 * 2**30  # a bound, should the check be gone: no swapping
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for path in sys.argv[1:]:
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            try:
                ep.TileMap.from_tiled(path)
            except ValueError as exc:
                assert path in str(exc), exc
            else:
                raise AssertionError("read")
            grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
            print(grew)  # KiB
    """)
    done = subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    for grew in done.stdout.split():
        assert int(grew) * 1024 < MEMORY, done.stdout


def test_well_formed_maps_pass_the_check_unchanged(tmp_path):
    for suffix, external in [(".tmx", None), (".tmx", "terrain.tsx"), (".tmj", None),
                             (".tmj", "terrain.tsj")]:
        (tmp_path / suffix[1:]).mkdir(exist_ok=True)
        path = level_map(tmp_path / suffix[1:], suffix, external)
        check_map_file(path)
        check_map_file(str(path))
