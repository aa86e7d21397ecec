"""Command-line tools: python -m pypto.tools.scope_stats_plot FILE."""
