#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kselftest CI entry point for the slub_park collection (in TEST_PROGS):
# the short "smoke" mode of slub_park.sh.  Run "./slub_park.sh stress" by hand
# for the long mode.
cd "$(dirname "$0")" || exit 1
exec ./slub_park.sh smoke
