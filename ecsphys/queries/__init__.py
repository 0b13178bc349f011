"""The world's spatial queries: the Python face that checks every argument
(``world_queries.WorldQueries``, reached as ``physics.query_point`` ...) and the compiled march
over the body table and the broadphase index it hands over to (``world_query.pyx``)."""

from .world_queries import Hit, RayHits, WorldQueries

__all__ = ["Hit", "RayHits", "WorldQueries"]
