# The C view of the body table (ecsphys/body_table.py): pointers into its NumPy columns.
#
# Guarantees: `rows_of(table)` gives pointers valid until the table grows its columns, adds a
# row or replaces a shape (no Python runs between taking them and the end of the compiled call);
# `row_body` is the shape of a row placed at a position, as the geometry routines read it.

from libc.math cimport sqrt
from libc.stdint cimport int64_t

from ..geometry.shape_data cimport Body

cdef struct Rows:
    int n
    const int* leaf0
    const int* nleaf
    const signed char* code          # shape kind, -1 without a shape
    const double* lo                 # shape bounds relative to the position (n * 2)
    const double* hi
    const int64_t* hash
    const signed char* kind          # STATIC 0, PASSIVE 1, ACTIVE 2
    const unsigned char* sensor
    const unsigned char* collides
    const int64_t* layer
    const int64_t* mask
    const int64_t* entity
    const double* mass
    const double* inv_mass
    const double* restitution
    const signed char* slide         # 0 project, 1 tangent
    const double* acc                # n * 2
    const double* friction
    const unsigned char* stop_slope
    const double* one_way            # n * 2, (0, 0): solid both ways
    # from the last step's contacts (written by systems/ground.pyx)
    signed char* ground              # GROUND_FLOOR | GROUND_WALL | GROUND_CEILING | ...
    double* floor_n                  # n * 2
    double* floor_v                  # n * 2
    int64_t* floor_entity
    int* carrier                     # the row of the moving platform it stands on, or -1
    # the motion columns (n * 2 each)
    double* pos
    double* vel
    double* prev                     # prev_pos: the position at the start of the step
    double* move                     # this step's displacement
    # sleeping (systems/sleep.pyx)
    unsigned char* asleep            # 1: the row sleeps (not integrated, a fixed partner)
    double* rest_time                # seconds it has rested without a break
    double* rest_pos                 # n * 2: where that rest began
    int64_t* island                  # the island it sleeps in (an entity), -1 awake
    int* island_next                 # a sleeper's island as a circular list of rows (-1
    int* island_prev                 # awake): next and previous member (systems/islands)

cdef enum:
    GROUND_FLOOR = 1
    GROUND_WALL = 2
    GROUND_CEILING = 4
    GROUND_NEW = 8                   # adopted since the last step: nothing classified yet
    GROUND_SUPPORT = 16              # a contact holds it up: the other side lies against its
                                     # acceleration (below it, for gravity; systems/sleep.pyx)

cdef Rows rows_of(object table) except *

cdef inline Body row_body(const Rows* r, int64_t row, const double* pos) noexcept nogil:
    cdef Body b
    b.first = r.leaf0[row]
    b.count = r.nleaf[row]
    b.kind = r.code[row]
    b.px = pos[2 * row]
    b.py = pos[2 * row + 1]
    b.x0 = r.lo[2 * row]
    b.y0 = r.lo[2 * row + 1]
    b.x1 = r.hi[2 * row]
    b.y1 = r.hi[2 * row + 1]
    b.hash = r.hash[row]
    return b

cdef inline void body_up(const Rows* r, int row, double upx, double upy, double* ux,
                         double* uy) noexcept nogil:
    """A row's "up": against its acceleration (gravity), or (upx, upy) without one."""
    cdef double ax = r.acc[2 * row], ay = r.acc[2 * row + 1]
    cdef double g = sqrt(ax * ax + ay * ay)
    if g > 0.0:
        ux[0] = -ax / g
        uy[0] = -ay / g
    else:
        ux[0] = upx
        uy[0] = upy
