"""Shape values: the collision boundaries a `Geometry` holds, and their bounding boxes.

Kinds (``type_code``): Circle 0, Rect 1 (axis-aligned), OrientedRect 2, Segment 3,
Polygon 4 (convex, stored counter-clockwise), Compound 5 (a bounded group; nested groups are
flattened into ``parts``). Concave outlines: ``ecsphys.geometry.convex_decompose``.

Guarantees:
- every shape is an immutable, hashable value that compares by value;
- every shape is relative to its body's position, moved by an optional ``offset``;
- bad input (NaN, infinite, zero or negative sizes, wrong types) raises ``ValueError`` or
  ``TypeError`` at construction, naming the field and the value, so no NaN appears later;
- ``bounds()`` is the shape's axis-aligned bounding box relative to the body's position
  (offset included) and ``bounding_circle()`` a circle that contains the shape.

Coordinates are y-up world units. Angles are in degrees, counter-clockwise.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import ClassVar

from .limits import (
    MAX_SIZE,
    MIN_SIZE,
    Vec,
    check_finite,
    check_positive,
    check_size,
    check_vec,
)

__all__ = [
    "Circle", "Compound", "OrientedRect", "Polygon", "Rect", "Segment", "Shape", "Vec",
    "check_finite", "check_positive", "check_reach", "check_size", "check_vec",
]


class Shape:
    """Base class of all shapes. Subclasses are immutable values with ``__slots__``.

    ``type_code`` is a small integer the body table stores per row so the systems can pick
    a vectorised kernel for each pair of shape kinds.
    """

    __slots__ = ("offset", "_hash")
    type_code: ClassVar[int] = -1
    offset: Vec

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; make a new shape instead")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __reduce__(self) -> tuple[object, ...]:
        # immutable slots cannot be set by pickle's default: rebuild from the slot values,
        # all but the cached hash (a str's hash differs from process to process: a loaded
        # shape rehashes, so it is found in sets and dicts there and pickles to the same
        # bytes in every process)
        state = {}
        for cls in type(self).__mro__:
            for name in cls.__dict__.get("__slots__", ()):
                if name == "_hash":
                    continue
                if name not in state and not isinstance(getattr(type(self), name, None),
                                                        property):
                    try:
                        state[name] = object.__getattribute__(self, name)
                    except AttributeError:
                        pass
        return (_rebuild, (type(self), state))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        try:
            return self._hash  # type: ignore[no-any-return]
        except AttributeError:  # computed once: shapes are immutable (and stored by hash)
            h = hash((type(self).__name__, self._key()))
            self._set("_hash", h)
            return h

    def _offset_repr(self) -> str:
        return "" if self.offset == (0.0, 0.0) else f", offset={self.offset!r}"

    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_y, max_x, max_y)`` of the shape relative to the body's position."""
        raise NotImplementedError

    def bounding_circle(self) -> tuple[float, float, float]:
        """``(cx, cy, radius)`` of a circle containing the shape, relative to the body."""
        x0, y0, x1, y1 = self.bounds()
        return ((x0 + x1) / 2, (y0 + y1) / 2, math.hypot(x1 - x0, y1 - y0) / 2)

    @property
    def bounding_radius(self) -> float:
        """Radius of ``bounding_circle()`` (about its own centre)."""
        return self.bounding_circle()[2]


def _rebuild(cls: type[Shape], state: dict[str, object]) -> Shape:
    """A shape of class ``cls`` with the given slot values (unpickling)."""
    shape = object.__new__(cls)
    for name, value in state.items():
        object.__setattr__(shape, name, value)
    return shape


class Circle(Shape):
    """A circle of ``radius`` centred on the body's position plus ``offset``.

    >>> Circle(0.5)
    Circle(0.5)
    >>> Circle(1, offset=(0, 2)).bounds()
    (-1.0, 1.0, 1.0, 3.0)
    """

    __slots__ = ("radius",)
    type_code: ClassVar[int] = 0
    radius: float

    def __init__(self, radius: float, offset: Iterable[float] = (0.0, 0.0)) -> None:
        self._set("radius", check_size("Circle.radius", radius))
        self._set("offset", check_vec("Circle.offset", offset, MAX_SIZE))
        check_reach(self)

    def _key(self) -> tuple[object, ...]:
        return (self.radius, self.offset)

    def __repr__(self) -> str:
        return f"Circle({self.radius!r}{self._offset_repr()})"

    def bounds(self) -> tuple[float, float, float, float]:
        ox, oy = self.offset
        r = self.radius
        return (ox - r, oy - r, ox + r, oy + r)

    def bounding_circle(self) -> tuple[float, float, float]:
        return (self.offset[0], self.offset[1], self.radius)


