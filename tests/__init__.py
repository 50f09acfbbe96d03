"""The test suite: ``unit/<room>/`` mirrors the package, ``e2e/`` drives real apps, ``support/`` is shared."""
