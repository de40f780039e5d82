"""Pre-training: the corpus (generator, corpus) and the distributed trainer (train)."""