class Rect(Shape):
    """An axis-aligned rectangle ``width`` x ``height`` centred on the body plus ``offset``.

    >>> Rect(4, 2).bounds()
    (-2.0, -1.0, 2.0, 1.0)
    """

    __slots__ = ("width", "height", "_verts", "_faces", "_bb")
    type_code: ClassVar[int] = 1
    width: float
    height: float

    def __init__(self, width: float, height: float, offset: Iterable[float] = (0.0, 0.0)) -> None:
        self._set("width", check_size("Rect.width", width))
        self._set("height", check_size("Rect.height", height))
        self._set("offset", check_vec("Rect.offset", offset, MAX_SIZE))
        ox, oy = self.offset
        hw, hh = self.width / 2, self.height / 2
        verts = ((ox - hw, oy - hh), (ox + hw, oy - hh), (ox + hw, oy + hh), (ox - hw, oy + hh))
        faces = (
            (0.0, -1.0, hh - oy),
            (1.0, 0.0, ox + hw),
            (0.0, 1.0, oy + hh),
            (-1.0, 0.0, hw - ox),
        )
        _set_convex(self, verts, faces)
        check_reach(self)

    @classmethod
    def from_sprite(cls, width: float, height: float, scale: float | Iterable[float] = 0.8,
                    anchor: Iterable[float] = (0.5, 0.5)) -> Rect:
        """The reduced collision box of a ``width`` x ``height`` sprite (seed 001): the
        image's box scaled by ``scale`` (one number, or ``(sx, sy)`` per axis; 0.8 is the
        classic 80% box) about the image's centre. ``anchor`` is where the body's position
        sits on the image, as fractions of its size from the bottom-left corner (``(0.5,
        0.5)`` the centre, ``(0.5, 0.0)`` the middle of the bottom edge, as a sprite drawn
        with its anchor at its feet).

        >>> Rect.from_sprite(40, 20)
        Rect(32.0, 16.0)
        >>> Rect.from_sprite(40, 20, scale=(0.5, 1.0), anchor=(0.5, 0.0))
        Rect(20.0, 20.0, offset=(0.0, 10.0))
        """
        w = check_positive("Rect.from_sprite width", width)
        h = check_positive("Rect.from_sprite height", height)
        if isinstance(scale, numbers.Real):
            sx = sy = check_positive("Rect.from_sprite scale", scale)
        else:
            sx, sy = check_vec("Rect.from_sprite scale", scale)
            check_positive("Rect.from_sprite scale.x", sx)
            check_positive("Rect.from_sprite scale.y", sy)
        ax, ay = check_vec("Rect.from_sprite anchor", anchor)
        return cls(w * sx, h * sy, offset=((0.5 - ax) * w, (0.5 - ay) * h))

    def _key(self) -> tuple[object, ...]:
        return (self.width, self.height, self.offset)

    def __repr__(self) -> str:
        return f"Rect({self.width!r}, {self.height!r}{self._offset_repr()})"

    @property
    def half_extents(self) -> Vec:
        """``(width / 2, height / 2)``."""
        return (self.width / 2, self.height / 2)

    def bounds(self) -> tuple[float, float, float, float]:
        ox, oy = self.offset
        hw, hh = self.width / 2, self.height / 2
        return (ox - hw, oy - hh, ox + hw, oy + hh)

    def bounding_circle(self) -> tuple[float, float, float]:
        return (self.offset[0], self.offset[1], math.hypot(self.width, self.height) / 2)


# --- convex outlines: the data the SAT tests read ------------------------------------------
#
# Every convex shape (Rect, OrientedRect, Polygon, Segment) precomputes, relative to the body
# position with its offset included: ``_verts`` (counter-clockwise vertices) and ``_faces``
# (``(nx, ny, support)``: outward unit normal and the largest projection of the shape on it).
# A segment is a two-vertex convex piece with four faces: both normals and both directions
# (the directions separate collinear segments that do not meet).

Face = tuple[float, float, float]


def _faces_of(verts: tuple[Vec, ...]) -> tuple[Face, ...]:
    """Outward unit normals and supports of a counter-clockwise convex polygon."""
    faces = []
    n = len(verts)
    for i in range(n):
        x0, y0 = verts[i]
        x1, y1 = verts[(i + 1) % n]
        ex, ey = x1 - x0, y1 - y0
        length = math.hypot(ex, ey)
        nx, ny = ey / length, -ex / length
        faces.append((nx, ny, nx * x0 + ny * y0))
    return tuple(faces)


