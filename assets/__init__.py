"""Thin Dagster assets over the mnemo core."""
