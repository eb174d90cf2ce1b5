"""The verifiers environment: one shared core (`core`) and one thin adapter per verifiers API.

`core` holds the settings, task selection, prompts, message building, chunking, eviction and
scoring glue, with no verifiers import. `classic` adapts it to the classic API (verifiers
0.3.x), `v1` (with `v1_harness` and `v1_tools`) to the v1 Taskset API (verifiers 0.4.x).
`memory_arena.environment.load_environment` picks the adapter for the installed version.
"""
