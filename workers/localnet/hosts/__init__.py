"""Several hosts on this machine: network namespaces on one LAN (netns), the services each host
runs (services) and a decentrl network of separate operator hosts (network.HostsNetwork)."""
