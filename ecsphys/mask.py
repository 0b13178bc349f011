"""Pixel masks: a shape that is the set pixels of a sprite (seed 001's pixel-level collision).

Guarantees:
- ``Mask(pixels, scale=1.0, offset=(0, 0))`` takes a 2D boolean array (any array whose
  non-zero entries are the set pixels), row 0 on top as images are drawn; one pixel is
  ``scale`` world units square; the mask is centred on the body's position plus ``offset``
  like the other shapes, so pixel ``(row, col)`` covers ``x`` in
  ``offset.x - width * scale / 2 + [col, col + 1] * scale`` and ``y`` in
  ``offset.y + height * scale / 2 - [row + 1, row] * scale``;
- ``Mask.from_image(image, threshold=127)`` reads any image with pyglet's interface
  (``get_image_data().get_data("RGBA", pitch)``, rows from the bottom): a pixel is set where
  its alpha is above ``threshold``; the core never imports pyglet itself;
- ``Mask.from_file(path, threshold=127)`` reads any image file Pillow reads (PNG, GIF, BMP,
  WebP, ... but EPS, which Pillow hands to Ghostscript) through the optional extra
  ``pip install "ecsphys[images]"``; Pillow is imported only then, so the core works without
  it. A file is untrusted: its size, read from its header, is checked against
  ``MAX_MASK_SIDE`` and ``MAX_MASK_PIXELS`` (``ecsphys/limits.py``) and against Pillow's own
  decompression-bomb guard (``PIL.Image.MAX_IMAGE_PIXELS``) before a pixel is decoded, and
  every failure is a ``ValueError`` naming the file (see ``from_file``);
- ``Mask(pixels)`` holds at most ``MAX_MASK_SIDE`` pixels a side and ``MAX_MASK_PIXELS`` in
  all, checked on the array's shape before anything of its size is made;
- the pixels are stored bit-packed, rows of 64-bit words (bit ``c % 64`` of word ``c // 64``
  is column ``c``), so two masks are compared 64 pixels at a time, as pygame's bitmask does;
- two masks meet where set pixels share area (squares that only share an edge do not); a mask
  meets any other shape where one of its set pixels, as a square, overlaps or touches it.
  ``geometry.overlaps``, ``geometry.contact`` (approximate: see ``geometry/manifold.pyx``) and
  ``geometry.point_in`` answer masks against every kind (compounds too) with the compiled
  routines of ``geometry/mask.pyx`` and ``manifold.pyx``; a mask is an immutable value (equal
  pixels, scale and offset make equal masks);
- times of impact with a mask are seed 002's search over the overlap test (sampled every
  half pixel, then halved to a thousandth of a pixel: a fast mask sprite does not tunnel);
  "within a skin" (the narrowphase's hysteresis) is tested by moving the other shape the
  skin's length in eight directions. So masks take part in the physics step like any shape:
  resting, sliding, pushing, events, layers, sensors, compounds;
- ``geometry.raycast`` / ``segment_hits`` walk a ray through the pixels to the first set
  one (the side it enters by gives the normal); ``line_overlaps`` is True when the line
  touches a set pixel's square;
- exact distances (``geometry.distance``) with a mask are refused with a ``TypeError``: the
  step never needs them (its "within a skin" test is the eight-direction one above).
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Iterable
from typing import IO, Any, ClassVar

import numpy as np

from .limits import MAX_MASK_PIXELS, MAX_MASK_SIDE, MAX_SIZE, check_grid, check_size, check_vec
from .shapes import Shape, check_reach

#: Pixels per storage word.
WORD = 64


def pack(pixels: np.ndarray) -> np.ndarray:
    """The rows of a boolean image as 64-bit words (LSB first: bit k of word w is column
    ``64 * w + k``), shape ``(rows, words per row)``."""
    rows, cols = pixels.shape
    words = -(-cols // WORD)
    padded = np.zeros((rows, words * WORD), dtype=np.uint8)
    padded[:, :cols] = pixels
    return np.packbits(padded.reshape(rows, words, WORD), axis=2,
                       bitorder="little").view("<u8").reshape(rows, words)


def _check_threshold(threshold: Any) -> int:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)):
        raise TypeError(f"Mask.threshold must be an int from 0 to 255, got {threshold!r}")
    if not 0 <= threshold <= 255:
        raise ValueError(f"Mask.threshold must be from 0 to 255, got {threshold!r}")
    return int(threshold)


#: Image formats ``Mask.from_file`` does not open: Pillow reads EPS by running Ghostscript,
#: an interpreter of whatever the file says.
REFUSED_FORMATS = frozenset({"EPS"})

#: The band that is alpha, for Pillow's image modes that have one ("LAB"'s "A" is not).
_ALPHA_BAND = {"RGBA": "A", "LA": "A", "PA": "A", "RGBa": "a", "La": "a"}


def _pillow() -> Any:
    """Pillow's ``Image`` module, or an ``ImportError`` that says how to install it."""
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError('Mask.from_file reads image files with Pillow, which is not '
                          'installed: pip install "ecsphys[images]"') from exc
    return Image


