"""rankclust.datasets."""
