"""The repair kind's name, as tasks carry it in `Task.kind`: shared by its families and its validator."""

REPAIR = "repair"
