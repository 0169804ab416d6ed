"""Tests of analysis_api/_calls/ (the folder mirrors the package's)."""
