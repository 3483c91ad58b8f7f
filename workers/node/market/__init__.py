"""A node's market policy: what its work costs (pricing), what it can finish in time (throughput,
feasibility), which tasks it passed over and why (passed_over), and the deadlines its phase work
stops at (deadlines). Node policy only: the protocol neither knows nor checks any of it."""
