"""Screen capture and the Observation the rest of the engine sees."""

from .capture import LogicalSizeProvider, ScreenCapture, mss_logical_size
from .observation import MonitorGeometry, Observation

__all__ = [
    "LogicalSizeProvider",
    "MonitorGeometry",
    "Observation",
    "ScreenCapture",
    "mss_logical_size",
]
