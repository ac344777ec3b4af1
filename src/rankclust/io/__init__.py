"""rankclust.io."""