def _alpha(im: Any) -> np.ndarray | None:
    """The alpha of a decoded Pillow image as a ``(height, width)`` uint8 array, or None for
    an image without transparency (every pixel opaque)."""
    band = _ALPHA_BAND.get(im.mode)
    if band is not None:
        return np.asarray(im.getchannel(band))
    palette = getattr(im, "palette", None)
    if ("transparency" in im.info
            or (im.mode == "P" and palette is not None and palette.mode.endswith("A"))):
        return np.asarray(im.convert("RGBA").getchannel("A"))
    return None


def _read_alpha(source: Any, name: str) -> np.ndarray:
    """The alpha of the first frame of the image in ``source`` (a binary file) as a
    ``(height, width)`` uint8 array, 255 for an image without transparency; ``ValueError``
    naming ``name`` for whatever keeps it from being read, or a size beyond the limits."""
    Image = _pillow()
    Image.init()
    formats = [f for f in Image.OPEN if f not in REFUSED_FORMATS]
    with warnings.catch_warnings():
        # Pillow warns of an image over its MAX_IMAGE_PIXELS (and raises over twice that)
        # when it opens it, reading only the header: both are refusals here
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            im = Image.open(source, formats=formats)
        except Exception as exc:  # noqa: BLE001 - Pillow's decoders raise many kinds
            raise ValueError(f"{name}: not a readable image ({_why(exc)})") from exc
        with im:
            check_grid(name, (im.height, im.width), MAX_MASK_SIDE, MAX_MASK_PIXELS, "pixels")
            try:
                im.load()
                alpha = _alpha(im)
            except Exception as exc:  # noqa: BLE001 - as above
                raise ValueError(f"{name}: not a readable image ({_why(exc)})") from exc
            shape = (im.height, im.width)
    check_grid(name, shape, MAX_MASK_SIDE, MAX_MASK_PIXELS, "pixels")
    if alpha is None:
        return np.full(shape, 255, dtype=np.uint8)
    if alpha.shape != shape or alpha.dtype != np.uint8:
        raise ValueError(f"{name}: Pillow gave alpha of shape {alpha.shape} and type "
                         f"{alpha.dtype} for an image of {shape[1]} x {shape[0]} pixels")
    return alpha


def _why(exc: Exception) -> str:
    """An exception as ``Type: message``, cut short."""
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 200 else text[:200] + "..."


def has_mask(shape: Shape) -> bool:
    """Whether ``shape`` is a mask or a group with a mask among its parts."""
    if isinstance(shape, Mask):
        return True
    parts = getattr(shape, "parts", None)
    return parts is not None and not hasattr(shape, "edge_array") and any(
        isinstance(p, Mask) for p, _, _ in parts)


