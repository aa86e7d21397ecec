"""Shapes the fixture kernels share (imported, never assigned in their files)."""
ROWS = 8
COLS = 16
SCALE = 2.0
