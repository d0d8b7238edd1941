"""Pipelines composed of the stages: what the Dagster assets run step by step and evaluations end to end."""
