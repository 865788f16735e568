#include "prog.h"

const char *cli_prog = "suspend-lab";
