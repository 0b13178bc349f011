# The C view of shapes: what every compiled geometry routine reads.
#
# Guarantees:
# - a shape is a range of *leaves* in a `ShapeStore` (ecsphys/geometry/shape_store.py): one
#   leaf for a Circle, Rect, OrientedRect, Segment or Polygon, one per part for a Compound
#   (the part's offset baked into its leaf);
# - a leaf's numbers are relative to its body's position, the shape's offset included:
#   circle centre (cx, cy) and radius; rect / oriented rect centre and half extents (hx, hy);
#   for every leaf but a circle its counter-clockwise vertices `v` (nv of them, x y pairs)
#   and faces `f` (nf of them: outward unit normal and support, nx ny s); a segment has 2
#   vertices and 4 faces (both normals, both directions); its bounds x0 y0 x1 y1; and `hash`,
#   which orders two leaves of one kind at one position (a same-kind pair is computed in one
#   canonical order, so swapping the arguments flips the result exactly);
# - a `Store` holds raw pointers into the ShapeStore's NumPy arrays: valid while no shape is
#   added (no Python runs between taking it and the end of the compiled call).

from libc.stdint cimport int64_t

cdef enum:
    CIRCLE = 0
    RECT = 1
    ORECT = 2
    SEGMENT = 3
    POLYGON = 4
    COMPOUND = 5

# columns of ShapeStore.leaf_i (int32) and ShapeStore.leaf_f (float64), per leaf
cdef enum:
    LI_KIND = 0
    LI_NV = 1
    LI_NF = 2
    LI_V0 = 3
    LI_F0 = 4
    LI_STRIDE = 5
    LF_RADIUS = 0
    LF_CX = 1
    LF_CY = 2
    LF_HX = 3
    LF_HY = 4
    LF_X0 = 5
    LF_Y0 = 6
    LF_X1 = 7
    LF_Y1 = 8
    LF_STRIDE = 9

cdef struct Leaf:
    int kind
    int nv
    int nf
    const double* v     # nv * 2
    const double* f     # nf * 3
    double radius
    double cx
    double cy
    double hx
    double hy
    double x0
    double y0
    double x1
    double y1
    int64_t hash

cdef struct Store:
    const int* li        # leaves * LI_STRIDE
    const double* lf     # leaves * LF_STRIDE
    const int64_t* lh    # leaves
    const double* verts  # vertices * 2
    const double* faces  # faces * 3

# A shape placed at a body position: leaves [first, first + count) of the store.
cdef struct Body:
    int first
    int count
    int kind             # the shape's kind (COMPOUND for a group)
    double px
    double py
    double x0            # bounds relative to (px, py)
    double y0
    double x1
    double y1
    int64_t hash

# The contact of two shapes: unit normal from the first to the second, depth (>= -tol:
# touching within tol counts), a world point on or between the touching boundaries.
cdef struct CContact:
    double nx
    double ny
    double depth
    double px
    double py

# How two shapes lie apart: distance (0 when touching), unit normal from a to b, closest
# world points on a and on b.
cdef struct CSeparation:
    double distance
    double nx
    double ny
    double ax
    double ay
    double bx
    double by

cdef inline Leaf leaf_at(const Store* s, int i) noexcept nogil:
    cdef Leaf out
    cdef const int* li = s.li + i * LI_STRIDE
    cdef const double* lf = s.lf + i * LF_STRIDE
    out.kind = li[LI_KIND]
    out.nv = li[LI_NV]
    out.nf = li[LI_NF]
    out.v = s.verts + 2 * li[LI_V0]
    out.f = s.faces + 3 * li[LI_F0]
    out.radius = lf[LF_RADIUS]
    out.cx = lf[LF_CX]
    out.cy = lf[LF_CY]
    out.hx = lf[LF_HX]
    out.hy = lf[LF_HY]
    out.x0 = lf[LF_X0]
    out.y0 = lf[LF_Y0]
    out.x1 = lf[LF_X1]
    out.y1 = lf[LF_Y1]
    out.hash = s.lh[i]
    return out

# A body made of one leaf of the store (a part of a compound, on its own).
cdef inline Body leaf_body(const Store* s, int i, double px, double py) noexcept nogil:
    cdef Body b
    cdef const double* lf = s.lf + i * LF_STRIDE
    b.first = i
    b.count = 1
    b.kind = s.li[i * LI_STRIDE + LI_KIND]
    b.px = px
    b.py = py
    b.x0 = lf[LF_X0]
    b.y0 = lf[LF_Y0]
    b.x1 = lf[LF_X1]
    b.y1 = lf[LF_Y1]
    b.hash = s.lh[i]
    return b

# The Store view of a Python ShapeStore (pointers into its arrays).
cdef Store store_of(object store) except *

# The Body of a Python shape at (px, py), its leaves interned in `store`.
cdef Body body_of(object store, object shape, double px, double py) except *

# For the public functions: shapes a at pos_a and b at pos_b interned in the public store
# into *ba and *bb, and the store's pointers. TypeError `"{what} X against Y"` unless both
# are shapes; positions must be (x, y) pairs.
cdef Store public_pair(object a, object pos_a, object b, object pos_b, Body* ba, Body* bb,
                       str what) except *
