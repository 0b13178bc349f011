"""What a Tiled file may be before it is parsed: `check_map_file` looks at a map and at every
file it makes pytiled-parser open, and refuses what would cost more to read than any level is
worth before pytiled-parser reads a byte of it; a bomb (tile data that decodes to gigabytes, a
tileset that is ``/dev/zero`` or a FIFO, an entity bomb) in milliseconds and a few megabytes.

Guarantees:
- every file pytiled-parser would open for a map (the map; its external tilesets; the
  templates its objects name, and their tilesets; a name resolved as pytiled-parser resolves
  it, from the folder of the file that names it) is looked at with ``os.stat`` before anything
  opens it: it must be a regular file (a FIFO, a device such as ``/dev/zero``, a directory or
  a socket is refused unopened; a symlink is judged by what it points to) of at most
  ``MAX_MAP_FILE_BYTES``. A missing file is the ``FileNotFoundError`` of ``os.stat``, naming
  its path;
- XML files are read as a stream (expat, 64 KiB at a time) and one with a DOCTYPE is refused
  (the DOCTYPE is where entities are declared: a "billion laughs" expands a few lines to
  gigabytes); JSON files are loaded whole, which their size cap bounds. A file may hold at
  most ``MAX_MAP_FILE_ITEMS`` XML elements, or JSON objects and arrays;
- each tile layer's declared width and height are checked against ``MAX_TILEMAP_SIDE`` and
  ``MAX_TILES`` before its data is looked at, and its data may hold no more than they
  declare: CSV by a count of its commas, plain base64 by its length, zlib and gzip data by
  decompressing it 64 KiB at a time and stopping as soon as it passes ``width * height * 4``
  bytes. zstd data (whose size cannot be checked so without a zstd library) and chunks (the
  tiles of infinite maps, which ecsphys refuses anyway) are refused;
- what one map has pytiled-parser do in all is bounded: at most ``MAX_MAP_TILES`` tiles in
  all its tile layers, and at most ``MAX_MAP_READ_BYTES`` of files read (pytiled-parser reads
  a template once for each object made from it);
- a refusal is a ``ValueError`` naming the map, the file the fault is in when it is another
  (as ``tileset 'a.tsx' (maps/a.tsx)``) and the fault. A file that is not well formed (XML or
  JSON that does not parse, text that is not UTF-8) is left to pytiled-parser, which refuses
  it before it decodes any of it.

Left as it is: pytiled-parser builds a tree of each whole file (an element per XML tag, an
object per JSON value), which can take some 16 times the file's size (940 MB for a JSON list
of 60 MB of two-letter strings): only the caps on size and items bound it. And it opens the
files again after this check, so a file swapped for another in between is not seen.
"""

from __future__ import annotations

import binascii
import json
import os
import stat
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO
from xml.parsers import expat

from .limits import MAX_TILEMAP_SIDE, MAX_TILES

__all__ = ["MAX_MAP_FILE_BYTES", "MAX_MAP_FILE_ITEMS", "MAX_MAP_READ_BYTES", "MAX_MAP_TILES",
           "check_map_file"]

#: The largest Tiled file (map, tileset or template) read, in bytes: 64 MiB. A map at the
#: tile limit (2048 x 2048) is at most 46 MB as CSV and 22 MB as plain base64.
MAX_MAP_FILE_BYTES = 64 * 2**20
#: The most bytes of Tiled files one map has pytiled-parser read in all: the map, each of its
#: tilesets, and each template once for every object made from it (each read counted as at
#: least 4 KiB): 128 MiB.
MAX_MAP_READ_BYTES = 128 * 2**20
#: The most XML elements, or JSON objects and arrays (counted by their opening brackets), one
#: Tiled file may hold: 2**20 (1,048,576). pytiled-parser makes a Python object of each.
MAX_MAP_FILE_ITEMS = 2**20
#: The most tiles pytiled-parser decodes for one map, all its tile layers together (a layer
#: at ``MAX_TILES`` takes it about 2 s and 240 MB): four such layers.
MAX_MAP_TILES = 4 * MAX_TILES

