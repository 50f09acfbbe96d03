"""Screen capture and the Observation the rest of the engine sees."""

from .observation import MonitorGeometry, Observation

__all__ = ["MonitorGeometry", "Observation"]
