"""Collision response: the sphere slide for moving bodies, momentum between them, no tunneling.

Guarantees (for the solid pairs: neither side a sensor):
- bodies that start the step overlapping are pushed apart along the contact normal, shared by
  inverse mass (a static side never moves), so a body spawned in a wall leaves it the short way;
- every move is cut at its first time of impact (analytic for circles, rects and segments,
  separating-axis kernels for polygon-like shapes, conservative advancement or the binary
  impact search for the rest; relative motion when both move), leaving a ``skin`` gap, so no
  body passes through another, however fast;
- the rest of a cut move slides along the tangent: ``slide="project"`` keeps only the rest's
  tangential part; ``slide="tangent"`` carries the rest at full length along the tangent, in
  the direction it leans (exact head-on ties turn each body to its own right, so two bodies
  meeting head-on pass each other). Slid moves are checked again, up to ``max_slides`` passes;
- all bodies move at once in each pass; two bodies that step into the same free space are
  caught, and only one of each such pair (the one that moved; of two, the higher entity id)
  goes back and tries again in the next pass, so no two bodies end a pass overlapping;
- velocities lose their part into each contact, or reflect it scaled by restitution, with
  momentum shared by mass between moving bodies; a PASSIVE body resting on a moving one takes
  on its tangential velocity (it is carried);
- a body pushed by another (or pushed apart at the start) may move further than its own move,
  out of the box the broadphase swept for it: its pairs are then looked up again here, so a
  pushed crate is stopped by what lies beyond (another crate, a thin wall) like any move;
- a body resting on a PASSIVE one (the contact normal within ~45 degrees of its own
  acceleration) does not push it down with its weight: a stack of crates can be pushed.
"""

from __future__ import annotations

import esper
import numpy as np

from ..body_table import CIRCLE_CODE, RECT_CODE, SEGMENT_CODE, BodyTable
from ..broadphase.grid import Grid
from ..components import PASSIVE, STATIC
from ..contact_set import ContactSet
from .broadphase import PairFilter, game_rules
from .narrowphase import contacts, times_of_impact

#: Overlap deeper than this (world units) counts as overlapping for the response.
OVERLAP_TOL = 1e-6
_TIE_EPS = 1e-12
_SWEEP_MARGIN = 1e-3  # world units: swept boxes this far apart may still count as meeting
_NO_EXTRA = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
_NO_INDEX = np.iinfo(np.int64).max  # scratch: no index yet
_SCRAMBLE = 2654435761  # odd multiplier: index * it mod 2**32 ranks pairs in a fixed scramble
_SUPPORT_COS = 0.7  # a contact normal within ~45 degrees of "down" is a support


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products of two (k, 2) arrays."""
    return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1]


def _nonzero(v: np.ndarray) -> np.ndarray:
    """Which rows of a (k, 2) array are not the zero vector."""
    return (v[:, 0] != 0.0) | (v[:, 1] != 0.0)


def _take(v: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``v[idx]`` for a (n, 2) array: `np.take` gathers rows several times faster."""
    return np.take(v, idx, axis=0)


