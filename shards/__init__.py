"""Many machines: runs of each namespace launched on its shard's Celery queue (docs/DEPLOY.md).
Needs the `scale` extra (dagster-celery, dagster-postgres); nothing on one machine imports it."""
