"""rankclust.label_ranking."""
