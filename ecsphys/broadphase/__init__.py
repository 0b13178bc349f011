"""Broadphase: arrays of axis-aligned boxes in, candidate pairs out."""
