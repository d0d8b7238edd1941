"""Celery settings of the shard workers (`celery -A dagster_celery.app worker` reads this module
when it is on PYTHONPATH): the broker and result backend from the environment."""

import os

broker_url = os.environ["MNEMO_CELERY_BROKER"]
result_backend = os.environ["MNEMO_CELERY_BACKEND"]
worker_prefetch_multiplier = 1  # a worker takes a run only when it can start it
