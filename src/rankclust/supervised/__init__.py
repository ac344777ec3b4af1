"""rankclust.supervised."""