def _bounds_of(verts: Iterable[Vec]) -> tuple[float, float, float, float]:
    xs, ys = zip(*verts, strict=True)
    return (min(xs), min(ys), max(xs), max(ys))


def check_reach(shape: Shape) -> None:
    """A shape reaches at most MAX_SIZE from its body's position (offset included)."""
    x0, y0, x1, y1 = shape.bounds()
    reach = max(-x0, -y0, x1, y1)
    if not reach <= MAX_SIZE:
        raise ValueError(f"{type(shape).__name__} must reach at most {MAX_SIZE:g} from its "
                         f"body's position (offset included), reaches {reach:g}")


def _set_convex(shape: Shape, verts: tuple[Vec, ...], faces: tuple[Face, ...]) -> None:
    shape._set("_verts", verts)
    shape._set("_faces", faces)
    shape._set("_bb", _bounds_of(verts))


def _cross(o: Vec, a: Vec, b: Vec) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_cross(p1: Vec, p2: Vec, q1: Vec, q2: Vec) -> bool:
    """True if the closed segments p1p2 and q1q2 share a point."""
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True

    def on(a: Vec, b: Vec, p: Vec, d: float) -> bool:
        return (
            d == 0
            and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])
        )

    return on(q1, q2, p1, d1) or on(q1, q2, p2, d2) or on(p1, p2, q1, d3) or on(p1, p2, q2, d4)


class OrientedRect(Shape):
    """A ``width`` x ``height`` rectangle turned ``angle`` degrees counter-clockwise about
    its centre, which is the body's position plus ``offset``.

    >>> r = OrientedRect(2, 2, 45)
    >>> round(r.bounds()[2], 6)
    1.414214
    """

    __slots__ = ("width", "height", "angle", "_verts", "_faces", "_bb")
    type_code: ClassVar[int] = 2
    width: float
    height: float
    angle: float

    def __init__(
        self,
        width: float,
        height: float,
        angle: float = 0.0,
        offset: Iterable[float] = (0.0, 0.0),
    ) -> None:
        self._set("width", check_size("OrientedRect.width", width))
        self._set("height", check_size("OrientedRect.height", height))
        self._set("angle", check_finite("OrientedRect.angle", angle))
        self._set("offset", check_vec("OrientedRect.offset", offset, MAX_SIZE))
        ox, oy = self.offset
        c, s = math.cos(math.radians(self.angle)), math.sin(math.radians(self.angle))
        hw, hh = self.width / 2, self.height / 2
        verts = tuple(
            (ox + x * c - y * s, oy + x * s + y * c)
            for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))
        )
        _set_convex(self, verts, _faces_of(verts))
        check_reach(self)

    def _key(self) -> tuple[object, ...]:
        return (self.width, self.height, self.angle, self.offset)

    def __repr__(self) -> str:
        return f"OrientedRect({self.width!r}, {self.height!r}, {self.angle!r}{self._offset_repr()})"

    @property
    def half_extents(self) -> Vec:
        """``(width / 2, height / 2)`` along the rectangle's own (turned) axes."""
        return (self.width / 2, self.height / 2)

    @property
    def corners(self) -> tuple[Vec, ...]:
        """The four corners, counter-clockwise, relative to the body's position."""
        return self._verts

    def bounds(self) -> tuple[float, float, float, float]:
        return self._bb

    def bounding_circle(self) -> tuple[float, float, float]:
        return (self.offset[0], self.offset[1], math.hypot(self.width, self.height) / 2)


