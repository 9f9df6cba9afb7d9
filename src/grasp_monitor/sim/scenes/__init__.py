"""Scenario generators."""
