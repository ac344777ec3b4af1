"""rankclust.cluster."""
