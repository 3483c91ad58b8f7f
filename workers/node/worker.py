"""`celery -A workers.node.worker worker -Q <queue>`: the app built from DECENTRL_NODE_CONFIG."""
from workers.node.celery_app import create_app
from workers.node.config import NodeConfig

app = create_app(NodeConfig.from_env())
