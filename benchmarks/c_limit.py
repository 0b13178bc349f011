"""The C limit: the rain scene stepped by a tight loop in plain C, the floor under any engine.

What it does, and no more (so its time is a lower bound, not a rival engine):
- the ``rain`` layout of `benchmarks.scenes` (the same N circles of radius 1, positions,
  velocities, box, gravity (0, -9.8) and dt 1/60), held in flat C arrays;
- per step: integration (velocity += gravity * dt, position += velocity * dt); a uniform grid
  insert (cells of one diameter, a counting sort of the circles by cell: count, prefix sum,
  scatter); circle-circle tests of each circle against its own cell and the four cells after
  it (each pair once); each overlapping pair pushed apart by half the overlap each and its
  approaching normal velocity removed (one pass: no solver iterations, no friction, no
  contacts kept between steps, no events, no sleeping); then each circle clamped inside the
  box's inner walls, its velocity into the wall zeroed;
- the C source below is compiled with ``gcc -O2`` into a shared library on first use (in a
  temporary folder) and loaded with ctypes; a step is one ctypes call with one argument (a
  handle to the state the C side keeps), so the runner times it as it times the engines
  (CPU time of ``Scene.step``), a fraction of a microsecond of call included.

`CLimitScene` is a `benchmarks.scenes.Scene` (engine ``"c-limit"``) that the runner alternates
with the engines in the rain cases; `NotImplementedError` when no C compiler is found.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from . import scenes as S

SOURCE = r"""
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n, gw, gh;
    double r, gy, dt, x0, y0, x1, y1, cell;
    double *px, *py, *vx, *vy;
    int *count, *start, *order, *cell_of;
    long long pairs;  /* overlapping pairs found in the last step */
} Rain;

void *rain_new(int n, const double *pos, const double *vel, double r, double gy, double dt,
               double x0, double y0, double x1, double y1) {
    Rain *s = calloc(1, sizeof(Rain));
    s->n = n; s->r = r; s->gy = gy; s->dt = dt;
    s->x0 = x0; s->y0 = y0; s->x1 = x1; s->y1 = y1;
    s->cell = 2.0 * r;
    s->gw = (int)((x1 - x0) / s->cell) + 1;
    s->gh = (int)((y1 - y0) / s->cell) + 1;
    s->px = malloc(sizeof(double) * (n + 1)); s->py = malloc(sizeof(double) * (n + 1));
    s->vx = malloc(sizeof(double) * (n + 1)); s->vy = malloc(sizeof(double) * (n + 1));
    for (int i = 0; i < n; i++) {
        s->px[i] = pos[2 * i]; s->py[i] = pos[2 * i + 1];
        s->vx[i] = vel[2 * i]; s->vy[i] = vel[2 * i + 1];
    }
    s->count = calloc((size_t)s->gw * s->gh + 1, sizeof(int));
    s->start = calloc((size_t)s->gw * s->gh + 1, sizeof(int));
    s->order = malloc(sizeof(int) * (n + 1));
    s->cell_of = malloc(sizeof(int) * (n + 1));
    return s;
}

void rain_free(void *handle) {
    Rain *s = handle;
    free(s->px); free(s->py); free(s->vx); free(s->vy);
    free(s->count); free(s->start); free(s->order); free(s->cell_of); free(s);
}

static void push_apart(Rain *s, int i, int j) {
    double dx = s->px[j] - s->px[i], dy = s->py[j] - s->py[i];
    double d2 = dx * dx + dy * dy, reach = 2.0 * s->r;
    if (d2 >= reach * reach || d2 == 0.0) return;
    s->pairs++;
    double d = __builtin_sqrt(d2), nx = dx / d, ny = dy / d, half = 0.5 * (reach - d);
    s->px[i] -= nx * half; s->py[i] -= ny * half;
    s->px[j] += nx * half; s->py[j] += ny * half;
    double vn = (s->vx[j] - s->vx[i]) * nx + (s->vy[j] - s->vy[i]) * ny;
    if (vn < 0.0) {  /* approaching: remove the normal velocity, shared equally */
        s->vx[i] += 0.5 * vn * nx; s->vy[i] += 0.5 * vn * ny;
        s->vx[j] -= 0.5 * vn * nx; s->vy[j] -= 0.5 * vn * ny;
    }
}

