"""Machinery with no domain knowledge: external sorting, forked workers, atomic outputs, faults, HTTP."""
