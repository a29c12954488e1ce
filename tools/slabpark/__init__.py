# SPDX-License-Identifier: GPL-2.0
"""slabpark: the host side of the slab parking bench.

Run as ``python3 -m slabpark`` with ``tools/`` on ``PYTHONPATH`` (the make
targets do that).  Modules:

- ``stats``:   medians with ranges, the noise floor, "beyond noise"
- ``runs``:    reading what the guest scripts leave (module runs,
               workload runs, lock_stat dumps, min_partial rows)
- ``report``:  the tables of ``make run``'s newer options (BASE=1,
               WORKLOAD=, MIN_PARTIAL=1)
"""
