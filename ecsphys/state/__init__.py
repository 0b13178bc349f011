"""The world's state as the compiled stages read it: the body table (one row per body, NumPy
columns), its C view (``table_view.pxd``), the contact set (the touching pairs' columns),
the tile maps' tiles with their log of changes (``tile_log.pyx``) and snapshots of all of
it. Internal: games reach it through `ecsphys.Physics`."""
