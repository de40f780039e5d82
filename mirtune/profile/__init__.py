"""Profiles of real runs: what static IR cannot see (how much work a parallel region does, how often it starts,
how evenly its threads share it), measured once with an OMPT tool (`mirtune.profile.ompt`)."""
