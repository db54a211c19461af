"""The structured kind's procedural families, one file each, registered on import: structured_service,
structured_firewall, structured_jobs, structured_cluster, structured_record."""

from spade.kinds.structured.families import cluster, firewall, jobs, record, service  # noqa: F401
