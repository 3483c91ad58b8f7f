"""The Celery side of a decentrl node: an embedded or external Redis (redis_service), the Celery
app with one queue per role (celery_app), thin idempotent event tasks (tasks, dispatch, jobs),
a per-node token bucket (ratelimit) and a supervisor for the watcher and worker processes."""
