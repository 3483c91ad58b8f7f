"""The protocol's handlers: what a node does for each chain event, with the context it is given."""
