"""rankclust.ordinal."""
