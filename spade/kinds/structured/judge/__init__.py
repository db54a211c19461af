"""The structured kind's judge: the code that runs INSIDE the sandbox, shipped as the files of a program job (the
package `structured_judge` in the job's working directory; `main` reads the job from stdin). Standard library
only (plus PyYAML's pure-Python modules, shipped beside it for YAML documents), importable on the host for tests.
"""
