"""The structured kind's procedural families, one file each, registered on import: structured_service,
structured_firewall, structured_jobs, structured_cluster."""

from spade.kinds.structured.families import cluster, firewall, jobs, service  # noqa: F401
