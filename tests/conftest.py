"""Suite-wide test settings.

Hypothesis's per-example deadline (200 ms by default) is a timed assertion: on the shared 2-core machines that run
this suite, a property test failed only because one example waited 404 ms for the CPU. The properties are what
these tests assert; how long an example takes is not, so no example has a deadline.
"""

from hypothesis import settings

settings.register_profile("spade", deadline=None)
settings.load_profile("spade")
