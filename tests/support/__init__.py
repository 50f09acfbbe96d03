"""Helpers the tests share: requirements, fakes, synthetic screens, fixtures to import."""
