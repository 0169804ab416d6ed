"""Tests of analysis_api/_results/ (the folder mirrors the package's)."""
