"""A decentrl node: the watcher and Celery workers that take the protocol's chain events and do
each role's work. Grouped by concern:

    config      NodeConfig, which every process of a node reads (DECENTRL_NODE_CONFIG)
    run         the node's entry points: its config, its Supervisor
    processes/  running processes: supervisor, fork server, Celery worker and watcher entry
                points, embedded Redis, the node folder's record
    queues/     queues and dispatch: the Celery app and its thin tasks, the handler table,
                job records, the claim rate limit, which events the watcher queues
    handlers/   the protocol's handlers and the NodeContext they are given
    observe/    observability: metrics, the health check, structured logs, why no work arrives"""