_OPEN_BYTES = 4096  # the least one read of a file counts for in MAX_MAP_READ_BYTES
_CHUNK = 2**16  # characters read, and bytes decompressed, at a time
_DEPTH = 4  # map, template, its tileset, a template of that, its tileset: as far as it reads
_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_NOT_B64 = bytes(sorted(set(range(256)) - set(_B64)))  # '=' too: see _Base64Size
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
          (stat.S_ISSOCK, "a socket"))


class _Refusal(Exception):
    """A fault of one file; `_Walk.visit` names the file and makes it a ``ValueError``."""


def check_map_file(path: str | os.PathLike[str]) -> None:
    """Check the Tiled map at ``path``, and every tileset and template it makes
    pytiled-parser open, before pytiled-parser opens any of them (see the module docstring).

    Raises ``ValueError`` naming the map (and the file the fault is in) for anything refused,
    ``FileNotFoundError`` (or another ``OSError`` of ``os.stat``) naming a path that cannot
    be looked at. Returns nothing: pytiled-parser then reads the map as before.
    """
    name = os.fsdecode(os.fspath(path))
    _Walk(name).visit(name, 1, 0, "")


# ------------------------------------------------------------------ files and what they name


class _Scan:
    """What one file holds that matters here: the files it names, as (what, source) with the
    number of times pytiled-parser opens each, and the tiles its tile layers declare."""

    def __init__(self) -> None:
        self.refs: Counter[tuple[str, str]] = Counter()
        self.tiles = 0


class _Walk:
    """The files one map reaches, each scanned once, with the reads and tiles they add up to."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.read = 0
        self.tiles = 0
        self.scans: dict[tuple[int, int], _Scan] = {}

    def visit(self, path: str, weight: int, depth: int, via: str) -> None:
        """Check the file at ``path``, which pytiled-parser opens ``weight`` times and which
        ``via`` names ("" for the map itself), then the files it names."""
        try:
            st = _stat(path)
        except _Refusal as exc:
            raise ValueError(f"{self.name}: {via or 'the map file'} {exc}") from None
        self.read += weight * max(st.st_size, _OPEN_BYTES)
        if self.read > MAX_MAP_READ_BYTES:
            times = f"; {via} is read {weight:,} times" if weight > 1 else ""
            raise ValueError(
                f"{self.name}: pytiled-parser would read more than {MAX_MAP_READ_BYTES:,} "
                f"bytes (MAX_MAP_READ_BYTES) of Tiled files for it (the map, its tilesets, "
                f"and each template once for every object made from it){times}")
        key = (st.st_dev, st.st_ino)
        scan = self.scans.get(key)
        if scan is None:
            try:
                scan = self.scans[key] = _scan_file(path, st)
            except _Refusal as exc:
                raise ValueError(f"{self.name}: {via + ': ' if via else ''}{exc}") from None
        self.tiles += weight * scan.tiles
        if self.tiles > MAX_MAP_TILES:
            raise ValueError(f"{self.name}: {_tiles_refused()}")
        if depth >= _DEPTH:
            return
        for (what, source), count in scan.refs.items():
            target = str(Path(path).parent / source)
            self.visit(target, weight * count, depth + 1,
                       f"{via + ', its ' if via else ''}{what} {_short(source)} ({target})")


def _stat(path: str) -> os.stat_result:
    """``os.stat`` of a file to read, which must be a regular one of at most
    ``MAX_MAP_FILE_BYTES``; its ``OSError`` (``FileNotFoundError``) names the path."""
    try:
        st = os.stat(path)
    except ValueError as exc:  # a NUL in the name
        raise _Refusal(f"has a name no file can have ({exc})") from None
    _check_kind(st)
    return st


def _check_kind(st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = next((f"{what}, not" for test, what in _KINDS if test(st.st_mode)), "not")
        raise _Refusal(f"is {kind} a regular file: Tiled files are read only from regular "
                       f"files")
    if st.st_size > MAX_MAP_FILE_BYTES:
        raise _Refusal(f"is {st.st_size:,} bytes: a Tiled file may be at most "
                       f"{MAX_MAP_FILE_BYTES:,} (MAX_MAP_FILE_BYTES)")


def _open_text(path: str, st: os.stat_result) -> TextIO:
    """The file ``os.stat`` found at ``path``, opened as pytiled-parser opens it (UTF-8 text),
    without blocking (should it have become a FIFO since) and checked again once open."""
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    fd = os.open(path, flags)
    try:
        now = os.fstat(fd)
        _check_kind(now)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise _Refusal("the file changed while it was being checked")
        return open(fd, encoding="utf-8")  # the caller closes it
    except BaseException:
        os.close(fd)
        raise


def _chunks(f: TextIO) -> Iterator[str]:
    """The file's text, ``_CHUNK`` characters at a time, no more than its size cap in all."""
    total = 0
    while chunk := f.read(_CHUNK):
        total += len(chunk)
        if total > MAX_MAP_FILE_BYTES:
            raise _Refusal(f"the file grew past {MAX_MAP_FILE_BYTES:,} bytes (MAX_MAP_FILE_BYTES) "
                           f"while it was being read")
        yield chunk


