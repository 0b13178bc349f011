"""Building blocks of ``kernels``: per-thread scratch buffers and branch-free array helpers.

Guarantees: every helper writes its result into a scratch buffer of the current length
(``_W.begin(n)`` at the start of each public kernel call hands them out afresh), never into
its inputs unless documented (in-place ops on its own scratch results); results that are
returned to callers of the public kernels are fresh arrays (``_vec2``, ``_midpoint``,
``_no_impact_to_inf``). Blends are exact for finite values; nothing produces NaN.
"""

from __future__ import annotations

import threading

import numpy as np
from numpy.typing import ArrayLike, NDArray

F = NDArray[np.float64]
B = NDArray[np.bool_]

_TINY_MOVE = 1e-150  # slab test: a move component below this is treated as zero
_BIG = 1e300  # finite stand-in for an infinite slab time


class _Scratch(threading.local):
    """Per-thread scratch arrays: ``f()`` / ``b()`` hand out the next float / bool buffer of
    the current length; ``begin(n)`` (once per public kernel call) starts over."""

    def __init__(self) -> None:
        self.cap = 0
        self.n = 0
        self.floats: list[F] = []
        self.bools: list[B] = []
        self.i = self.j = 0

    def begin(self, n: int) -> None:
        if n > self.cap:
            self.cap = max(n, 2 * self.cap)
            self.floats, self.bools = [], []
        self.n, self.i, self.j = n, 0, 0

    def f(self) -> F:
        if self.i == len(self.floats):
            self.floats.append(np.empty(self.cap))
        self.i += 1
        return self.floats[self.i - 1][: self.n]

    def b(self) -> B:
        if self.j == len(self.bools):
            self.bools.append(np.empty(self.cap, dtype=np.bool_))
        self.j += 1
        return self.bools[self.j - 1][: self.n]


_W = _Scratch()


def _f(a: ArrayLike) -> F:
    return np.asarray(a, dtype=np.float64)


def _col(a: F, i: int, n: int) -> F:
    """Column i of an ``(n, 2)`` array, or a broadcast ``(n,)`` view of a scalar / (n,)."""
    return a[:, i] if a.ndim == 2 else np.broadcast_to(a, (n,))


# element-wise ops into scratch buffers (x, y: arrays or floats)
def _add(x: F | float, y: F | float) -> F:
    return np.add(x, y, out=_W.f())


def _sub(x: F | float, y: F | float) -> F:
    return np.subtract(x, y, out=_W.f())


def _mul(x: F | float, y: F | float) -> F:
    return np.multiply(x, y, out=_W.f())


def _div(x: F | float, y: F | float) -> F:
    return np.divide(x, y, out=_W.f())


def _dot(ax: F, ay: F, bx: F, by: F) -> F:
    out = _mul(ax, bx)
    out += _mul(ay, by)
    return out


def _cross(ax: F, ay: F, bx: F, by: F) -> F:
    """``a x b = ax * by - ay * bx``."""
    out = _mul(ax, by)
    out -= _mul(ay, bx)
    return out


def _m(mask: B) -> F:
    """A bool mask as 0.0 / 1.0."""
    out = _W.f()
    out[...] = mask
    return out


def _not(mask: B) -> B:
    return np.logical_not(mask, out=_W.b())


def _and(a: B, b: B) -> B:
    return np.logical_and(a, b, out=_W.b())


def _or(a: B, b: B) -> B:
    return np.logical_or(a, b, out=_W.b())


def _cmp(op: np.ufunc, x: F | float, y: F | float) -> B:
    return op(x, y, out=_W.b())


def _pick(m: F, a: F | float, b: F | float) -> F:
    """Exact ``where(m, a, b)`` for a 0/1 float mask and finite a, b (branch free)."""
    out = _mul(a, m)
    rest = _sub(1.0, m)
    rest *= b
    out += rest
    return out


def _sign_neg(mask: B) -> F:
    """``-1.0`` where mask, else ``1.0``."""
    out = _m(mask)
    out *= -2.0
    out += 1.0
    return out


def _vec2(x: F, y: F) -> F:
    """Stack two columns into a fresh ``(n, 2)`` array (returned to the caller)."""
    out = np.empty((x.shape[0], 2))
    out[:, 0] = x
    out[:, 1] = y
    return out


def _norm(x: F, y: F) -> F:
    out = _dot(x, y, x, y)
    return np.sqrt(out, out=out)


_TINY_LENGTH = 1e-150  # below this, x*x + y*y is denormal or 0: normalise by rescaling