void rain_step(void *handle) {
    Rain *s = handle;
    int n = s->n, gw = s->gw, gh = s->gh, cells = gw * gh;
    double r = s->r, dt = s->dt, gdt = s->gy * dt;
    /* integrate */
    for (int i = 0; i < n; i++) {
        s->vy[i] += gdt;
        s->px[i] += s->vx[i] * dt; s->py[i] += s->vy[i] * dt;
    }
    /* grid insert: counting sort by cell */
    memset(s->count, 0, sizeof(int) * cells);
    for (int i = 0; i < n; i++) {
        int cx = (int)((s->px[i] - s->x0) / s->cell), cy = (int)((s->py[i] - s->y0) / s->cell);
        if (cx < 0) cx = 0; if (cx >= gw) cx = gw - 1;
        if (cy < 0) cy = 0; if (cy >= gh) cy = gh - 1;
        s->cell_of[i] = cy * gw + cx;
        s->count[cy * gw + cx]++;
    }
    int sum = 0;
    for (int c = 0; c < cells; c++) { s->start[c] = sum; sum += s->count[c]; }
    s->start[cells] = sum;
    for (int i = 0; i < n; i++) s->order[s->start[s->cell_of[i]]++] = i;
    for (int c = cells; c > 0; c--) s->start[c] = s->start[c - 1];
    s->start[0] = 0;
    /* circle-circle tests: own cell (each pair once) and the four cells after it */
    static const int ddx[4] = {1, -1, 0, 1}, ddy[4] = {0, 1, 1, 1};
    s->pairs = 0;
    for (int cy = 0; cy < gh; cy++) for (int cx = 0; cx < gw; cx++) {
        int c = cy * gw + cx, a0 = s->start[c], a1 = s->start[c + 1];
        if (a0 == a1) continue;
        for (int a = a0; a < a1; a++)
            for (int b = a + 1; b < a1; b++) push_apart(s, s->order[a], s->order[b]);
        for (int k = 0; k < 4; k++) {
            int nx = cx + ddx[k], ny = cy + ddy[k];
            if (nx < 0 || nx >= gw || ny >= gh) continue;
            int d = ny * gw + nx, b0 = s->start[d], b1 = s->start[d + 1];
            for (int a = a0; a < a1; a++)
                for (int b = b0; b < b1; b++) push_apart(s, s->order[a], s->order[b]);
        }
    }
    /* keep inside the box's walls */
    for (int i = 0; i < n; i++) {
        if (s->px[i] < s->x0 + r) { s->px[i] = s->x0 + r; if (s->vx[i] < 0) s->vx[i] = 0; }
        if (s->px[i] > s->x1 - r) { s->px[i] = s->x1 - r; if (s->vx[i] > 0) s->vx[i] = 0; }
        if (s->py[i] < s->y0 + r) { s->py[i] = s->y0 + r; if (s->vy[i] < 0) s->vy[i] = 0; }
        if (s->py[i] > s->y1 - r) { s->py[i] = s->y1 - r; if (s->vy[i] > 0) s->vy[i] = 0; }
    }
}

long long rain_pairs(void *handle) { return ((Rain *)handle)->pairs; }

void rain_positions(void *handle, double *out) {
    Rain *s = handle;
    for (int i = 0; i < s->n; i++) { out[2 * i] = s->px[i]; out[2 * i + 1] = s->py[i]; }
}
"""

_lib: Any = None


def library() -> Any:
    """The compiled C loop (compiled with gcc or cc on first use); `NotImplementedError`
    without a compiler."""
    global _lib
    if _lib is not None:
        return _lib
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise NotImplementedError("no C compiler (gcc or cc) for the C limit")
    folder = Path(tempfile.mkdtemp(prefix="ecsphys-c-limit-"))
    src, so = folder / "rain.c", folder / "rain.so"
    src.write_text(SOURCE)
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(so), str(src), "-lm"], check=True)
    lib = ctypes.CDLL(str(so))
    dbl, ptr = ctypes.c_double, ctypes.c_void_p
    lib.rain_new.restype = ptr
    lib.rain_new.argtypes = [ctypes.c_int, ptr, ptr, dbl, dbl, dbl, dbl, dbl, dbl, dbl]
    lib.rain_free.argtypes = [ptr]
    lib.rain_step.argtypes = [ptr]
    lib.rain_step.restype = None
    lib.rain_pairs.argtypes = [ptr]
    lib.rain_pairs.restype = ctypes.c_longlong
    lib.rain_positions.argtypes = [ptr, ptr]
    _lib = lib
    return lib


class CLimitScene(S.Scene):
    """The rain layout stepped by the C loop (see the module notes): rain and empty only."""

    engine = "c-limit"

    def __init__(self, lay: S.Layout) -> None:
        if lay.name not in ("rain", "empty"):
            raise NotImplementedError(f"the C limit steps the rain only, not {lay.name}")
        super().__init__(lay)
        self._lib = library()
        pos = np.ascontiguousarray(lay.dynamic_pos, dtype=np.float64)
        vel = np.ascontiguousarray(lay.dynamic_vel, dtype=np.float64)
        x0, y0, x1, y1 = lay.box or (0.0, 0.0, 1.0, 1.0)
        self._handle = self._lib.rain_new(len(pos), pos.ctypes.data, vel.ctypes.data,
                                          lay.radius, lay.gravity[1], S.DT, x0, y0, x1, y1)
        self._step_c = self._lib.rain_step
        self._arg = ctypes.c_void_p(self._handle)

    def _step(self) -> None:
        self._step_c(self._arg)

    def positions(self) -> np.ndarray:
        out = np.empty((self.n, 2), dtype=np.float64)
        if self.n:
            self._lib.rain_positions(self._arg, out.ctypes.data)
        return out

    def contacts(self) -> int:
        return int(self._lib.rain_pairs(self._arg))

    def close(self) -> None:
        if self._handle is not None:
            self._lib.rain_free(self._arg)
            self._handle = None

