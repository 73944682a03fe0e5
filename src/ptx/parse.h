/* parse.h -- the PTX parser: PTX text -> the trace IR, remembering the text so that printing the
** module gives the file back byte for byte. Also the linter, the diff and the Lua writer over
** it. */
#ifndef PL_PARSE_H
#define PL_PARSE_H

#include "ir.h"

struct plA_ctx;

/* limits that keep hostile input bounded */
#define PLR_MAXDEPTH 64          /* nested { } scopes in a body */
#define PLR_MAXTEXT  0xfffffff0u /* bytes of one file (spans are 32-bit) */

/* parse `n` bytes of PTX; NULL with "file:line:col: error: message" in err */
plI_module *plP_parse(struct plA_ctx *isa, const char *text, size_t n, const char *file,
                      plB_buf *err);
/* line and column (1-based) of byte offset `off` of the module's source */
void plP_linecol(const plI_module *m, uint32_t off, int *line, int *col);

/* lint: the errors as "file:line:col: error: message" lines into out, each distinct message once
** (with how often and where else it occurs); returns the error count */
int plP_lint(plI_module *m, const char *file, plB_buf *out);
/* the same errors one by one, in file order, to each(ud, line, col, message) */
int plP_lint_each(plI_module *m, void (*each)(void *ud, int line, int col, const char *msg),
                  void *ud);
/* instruction-level diff of two parsed modules into out; returns the number of differences */
int plP_diff(const plI_module *a, const plI_module *b, const char *fa, const char *fb,
             plB_buf *out);
/* the Lua script that rebuilds the module's text through the DSL (ptxlua.verbatim) */
int plP_to_lua(const plI_module *m, const char *srcname, const char *name, plB_buf *out);
/* s[0..n) as a Lua string literal (printable ASCII as is, the rest escaped), appended to b */
void plP_lua_str(plB_buf *b, const char *s, uint32_t n);

#endif