def _exact_toi(t: BodyTable, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Which pairs get an analytic time of impact (circles, rects, and a circle with a
    segment). The others (polygon-like kernels within ``REACH``, conservative advancement,
    the binary impact search) are followed by the overlap search after their pass."""
    ca, cb = t.shape_code[a], t.shape_code[b]
    round_box_a = (ca == CIRCLE_CODE) | (ca == RECT_CODE)
    round_box_b = (cb == CIRCLE_CODE) | (cb == RECT_CODE)
    circle_seg = ((ca == CIRCLE_CODE) & (cb == SEGMENT_CODE)) \
        | ((ca == SEGMENT_CODE) & (cb == CIRCLE_CODE))
    return (round_box_a & round_box_b) | circle_seg


class ResponseSystem(esper.Processor):
    """Stage 4 of the step: turns desired moves into safe moves and adjusts velocities."""

    def __init__(self, table: BodyTable, max_slides: int = 4, skin: float = 1e-4) -> None:
        self.table = table
        self.max_slides = max_slides
        self.skin = skin
        self.passes = 0  # slide passes run in the last step (diagnostics)
        self._first_toi = np.zeros(0)
        self._last_normals = np.zeros((0, 2))
        self.undone = 0  # bodies sent back in the last step (diagnostics)
        #: the game's pair veto (``Physics.filter_pair``), for pairs found here
        self.filter_pair: PairFilter | None = None
        #: pairs found beyond the broadphase's boxes in the last step (rows a, b, their times
        #: of impact), for the narrowphase: bodies pushed further than their own move
        self.extra: tuple[np.ndarray, np.ndarray, np.ndarray] = _NO_EXTRA
        self._widen_index = Grid()  # the solid boxes, for rows pushed out of their own
        self.settled = True  # whether the last safe-fraction check settled in its rounds
        #: rounds of the safe-fraction check per pass at most (a queue of followers settles
        #: one body per round; past that, overlaps are looked for and undone)
        self.max_rounds = 24
        self.rounds = 0  # rounds of the last safe-fraction check (diagnostics)
        # (table.layout_version, positions) at the end of the last step when no two solid
        # bodies overlapped then: while both still hold, there is nothing to push apart
        self._clean: tuple[int, np.ndarray] | None = None
        self.pushed_apart = False  # whether the last step looked for overlaps (diagnostics)

    def note_end(self, contacts: ContactSet) -> None:
        """Learn from the contacts at the end of a step whether any two solid bodies overlap
        (the narrowphase tested every pair that can touch), so the next step can skip
        looking for overlaps to push apart if nothing moved or changed in between."""
        t = self.table
        solid = ~contacts.sensor
        deep = contacts.depth[solid] > OVERLAP_TOL
        if deep.any():
            self._clean = None
        else:
            self._clean = (t.layout_version, t.pos[:t.n].copy())

    def forget_end(self) -> None:
        """Look for overlaps to push apart in the next step whatever `note_end` learnt."""
        self._clean = None

    def _overlaps_possible(self) -> bool:
        t = self.table
        clean = self._clean
        self._clean = None
        if clean is None or clean[0] != t.layout_version:
            return True
        return not np.array_equal(clean[1], t.pos[:t.n])

    def process(self, ra: np.ndarray, rb: np.ndarray, dt: float = 0.0) -> np.ndarray:
        """Adjust ``table.move`` and ``table.vel`` for the candidate pairs (ra, rb).

        Returns each pair's time of impact in this step (inf where it did not hit).

        Each pass works on the rows still going (with some rest of their move) and their
        pairs only; per-row scratch arrays are reset where a pass wrote them, so a pass with
        few bodies going costs little however many bodies there are.
        """
        t = self.table
        n = t.n
        toi_out = np.full(len(ra), np.inf)
        solid = ~(t.sensor[ra] | t.sensor[rb])
        a, b = ra[solid], rb[solid]
        self.passes = 0
        self.undone = 0
        self.extra = _NO_EXTRA
        if len(a) == 0:
            return toi_out
        start = t.pos[:n]
        pos = start.copy()
        rest = t.move[:n].copy()
        # how far each row may get from its start and still be inside the box the broadphase
        # swept for it (grown by the length of its own move): all its pairs are in (a, b)
        covered = np.sqrt(_dot(rest, rest))
        covered[t.kind[:n] == STATIC] = 0.0
        n_solid = len(a)
        self._scratch(n)
        self.pushed_apart = self._overlaps_possible()
        if self.pushed_apart:
            self._push_apart(a, b, pos)
        pair_toi = np.full(len(a), np.inf)
        slides = np.zeros(n, dtype=np.int64)
        prev_normal = np.zeros((n, 2))  # what each row slid along in the last pass
        prev_rows = np.zeros(0, dtype=np.int64)
        mark = self._mark
        going = np.flatnonzero(_nonzero(rest))
        # A body held up by a neighbour that moves away this pass waits for the next pass
        # without spending a slide, so a queue clears in one step; passes stay bounded.
        for pass_no in range(4 * self.max_slides):
            if len(going) == 0:
                break
            # a row pushed out of its swept box gets the pairs it can meet out there (in the
            # first pass any row pushed apart; later only rows that move can get out)
            # (in the first pass, rows not pushed apart are where the broadphase swept them)
            if pass_no or self.pushed_apart:
                a, b = self._widen(a, b, start, pos, rest, covered,
                                   going if pass_no else np.arange(n))
            if len(a) > len(pair_toi):
                pair_toi = np.concatenate((pair_toi, np.full(len(a) - len(pair_toi), np.inf)))
            mark[going] = True
            live = np.flatnonzero(mark[a] | mark[b])
            mark[going] = False
            if len(live) == 0:
                pos[going] += _take(rest, going)
                break
            self.passes += 1
            # pairs whose swept boxes stay apart cannot meet in this pass (nor overlap after)
            idx = live[self._swept_boxes_meet(a[live], b[live], pos, rest)]
            pa, pb = a[idx], b[idx]
            frac, cut, chosen = self._safe_fractions(pa, pb, pos, rest, going)
            if pass_no == 0:
                pair_toi[idx] = self._first_toi
            if len(cut) == 0:
                pos[going] += _take(rest, going)
                break
            inexact = np.flatnonzero(~_exact_toi(t, pa, pb)) if self.settled else None
            check = not self.settled or len(inexact)
            if check:  # keep the pass's start for the overlap search below
                old_pos, old_rest = pos.copy(), rest.copy()
            rest_g = _take(rest, going)
            pos[going] += rest_g * frac[going, None]
            rest_c = _take(rest, cut)
            frac_c = frac[cut]
            normal_c = _take(self._normal, cut)
            other_c = self._other[cut]
            left = rest_c * (1.0 - frac_c)[:, None]
            slid = self._slide(cut, left, normal_c, _take(prev_normal, cut))
            waits = (frac_c == 0.0) & (t.kind[other_c] != STATIC) & (frac[other_c] > 0.0) \
                & _nonzero(_take(rest, other_c))
            rest[going] = 0.0
            rest[cut] = np.where(waits[:, None], rest_c, slid)
            self._share_push(cut, other_c, left, normal_c, rest)
            slid_rows = cut[~waits]
            slides[slid_rows] += 1
            rest[slid_rows[slides[slid_rows] >= self.max_slides]] = 0.0
            prev_normal[prev_rows] = 0.0
            prev_normal[slid_rows] = normal_c[~waits]
            prev_rows = slid_rows
            self._impulses(pa, pb, self._last_normals, chosen, t.vel)
            frac[cut] = 1.0  # scratch back to its rest state
            self._other[cut] = -1
            # Settled fractions of exact times of impact leave no two bodies overlapping.
            # Unsettled ones (a queue longer than the rounds) and bisected times of impact
            # may: two bodies stepping into the same free space; send one back to try again.
            if check:
                self._resolve_conflicts(pa, pb, old_pos, pos, old_rest, rest, inexact)
            going = np.flatnonzero(_nonzero(rest))
        toi_out[np.flatnonzero(solid)] = pair_toi[:n_solid]
        if len(a) > n_solid:
            self.extra = (a[n_solid:], b[n_solid:], pair_toi[n_solid:])
        np.subtract(pos, start, out=t.move[:n])
        return toi_out

    # ------------------------------------------------------------------ pieces

    def _scratch(self, n: int) -> None:
        """Per-row arrays the passes write only where they need and reset after."""
        self._frac = np.ones(n)
        self._normal = np.zeros((n, 2))
        self._other = np.full(n, -1, dtype=np.int64)
        self._move = np.zeros((n, 2))
        self._mark = np.zeros(n, dtype=np.bool_)
        self._cand = np.zeros(n, dtype=np.bool_)
        self._best = np.full(n, np.inf)
        self._first = np.full(n, _NO_INDEX, dtype=np.int64)

    def _safe_fractions(
        self, pa: np.ndarray, pb: np.ndarray, pos: np.ndarray, rest: np.ndarray,
        going: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The fraction of its rest each row can move without touching anything, all rows at
        once. A row cut short shortens the moves others were checked against, so the check
        repeats with the shortened moves until nothing is cut further (fractions only shrink).

        ``going``: the rows with a rest (all others stand still). Returns ``(frac, cut,
        chosen)``: ``frac`` per row (1 where not cut; the scratch array, the caller resets
        it at ``cut``), the rows cut, and the indices of the pairs that stopped someone. The
        normal towards what stopped each cut row and that row are in ``self._normal`` and
        ``self._other``. Sets ``self._last_normals`` (per pair, from a to b),
        ``self._first_toi`` (per pair, of the whole rest) and ``self.settled`` (False if
        fractions were still shrinking after the last round).

        Only pairs that meet within the move (time of impact <= 1) are looked at. After the
        first round only the rows next to a shortened row can be cut further, so each round
        recomputes the times of impact of the pairs with a shortened row whose other side
        moves (against a still body a shortened row, cut at its earliest impact, meets
        nothing any more) and looks again only at the rows of those pairs: the same result
        as checking every pair again, at the cost of the few that changed.
        """
        t = self.table
        frac, normal, other, cand = self._frac, self._normal, self._other, self._cand
        chosen: list[np.ndarray] = []
        cut: list[np.ndarray] = []
        normals = np.zeros((len(pa), 2))
        move = self._move
        move[going] = _take(rest, going)
        # the first check only where the relative move brings the boxes together (bodies
        # moving alike, like falling rain, mostly do not); every pair stays in the rounds
        toi = np.full(len(pa), np.inf)
        nrm = np.zeros((len(pa), 2))
        meet = self._relative_boxes_meet(pa, pb, pos, move)
        toi[meet], nrm[meet] = times_of_impact(t, pa[meet], pb[meet], pos, move)
        self._first_toi = toi.copy()
        sub = np.flatnonzero(toi <= 1.0)
        first_round = True  # after it, only rows marked in cand may be cut further
        dirty = np.zeros(0, dtype=np.int64)  # pairs whose rows are marked in cand
        self.settled = True
        self.rounds = 0
        for _ in range(self.max_rounds):
            self.rounds += 1
            if len(sub) == 0:
                break
            spa, spb = pa[sub], pb[sub]
            stoi, snrm = toi[sub], _take(nrm, sub)
            ma, mb = _take(move, spa), _take(move, spb)
            closing = _dot(ma - mb, snrm)
            with np.errstate(divide="ignore", invalid="ignore"):
                safe = np.where(closing > 0.0, stoi - self.skin / closing, stoi)
            np.clip(safe, 0.0, 1.0, out=safe)
            normals[sub] = snrm
            # a pair stops only the bodies that move into it: one moving away from a follower
            # goes on, and the follower is checked against where it went
            sel_a = (_dot(ma, snrm) > 0.0) & (t.kind[spa] != STATIC)
            sel_b = (_dot(mb, snrm) < 0.0) & (t.kind[spb] != STATIC)
            if not first_round:
                sel_a &= cand[spa]
                sel_b &= cand[spb]
            cand[pa[dirty]] = False  # back to all False for this round's marks
            cand[pb[dirty]] = False
            dirty = dirty[:0]
            local = np.concatenate((np.flatnonzero(sel_a), np.flatnonzero(sel_b)))
            flip = np.arange(len(local)) >= np.count_nonzero(sel_a)  # b's side: normal flips
            rows = np.where(flip, spb[local], spa[local])
            # the earliest impact stops the row (the first such pair on ties); its own skin
            # margin sets how far it gets
            heads = self._heads_per_row(rows, stoi[local])
            li, r, f = local[heads], rows[heads], flip[heads]
            s = safe[li]
            shrink = s < 1.0
            if not shrink.any():
                break
            li, r, f, s = li[shrink], r[shrink], f[shrink], s[shrink]
            frac[r] *= s
            nl = _take(snrm, li)
            normal[r] = np.where(f[:, None], -nl, nl)
            other[r] = np.where(f, spa[li], spb[li])
            chosen.append(sub[li])
            cut.append(r)
            # the shortened rows' new moves, their pairs' new times of impact
            move[r] = _take(rest, r) * frac[r, None]
            cand[r] = True  # cand marks the shortened rows first
            dirty = np.flatnonzero(cand[pa] | cand[pb])
            da, db = pa[dirty], pb[dirty]
            ca, cb = cand[da], cand[db]
            cand[r] = False
            going_a = _nonzero(_take(move, da))
            going_b = _nonzero(_take(move, db))
            redo = (going_a & ~ca) | (going_b & ~cb) | (ca & cb)
            toi[dirty[~redo]] = np.inf
            dirty = dirty[redo]
            toi[dirty], nrm[dirty] = times_of_impact(t, pa[dirty], pb[dirty], pos, move)
            cand[pa[dirty]] = True  # then the rows that may be cut further
            cand[pb[dirty]] = True
            sub = np.flatnonzero((cand[pa] | cand[pb]) & (toi <= 1.0))
            first_round = False
        else:
            self.settled = False  # still shortening after the last round
        cand[pa[dirty]] = False
        cand[pb[dirty]] = False
        move[going] = 0.0
        self._last_normals = normals
        picked = np.unique(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)
        rows_cut = np.unique(np.concatenate(cut)) if cut else np.zeros(0, dtype=np.int64)
        return frac, rows_cut, picked

    def _heads_per_row(self, rows: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Per distinct row, the index (into ``rows``) of its smallest time (the first such
        index on ties); in no particular order. Uses and resets the scratch per-row arrays."""
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64)
        best, first = self._best, self._first
        np.minimum.at(best, rows, times)
        ties = np.flatnonzero(times == best[rows])
        np.minimum.at(first, rows[ties], ties)
        heads = np.flatnonzero(first[rows] == np.arange(len(rows)))
        best[rows] = np.inf
        first[rows] = _NO_INDEX
        return heads

    def _widen(
        self, a: np.ndarray, b: np.ndarray, start: np.ndarray, pos: np.ndarray,
        rest: np.ndarray, covered: np.ndarray, rows: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pairs ``(a, b)`` and those of the ``rows`` that may leave their swept box.

        The broadphase found each body's pairs within the length of its own move (its
        ``covered`` reach from ``start``). A push (``_share_push``, ``_push_apart``) can take
        a body further: such a row gets a wider reach (twice what it needs, so a body pushed
        on and on is looked up rarely) and the pairs it can meet with it: every other solid
        row whose box, grown by its own reach, meets the row's grown box, layers and masks
        allowing. ``covered`` is updated in place; new pairs are ordered by entity id like
        the broadphase's.
        """
        t = self.table
        n = t.n
        need = np.abs(_take(pos, rows) - _take(start, rows)).max(axis=1) \
            + np.abs(_take(rest, rows)).max(axis=1)
        over = need > covered[rows] + _SWEEP_MARGIN
        if not over.any():
            return a, b
        out = rows[over]
        covered[out] = 2.0 * need[over]
        solid = np.flatnonzero(t.collides[:n] & ~t.sensor[:n])
        lo = start[solid] + t.lo[solid] - covered[solid, None]
        hi = start[solid] + t.hi[solid] + covered[solid, None]
        olo = start[out] + t.lo[out] - covered[out, None]
        ohi = start[out] + t.hi[out] + covered[out, None]
        # every solid box indexed, the rows that left their boxes looked up in it
        index = self._widen_index
        index.set_static(lo - _SWEEP_MARGIN, hi + _SWEEP_MARGIN)
        _, _, sk, sl = index.query(olo, ohi)
        ri, rj = out[sk], solid[sl]
        apart = ri != rj
        na, nb = ri[apart], rj[apart]
        swap = t.entity[na] > t.entity[nb]
        na, nb = np.where(swap, nb, na), np.where(swap, na, nb)
        # each pair once, and none that is there already
        keys, first = np.unique(na.astype(np.int64) * n + nb, return_index=True)
        fresh = ~np.isin(keys, a.astype(np.int64) * n + b)
        na, nb = game_rules(t, na[first[fresh]], nb[first[fresh]], self.filter_pair)
        if len(na) == 0:
            return a, b
        return np.concatenate((a, na)), np.concatenate((b, nb))

    def _share_push(
        self, cut: np.ndarray, other: np.ndarray, left: np.ndarray, normal: np.ndarray,
        new_rest: np.ndarray,
    ) -> None:
        """A body blocked by a PASSIVE one pushes it: the blocked part of its move along the
        normal is shared by mass, carried out by both in the next pass. ``other``, ``left``
        and ``normal`` are per row of ``cut``. A body resting on the PASSIVE one (the normal
        within ~45 degrees of its own acceleration) does not push it down: its weight would
        press the support into what holds it up, and that cut stops the support's whole
        rest, its sideways push too (a stack could not be pushed)."""
        t = self.table
        push = np.flatnonzero(t.kind[other] == PASSIVE)
        if len(push) == 0:
            return
        acc = _take(t.acc, cut[push])
        g = np.sqrt(_dot(acc, acc))
        rests = _dot(_take(normal, push), acc) > _SUPPORT_COS * np.where(g > 0.0, g, 1.0)
        push = push[~rests]
        if len(push) == 0:
            return
        rows, o = cut[push], other[push]
        nn = _take(normal, push)
        into = np.maximum(_dot(_take(left, push), nn), 0.0)
        share = t.mass[rows] / (t.mass[rows] + t.mass[o])
        carried = nn * (into * share)[:, None]
        new_rest[rows] += carried
        np.add.at(new_rest, o, carried)

    def _push_apart(self, a: np.ndarray, b: np.ndarray, pos: np.ndarray) -> None:
        """Separate pairs that overlap at the start, along the normal, by inverse mass."""
        t = self.table
        near = self._boxes_meet(a, b, pos)  # boxes apart: no overlap, no contact needed
        a, b = a[near], b[near]
        hit, nrm, depth, _ = contacts(t, a, b, pos, 0.0)
        over = np.flatnonzero(hit & (depth > OVERLAP_TOL))
        if len(over) == 0:
            return
        oa, ob, nrm, depth = a[over], b[over], nrm[over], depth[over]
        wa, wb = t.inv_mass[oa], t.inv_mass[ob]
        total = wa + wb
        ok = total > 0.0
        push = nrm * (depth / np.where(ok, total, 1.0))[:, None]
        np.add.at(pos, oa[ok], -push[ok] * wa[ok, None])
        np.add.at(pos, ob[ok], push[ok] * wb[ok, None])
        # what moves into the contact no longer does
        self._impulses(oa, ob, nrm, np.arange(len(oa)), t.vel)

    def _slide(
        self, rows: np.ndarray, v: np.ndarray, nn: np.ndarray, prev: np.ndarray,
    ) -> np.ndarray:
        """The slid rest of each hit row: per row of ``rows``, ``v`` the rest left after the
        cut, ``nn`` the normal from the row to what it hit, ``prev`` what it slid along in the
        last pass (zero if nothing).

        A tangent slide that would turn into ``prev`` (the row is wedged between two bodies)
        turns the other way along the tangent: it gives way instead of pressing on, which
        breaks the arches a crowd forms in a doorway."""
        t = self.table
        into = _dot(v, nn)
        project = v - nn * np.maximum(into, 0.0)[:, None]
        tangent = np.stack((nn[:, 1], -nn[:, 0]), axis=1)
        u = _dot(v, tangent)
        direction = np.where(u >= -_TIE_EPS, 1.0, -1.0)
        wedged = _dot(tangent * direction[:, None], prev) > _TIE_EPS
        direction = np.where(wedged, -direction, direction)
        length = np.sqrt(_dot(v, v))
        full = tangent * (direction * length)[:, None]
        use_tangent = (t.slide[rows] == 1) & (into > 0.0)
        # a projected rest that runs back into what the row slid along in the last pass is
        # caught in a crease between the two (in 2D a corner, a pocket between two bodies):
        # it stops there instead of bouncing between them until its slides run out
        crease = ~use_tangent & (_dot(project, prev) > _TIE_EPS)
        project[crease] = 0.0
        return np.where(use_tangent[:, None], full, project)

    def _impulses(
        self, pa: np.ndarray, pb: np.ndarray, nrm: np.ndarray, which: np.ndarray,
        vel: np.ndarray,
    ) -> None:
        """Momentum exchange along the normal for the pairs ``which`` (indices into pa/pb).

        Each pair is the exact exchange with restitution. A body in several pairs (a bullet
        meeting a wall and another bullet in one step) takes them one after the other, each
        from the velocities the previous one left, so the pairs together never add energy
        (summing exchanges computed from the same velocities would): in rounds, every pair
        that comes first for each of its moving bodies goes at once. "First" is by a fixed
        scrambled rank of the pairs, not their index: in index order a chain of touching
        bodies (a pile) would take one round per link, in a scrambled one a few rounds."""
        t = self.table
        which = np.unique(which)
        if len(which) == 0:
            return
        a, b, nn = pa[which], pb[which], _take(nrm, which)
        ia, ib = t.inv_mass[a], t.inv_mass[b]
        e = np.maximum(t.restitution[a], t.restitution[b])
        left = np.flatnonzero((ia + ib) > 0.0)
        # distinct ranks (a bijection of 32-bit indices), the same for the same pairs
        rank = (which.astype(np.int64) * _SCRAMBLE) & 0xFFFFFFFF
        moving_a, moving_b = ia > 0.0, ib > 0.0
        first = self._first
        while len(left):
            la, lb = a[left], b[left]
            ma, mb = moving_a[left], moving_b[left]
            order = rank[left]
            np.minimum.at(first, la[ma], order[ma])
            np.minimum.at(first, lb[mb], order[mb])
            go = (~ma | (first[la] == order)) & (~mb | (first[lb] == order))
            first[la] = _NO_INDEX
            first[lb] = _NO_INDEX
            k = left[go]
            ga, gb, gn = a[k], b[k], _take(nn, k)
            rel = _dot(_take(vel, gb) - _take(vel, ga), gn)  # < 0: closing
            j = np.where(rel < 0.0, -(1.0 + e[k]) * rel / (ia[k] + ib[k]), 0.0)
            vel[ga] -= gn * (j * ia[k])[:, None]  # rows distinct among the moving ones
            vel[gb] += gn * (j * ib[k])[:, None]
            left = left[~go]
        self._carry(a, b, nn, vel)

    def _carry(self, a: np.ndarray, b: np.ndarray, nn: np.ndarray, vel: np.ndarray) -> None:
        """A PASSIVE body resting on another takes on the supporter's tangential velocity."""
        t = self.table
        for p, o, n_out in ((a, b, nn), (b, a, -nn)):
            passive = np.flatnonzero(t.kind[p] == PASSIVE)
            if len(passive) == 0:
                continue
            p, o, n_out = p[passive], o[passive], _take(n_out, passive)
            acc = _take(t.acc, p)
            g = np.sqrt(_dot(acc, acc))
            down = (g > 0.0) & (_dot(n_out, acc) > _SUPPORT_COS * np.where(g > 0.0, g, 1.0))
            sel = np.flatnonzero(down)
            if len(sel) == 0:
                continue
            pr, orow, nrm = p[sel], o[sel], n_out[sel]
            tangent = np.stack((nrm[:, 1], -nrm[:, 0]), axis=1)
            dv = _dot(vel[orow] - vel[pr], tangent)
            vel[pr] += tangent * dv[:, None]

    def _swept_boxes_meet(
        self, a: np.ndarray, b: np.ndarray, pos: np.ndarray, move: np.ndarray,
    ) -> np.ndarray:
        """Indices of the pairs whose boxes swept along their moves (grown by
        ``_SWEEP_MARGIN``) overlap: only these can have a time of impact in [0, 1]."""
        lo_a, hi_a = self._boxes(a, pos, move, len(a) + len(b))
        lo_b, hi_b = self._boxes(b, pos, move, len(a) + len(b))
        meet = (lo_a <= hi_b + _SWEEP_MARGIN) & (lo_b <= hi_a + _SWEEP_MARGIN)
        return np.flatnonzero(meet[:, 0] & meet[:, 1])

    def _boxes(
        self, rows: np.ndarray, pos: np.ndarray, move: np.ndarray | None, uses: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Bounding boxes ``(lo, hi)`` of ``rows`` at ``pos``, swept along ``move`` if given.
        Computed for every row and gathered when there are more ``uses`` than rows (fresh
        arrays either way)."""
        t = self.table
        n = len(pos)
        if uses >= n:  # every row once, then gathered
            lo, hi = pos + t.lo[:n], pos + t.hi[:n]
            if move is not None:
                lo += np.minimum(move, 0.0)
                hi += np.maximum(move, 0.0)
            return _take(lo, rows), _take(hi, rows)
        p = _take(pos, rows)
        lo, hi = p + _take(t.lo, rows), p + _take(t.hi, rows)
        if move is not None:
            m = _take(move, rows)
            lo += np.minimum(m, 0.0)
            hi += np.maximum(m, 0.0)
        return lo, hi

    def _relative_boxes_meet(
        self, a: np.ndarray, b: np.ndarray, pos: np.ndarray, move: np.ndarray,
    ) -> np.ndarray:
        """Indices of the pairs where a's box swept along the relative move (a's move less
        b's) meets b's box (grown by ``_SWEEP_MARGIN``): the others have no time of impact."""
        lo_a, hi_a = self._boxes(a, pos, None, len(a) + len(b))
        lo_b, hi_b = self._boxes(b, pos, None, len(a) + len(b))
        rel = _take(move, a) - _take(move, b)
        lo_a += np.minimum(rel, 0.0)
        hi_a += np.maximum(rel, 0.0)
        meet = (lo_a <= hi_b + _SWEEP_MARGIN) & (lo_b <= hi_a + _SWEEP_MARGIN)
        return np.flatnonzero(meet[:, 0] & meet[:, 1])

    def _boxes_meet(self, a: np.ndarray, b: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Indices of the pairs whose bounding boxes at ``pos`` overlap or touch: the others
        cannot overlap, so their contacts need not be computed."""
        lo_a, hi_a = self._boxes(a, pos, None, len(a) + len(b))
        lo_b, hi_b = self._boxes(b, pos, None, len(a) + len(b))
        meet = (lo_a <= hi_b) & (lo_b <= hi_a)
        return np.flatnonzero(meet[:, 0] & meet[:, 1])

    def _resolve_conflicts(
        self, a: np.ndarray, b: np.ndarray, old: np.ndarray, new: np.ndarray,
        rest: np.ndarray, new_rest: np.ndarray, first: np.ndarray | None = None,
    ) -> None:
        """Send back one body of each pair that overlaps after the pass but did not before.

        ``first``: the pairs (indices into a, b) that may overlap; None: all. Pairs of bodies
        sent back are looked at again whatever ``first`` says.

        Contacts are computed only where boxes meet; after sending bodies back, only the
        pairs of the bodies sent back are checked again (no other pair changed); whether a
        pair overlapped before is asked only of pairs that overlap now.
        """
        t = self.table
        moved = _nonzero(new - old)
        cand = np.flatnonzero(moved[a] | moved[b])
        if len(cand) == 0:
            return
        ca, cb = a[cand], b[cand]
        alive = np.ones(len(ca), dtype=np.bool_)  # False: overlapped before the pass
        asked = np.zeros(len(ca), dtype=np.bool_)  # whether it overlapped before: known
        if first is None:
            look = np.arange(len(ca))
        else:
            pick = np.zeros(len(a), dtype=np.bool_)
            pick[first] = True
            look = np.flatnonzero(pick[cand])
        for _ in range(len(t.entity)):
            look = look[alive[look]]
            look = look[self._boxes_meet(ca[look], cb[look], new)]
            hit, _, depth, _ = contacts(t, ca[look], cb[look], new, 0.0)
            bad = look[hit & (depth > OVERLAP_TOL)]
            ask = bad[~asked[bad]]
            if len(ask):
                asked[ask] = True
                hit, _, depth, _ = contacts(t, ca[ask], cb[ask], old, 0.0)
                alive[ask[hit & (depth > OVERLAP_TOL)]] = False
                bad = bad[alive[bad]]
            if len(bad) == 0:
                return
            x, y = ca[bad], cb[bad]
            mx, my = moved[x], moved[y]
            # the one that moved; of two, the higher entity id (rows are ordered a < b by id)
            back = np.where(mx & my, y, np.where(my, y, x))
            back = np.unique(back[moved[back]])
            if len(back) == 0:
                return
            self.undone += len(back)
            new[back] = old[back]
            new_rest[back] = rest[back]
            moved[back] = False
            sent = np.zeros(len(new), dtype=np.bool_)
            sent[back] = True
            look = np.flatnonzero(sent[ca] | sent[cb])
