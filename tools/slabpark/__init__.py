# SPDX-License-Identifier: GPL-2.0
"""slabpark: the host side of the slab parking bench (python3 -m slabpark)."""
