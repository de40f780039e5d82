"""Measuring configurations of a program: build it, run it in a sandbox, time it, check its answer, record the row;
one interface (`measurer.Measurer`) over live runs and recorded datasets. Below `collectors`, which sweeps with it."""