def _format(path: str, st: os.stat_result) -> str | None:
    """"xml" or "json" as pytiled-parser tells them (the first character of the first line,
    stripped, is ``<`` or not), or None where it fails to (an empty first line, bad UTF-8)."""
    try:
        with _open_text(path, st) as f:
            for chunk in _chunks(f):
                text = chunk.lstrip()
                lead = chunk[:len(chunk) - len(text)]
                if "\n" in lead:
                    return None  # the first line is blank: pytiled-parser's line[0] fails
                if text:
                    return "xml" if text[0] == "<" else "json"
    except UnicodeDecodeError:
        pass
    return None


def _scan_file(path: str, st: os.stat_result) -> _Scan:
    """What the file at ``path`` names and declares, its tile data checked on the way."""
    kind = _format(path, st)
    if kind == "xml":
        return _scan_xml(path, st)
    if kind == "json":
        return _scan_json(path, st)
    return _Scan()  # pytiled-parser cannot tell what it is: it reads nothing more


def _short(value: object) -> str:
    """``repr(value)``, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:45] + "..." + text[-10:]


# ------------------------------------------------------------------ tile layers


def _tile_layer(name: object, width: object, height: object, scan: _Scan) -> tuple[str, int]:
    """The tile layer's label for messages and its declared tiles, checked and counted."""
    what = f"tile layer {_short(name)}"
    for side in (width, height):
        if isinstance(side, bool) or not isinstance(side, int):
            raise _Refusal(f"{what} must declare its width and height in whole tiles, got "
                           f"{_short(width)} x {_short(height)}")
    w, h = width, height  # type: ignore[assignment]
    if not (1 <= w <= MAX_TILEMAP_SIDE and 1 <= h <= MAX_TILEMAP_SIDE):  # type: ignore[operator]
        raise _Refusal(f"{what} is declared {_short(w)} x {_short(h)} tiles: each side must be "
                       f"from 1 to {MAX_TILEMAP_SIDE} (MAX_TILEMAP_SIDE)")
    tiles: int = w * h  # type: ignore[operator]
    if tiles > MAX_TILES:
        raise _Refusal(f"{what} is declared {w} x {h} tiles ({tiles:,}): at most {MAX_TILES:,} "
                       f"(MAX_TILES)")
    scan.tiles += tiles
    if scan.tiles > MAX_MAP_TILES:
        raise _tiles_refused()
    return what, tiles


def _tiles_refused() -> _Refusal:
    return _Refusal(f"its tile layers declare more than {MAX_MAP_TILES:,} tiles "
                    f"(MAX_MAP_TILES) in all (each layer's width x height, for each time "
                    f"pytiled-parser reads it)")


def _chunks_refused(what: str) -> _Refusal:
    return _Refusal(f"{what} holds chunks, the tiles of an infinite map: infinite maps are not "
                    f"supported (their tiles come in chunks with no fixed corner to place); "
                    f"untick Infinite in Tiled's Map Properties")


def _infinite_refused() -> _Refusal:
    return _Refusal("infinite maps are not supported (their tiles come in chunks with no fixed "
                    "corner to place); untick Infinite in Tiled's Map Properties")