class Segment(Shape):
    """The line segment from ``p1`` to ``p2`` (relative to the body's position plus
    ``offset``). A zero-length segment is rejected.

    >>> Segment((0, 0), (2, 1)).bounds()
    (0.0, 0.0, 2.0, 1.0)
    """

    __slots__ = ("p1", "p2", "_verts", "_faces", "_bb")
    type_code: ClassVar[int] = 3
    p1: Vec
    p2: Vec

    def __init__(
        self, p1: Iterable[float], p2: Iterable[float], offset: Iterable[float] = (0.0, 0.0)
    ) -> None:
        a = check_vec("Segment.p1", p1, MAX_SIZE)
        b = check_vec("Segment.p2", p2, MAX_SIZE)
        if not math.hypot(b[0] - a[0], b[1] - a[1]) >= MIN_SIZE:
            raise ValueError(f"Segment.p2 must differ from Segment.p1 by at least {MIN_SIZE:g} "
                             f"(zero length), got {b!r} and p1 {a!r}")
        self._set("p1", a)
        self._set("p2", b)
        self._set("offset", check_vec("Segment.offset", offset, MAX_SIZE))
        ox, oy = self.offset
        v1, v2 = (a[0] + ox, a[1] + oy), (b[0] + ox, b[1] + oy)
        length = math.hypot(v2[0] - v1[0], v2[1] - v1[1])
        dx, dy = (v2[0] - v1[0]) / length, (v2[1] - v1[1]) / length
        nx, ny = dy, -dx
        faces = (
            (nx, ny, nx * v1[0] + ny * v1[1]),
            (-nx, -ny, -nx * v1[0] - ny * v1[1]),
            (dx, dy, dx * v2[0] + dy * v2[1]),
            (-dx, -dy, -dx * v1[0] - dy * v1[1]),
        )
        _set_convex(self, (v1, v2), faces)
        check_reach(self)

    def _key(self) -> tuple[object, ...]:
        return (self.p1, self.p2, self.offset)

    def __repr__(self) -> str:
        return f"Segment({self.p1!r}, {self.p2!r}{self._offset_repr()})"

    @property
    def length(self) -> float:
        """Distance from ``p1`` to ``p2``."""
        return math.hypot(self.p2[0] - self.p1[0], self.p2[1] - self.p1[1])

    def bounds(self) -> tuple[float, float, float, float]:
        return self._bb

    def bounding_circle(self) -> tuple[float, float, float]:
        (x1, y1), (x2, y2) = self._verts
        return ((x1 + x2) / 2, (y1 + y2) / 2, self.length / 2)


class Polygon(Shape):
    """A convex polygon through ``points`` (relative to the body's position plus ``offset``).

    ``points`` may be given in either winding; they are stored counter-clockwise. Raises
    ``ValueError`` (naming the point) for fewer than three points, repeated points, a vertex
    collinear with its neighbours, zero area, a concave or a self-intersecting outline.
    Concave outlines can be split with ``ecsphys.geometry.convex_decompose``.

    >>> Polygon([(0, 0), (0, 1), (1, 0)]).points  # clockwise in, counter-clockwise out
    ((1.0, 0.0), (0.0, 1.0), (0.0, 0.0))
    """

    __slots__ = ("points", "_verts", "_faces", "_bb")
    type_code: ClassVar[int] = 4
    points: tuple[Vec, ...]

    def __init__(self, points: Iterable[Iterable[float]], offset: Iterable[float] = (0.0, 0.0)):
        try:
            raw = list(points)
        except TypeError:
            raise TypeError(
                f"Polygon.points must be a sequence of (x, y), got {points!r}"
            ) from None
        pts = [check_vec(f"Polygon.points[{i}]", p, MAX_SIZE) for i, p in enumerate(raw)]
        if len(pts) >= 3:  # a span under MIN_SIZE may collapse when the offset is added
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            if not max(max(xs) - min(xs), max(ys) - min(ys)) >= MIN_SIZE:
                raise ValueError(f"Polygon.points must span at least {MIN_SIZE:g}, got {raw!r}")
        _check_convex(pts)
        if _signed_area(pts) < 0:
            pts.reverse()
        self._set("points", tuple(pts))
        self._set("offset", check_vec("Polygon.offset", offset, MAX_SIZE))
        ox, oy = self.offset
        verts = tuple((x + ox, y + oy) for x, y in pts)
        _set_convex(self, verts, _faces_of(verts))
        check_reach(self)

    def _key(self) -> tuple[object, ...]:
        return (self.points, self.offset)

    def __repr__(self) -> str:
        return f"Polygon({list(self.points)!r}{self._offset_repr()})"

    def bounds(self) -> tuple[float, float, float, float]:
        return self._bb

    def bounding_circle(self) -> tuple[float, float, float]:
        x0, y0, x1, y1 = self._bb
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        r = max(math.hypot(x - cx, y - cy) for x, y in self._verts)
        return (cx, cy, r)


def _signed_area(pts: list[Vec]) -> float:
    n = len(pts)
    return 0.5 * sum(
        pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n)
    )


