"""The Claude Code plugin's icon, drawn here rather than kept as a binary file: two nodes and
the line that tethers them, as a square PNG (the plugin directory wants 512 to 2048 pixels a
side, PNG or JPEG)."""

from __future__ import annotations

import struct
import zlib

SIZE = 512
"""The smallest side the plugin directory accepts."""
BACKGROUND = (31, 41, 55)
INK = (20, 184, 166)
NODES = ((168.0, 344.0), (344.0, 168.0))
NODE_RADIUS = 76.0
LINE_HALF_WIDTH = 16.0


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def icon_png() -> bytes:
    """The icon as PNG bytes (8-bit RGB, edges smoothed over one pixel)."""
    import numpy as np  # only agent-config draws it

    ys, xs = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64) + 0.5
    (ax, ay), (bx, by) = NODES
    dx, dy = bx - ax, by - ay
    t = np.clip(((xs - ax) * dx + (ys - ay) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    to_line = np.hypot(xs - (ax + t * dx), ys - (ay + t * dy)) - LINE_HALF_WIDTH
    to_nodes = np.minimum(*(np.hypot(xs - x, ys - y) - NODE_RADIUS for x, y in NODES))
    cover = np.clip(0.5 - np.minimum(to_line, to_nodes), 0.0, 1.0)[..., None]
    pixels = np.asarray(BACKGROUND) * (1 - cover) + np.asarray(INK) * cover
    rows = np.round(pixels).astype(np.uint8).reshape(SIZE, SIZE * 3)
    raw = b"".join(b"\x00" + row.tobytes() for row in rows)
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )
