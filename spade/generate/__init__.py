"""Task generation: procedural families (families/), their registry, and drafting tasks from them."""

from spade.generate.family import Family, Variant
from spade.generate.procedural import TaskDraft, draft_task, draft_tasks
from spade.generate.registry import family_names, get_family, register, resolve_families

__all__ = ["Family", "TaskDraft", "Variant", "draft_task", "draft_tasks", "family_names", "get_family", "register",
           "resolve_families"]
