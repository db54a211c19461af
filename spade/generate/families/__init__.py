"""Built-in procedural task families, one per module; each module ends by registering its family."""
