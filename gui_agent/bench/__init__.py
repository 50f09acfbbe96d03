"""Reproducible measurements quoted in the README (`gui-agent bench ...`)."""