def _unit(x: F, y: F) -> tuple[F, F, B, F]:
    """``(ux, uy, zero, length)``: ``(x, y)`` normalised; ``(1, 0)`` where it is exactly zero.
    Vectors shorter than ~1e-150 (whose squares underflow) are rescaled first, so they too
    come out of unit length."""
    length = _norm(x, y)
    tiny = np.flatnonzero(length < _TINY_LENGTH)
    if tiny.size:
        xs, ys = x[tiny], y[tiny]
        s = np.maximum(np.abs(xs), np.abs(ys))
        s[s == 0.0] = 1.0
        xs, ys = xs / s, ys / s
        length[tiny] = np.sqrt(xs * xs + ys * ys) * s
    zero = _cmp(np.equal, length, 0.0)
    zf = _m(zero)
    safe = _add(length, zf)
    ux = _div(x, safe)
    ux += zf
    uy = _div(y, safe)
    if tiny.size:  # x / length loses digits for denormal x: divide the rescaled vector
        h = np.sqrt(xs * xs + ys * ys)
        h[h == 0.0] = 1.0
        ux[tiny] = np.where(zero[tiny], 1.0, xs / h)
        uy[tiny] = ys / h
    return ux, uy, zero, length


def _midpoint(cx: F, cy: F, nx: F, ny: F, r: F, depth: F) -> F:
    """``c + n * (r - depth / 2)``: midpoint of the deepest points of a circle (c, r) and b."""
    s = _mul(depth, -0.5)
    s += r
    out = np.empty((nx.shape[0], 2))
    np.multiply(nx, s, out=out[:, 0])
    np.multiply(ny, s, out=out[:, 1])
    out[:, 0] += cx
    out[:, 1] += cy
    return out


def _box_contact(qx: F, qy: F, hx: F, hy: F) -> tuple[F, F, F]:
    """Point (qx, qy) against the box ``|x| <= hx, |y| <= hy`` (centred at the origin).

    Returns ``(nx, ny, sep)``: unit normal from the point towards the box and the signed
    separation (distance outside, minus the depth of least penetration inside).
    """
    vx = np.maximum(qx, _mul(hx, -1.0), out=_W.f())
    np.minimum(vx, hx, out=vx)
    vx -= qx
    vy = np.maximum(qy, _mul(hy, -1.0), out=_W.f())
    np.minimum(vy, hy, out=vy)
    vy -= qy
    nx, ny, inside, dist = _unit(vx, vy)
    idx = np.flatnonzero(inside)
    if idx.size:  # (few) centres inside: leave through the nearest face, right/left/top/bottom
        qxi, qyi = qx[idx], qy[idx]
        px = hx[idx] - np.abs(qxi)
        py = hy[idx] - np.abs(qyi)
        use_x = px <= py
        nx[idx] = np.where(use_x, np.where(qxi >= 0.0, -1.0, 1.0), 0.0)
        ny[idx] = np.where(use_x, 0.0, np.where(qyi >= 0.0, -1.0, 1.0))
        dist[idx] = -np.minimum(px, py)
    return nx, ny, dist


def _first_root(px: F, py: F, dx: F, dy: F, rr: F) -> tuple[F, B]:
    """First t >= 0 with ``|p + t d| = rr`` for a point starting outside; ``(t, found)``.

    ``t = c / (-b + sqrt(b^2 - a c))`` (half-b form, no cancellation); clamped to
    ``[0, _BIG]``. Where ``found``, the denominator is at least ``-b > 0``; elsewhere it is
    1 (blended exactly: ``den * f + (1 - f)``, never ``den * f + 1 - f``, which rounds a
    tiny ``den`` to 0 and made ``t`` inf or NaN for nearly equal moves).
    """
    a = _dot(dx, dy, dx, dy)
    hb = _dot(px, py, dx, dy)
    c = _dot(px, py, px, py)
    c -= _mul(rr, rr)
    disc = _mul(hb, hb)
    disc -= _mul(a, c)
    found = _and(_cmp(np.less, hb, 0.0), _cmp(np.greater_equal, disc, 0.0))
    den = np.maximum(disc, 0.0, out=disc)
    np.sqrt(den, out=den)
    den -= hb
    ff = _m(found)
    den *= ff
    den += _sub(1.0, ff)
    with np.errstate(over="ignore"):  # a huge t (den denormal): inf, clamped to _BIG
        c /= den
    np.minimum(c, _BIG, out=c)
    return np.maximum(c, 0.0, out=c), found


def _no_impact_to_inf(t: F, hit: B) -> F:
    """A fresh array: ``t`` where hit, ``inf`` elsewhere (t finite)."""
    hf = _m(hit)
    extra = _sub(1.0, hf)
    with np.errstate(divide="ignore"):
        extra /= hf  # 0 / 1 = 0, 1 / 0 = inf
    return np.add(t, extra)
