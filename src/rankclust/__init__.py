"""rankclust: learning from and clustering preference data."""

from rankclust.rankings import KINDS, Rankings, check_rankings

__version__ = "0.1.0.dev0"

__all__ = ["KINDS", "Rankings", "__version__", "check_rankings"]
