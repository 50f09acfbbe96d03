"""Fast tests, one folder per room of the package."""
