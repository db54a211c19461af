"""The sandbox: run untrusted candidate code against a task's inputs and grade what it returns.

Layers (each tested in tests/sandbox): a warm fork server inside bubblewrap (new network, PID, IPC, UTS and mount
namespaces; a read-only root holding only /usr, /lib, /etc, the Python prefix, the sandbox's own code and the
few libraries judges import (libraries.py: sympy, mpmath, read-only at /sbxlib); a private
/tmp of capped size and inodes). A template, forked before any job, forks every candidate's child ahead of its job
and reaps it (wait4) when asked; the watcher reads the jobs, feeds, watches and kills the children and never forks,
so no child is a copy of a process that held job data. The child gets rlimits (CPU,
address space, processes, file size, fds, no core), a fresh unprivileged uid per worker slot, no_new_privs, a seccomp
filter (no sockets, fork, exec, ptrace, mounts, namespaces, uid changes, SysV IPC, mqueues, memfd, bpf, io_uring,
signals to others) and an audit hook that reports interference. The watcher enforces per-test wall-clock deadlines (the
first timeout ends the candidate unless executor.run_all_tests_after_timeout), reads CPU time and peak memory from
the kernel (wait4), caps stdout/stderr and never takes them as a verdict, and empties /tmp through fds within a
bound (a worker it cannot empty is recycled). Return values cross a private pipe through a type-exact codec (a
container subclass such as Counter crosses as the plain container its builtin storage holds) and are compared by
the supervisor, so expected values never enter the candidate's process.
Program jobs (program.py) run a whole program as `__main__` in the same workers, under the same layers and limits:
its stdin streams in on the job pipe, its stdout and stderr come back capped on pipes of their own, its exit status
from the kernel; what it prints is data for a judge outside the sandbox, never a verdict
(tests/sandbox/test_program.py: the classes below, as programs).

Covered, by the threat-model classes of docs/method.md#threat-model (tests in tests/sandbox/):
- forged verdicts: test_hostile.py::test_hostile_candidate_never_passes[sys_exit_zero, os_exit_zero_*,
  prints_passed, atexit_handler, forges_frames_on_inherited_fds];
  test_scoring.py::test_exit_codes_and_output_are_never_verdicts
- subverted comparison: test_hostile.py::test_hostile_candidate_never_passes[lying_eq_object, str_subclass_lying_eq,
  int_and_list_subclasses, patched_builtins]; test_scoring.py::test_comparison_is_strict_about_types;
  test_compare_and_codec.py::test_codec_refuses_subclasses_of_builtins,
  ::test_codec_reads_a_container_subclass_through_the_builtin_storage_not_its_methods;
  test_scoring.py::test_a_subclass_is_judged_by_its_storage_whatever_it_claims
- peeking: test_hostile.py::test_hostile_candidate_never_passes[gc_and_frames_peek, files_proc_env_stdin_peek];
  test_hostile.py::test_candidate_cannot_see_host_environment_variables
- exhaustion: test_hostile.py::test_exhaustion_is_reported_as_data, ::test_hostile_candidate_never_passes[cpu_loop,
  sleep_ignoring_signals, memory_bomb, fork_bomb, output_flood, disk_fill, huge_return_value, deeply_nested_return];
  test_scoring.py::test_a_looping_candidate_costs_one_per_test_limit_not_one_per_test
- escape and side effects: test_hostile.py::test_hostile_candidate_never_passes[socket_connect,
  writes_and_deletes_host_paths, kills_parent_and_everyone, daemon_process, ptrace_via_ctypes, setuid_back_to_root,
  exec_a_shell]; test_hostile.py::test_no_reach_into_another_process_of_the_same_uid (signals, scheduling,
  priorities, limits, F_SETOWN aimed at a spare child of the same uid: EPERM);
  test_residue.py::test_no_process_in_the_sandbox_keeps_cap_sys_admin_once_tmp_is_mounted;
  test_events.py::test_interference_is_reported_as_an_event (file_access, socket, process_spawn, stray_output)
- measurement tampering: test_hostile.py::test_patched_clocks_do_not_change_the_recorded_cpu_time
- reward hacking: test_hostile.py::test_hard_coded_public_tests_fail_the_hidden_ones
- verdicts that depend on the worker: every zygote starts with one fixed str hash seed (layers.GRADING_HASH_SEED),
  so set and dict order of strings is the same on every worker and in every run; a Job may ask for another seed
  (a worker of that seed is started for it), which validation uses to refuse references whose answer depends on it
  (tests/validate/test_dynamic.py, tests/kinds/program/test_program_adversarial.py):
  test_pool.py::test_every_worker_grades_under_one_fixed_hash_seed_and_a_job_may_ask_for_another
- residue across jobs: test_residue.py::test_a_candidate_scanning_its_memory_finds_nothing_of_the_previous_job,
  ::test_the_process_that_forks_candidates_holds_no_control_pipe,
  ::test_a_tree_deeper_than_path_max_is_removed_before_the_next_candidate,
  ::test_a_file_flood_in_tmp_stops_at_the_inode_cap_and_is_gone_for_the_next_candidate,
  ::test_a_worker_that_cannot_empty_its_tmp_asks_to_be_recycled_and_the_verdict_stands;
  test_hostile.py::test_state_does_not_survive_into_the_next_run,
  ::test_a_deep_locked_tree_in_tmp_is_wiped_before_the_next_run
- memory outside the limits: test_residue.py::test_sysv_ipc_mqueues_and_memfd_are_refused,
  ::test_shared_memory_cannot_hold_memory_past_the_limit_nor_reach_the_next_candidate,
  ::test_memfd_pages_written_with_write_are_refused; test_scoring.py::test_memory_limit_is_enforced_per_test
- host-side exhaustion: test_boundary.py::test_a_forged_hash_colliding_frame_is_unencodable_and_costs_the_host_no_time,
  ::test_ten_forged_4_mb_frames_keep_the_host_peak_memory_bounded,
  ::test_a_candidate_returning_an_int_beyond_the_float_range_gets_a_wrong_answer_not_a_crash,
  ::test_a_job_whose_worker_is_killed_on_both_tries_gives_internal_error_and_the_next_runs_on_a_replacement

Not covered: kernel exploits and side channels (a shared kernel is the boundary; use gVisor or VMs for that);
CPU-cache or timing leaks between workers; isolation 'none' (and 'standard' on a host lacking layers), which
give up the corresponding protections; candidates can still read world-readable files of the read-only system
image (/usr, /etc: reported as file_access, not refused) and see their own test inputs, including hidden ones
(never the expected values). Pipe buffers (at most 64 fds' worth) and the capped /tmp are memory outside
RLIMIT_AS and ru_maxrss. The audit hook observes and does not protect: a candidate that rewrites the hook's state
through gc or ctypes can hide its own events, and calls made through ctypes straight into libc raise no event.
"""

from spade.sandbox.compare import values_equal
from spade.sandbox.grade import grade
from spade.sandbox.isolation import IsolationReport, check_isolation
from spade.sandbox.job import Job, OutcomeKind, RawOutcome, RawRun, to_json_value
from spade.sandbox.pool import SandboxPool, UnsafeSandboxWarning, time_limits_for
from spade.sandbox.program import ProgramJob, ProgramRun, ProgramVerdict

__all__ = [
    "IsolationReport", "Job", "OutcomeKind", "ProgramJob", "ProgramRun", "ProgramVerdict", "RawOutcome", "RawRun",
    "SandboxPool", "UnsafeSandboxWarning", "check_isolation", "grade", "time_limits_for", "to_json_value",
    "values_equal",
]
