// SPDX-License-Identifier: GPL-2.0
/* The in-guest tests' TAP counters (gtap.h). */
#include "gtap.h"

int tests, failed;
