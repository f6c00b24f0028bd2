"""Shared test settings: Hypothesis runs without deadlines (CI machines are slow and shared)."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "flipgames", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("flipgames")
