"""Running processes: the supervisor, its fork server and children, Redis, the node folder's record."""