class _CsvCount:
    """CSV tile data: pytiled-parser splits it at commas, so it holds one more number than
    commas; no more than the layer declares."""

    def __init__(self, what: str, tiles: int) -> None:
        self.what, self.tiles, self.commas = what, tiles, 0

    def feed(self, text: str) -> None:
        self.commas += text.count(",")
        if self.commas >= self.tiles:
            raise _Refusal(f"{self.what} holds more tile ids than the {self.tiles:,} it "
                           f"declares: its CSV data has more than {self.tiles:,} numbers")

    def finish(self) -> None:
        """Nothing is left to count."""


class _Base64Size:
    """Base64 tile data, decoded (and decompressed) a piece at a time and refused as soon as
    it holds more than the layer's ``4 * tiles`` bytes.

    Every base64 character counts and ``=`` is skipped, wherever it is: a decoder that stops
    at an ``=`` in the middle of the text (as Python's does up to 3.12) decodes the start of
    this, one that reads on past it decodes this, so neither decodes more."""

    def __init__(self, what: str, tiles: int, compression: object) -> None:
        self.what, self.limit, self.size = what, 4 * tiles, 0
        self.pending = b""  # the last 0 to 3 characters, short of a group of 4
        self.inflate: _Inflate | None = None
        if compression in ("zlib", "gzip"):
            self.inflate = _Inflate(self, compression == "gzip")
        elif compression == "zstd":
            raise _Refusal(f"{what} holds zstd-compressed tile data, whose size cannot be "
                           f"checked before it is decoded; save the map with zlib or gzip "
                           f"compression (Map Properties, Tile Layer Format)")
        self.compression = compression

    def feed(self, text: str) -> None:
        try:
            raw = text.encode("ascii")
        except UnicodeEncodeError:
            raise _Refusal(f"{self.what} holds base64 tile data with a character that is not "
                           f"ASCII") from None
        raw = self.pending + raw.translate(None, _NOT_B64)
        cut = len(raw) - len(raw) % 4
        self.pending = raw[cut:]
        if cut:
            self._decoded(binascii.a2b_base64(raw[:cut]) if self.inflate else cut // 4 * 3)

    def finish(self) -> None:
        if len(self.pending) > 1:  # 2 or 3 characters: 1 or 2 bytes
            last = self.pending + b"=" * (4 - len(self.pending))
            self._decoded(binascii.a2b_base64(last) if self.inflate else len(self.pending) - 1)
        self.pending = b""

    def _decoded(self, data: bytes | int) -> None:
        if self.inflate is not None:
            assert isinstance(data, bytes)
            self.inflate.feed(data)
        else:
            assert isinstance(data, int)
            self.grew(data)

    def grew(self, n: int) -> None:
        """``n`` more bytes of tile data; a refusal once they pass the declared size."""
        self.size += n
        if self.size > self.limit:
            how = f"its {self.compression} data decodes" if self.inflate else "its data is"
            raise _Refusal(f"{self.what} holds more tile data than the {self.limit // 4:,} "
                           f"tiles it declares ({self.limit:,} bytes): {how} past that")


class _Inflate:
    """zlib or gzip data decompressed ``_CHUNK`` bytes at a time, each counted as it comes
    (gzip as ``gzip.decompress`` reads it: members one after another, zero bytes between)."""

    def __init__(self, size: _Base64Size, gzip: bool) -> None:
        self.size, self.gzip = size, gzip
        self.wbits = 16 + zlib.MAX_WBITS if gzip else zlib.MAX_WBITS
        self.d: zlib._Decompress | None = zlib.decompressobj(self.wbits)
        self.done = False

    def feed(self, data: bytes) -> None:
        while not self.done:
            if self.d is None:  # between gzip members
                data = data.lstrip(b"\0")
                if not data:
                    return
                self.d = zlib.decompressobj(self.wbits)
            try:
                out = self.d.decompress(data, _CHUNK)
            except zlib.error as exc:
                raise _Refusal(f"{self.size.what} holds {'gzip' if self.gzip else 'zlib'} tile "
                               f"data that does not decompress ({exc})") from None
            self.size.grew(len(out))
            if self.d.eof:
                data = self.d.unused_data
                if self.gzip:
                    self.d = None
                else:
                    self.done = True  # zlib.decompress reads one stream
                continue
            data = self.d.unconsumed_tail
            if not data and len(out) < _CHUNK:
                return  # all taken in and nothing more to give out until more comes


# ------------------------------------------------------------------ XML (.tmx, .tsx, .tx)

_CONTAINER, _IN_TILESET, _TILE_LAYER, _DATA = 1, 2, 4, 8
_TAGS = frozenset({"map", "group", "tileset", "object", "layer", "data", "chunk"})


class _XmlScan:
    """One pass of expat over an XML file: pytiled-parser's view of it (``<tileset source>``
    under the root, ``<object template>``, ``<layer>`` under the map and its groups, and their
    ``<data>``), in memory that does not grow with the file but for a flag per open tag."""

    def __init__(self, scan: _Scan) -> None:
        self.scan = scan
        self.parser = p = expat.ParserCreate()
        p.buffer_text = True  # text in pieces of up to 64 KiB, not one call per line
        p.buffer_size = _CHUNK
        p.StartDoctypeDeclHandler = self._doctype
        p.EntityDeclHandler = self._entity
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._text
        self.root = ""
        self.stack: list[int] = []  # the flags of each open tag
        self.elements = 0
        self.template_tileset = False  # a template's first <tileset> is the one read
        self.layer = ("", 0)  # the open tile layer's label and tiles
        self.sink: _CsvCount | _Base64Size | None = None  # its open <data>'s text

    def _doctype(self, name: str, *_: object) -> None:
        raise _Refusal(f"the file declares a DOCTYPE ({_short(name)}); Tiled files have none, "
                       f"and the entities one declares can expand without bound")

    def _entity(self, name: str, *_: object) -> None:
        raise _Refusal(f"the file declares an entity ({_short(name)}); Tiled files have none")

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        self.elements += 1
        if self.elements > MAX_MAP_FILE_ITEMS:
            raise _Refusal(f"the file holds more than {MAX_MAP_FILE_ITEMS:,} XML elements "
                           f"(MAX_MAP_FILE_ITEMS)")
        stack = self.stack
        top = stack[-1] if stack else 0
        if stack and tag not in _TAGS and not top & _DATA:
            stack.append(top & _IN_TILESET)  # nothing read here: most tags
            return
        if top & _DATA:
            if tag == "chunk":
                raise _chunks_refused(self.layer[0])
            if self.sink is not None:  # <data>'s text is what comes before its first child
                self.sink.finish()
                self.sink = None
        flags = top & _IN_TILESET
        if not stack:
            self.root = tag
            if tag == "map":
                flags |= _CONTAINER
                try:
                    infinite = int(attrs.get("infinite", "0"))
                except ValueError:
                    infinite = 0  # pytiled-parser's int() fails on it, after the decoding
                if infinite:
                    raise _infinite_refused()
        elif tag == "group" and top & _CONTAINER:
            flags |= _CONTAINER
        elif tag == "tileset":
            flags |= _IN_TILESET  # an embedded tileset's templates are never read
            if len(stack) == 1 and (self.root == "map" or (self.root == "template"
                                                           and not self.template_tileset)):
                self.template_tileset = True
                source = attrs.get("source")
                if source is not None:
                    self.scan.refs["tileset", source] += 1
        elif tag == "object":
            template = attrs.get("template")
            if template and not top & _IN_TILESET and self.root in ("map", "tileset"):
                self.scan.refs["template", template] += 1
        elif tag == "layer" and top & _CONTAINER:
            flags |= _TILE_LAYER
            try:
                width: object = int(attrs["width"])
                height: object = int(attrs["height"])
            except (KeyError, ValueError):
                width, height = attrs.get("width"), attrs.get("height")
            self.layer = _tile_layer(attrs.get("name", ""), width, height, self.scan)
        elif tag == "data" and top & _TILE_LAYER:
            flags |= _DATA
            what, tiles = self.layer
            encoding = attrs.get("encoding")
            self.sink = (_Base64Size(what, tiles, attrs.get("compression", ""))
                         if encoding and encoding != "csv" else _CsvCount(what, tiles))
        stack.append(flags)

    def _end(self, tag: str) -> None:
        if self.stack.pop() & _DATA and self.sink is not None:
            self.sink.finish()
            self.sink = None

    def _text(self, text: str) -> None:
        if self.sink is not None and self.stack[-1] & _DATA:
            self.sink.feed(text)


def _scan_xml(path: str, st: os.stat_result) -> _Scan:
    scan = _Scan()
    xml = _XmlScan(scan)
    try:
        with _open_text(path, st) as f:
            for chunk in _chunks(f):
                xml.parser.Parse(chunk, False)
            xml.parser.Parse("", True)
    except (expat.ExpatError, UnicodeDecodeError):
        return _Scan()  # not well formed: pytiled-parser refuses it before reading on
    return scan


# ------------------------------------------------------------------ JSON (.tmj, .tsj, .tj)


def _scan_json(path: str, st: os.stat_result) -> _Scan:
    parts: list[str] = []
    items = 0
    try:
        with _open_text(path, st) as f:
            for chunk in _chunks(f):
                items += chunk.count("{") + chunk.count("[")
                if items > MAX_MAP_FILE_ITEMS:
                    raise _Refusal(f"the file holds more than {MAX_MAP_FILE_ITEMS:,} JSON objects "
                                   f"and arrays (MAX_MAP_FILE_ITEMS; counted by their "
                                   f"opening brackets)")
                parts.append(chunk)
    except UnicodeDecodeError:  # pytiled-parser refuses it too
        return _Scan()
    try:
        doc = json.loads("".join(parts))
    except (ValueError, RecursionError):  # pytiled-parser's json.load fails on it too
        return _Scan()
    del parts
    scan = _Scan()
    if not isinstance(doc, dict):
        return scan
    if doc.get("infinite") is True:
        raise _infinite_refused()
    tilesets = doc.get("tilesets")
    for ts in tilesets if isinstance(tilesets, list) else ():
        if not isinstance(ts, dict):
            continue
        source = ts.get("source")
        if source is None:  # embedded: its tiles' objects name no template that is read
            _json_tiles(ts.get("tiles"), scan, templates=False)
        elif isinstance(source, str):
            scan.refs["tileset", source] += 1
    _json_layers(doc.get("layers"), scan, templates=True)
    _json_tiles(doc.get("tiles"), scan, templates=True)  # a tileset's
    tileset = doc.get("tileset")  # a template's
    if isinstance(tileset, dict) and isinstance(tileset.get("source"), str):
        scan.refs["tileset", tileset["source"]] += 1
    return scan


def _json_tiles(tiles: object, scan: _Scan, templates: bool) -> None:
    """A tileset's tiles (a list, or a table by id): each one's objectgroup is read as a layer
    (of any type: pytiled-parser decodes a tile layer put there)."""
    if isinstance(tiles, dict):
        tiles = list(tiles.values())
    for tile in tiles if isinstance(tiles, list) else ():
        if isinstance(tile, dict) and tile.get("objectgroup") is not None:
            _json_layers([tile["objectgroup"]], scan, templates)


def _json_layers(layers: object, scan: _Scan, templates: bool) -> None:
    """Layers as pytiled-parser reads them (by their "type"), groups' layers too."""
    todo = [layers]
    while todo:
        group = todo.pop()
        for layer in group if isinstance(group, list) else ():
            if not isinstance(layer, dict):
                continue
            kind = layer.get("type")
            if kind == "tilelayer":
                _json_tile_layer(layer, scan)
            elif kind == "group":
                todo.append(layer.get("layers"))
            elif kind == "objectgroup" and templates:
                objects = layer.get("objects")
                for obj in objects if isinstance(objects, list) else ():
                    template = obj.get("template") if isinstance(obj, dict) else None
                    if template and isinstance(template, str):
                        scan.refs["template", template] += 1


def _json_tile_layer(layer: dict[str, object], scan: _Scan) -> None:
    what, tiles = _tile_layer(layer.get("name"), layer.get("width"), layer.get("height"), scan)
    if layer.get("chunks") is not None:
        raise _chunks_refused(what)
    data = layer.get("data")
    if layer.get("encoding") is not None:
        if isinstance(data, str):  # other data: pytiled-parser's b64decode refuses it
            size = _Base64Size(what, tiles, layer.get("compression"))
            for at in range(0, len(data), _CHUNK):
                size.feed(data[at:at + _CHUNK])
            size.finish()
    elif isinstance(data, list) and len(data) > tiles:
        raise _Refusal(f"{what} holds more tile ids than the {tiles:,} it declares "
                       f"({len(data):,})")
