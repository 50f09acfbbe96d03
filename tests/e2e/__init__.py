"""End-to-end tests (``pytest -m e2e``): Xvfb, real input, real apps."""
