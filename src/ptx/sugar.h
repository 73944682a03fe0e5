/* sugar.h -- `ptxlua --from-ptx FILE.ptx --sugar`: a parsed module -> an editable DSL script
** (lua/ptxlua/sugar.lua) that prints the file back byte for byte, checked by running it. */
#ifndef PL_PARSE_SUGAR_H
#define PL_PARSE_SUGAR_H

#include "ir.h"

/* runs a script (chunk name, text) and returns its PTX in ptx (0), or its error in err (nonzero);
** given by the executable, which embeds the Lua engine (the core library does not) */
typedef int (*plP_runner)(const char *chunk, const char *text, size_t n, plB_buf *ptx,
                          plB_buf *err);
void plP_set_runner(plP_runner run);

/* the sugared script for m (src: the file's text, for the check); notes ("FILE:line: note: kept
** verbatim: why" lines) into notes; chunk: the name the script runs under. 0 ok. */
int plP_to_sugar(const plI_module *m, const char *path, const char *name, const char *chunk,
                 plB_buf *out, plB_buf *notes);

/* ---- the other direction: a sugared body, traced by the DSL, laid out as the file's text
** ------ */
/* layout markers a sugared body records between its instructions (PLS_RAW statements, the kind
** in the statement's flags, the text as the statement's text) */
enum {
  PLP_MK_TEXT = 1,
  PLP_MK_EOL,
  PLP_MK_INDENT,
  PLP_MK_GAP,
  PLP_MK_DECL,
  PLP_MK_OPEN,
  PLP_MK_CLOSE
};
/* where a piece of the laid-out text came from: its first line and byte in the text, the script
** line (and file string id of m, 0: the document's own) that wrote it */
typedef struct plP_mapent {
  uint32_t line, off, sline, sfile;
} plP_mapent;
typedef PLB_VEC(plP_mapent) plP_map;
/* function fi of the traced module m laid out: head (NULL: the header the DSL prints), the body
** with each marker applied, tail; docline: the script line of the function's definition. */
int plP_sugar_layout(const plI_module *m, uint32_t fi, const char *head, size_t nhead,
                     const char *tail, size_t ntail, uint32_t docline, plB_buf *out, plP_map *map);

/* the check of --sugar: function fi of a traced check script as lines to compare (its header when
** with_head, then each instruction and label as the printer writes it) */
int plP_sugar_canon(const plI_module *m, uint32_t fi, int with_head, plB_buf *out);

#endif
