"""Probability models over rankings, each with ``fit`` / ``logpdf`` / ``sample``."""

from rankclust.models.mallows import Mallows

__all__ = ["Mallows"]