class Mask(Shape):
    """The set pixels of a sprite (see the module docstring).

    >>> m = Mask([[0, 1, 0], [1, 1, 1]], scale=2.0)
    >>> m.size, m.count, m.bounds()
    ((3, 2), 4, (-3.0, -2.0, 3.0, 2.0))
    """

    __slots__ = ("_pixels", "scale", "bits", "count", "_bb")
    type_code: ClassVar[int] = 7
    scale: float
    #: the packed rows (read-only ``(height, words)`` uint64)
    bits: np.ndarray
    #: how many pixels are set
    count: int

    def __init__(self, pixels: Any, scale: float = 1.0,
                 offset: Iterable[float] = (0.0, 0.0)) -> None:
        try:
            arr = np.asarray(pixels)
        except Exception as exc:  # noqa: BLE001 - anything that is no array
            raise TypeError(f"Mask.pixels must be a 2D array, got {type(pixels).__name__} "
                            f"({_why(exc)})") from exc
        check_grid("Mask.pixels", arr.shape, MAX_MASK_SIDE, MAX_MASK_PIXELS, "pixels")
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"Mask.pixels must hold bools or numbers, got {arr.dtype}")
        solid = np.array(arr != 0, dtype=np.bool_)
        solid.setflags(write=False)
        bits = pack(solid)
        bits.setflags(write=False)
        self._set("_pixels", solid)
        self._set("scale", check_size("Mask.scale", scale))
        self._set("offset", check_vec("Mask.offset", offset, MAX_SIZE))
        self._set("bits", bits)
        self._set("count", int(solid.sum()))
        h, w = solid.shape
        ox, oy = self.offset
        hx, hy = w * self.scale / 2, h * self.scale / 2
        self._set("_bb", (ox - hx, oy - hy, ox + hx, oy + hy))
        check_reach(self)

    @classmethod
    def from_image(cls, image: Any, threshold: int = 127, scale: float = 1.0,
                   offset: Iterable[float] = (0.0, 0.0)) -> Mask:
        """The pixels of ``image`` (pyglet's image interface) whose alpha is above
        ``threshold`` (0 .. 255)."""
        threshold = _check_threshold(threshold)
        try:
            data = image.get_image_data()
            w, h = data.width, data.height
            raw = data.get_data("RGBA", w * 4)
        except AttributeError as exc:
            raise TypeError(f"Mask.from_image needs an image with get_image_data(), got "
                            f"{image!r}") from exc
        rgba = np.frombuffer(raw, dtype=np.uint8).reshape(h, w, 4)
        return cls(rgba[::-1, :, 3] > threshold, scale=scale, offset=offset)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | bytes | IO[bytes], threshold: int = 127,
                  scale: float = 1.0, offset: Iterable[float] = (0.0, 0.0)) -> Mask:
        """The pixels of an image file whose alpha is above ``threshold`` (0 .. 255); an
        image without alpha is all set, but for a transparent colour (PNG's ``tRNS``, GIF's
        transparent index). ``path`` is a path (``str`` or ``os.PathLike``), the file's
        bytes, or a binary file object. Of an animated image, the first frame.

        Read by Pillow (``pip install "ecsphys[images]"``; ``ImportError`` saying so when it
        is missing), any format it reads but EPS. Raises ``ValueError`` naming the file for
        one that is not a readable image (not an image, cut short, corrupt) or is larger
        than ``MAX_MASK_SIDE`` pixels a side or ``MAX_MASK_PIXELS`` in all (checked on the
        header, before decoding; so is Pillow's ``MAX_IMAGE_PIXELS``); ``OSError`` as
        ``open`` raises (``FileNotFoundError`` for a missing file); ``TypeError`` for a
        ``path`` of another kind and ``TypeError``/``ValueError`` for a bad threshold."""
        threshold = _check_threshold(threshold)
        if isinstance(path, (bytes, bytearray, memoryview)):
            alpha = _read_alpha(io.BytesIO(bytes(path)), "the image bytes")
        elif isinstance(path, (str, os.PathLike)):
            name = os.fsdecode(os.fspath(path))
            with open(path, "rb") as f:
                alpha = _read_alpha(f, name)
        elif callable(getattr(path, "read", None)):
            alpha = _read_alpha(path, str(getattr(path, "name", None) or repr(path)))
        else:
            raise TypeError(f"Mask.from_file path must be a path, bytes or a binary file, "
                            f"got {type(path).__name__}")
        return cls(alpha > threshold, scale=scale, offset=offset)

    @property
    def pixels(self) -> np.ndarray:
        """The set pixels, row 0 on top (read-only bool array)."""
        return self._pixels

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return (int(self._pixels.shape[1]), int(self._pixels.shape[0]))

    def _key(self) -> tuple[object, ...]:
        return (self._pixels.shape, self.bits.tobytes(), self.scale, self.offset)

    def __repr__(self) -> str:
        w, h = self.size
        scale = "" if self.scale == 1.0 else f", scale={self.scale!r}"
        return f"Mask({w}x{h} pixels, {self.count} set{scale}{self._offset_repr()})"

    def bounds(self) -> tuple[float, float, float, float]:
        return self._bb
