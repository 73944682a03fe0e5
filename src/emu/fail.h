/* fail.h -- the emulator's one error path (fail.c): every failure of a run goes through these,
** which format "file:line: error: message" at the statement's anchor, with the thread and CTA where
** one is at fault. The first report stops the run (plX_emu.status; later ones are dropped). */
#ifndef PL_EMU_FAIL_H
#define PL_EMU_FAIL_H

#include <stddef.h>
#include <stdint.h>
#include "emu.h"
#include "util.h"
#include "ir.h"

typedef struct plX_ins plX_ins;
typedef struct plX_warp plX_warp;

/* the error at statement stmt (X_NOSLOT: the kernel's line); returns the status (1) */
int plX__fail(plX_emu *e, uint32_t stmt, const char *fmt, ...);
/* the report of an opt-in check (uninit_regs, uninit_shared, races): kept, and made when the run
** ends only if no always-on check reported anything, so that turning checks on never replaces
** an always-on diagnosis (the checks only observe: the run goes on as it would without them).
** Returns 0 (the run goes on) */
int plX__optin(plX_emu *e, uint32_t stmt, const char *fmt, ...);
/* the run ended with no other report: the kept opt-in one is its error; returns the status */
int plX__optin_made(plX_emu *e);
/* an error at a declaration's line (file: its string id, 0 none), not a statement's */
int plX__fail_decl(plX_emu *e, uint32_t file, uint32_t line, const char *fmt, ...);
void plX__thread(const plX_emu *e, plB_buf *b, uint32_t tid); /* "thread (x,y,z)" */
void plX__who(const plX_emu *e, plB_buf *b, const uint32_t ctaid[3],
              uint32_t tid); /* "thread (x,y,z) of CTA (a,b,c)" */
const char *plX__opname(const plX_emu *e, uint32_t stmt);
/* plX_ins.stmt -> its statement, or NULL */
const plI_stmt *plX__stmt(const plX_emu *e, uint32_t stmt);
/* "LINE" of a statement, or "LINE in FILE" when its anchor is in another file than the kernel's
** (a library module): for messages that name a second place; X_AT gives it a buffer of its own */
const char *plX__at(const plX_emu *e, uint32_t stmt, char *buf, size_t n);
#define X_AT(e, stmt) plX__at((e), (stmt), (char[1100]){ 0 }, 1100)
#define X_ATSEP       "\x1f"
/* "OPCODE: msg (thread (x,y,z) of CTA (a,b,c))": lane `lane` of warp w at instruction in */
int plX__fail_lane(plX_emu *e, const plX_ins *in, plX_warp *w, int lane, const char *msg);
int plX__fail_lanef(plX_emu *e, const plX_ins *in, plX_warp *w, int lane, const char *fmt, ...);
/* "OPCODE in warp W of CTA (a,b,c): msg (lanes 0x...)": the warp as a whole when lanes is 0 */
int plX__fail_warp(plX_emu *e, const plX_ins *in, plX_warp *w, const char *msg, uint32_t lanes);

#endif
