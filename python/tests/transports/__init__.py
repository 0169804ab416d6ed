"""Tests of analysis_api/_transports/ (the folder mirrors the package's)."""
