"""Loreline's benchmarks: a seeded generator of Claude Code trees and a registry of timings.

`scripts/bench` runs `python -m benchlib`. Every benchmark is one function in
`suite.BENCHMARKS`; it gets a `registry.Context` (the generated trees, run counts, a
scratch dir) and returns `registry.Row`s, each a figure with its budget (docs/benchmarks.md#budgets). The
figures are medians of several runs; ratios are taken within one run, then the median of
those ratios is reported. Nothing here is a test: budgets are reported, never asserted.
"""
