"""Named collision layers, so games never write raw bits.

Guarantees: each name gets one bit, in the order given (the first name is bit 0, value 1);
``mask(...)`` ORs names; unknown names raise ``ValueError`` naming the name; at most 32 names.

>>> L = Layers("player", "enemy", "wall", "bullet")
>>> L.player, L.enemy, L.wall
(1, 2, 4)
>>> L.mask("enemy", "wall") == L.enemy | L.wall
True
>>> L.all_but("player") & L.player
0
>>> L.names_of(5)
('player', 'wall')
"""

from __future__ import annotations

from .components import ALL

MAX_LAYERS = 32


class Layers:
    """A set of named layers: ``Layers("player", "enemy")``; ``L.player`` is the player's bit."""

    __slots__ = ("_bits",)

    def __init__(self, *names: str) -> None:
        if len(names) > MAX_LAYERS:
            raise ValueError(f"Layers takes at most {MAX_LAYERS} names, got {len(names)}")
        bits: dict[str, int] = {}
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"Layers name must be an identifier string, got {name!r}")
            if name in bits:
                raise ValueError(f"Layers name given twice: {name!r}")
            bits[name] = 1 << i
        object.__setattr__(self, "_bits", bits)

    def __getattr__(self, name: str) -> int:
        try:
            return self._bits[name]
        except KeyError:
            raise AttributeError(f"no layer named {name!r}; layers: {list(self._bits)}") from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Layers are fixed once made")

    def __getitem__(self, name: str) -> int:
        return self.bit(name)

    def bit(self, name: str) -> int:
        """The bit of ``name``; ``ValueError`` if there is no such layer."""
        try:
            return self._bits[name]
        except KeyError:
            raise ValueError(f"unknown layer {name!r}; layers: {list(self._bits)}") from None

    def mask(self, *names: str) -> int:
        """The bits of all ``names`` ORed: a Collider mask that collides with those layers."""
        m = 0
        for name in names:
            m |= self.bit(name)
        return m

    def all_but(self, *names: str) -> int:
        """A mask of every layer except ``names``."""
        return ALL & ~self.mask(*names)

    def names_of(self, bits: int) -> tuple[str, ...]:
        """The names whose bits are set in ``bits``."""
        return tuple(n for n, b in self._bits.items() if bits & b)

    def resolve(self, layer: int | str) -> int:
        """A layer given as a name or as bits, as bits."""
        return self.bit(layer) if isinstance(layer, str) else int(layer)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._bits)

    def __len__(self) -> int:
        return len(self._bits)

    def __repr__(self) -> str:
        return f"Layers({', '.join(repr(n) for n in self._bits)})"