def _check_convex(pts: list[Vec]) -> None:
    """Raise ``ValueError`` naming the offending point unless ``pts`` is a convex outline."""
    n = len(pts)
    if n < 3:
        raise ValueError(f"Polygon.points needs at least 3 points, got {n}: {pts!r}")
    for i in range(n):
        if pts[i] == pts[(i + 1) % n]:
            raise ValueError(f"Polygon.points[{(i + 1) % n}] repeats the point {pts[i]!r}")
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue
            if _segments_cross(pts[i], pts[(i + 1) % n], pts[j], pts[(j + 1) % n]):
                raise ValueError(
                    f"Polygon.points are self-intersecting: edge {i} "
                    f"{pts[i]!r}-{pts[(i + 1) % n]!r} crosses edge {j} "
                    f"{pts[j]!r}-{pts[(j + 1) % n]!r}"
                )
    area = _signed_area(pts)
    scale = max(max(abs(x), abs(y)) for x, y in pts) or 1.0
    if abs(area) <= 1e-12 * scale * scale:
        raise ValueError(f"Polygon.points are collinear (zero area): {pts!r}")
    sign = 1.0 if area > 0 else -1.0
    turning = 0.0
    wrong: int | None = None
    for i in range(n):
        a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
        e1 = (b[0] - a[0], b[1] - a[1])
        e2 = (c[0] - b[0], c[1] - b[1])
        cross = e1[0] * e2[1] - e1[1] * e2[0]
        if abs(cross) <= 1e-12 * math.hypot(*e1) * math.hypot(*e2):
            raise ValueError(
                f"Polygon.points[{i}] = {b!r} is collinear with its neighbours; remove it"
            )
        if cross * sign < 0 and wrong is None:
            wrong = i
        turning += math.atan2(cross, e1[0] * e2[0] + e1[1] * e2[1])
    if wrong is not None:
        raise ValueError(
            f"Polygon.points are concave at points[{wrong}] = {pts[wrong]!r}; "
            "split it with ecsphys.geometry.convex_decompose"
        )
    if abs(abs(turning) - 2 * math.pi) > 1e-6:
        raise ValueError(f"Polygon.points wind more than once (self-intersecting): {pts!r}")


class Compound(Shape):
    """A bounded group of shapes, each placed by its own ``offset``, the whole group moved by
    ``offset``. Tests check the group's hull first, then the parts.

    Nested compounds are accepted and flattened: ``parts`` lists every leaf shape with the
    total offset to add to the body's position. An empty group raises ``ValueError``.

    >>> c = Compound([Circle(1), Rect(2, 2, offset=(3, 0))])
    >>> c.bounds()
    (-1.0, -1.0, 4.0, 1.0)
    """

    __slots__ = ("shapes", "parts", "_bb", "_bc")
    type_code: ClassVar[int] = 5
    shapes: tuple[Shape, ...]
    #: ``(shape, dx, dy)``: each leaf shape (never a Compound) and where its body origin is.
    parts: tuple[tuple[Shape, float, float], ...]

    def __init__(self, shapes: Iterable[Shape], offset: Iterable[float] = (0.0, 0.0)) -> None:
        try:
            items = tuple(shapes)
        except TypeError:
            raise TypeError(
                f"Compound.shapes must be a sequence of shapes, got {shapes!r}"
            ) from None
        if not items:
            raise ValueError("Compound.shapes must not be empty, got ()")
        for i, s in enumerate(items):
            if not isinstance(s, Shape) or s.type_code < 0:
                raise TypeError(f"Compound.shapes[{i}] must be a shape (Circle, Rect...), got "
                                f"{s!r}")
        self._set("shapes", items)
        self._set("offset", check_vec("Compound.offset", offset, MAX_SIZE))
        ox, oy = self.offset
        parts: list[tuple[Shape, float, float]] = []
        for s in items:
            if isinstance(s, Compound):
                parts.extend((p, dx + ox, dy + oy) for p, dx, dy in s.parts)
            else:
                parts.append((s, ox, oy))
        self._set("parts", tuple(parts))
        from .geometry.hull import circles_circle_hull, rects_rect_hull

        boxes = []
        circles = []
        for p, dx, dy in parts:
            x0, y0, x1, y1 = p.bounds()
            boxes.append((x0 + dx, y0 + dy, x1 + dx, y1 + dy))
            cx, cy, r = p.bounding_circle()
            circles.append((cx + dx, cy + dy, r))
        self._set("_bb", rects_rect_hull(boxes))
        check_reach(self)
        self._set("_bc", circles_circle_hull(circles))

    def _key(self) -> tuple[object, ...]:
        # the flat parts (not the nested groups): hashing a deep nest does not recurse
        return self.parts

    def __repr__(self) -> str:
        return f"Compound({list(self.shapes)!r}{self._offset_repr()})"

    @property
    def hull(self) -> tuple[float, float, float, float]:
        """The group's bounding rectangle ``(min_x, min_y, max_x, max_y)`` (same as bounds)."""
        return self._bb

    @property
    def hull_circle(self) -> tuple[float, float, float]:
        """The group's bounding circle ``(cx, cy, r)`` (same as ``bounding_circle()``)."""
        return self._bc

    def bounds(self) -> tuple[float, float, float, float]:
        return self._bb

    def bounding_circle(self) -> tuple[float, float, float]:
        return self._bc
