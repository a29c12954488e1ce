#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The collection's TEST_PROGS entry: slub_park.sh's smoke mode.
cd "$(dirname "$0")" && exec ./slub_park.sh smoke
