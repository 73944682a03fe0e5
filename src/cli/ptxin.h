/* ptxin.h -- the command's PTX-in options. */
#ifndef PL_CLI_PTXIN_H
#define PL_CLI_PTXIN_H

/* the command's PTX-in options (--from-ptx, --lint, --diff): *handled 0 when none is given */
int plM_ptxin(int argc, char **argv, int *handled);

#endif
