"""rankclust.models."""
