"""Probability models over rankings, each with ``fit`` / ``logpdf`` / ``sample``."""

from rankclust.models.mallows import Mallows
from rankclust.models.plackett_luce import PlackettLuce

__all__ = ["Mallows", "PlackettLuce"]
