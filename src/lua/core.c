/* core.c -- the ptxlua.core Lua module: a thin, checked door from the DSL into the C core.
** Type rules live in Lua and in the ISA table; this file converts values and reports errors at
** the script's line (the first stack frame outside the ptxlua library). */
#include <lua.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "ir.h"
#include "isa.h"
#include "print.h"
#include "smem.h"
#include "parse.h"
#include "sugar.h"
#include "open.h"
#include "num.h"

#define MOD_MT  "ptxlua.module"
#define MAXARGS 64
#define OPBUF_N 1024

/* DSL operand kinds: t[0] of an operand table is a register id (> 0), or minus one of these;
** a plain list (t[0] == nil) is a vector. One list: the DSL reads it as core.K (ADDR = -2, ...). */
/* clang-format off */
#define PL_OPKINDS(_) \
  _(ADDR, 2)                                                                     \
  _(SYM, 3)                                                                      \
  _(LABEL, 4)                                                                    \
  _(SREG, 5)                                                                     \
  _(NEG, 6)                                                                      \
  _(SINK, 7)                                                                     \
  _(PAIR, 8)                                                                     \
  _(IMM, 9)                                                                      \
  _(PAREN, 10) /* a parenthesized list (a, b): a call's results and arguments */ \
  _(TADDR, 11) /* a tensor address [tmap, {c0, c1, ...}] */
/* clang-format on */

enum {
#define PL_OPKIND_ENUM(n, v) K_##n = v,
  PL_OPKINDS(PL_OPKIND_ENUM)
#undef PL_OPKIND_ENUM
};

/* placed: the block a label is placed in (1: the function's top; a ptx.scope block: its serial,
** from 2), 0 not placed; a block's placements are undone when it closes */
typedef struct labelinfo {
  uint32_t used_file, used_line, placed;
} labelinfo;
/* a ptx.at call site of the function being traced: its line, predicate and sense; used once a
** call made through one of its guards ran */
typedef struct gsite {
  uint32_t guard, file, line;
  uint8_t neg, used;
} gsite;
/* an open ptx.scope block */
typedef struct lblock {
  uint32_t serial, pend0, lundo0, reg0;
} lblock;
/* a register of a lazy range (m:reg_lazy) made inside a block for a range declared outside it */
typedef struct louter {
  uint32_t id, decl;
} louter;
/* a label used inside blocks */
typedef struct lpend {
  uint32_t name, file, line;
} lpend;
typedef struct lundo {
  uint32_t name, old;
} lundo;

typedef struct LMod {
  plI_module *m;
  plA_target tgt;
  int func; /* current function, -1 none */
  uint32_t guard;
  int negguard;
  uint32_t guard_file, guard_line; /* for the next instruction */
  /* the ptx.at sites of this function (m:guard_open): a site's guard binds to the next instruction
  ** only when a call made through it runs (m:guard_bind), after that call's arguments were
  ** evaluated; a site nothing was called through is an error at its line when the function ends.
  ** Sites are found again by (file, line, predicate, sense) in an open-addressing hash, so a
  ** ptx.at in a loop is one site and its guard (a Lua table) is made once. */
  PLB_VEC(gsite) gsites;
  uint32_t *ghash;
  uint32_t ghcap; /* site index + 1, 0 empty; ghcap a power of two */
  int maxptx;     /* highest PTX version an instruction needs */
  int maxptx_line;
  uint32_t maxptx_file;
  uint32_t maxptx_opc;
  const char *maxptx_what;   /* what set maxptx when no instruction did (maxptx_opc 0) */
  PLB_VEC(labelinfo) labels; /* indexed by label string id */
  uint32_t serial;           /* this module's number within its Shared (fc[].mod) */
  plB_buf msg;
  uint64_t ninsn;
  uint8_t *tgt_ok;  /* opcode id -> 1 once its form was checked against the target */
  uint64_t *sig_ok; /* opcode id -> operand signature last accepted (kinds and types) */
  uint8_t *sig_ver; /* opcode id -> the PTX version that signature's operand form needs */
  uint32_t ntgt_ok;
  struct Shared *S;
  /* ptx.scope blocks: the open ones, the label uses inside them not yet matched to a placement,
  ** the placements to undo; dead[id]: register id was made in a block that has closed */
  PLB_VEC(lblock) blocks;
  PLB_VEC(lpend) pend;
  PLB_VEC(lundo) lundo;
  uint32_t nserial;
  uint8_t *dead;
  uint32_t ndead;
  PLB_VEC(louter) outer; /* in id order: they outlive the blocks they were made in */
  /* function + 1, its parameters and their bytes so far */
  int pfunc;
  uint32_t pn;
  uint64_t pbytes;
  /* the .cta_group the current function's tcgen05 instructions use (0: none yet), and where the
  ** first one is: a kernel uses one throughout (ptxas rejects a function that mixes them) */
  int cg, cg_func;
  uint32_t cg_file, cg_line;
} LMod;

/* ---- the ISA context and the internal source prefixes, per Lua state (upvalues) ----------- */
typedef struct Shared {
  plA_ctx *isa;
  struct LMod *cur; /* the module being traced: core.emit records into it */
  char prefix[8][512];
  int nprefix;
  /* function -> "is it the library's?" (and its chunk name); the functions are kept alive in a
  ** registry table while cached, so a pointer can never be reused by another function */
  struct {
    const void *fn;
    const char *source;
    int internal;
    uint32_t mod, file;
  } fc[64];
  int fc_ref;
  uint32_t nmod; /* serial numbers of the modules made here (LMod.serial) */
  int sugar;     /* > 0 while ptxlua.sugar traces a sugared body: its markers go in */
  /* --sugar's check of the script it wrote: only the text counts, so instructions and markers
  ** are recorded without anchors (an error still finds its line) */
  int check;
  /* operands pre-read by the DSL (init.lua, through the FFI) for core.emitv: opbuf[0] operands
  ** described, then for each: 0 (convert the Lua value), 1 id (a register), 2 n id... (a vector
  ** of n registers) */
  uint32_t opbuf[OPBUF_N];
} Shared;

static Shared *shared(lua_State *L) {
  return (Shared *)lua_touserdata(L, lua_upvalueindex(1));
}

static int internal_src(Shared *S, const char *src) {
  for (int i = 0; i < S->nprefix; i++)
    if (strncmp(src, S->prefix[i], strlen(S->prefix[i])) == 0) return 1;
  return 0;
}

/* the user's frame: first Lua frame whose source is not the library; its slot in S->fc, or -1.
** One lua_getinfo per frame ("fl": the function, for the cache, and its current line); a function
** seen before is classified (and its chunk name known) from the cache. */
static int user_frame_from(lua_State *L, Shared *S, lua_Debug *ar, int lvl0) {
  for (int lvl = lvl0; lua_getstack(L, lvl, ar); lvl++) {
    if (!lua_getinfo(L, "fl", ar)) break;
    const void *fn = lua_topointer(L, -1);
    unsigned slot = (unsigned)(((uintptr_t)fn >> 4) ^ ((uintptr_t)fn >> 10)) & 63u;
    if (S->fc[slot].fn != fn) {
      if (!lua_getinfo(L, "S", ar)) {
        lua_pop(L, 1);
        break;
      }
      S->fc[slot].fn = fn;
      S->fc[slot].source = ar->source;
      S->fc[slot].internal =
          ar->source == NULL || ar->source[0] == '=' || internal_src(S, ar->source);
      S->fc[slot].mod = 0;
      lua_rawgeti(L, LUA_REGISTRYINDEX, S->fc_ref);
      lua_pushvalue(L, -2);
      lua_rawseti(L, -2, (int)slot + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (S->fc[slot].internal || ar->currentline <= 0) continue;
    ar->source = S->fc[slot].source;
    return (int)slot;
  }
  return -1;
}

static const char *srcname(const char *source) {
  return source[0] == '@' ? source + 1 : source;
}

static int user_frame(lua_State *L, Shared *S, lua_Debug *ar) {
  return user_frame_from(L, S, ar, 1) >= 0;
}

/* the anchor, searched from stack level lvl0 (core.emit's caller is always the library's own
** chain or emit function, so the fast path starts one level up). The chunk name's string id in
** this module is cached beside the function (the cache keeps the function, so its name, alive). */
static void anchor_from(lua_State *L, LMod *M, uint32_t *file, uint32_t *line, int lvl0);
static void anchor(lua_State *L, LMod *M, uint32_t *file, uint32_t *line) {
  anchor_from(L, M, file, line, 1);
}
static void anchor_from(lua_State *L, LMod *M, uint32_t *file, uint32_t *line, int lvl0) {
  lua_Debug ar;
  Shared *S = shared(L);
  *file = 0;
  *line = 0;
  int slot = user_frame_from(L, S, &ar, lvl0);
  if (slot < 0) return;
  if (S->fc[slot].mod != M->serial || !M->serial) {
    const char *s = srcname(ar.source);
    S->fc[slot].file = plB_intern(&M->m->strs, s, strlen(s));
    S->fc[slot].mod = S->fc[slot].file ? M->serial : 0;
  }
  *file = S->fc[slot].file;
  *line = (uint32_t)ar.currentline;
}

static int raise_at(lua_State *L, LMod *M, uint32_t file, uint32_t line, const char *msg) {
  if (file)
    lua_pushfstring(L, "%s:%d: error: %s", plI_cstr(M->m, file), (int)line, msg);
  else
    lua_pushfstring(L, "error: %s", msg);
  return lua_error(L);
}

static int raise_here(lua_State *L, LMod *M, const char *msg) {
  uint32_t f, l;
  anchor(L, M, &f, &l);
  return raise_at(L, M, f, l, msg);
}

/* errors from the sticky IR status */
static void check_ir(lua_State *L, LMod *M) {
  if (!M->m->status) return;
  lua_pushstring(L, plB_buf_cstr(&M->m->err));
  M->m->status = 0;
  M->m->err.n = 0; /* the error is reported now; the module stays usable */
  raise_here(L, M, lua_tostring(L, -1));
}

/* LuaJIT 2.1 has no luaL_testudata in 5.1 mode */
static void *luaL_testudata_compat(lua_State *L, int idx) {
  void *p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return NULL;
  luaL_getmetatable(L, MOD_MT);
  int same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? p : NULL;
}

static LMod *checkmod(lua_State *L, int i) {
  return (LMod *)luaL_checkudata(L, i, MOD_MT);
}

static void needfunc(lua_State *L, LMod *M) {
  if (M->func < 0) raise_here(L, M, "no kernel is being traced");
}

static int typearg(lua_State *L, LMod *M, int i) {
  size_t n;
  const char *s = luaL_checklstring(L, i, &n);
  if (*s == '.') s++, n--;
  int t = plB_type_from_name(s, n);
  if (!t) {
    lua_pushfstring(L, "unknown PTX type '%s'", s);
    raise_here(L, M, lua_tostring(L, -1));
  }
  return t;
}

/* ---- module --------------------------------------------------------------------------------- */
static int l_module(lua_State *L) {
  Shared *S = shared(L);
  const char *target = luaL_checkstring(L, 1);
  LMod *M = (LMod *)lua_newuserdata(L, sizeof *M);
  memset(M, 0, sizeof *M); /* closed state first: __gc copes with a half-made module */
  M->func = -1;
  plB_buf_init(&M->msg);
  luaL_getmetatable(L, MOD_MT);
  lua_setmetatable(L, -2);
  if (!plA_target_parse(target, &M->tgt))
    return luaL_error(L, "unknown target '%s' (expected sm_80, sm_90a, sm_100a, ...)", target);
  M->m = plI_new(S->isa);
  if (!M->m) return luaL_error(L, "out of memory");
  M->m->target = plI_str(M->m, target);
  M->S = S;
  M->serial = ++S->nmod;
  M->m->version = plA_target_min_version(&M->tgt);
  M->maxptx = M->m->version;
  return 1;
}

/* core.parse(text, chunkname) -> a module holding the parsed PTX (printed back as written),
** or nil, "chunkname:line:col: error: message" */
static int l_parse(lua_State *L) {
  Shared *S = shared(L);
  size_t n;
  const char *text = luaL_checklstring(L, 1, &n);
  const char *name = luaL_optstring(L, 2, "<ptx>");
  LMod *M = (LMod *)lua_newuserdata(L, sizeof *M);
  memset(M, 0, sizeof *M);
  M->func = -1;
  plB_buf_init(&M->msg);
  luaL_getmetatable(L, MOD_MT);
  lua_setmetatable(L, -2);
  plB_buf err;
  plB_buf_init(&err);
  M->m = plP_parse(S->isa, text, n, name, &err);
  if (!M->m) {
    lua_pushnil(L);
    lua_pushstring(L, plB_buf_cstr(&err));
    plB_buf_free(&err);
    return 2;
  }
  plB_buf_free(&err);
  M->S = S;
  M->serial = ++S->nmod;
  plA_target_parse(plI_cstr(M->m, M->m->target), &M->tgt);
  M->maxptx = M->m->version;
  return 1;
}

static int l_gc(lua_State *L) {
  LMod *M = (LMod *)luaL_checkudata(L, 1, MOD_MT);
  if (M->S && M->S->cur == M) M->S->cur = NULL;
  free(M->tgt_ok);
  M->tgt_ok = NULL;
  free(M->sig_ok);
  M->sig_ok = NULL;
  free(M->sig_ver);
  M->sig_ver = NULL;
  plI_free(M->m);
  M->m = NULL;
  plB_vec_free(M->labels);
  plB_vec_free(M->gsites);
  free(M->ghash);
  M->ghash = NULL;
  plB_vec_free(M->blocks);
  plB_vec_free(M->pend);
  plB_vec_free(M->lundo);
  plB_vec_free(M->outer);
  free(M->dead);
  M->dead = NULL;
  M->ndead = 0;
  plB_buf_free(&M->msg);
  return 0;
}

static int l_func(lua_State *L) {
  LMod *M = checkmod(L, 1);
  const char *name = luaL_checkstring(L, 2);
  const char *kind = luaL_optstring(L, 3, "entry");
  const char *link = luaL_optstring(L, 4, "visible");
  int k = strcmp(kind, "func") == 0 ? PLF_FUNC : PLF_ENTRY;
  int lk = strcmp(link, "visible") == 0  ? PLK_VISIBLE
           : strcmp(link, "extern") == 0 ? PLK_EXTERN
           : strcmp(link, "weak") == 0   ? PLK_WEAK
                                         : PLK_NONE;
  M->func = plI_func_new(M->m, name, k, lk);
  M->guard = 0; /* what an earlier body that raised an error left */
  M->gsites.n = 0;
  if (M->ghash) memset(M->ghash, 0, M->ghcap * sizeof *M->ghash);
  check_ir(L, M);
  uint32_t f, l;
  anchor(L, M, &f, &l);
  M->m->funcs.p[M->func].file = f;
  M->m->funcs.p[M->func].line = l;
  lua_pushinteger(L, M->func);
  return 1;
}

static int l_param(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  const char *name = luaL_checkstring(L, 2);
  int t = typearg(L, M, 3);
  lua_Number align = luaL_optnumber(L, 4, 0), count = luaL_optnumber(L, 5, 0);
  if (align < 0 || align > 65536 || count < 0 || count > 1e9)
    raise_here(L, M, "bad parameter alignment or size");
  plI_param(M->m, M->func, name, t, (uint32_t)align, (uint64_t)count, lua_toboolean(L, 6));
  check_ir(L, M);
  /* a kernel's parameter space: 32764 bytes, and 4352 below PTX ISA 8.1 (ptxas: "uses too much
  ** parameter space"); a larger list raises the module's version as an instruction would */
  if (M->m->funcs.p[M->func].kind == PLF_ENTRY) {
    /* the list so far plus this one (not the whole list again per parameter: a kernel of 1000) */
    const plI_func *pf = &M->m->funcs.p[M->func];
    uint64_t bytes = M->pfunc == M->func + 1 && M->pn + 1 == pf->params.n
                         ? plI_var_end(M->pbytes, &pf->params.p[pf->params.n - 1])
                         : plI_space_bytes(M->m, (uint32_t)M->func, PLV_PARAM, NULL);
    M->pfunc = M->func + 1;
    M->pn = pf->params.n;
    M->pbytes = bytes;
    if (bytes > PLSM_PARAM_MAX) {
      lua_pushfstring(L,
                      "kernel %s: its parameters take %d bytes, over the %d bytes of "
                      "parameter space ptxas allows (%d below PTX ISA 8.1); pass large data "
                      "through a pointer",
                      plI_cstr(M->m, M->m->funcs.p[M->func].name), (int)bytes, (int)PLSM_PARAM_MAX,
                      (int)PLSM_PARAM_MAX_OLD);
      raise_here(L, M, lua_tostring(L, -1));
    }
    if (bytes > PLSM_PARAM_MAX_OLD && M->maxptx < 81) {
      uint32_t f, l;
      anchor(L, M, &f, &l);
      M->maxptx = 81;
      M->maxptx_file = f;
      M->maxptx_line = (int)l;
      M->maxptx_opc = 0;
      M->maxptx_what = "a kernel parameter list of more than 4352 bytes";
    }
  }
  return 0;
}

static void dims(lua_State *L, int i, uint32_t d[3]) {
  for (int k = 0; k < 3; k++) {
    lua_Number v = luaL_optnumber(L, i + k, k ? 1 : 0);
    if (v < 1 || v > 1e9 || v != floor(v)) luaL_argerror(L, i + k, "positive integer expected");
    d[k] = (uint32_t)v;
  }
}

static int l_directive(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  plI_func *f = &M->m->funcs.p[M->func];
  const char *d = luaL_checkstring(L, 2);
  if (strcmp(d, "maxntid") == 0)
    dims(L, 3, f->maxntid);
  else if (strcmp(d, "reqntid") == 0)
    dims(L, 3, f->reqntid);
  else if (strcmp(d, "reqnctapercluster") == 0) {
    dims(L, 3, f->reqnctapercluster);
    f->explicitcluster = 1;
  } else if (strcmp(d, "minnctapersm") == 0)
    f->minnctapersm = (uint32_t)luaL_checkinteger(L, 3);
  else if (strcmp(d, "maxnreg") == 0)
    f->maxnreg = (uint32_t)luaL_checkinteger(L, 3);
  else if (strcmp(d, "maxclusterrank") == 0)
    f->maxclusterrank = (uint32_t)luaL_checkinteger(L, 3);
  else if (strcmp(d, "explicitcluster") == 0)
    f->explicitcluster = 1;
  else if (strcmp(d, "noreturn") == 0)
    f->noreturn = 1;
  else {
    lua_pushfstring(L, "unknown performance directive '%s'", d);
    raise_here(L, M, lua_tostring(L, -1));
  }
  return 0;
}

/* a .b128 register needs PTX ISA 8.3, whatever the instructions around it need */
static void type_version(lua_State *L, LMod *M, int t) {
  if (t == PLT_B128 && M->maxptx < 83) {
    uint32_t f, l;
    anchor(L, M, &f, &l);
    M->maxptx = 83;
    M->maxptx_file = f;
    M->maxptx_line = (int)l;
    M->maxptx_opc = 0;
    M->maxptx_what = ".reg .b128";
  }
}

/* m:reg(type, name [, count [, bare]]) -> first id; bare: named without '%' */
static int l_reg(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  int t = typearg(L, M, 2);
  const char *name = luaL_checkstring(L, 3);
  int bare = lua_toboolean(L, 5);
  uint32_t id, n = 0;
  if (!lua_isnoneornil(L, 4)) {
    lua_Number c = luaL_checknumber(L, 4);
    if (c < 1 || c > (1 << 24) || c != floor(c))
      raise_here(L, M, "register array size must be a positive integer");
    n = (uint32_t)c;
  }
  if (bare)
    id = plI_reg_bare(M->m, M->func, name, t, n);
  else if (!n)
    id = plI_reg_scalar(M->m, M->func, name, t);
  else
    id = plI_reg_range(M->m, M->func, name, t, n);
  check_ir(L, M);
  type_version(L, M, t);
  lua_pushinteger(L, id);
  return 1;
}

/* m:reg_lazy(type, name, count [, bare]) -> a handle: %name<count> declared, its registers made
** by m:reg_elem(type, handle, i) as they are first used (the caller keeps each id): a range of
** 100000 costs what its used registers cost */
static int l_reg_lazy(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  int t = typearg(L, M, 2);
  const char *name = luaL_checkstring(L, 3);
  lua_Number c = luaL_checknumber(L, 4);
  if (c < 1 || c > (1 << 24) || c != floor(c))
    raise_here(L, M, "register array size must be a positive integer");
  uint32_t d = plI_reg_range_lazy(M->m, M->func, name, t, (uint32_t)c, lua_toboolean(L, 5));
  check_ir(L, M);
  type_version(L, M, t);
  lua_pushinteger(L, d);
  return 1;
}
static int l_reg_elem(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  int t = typearg(L, M, 2);
  lua_Number d = luaL_checknumber(L, 3), i = luaL_checknumber(L, 4);
  if (!(d >= 1 && d <= 4294967295.0 && i >= 0 && i <= 4294967295.0))
    raise_here(L, M, "no such register");
  uint32_t id = plI_reg_elem(M->m, M->func, (uint32_t)d, t, (uint32_t)i);
  check_ir(L, M);
  /* made in a block for a range declared outside it: it outlives the block (scope_close) */
  const plI_module *m = M->m;
  if (m->frames.n && (uint32_t)d - 1 < m->frames.p[m->frames.n - 1].decl0) {
    louter o = { id, (uint32_t)d - 1 };
    if (!plB_vec_push(M->outer, o)) return luaL_error(L, "out of memory");
  }
  lua_pushinteger(L, id);
  return 1;
}
/* is register id (made after the block being closed opened) one of an enclosing lazy range? */
static int outer_reg(const LMod *M, uint32_t id, uint32_t decl0) {
  uint32_t lo = 0, hi = M->outer.n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (M->outer.p[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < M->outer.n && M->outer.p[lo].id == id && M->outer.p[lo].decl < decl0;
}

static int l_pool(lua_State *L) { /* m:pool(prefix, type) -> id of the next %prefixN */
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  int t = typearg(L, M, 3);
  uint32_t id = plI_reg_pool(M->m, M->func, luaL_checkstring(L, 2), t);
  check_ir(L, M);
  type_version(L, M, t);
  lua_pushinteger(L, id);
  return 1;
}

/* m:var(space, name, type, align, count, init, linkage, global) */
static int l_var(lua_State *L) {
  LMod *M = checkmod(L, 1);
  const char *sp = luaL_checkstring(L, 2);
  const char *name = luaL_checkstring(L, 3);
  int t = typearg(L, M, 4);
  lua_Number align = luaL_optnumber(L, 5, 0), count = luaL_optnumber(L, 6, 0);
  const char *init = luaL_optstring(L, 7, NULL);
  const char *link = luaL_optstring(L, 8, "");
  int global = lua_toboolean(L, 9);
  int space = strcmp(sp, "shared") == 0   ? PLV_SHARED
              : strcmp(sp, "global") == 0 ? PLV_GLOBAL
              : strcmp(sp, "const") == 0  ? PLV_CONST
              : strcmp(sp, "local") == 0  ? PLV_LOCAL
                                          : -1;
  if (space < 0) {
    lua_pushfstring(L, "unknown state space '%s'", sp);
    raise_here(L, M, lua_tostring(L, -1));
  }
  int lk = strcmp(link, "extern") == 0    ? PLK_EXTERN
           : strcmp(link, "visible") == 0 ? PLK_VISIBLE
           : strcmp(link, "weak") == 0    ? PLK_WEAK
                                          : PLK_NONE;
  if (align < 0 || align > (1 << 20) || count < 0 || count > 1e12)
    raise_here(L, M, "bad variable alignment or size");
  uint64_t cnt = count == 0 && lk == PLK_EXTERN ? UINT64_MAX : (uint64_t)count;
  if (!global) needfunc(L, M);
  if (!global && space == PLV_SHARED && lk != PLK_EXTERN) {
    /* a kernel's static .shared variables together: ptxas's limit for the target ("uses too
    ** much shared data"), laid out as ptxas lays them, in order, each at its alignment */
    plI_var v;
    memset(&v, 0, sizeof v);
    v.type = (uint8_t)t;
    v.align = (uint32_t)align;
    v.count = cnt;
    uint64_t bytes = plI_space_bytes(M->m, (uint32_t)M->func, PLV_SHARED, &v);
    uint32_t lim = plB_sm_static_limit(M->tgt.sm, M->tgt.arch_a);
    if (bytes > lim) {
      char msg[400];
      const char *why =
          M->tgt.arch_a == 1
              ? ""
              : " (48 KB of static .shared on every target but the arch-specific sm_XXa ones)";
      snprintf(msg, sizeof msg,
               "static shared memory: '%s' brings %s to %llu bytes, over the %u "
               "bytes (%u KB) ptxas allows on %s%s; declare large arrays in a shared-memory plan "
               "(ptx.smem_plan, dynamic above 48 KB) or with ptx.shared_dynamic",
               name, plI_cstr(M->m, M->m->funcs.p[M->func].name), (unsigned long long)bytes, lim,
               lim / 1024, plI_cstr(M->m, M->m->target), why);
      raise_here(L, M, msg);
    }
  }
  plI_var_new(M->m, global ? -1 : M->func, name, space, lk, t, (uint32_t)align, cnt, init);
  check_ir(L, M);
  return 0;
}

/* ---- labels --------------------------------------------------------------------------------- */
static labelinfo *label_slot(lua_State *L, LMod *M, uint32_t id) {
  while (M->labels.n <= id) {
    labelinfo z = { 0, 0, 0 };
    if (!plB_vec_push(M->labels, z)) {
      luaL_error(L, "out of memory");
      return NULL;
    }
  }
  return &M->labels.p[id];
}

static int l_place(lua_State *L) { /* m:place(name) */
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  const char *name = luaL_checkstring(L, 2);
  uint32_t f, l;
  anchor(L, M, &f, &l);
  if (M->guard)
    raise_at(L, M, f, l,
             "a guard predicate (ptx.at) must be followed by an instruction, not a label");
  uint32_t id = plI_str(M->m, name);
  check_ir(L, M);
  labelinfo *li = label_slot(L, M, id);
  /* labels are scoped like registers */
  uint32_t here = M->blocks.n ? M->blocks.p[M->blocks.n - 1].serial : 1;
  if (li->placed == here) {
    lua_pushfstring(L, "label '%s' is placed twice%s", name,
                    M->blocks.n ? " in one ptx.scope block" : "");
    raise_at(L, M, f, l, lua_tostring(L, -1));
  }
  if (M->blocks.n) {
    lundo u = { id, li->placed };
    if (!plB_vec_push(M->lundo, u)) luaL_error(L, "out of memory");
  }
  li->placed = here;
  plI_label(M->m, M->func, id, f, l);
  check_ir(L, M);
  return 0;
}

/* ---- operands ------------------------------------------------------------------------------- */
static uint32_t regid_of(lua_State *L, LMod *M, lua_Number v, int opi) {
  if (!(v >= 1 && v <= M->m->regs.n)) {
    lua_pushfstring(L, "operand %d: not a register of this module", opi);
    raise_here(L, M, lua_tostring(L, -1));
  }
  uint32_t id = (uint32_t)v;
  if (id < M->ndead && M->dead[id]) {
    plB_buf b;
    plB_buf_init(&b);
    plI_regname(M->m, id, &b);
    lua_pushfstring(L,
                    "operand %d: register %s was declared inside a ptx.scope block that has closed "
                    "(a block's registers live only inside it)",
                    opi, plB_buf_cstr(&b));
    plB_buf_free(&b);
    raise_here(L, M, lua_tostring(L, -1));
  }
  if (M->m->regs.p[id - 1].func != (uint32_t)M->func) {
    plB_buf b;
    plB_buf_init(&b);
    plI_regname(M->m, id, &b);
    lua_pushfstring(L, "operand %d: register %s belongs to another kernel (%s)", opi,
                    plB_buf_cstr(&b),
                    plI_cstr(M->m, M->m->funcs.p[M->m->regs.p[id - 1].func].name));
    plB_buf_free(&b);
    raise_here(L, M, lua_tostring(L, -1));
  }
  return id;
}

static uint32_t regid(lua_State *L, LMod *M, int idx, int opi) {
  lua_rawgeti(L, idx, 0);
  lua_Number v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return regid_of(L, M, v, opi);
}

static uint32_t strid(lua_State *L, LMod *M, int idx, int k) {
  lua_rawgeti(L, idx, k);
  size_t n;
  const char *s = lua_tolstring(L, -1, &n);
  if (!s) raise_here(L, M, "malformed operand (name expected)");
  uint32_t id = plB_intern(&M->m->strs, s, n);
  lua_pop(L, 1);
  if (!id) luaL_error(L, "out of memory");
  return id;
}

/* a Lua number as an immediate of type t */
static void number_imm(lua_State *L, LMod *M, lua_Number v, int t, int opi, const char *opc,
                       plI_opnd *o) {
  const plB_typeinfo *ti = &plB_type_info[t];
  if (t == PLT_F32 || (ti->cls == PLT_CF && ti->bits == 32 && t != PLT_F16X2 && t != PLT_BF16X2)) {
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    o->kind = PLO_F32;
    o->v = bits;
    return;
  }
  if (t == PLT_F64) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    o->kind = PLO_F64;
    o->v = bits;
    return;
  }
  if (ti->cls == PLT_CF) {
    lua_pushfstring(L, "operand %d of '%s': a .%s operand cannot be an immediate", opi, opc,
                    ti->name);
    raise_here(L, M, lua_tostring(L, -1));
  }
  if (t == PLT_PRED) {
    lua_pushfstring(L, "operand %d of '%s': a predicate cannot be a number", opi, opc);
    raise_here(L, M, lua_tostring(L, -1));
  }
  if (v != floor(v) || !isfinite(v)) {
    lua_pushfstring(L, "operand %d of '%s': immediate %f is not an integer", opi, opc, v);
    raise_here(L, M, lua_tostring(L, -1));
  }
  /* an N-bit integer immediate (plB_type_imm_range), printed as written */
  double lo, hi;
  int bits = plB_type_imm_range(t, &lo, &hi);
  if (v < lo || v > hi) {
    lua_pushfstring(L,
                    "operand %d of '%s': immediate %.0f does not fit .%s (%d bits: %.0f to %.0f)",
                    opi, opc, v, t ? ti->name : "b64", bits, lo, hi);
    raise_here(L, M, lua_tostring(L, -1));
  }
  o->kind = PLO_IMM;
  if (v < 0)
    o->v = (uint64_t)(int64_t)v;
  else if (v >= 9223372036854775808.0) {
    o->v = (uint64_t)v;
    o->flags |= PLOF_UNSIGNED;
  } else
    o->v = (uint64_t)(int64_t)v;
}

/* 64-bit integers from LuaJIT cdata (0x..ULL literals): through their text */
static int cdata_imm(lua_State *L, int idx, plI_opnd *o) {
  lua_getglobal(L, "tostring");
  lua_pushvalue(L, idx);
  lua_call(L, 1, 1);
  const char *s = lua_tostring(L, -1);
  if (!s) {
    lua_pop(L, 1);
    return 0;
  }
  char *end;
  errno = 0;
  int neg = s[0] == '-';
  if (neg) {
    long long x = strtoll(s, &end, 10);
    o->v = (uint64_t)x;
  } else {
    unsigned long long x = strtoull(s, &end, 10);
    o->v = (uint64_t)x;
    if (x > 9223372036854775807ULL) o->flags |= PLOF_UNSIGNED;
  }
  int ok = errno == 0 && end != s && (*end == 'U' || *end == 'L' || *end == 'i' || !*end);
  lua_pop(L, 1);
  o->kind = PLO_IMM;
  return ok;
}

/* a 64-bit LuaJIT integer (0x..ULL, -5LL) as an immediate of type t: the N-bit rule of
** number_imm (any value N bits hold, signed or unsigned); an integer for a floating-point
** operand is refused */
static void cdata_operand(lua_State *L, LMod *M, int idx, int t, int opi, const char *opc,
                          plI_opnd *o) {
  if (!cdata_imm(L, idx, o)) raise_here(L, M, "bad 64-bit immediate");
  const plB_typeinfo *ti = &plB_type_info[t];
  if (t == PLT_PRED || ti->cls == PLT_CF) {
    lua_pushfstring(L,
                    "operand %d of '%s': a 64-bit integer (LuaJIT ULL/LL) for a .%s operand; write "
                    "a Lua number",
                    opi, opc, ti->name);
    raise_here(L, M, lua_tostring(L, -1));
  }
  double lo, hi, v = (o->flags & PLOF_UNSIGNED) ? (double)o->v : (double)(int64_t)o->v;
  int bits = plB_type_imm_range(t, &lo, &hi);
  if (bits < 64 && (v < lo || v > hi)) {
    char m[256];
    if (o->flags & PLOF_UNSIGNED)
      snprintf(m, sizeof m, "%llu", (unsigned long long)o->v);
    else
      snprintf(m, sizeof m, "%lld", (long long)(int64_t)o->v);
    lua_pushfstring(L, "operand %d of '%s': immediate %s does not fit .%s", opi, opc, m, ti->name);
    snprintf(m, sizeof m, " (%d bits: %.0f to %.0f)", bits, lo, hi);
    lua_pushstring(L, m);
    lua_concat(L, 2);
    raise_here(L, M, lua_tostring(L, -1));
  }
}

static void convert(lua_State *L, LMod *M, int idx, int t, int opi, const char *opc, plI_opnd *o,
                    int depth);

/* a list at idx ({a, b, ...}, or (a, b, ...) when paren): a vector operand. A list of registers
** only (the common case: mma fragments, ld.v4 destinations) is recorded compactly, its ids in
** m->vregs (PLOF_REGS); any other element makes it a list of operand records. */
static void vector_operand(lua_State *L, LMod *M, int idx, int t, int opi, const char *opc,
                           plI_opnd *o, int paren, int depth,
                           /* r: t is r's type of operand opi (of nops), found when needed */
                           const plA_res *r, int nops) {
  int n = (int)lua_objlen(L, idx);
  if (n < 0 || (paren ? (n > 128 || depth > 0) : (n < 1 || n > 128 || depth > 0)))
    /* wgmma n256: 128 */
    raise_here(L, M,
               paren ? "a parenthesized list must hold at most 128 elements"
                     : "a vector operand must hold 1 to 128 elements");
  plI_module *m = M->m;
  uint32_t ids[128];
  int k = 0, top0 = lua_gettop(L);
  for (; k < n; k++) { /* registers: the element, its [0], one check */
    lua_rawgeti(L, idx, k + 1);
    if (lua_type(L, -1) != LUA_TTABLE) break;
    lua_rawgeti(L, -1, 0);
    lua_Number ev = lua_tonumber(L, -1);
    if (!(ev > 0)) {
      lua_pop(L, 1);
      break;
    }
    lua_pop(L, 2);
    /* 0: not a register of this module */
    uint32_t id = ev <= m->regs.n ? (uint32_t)ev : 0;
    if (id == 0 || m->regs.p[id - 1].func != (uint32_t)M->func || (id < M->ndead && M->dead[id]))
      id = regid_of(L, M, ev, opi);
    ids[k] = id;
  }
  memset(o, 0, sizeof *o);
  o->kind = PLO_VEC;
  o->n = (uint16_t)n;
  if (paren) o->flags |= PLOF_PAREN;
  if (k == n) {
    if (m->vregs.n + (uint32_t)n > m->vregs.cap &&
        !plB_vec_grow((void **)&m->vregs.p, &m->vregs.cap, m->vregs.n + (uint32_t)n,
                      sizeof *m->vregs.p))
      luaL_error(L, "out of memory");
    o->flags |= PLOF_REGS;
    o->id = m->vregs.n;
    if (n) memcpy(m->vregs.p + m->vregs.n, ids, (size_t)n * sizeof ids[0]);
    m->vregs.n += (uint32_t)n;
    return;
  }
  /* element k (on the stack top) is no register: operand records for all */
  if (r) t = opi - 1 < r->nops ? plA_optype_n(r, opi - 1, nops) : PLT_NONE;
  plI_opnd e[128];
  memset(e, 0, (size_t)n * sizeof e[0]);
  for (int j = 0; j < k; j++) {
    e[j].kind = PLO_REG;
    e[j].id = ids[j];
  }
  for (; k < n; k++) {
    if (lua_gettop(L) == top0) lua_rawgeti(L, idx, k + 1);
    convert(L, M, top0 + 1, t, opi, opc, &e[k], depth + 1);
    lua_settop(L, top0);
  }
  if (m->opnds.n + (uint32_t)n > m->opnds.cap &&
      !plB_vec_grow((void **)&m->opnds.p, &m->opnds.cap, m->opnds.n + (uint32_t)n,
                    sizeof *m->opnds.p))
    luaL_error(L, "out of memory");
  o->id = m->opnds.n;
  memcpy(m->opnds.p + m->opnds.n, e, (size_t)n * sizeof e[0]);
  m->opnds.n += (uint32_t)n;
}

/* the operand table at idx, whose [0] is kv */
static void convert_table(lua_State *L, LMod *M, int idx, lua_Number kv, int t, int opi,
                          const char *opc, plI_opnd *o, int depth) {
  memset(o, 0, sizeof *o);
  if (kv > 0) {
    o->kind = PLO_REG;
    o->id = regid_of(L, M, kv, opi);
    return;
  }
  int kind = (int)-kv;
  switch (kind) {
  case K_NEG:
    lua_rawgeti(L, idx, 1);
    convert(L, M, lua_gettop(L), t, opi, opc, o, depth + 1);
    lua_pop(L, 1);
    o->flags |= PLOF_NEG;
    return;
  case K_SYM:
    o->kind = PLO_SYM;
    o->id = strid(L, M, idx, 1);
    return;
  case K_LABEL: {
    o->kind = PLO_LABEL;
    o->id = strid(L, M, idx, 1);
    if (M->blocks.n) { /* inside a ptx.scope block: matched when the block closes */
      lpend u = { o->id, 0, 0 };
      anchor(L, M, &u.file, &u.line);
      if (!plB_vec_push(M->pend, u)) luaL_error(L, "out of memory");
      return;
    }
    labelinfo *li = label_slot(L, M, o->id);
    if (!li->used_file) {
      uint32_t f, l;
      anchor(L, M, &f, &l);
      li->used_file = f ? f : 1;
      li->used_line = l;
    }
    return;
  }
  case K_SREG: {
    o->kind = PLO_SREG;
    o->id = strid(L, M, idx, 1);
    lua_rawgeti(L, idx, 2);
    size_t n;
    const char *ts = lua_tolstring(L, -1, &n);
    o->n = (uint16_t)(ts ? plB_type_from_name(ts, n) : 0);
    lua_pop(L, 1);
    /* optional: the PTX version and sm it needs (%aggr_smem_size: 81, 90) */
    lua_rawgeti(L, idx, 3);
    lua_rawgeti(L, idx, 4);
    int pv = (int)lua_tointeger(L, -2), sv = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    if (sv > M->tgt.sm) {
      lua_pushfstring(L, "operand %d of '%s': %%%s requires sm_%d or later (the target is %s)", opi,
                      opc, plI_cstr(M->m, o->id), sv, plI_cstr(M->m, M->m->target));
      raise_here(L, M, lua_tostring(L, -1));
    }
    if (pv > M->maxptx) {
      uint32_t f, l;
      anchor(L, M, &f, &l);
      M->maxptx = pv;
      M->maxptx_file = f;
      M->maxptx_line = (int)l;
      M->maxptx_opc = plA_opcode(M->S->isa, opc, strlen(opc));
    }
    return;
  }
  case K_SINK: o->kind = PLO_SINK; return;
  case K_ADDR: {
    o->kind = PLO_ADDR;
    lua_rawgeti(L, idx, 1);
    int b = lua_gettop(L);
    if (lua_istable(L, b)) {
      lua_rawgeti(L, b, 0);
      lua_Number bk = lua_tonumber(L, -1);
      lua_pop(L, 1);
      if (bk > 0) {
        o->flags |= PLOF_BASE_REG;
        o->id = regid_of(L, M, bk, opi);
      } else if (bk == -K_SYM) {
        o->flags |= PLOF_BASE_SYM;
        o->id = strid(L, M, b, 1);
      } else
        raise_here(L, M, "an address base must be a register or a symbol");
    } else if (!lua_isnil(L, b))
      raise_here(L, M, "an address base must be a register or a symbol");
    lua_pop(L, 1);
    lua_rawgeti(L, idx, 2);
    lua_Number off = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (off != floor(off) || fabs(off) > 9.0e15)
      raise_here(L, M, "an address offset must be an integer");
    o->v = (uint64_t)(int64_t)off;
    return;
  }
  case K_PAIR: {
    plI_opnd e[2];
    for (int k = 0; k < 2; k++) {
      lua_rawgeti(L, idx, k + 1);
      convert(L, M, lua_gettop(L), PLT_PRED, opi, opc, &e[k], depth + 1);
      lua_pop(L, 1);
    }
    o->kind = PLO_PAIR;
    o->n = 2;
    o->id = plI_opnd_push(M->m, &e[0]);
    plI_opnd_push(M->m, &e[1]);
    check_ir(L, M);
    return;
  }
  case K_IMM: { /* {[0]=K_IMM, value, format}: format "hex" */
    lua_rawgeti(L, idx, 1);
    int vi = lua_gettop(L);
    if (lua_type(L, vi) == 10 /* cdata */)
      cdata_operand(L, M, vi, t, opi, opc, o);
    else
      number_imm(L, M, luaL_checknumber(L, vi), t, opi, opc, o);
    lua_pop(L, 1);
    lua_rawgeti(L, idx, 2);
    const char *fmt = lua_tostring(L, -1);
    if (fmt && strcmp(fmt, "hex") == 0 && o->kind == PLO_IMM) o->flags |= PLOF_HEX;
    lua_pop(L, 1);
    return;
  }
  /* {[0]=K_TADDR, tmap, {c0, c1, ...}}: [tmap, {c0, c1}], tmap a symbol or register */
  case K_TADDR: {
    plI_opnd e[6];
    lua_rawgeti(L, idx, 1);
    int b = lua_gettop(L);
    if (!lua_istable(L, b))
      raise_here(L, M, "a tensor address base must be a register or a symbol");
    lua_rawgeti(L, b, 0);
    lua_Number bk = lua_tonumber(L, -1);
    lua_pop(L, 1);
    memset(&e[0], 0, sizeof e[0]);
    if (bk > 0) {
      e[0].kind = PLO_REG;
      e[0].id = regid_of(L, M, bk, opi);
    } else if (bk == -K_SYM) {
      e[0].kind = PLO_SYM;
      e[0].id = strid(L, M, b, 1);
    } else
      raise_here(L, M, "a tensor address base must be a register or a symbol");
    lua_pop(L, 1);
    lua_rawgeti(L, idx, 2);
    int c = lua_gettop(L);
    int n = lua_istable(L, c) ? (int)lua_objlen(L, c) : -1;
    if (n < 1 || n > 5 || depth > 0)
      raise_here(L, M, "a tensor address takes a list of 1 to 5 coordinates");
    for (int k = 0; k < n; k++) {
      lua_rawgeti(L, c, k + 1);
      convert(L, M, lua_gettop(L), t, opi, opc, &e[k + 1], depth + 1);
      if (e[k + 1].kind != PLO_REG && e[k + 1].kind != PLO_IMM)
        raise_here(L, M, "a tensor coordinate must be a register or an integer");
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    plI_module *m = M->m;
    if (m->opnds.n + (uint32_t)n + 1 > m->opnds.cap &&
        !plB_vec_grow((void **)&m->opnds.p, &m->opnds.cap, m->opnds.n + (uint32_t)n + 1,
                      sizeof *m->opnds.p))
      luaL_error(L, "out of memory");
    o->kind = PLO_TADDR;
    o->n = (uint16_t)n;
    o->id = m->opnds.n;
    memcpy(m->opnds.p + m->opnds.n, e, (size_t)(n + 1) * sizeof e[0]);
    m->opnds.n += (uint32_t)n + 1;
    return;
  }
  case K_PAREN: /* {[0]=K_PAREN, a, b, ...}: a parenthesized list (call), possibly empty */
  case 0:       /* a plain list: a vector operand */
    vector_operand(L, M, idx, t, opi, opc, o, kind == K_PAREN, depth, NULL, 0);
    return;
  default:
    lua_pushfstring(L, "operand %d of '%s': unknown operand object", opi, opc);
    raise_here(L, M, lua_tostring(L, -1));
  }
}

static void convert(lua_State *L, LMod *M, int idx, int t, int opi, const char *opc, plI_opnd *o,
                    int depth) {
  memset(o, 0, sizeof *o);
  switch (lua_type(L, idx)) {
  case LUA_TTABLE: {
    lua_rawgeti(L, idx, 0);
    lua_Number kv = lua_tonumber(L, -1);
    lua_pop(L, 1);
    convert_table(L, M, idx, kv, t, opi, opc, o, depth);
    return;
  }
  case LUA_TNUMBER: number_imm(L, M, lua_tonumber(L, idx), t, opi, opc, o); return;
  case 10: /* LuaJIT cdata */ cdata_operand(L, M, idx, t, opi, opc, o); return;
  default:
    lua_pushfstring(L, "operand %d of '%s': expected a register, number, address or label, got %s",
                    opi, opc, luaL_typename(L, idx));
    raise_here(L, M, lua_tostring(L, -1));
  }
}

/* ---- instructions
** ----------------------------------------------------------------------------- */
static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v;
  h *= 1099511628211ull;
  return h;
}

static uint64_t opsig_rec(LMod *M, const plI_opnd *o, uint64_t h);
/* registers and register vectors (the common operands) inline, the rest through opsig_rec */
static inline uint64_t opsig(LMod *M, const plI_opnd *o, uint64_t h) {
  h = mix(h, (uint64_t)o->kind | (uint64_t)o->flags << 8 | (uint64_t)o->n << 16);
  const plI_reg *regs = M->m->regs.p;
  if (o->kind == PLO_REG) return mix(h, regs[o->id - 1].type);
  if (o->kind == PLO_VEC && (o->flags & PLOF_REGS)) { /* kind, flags and length above; the types */
    const uint32_t *id = M->m->vregs.p + o->id;
    for (uint16_t j = 0; j < o->n; j++) h = mix(h, regs[id[j] - 1].type);
    return h;
  }
  return opsig_rec(M, o, h);
}
static uint64_t opsig_rec(LMod *M, const plI_opnd *o, uint64_t h) {
  switch (o->kind) {
  case PLO_ADDR: return (o->flags & PLOF_BASE_REG) ? mix(h, M->m->regs.p[o->id - 1].type) : h;
  case PLO_VEC:
  case PLO_PAIR:
  case PLO_TADDR:
    for (uint16_t j = 0; j < (o->kind == PLO_PAIR    ? 2
                              : o->kind == PLO_TADDR ? o->n + 1
                                                     : o->n);
         j++)
      h = opsig(M, &M->m->opnds.p[o->id + j], h);
    return h;
  default: return h;
  }
}

/* a register id as the DSL read it (core.emitv): the slow path's checks and messages when bad */
static inline uint32_t regid_pre(lua_State *L, LMod *M, uint32_t id, int opi) {
  if (id == 0 || id > M->m->regs.n || M->m->regs.p[id - 1].func != (uint32_t)M->func ||
      (id < M->ndead && M->dead[id]))
    return regid_of(L, M, (lua_Number)id, opi);
  return id;
}

/* every tcgen05 instruction of a function uses one .cta_group (PTX ISA 9.0; ptxas: "Function uses
** single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)"): the first fixes it, a later
** one with the other is an error at its line that names the first */
static void cta_group_rule(lua_State *L, LMod *M, const char *otext, uint32_t f, uint32_t l,
                           int lvl0) {
  const char *c = strstr(otext, ".cta_group::");
  if (!c || (c[12] != '1' && c[12] != '2')) return;
  int g = c[12] - '0';
  if (M->cg_func != M->func) {
    M->cg_func = M->func;
    M->cg = 0;
  }
  if (!f) anchor_from(L, M, &f, &l, lvl0);
  if (!M->cg) {
    M->cg = g;
    M->cg_file = f;
    M->cg_line = l;
    return;
  }
  if (g == M->cg) return;
  M->msg.n = 0;
  plB_buf_printf(
      &M->msg,
      "'%s' uses .cta_group::%d, but this kernel's tcgen05 instructions use .cta_group::%d "
      "(the first at %s:%u); a kernel's tcgen05 instructions all use one .cta_group (ptxas rejects "
      "a function that mixes ::1 and ::2)",
      otext, g, M->cg, M->cg_file ? plI_cstr(M->m, M->cg_file) : "?", M->cg_line);
  raise_here(L, M, plB_buf_cstr(&M->msg));
}

static int emit(lua_State *L, LMod *M, int base, int lvl0, const uint32_t *pre) {
  int n = lua_gettop(L) - base;
  uint32_t opc = (uint32_t)lua_tointeger(L, base);
  Shared *S = M->S;
  if (M->func < 0)
    raise_here(L, M, "no kernel is being traced (instructions go inside a kernel body)");
  const char *otext = plA_opcode_text(S->isa, opc);
  const plA_res *r = plA_resolve(S->isa, opc, NULL);
  if (!r || opc >= M->ntgt_ok || !M->tgt_ok[opc]) { /* first use of this opcode in this module */
    M->msg.n = 0;
    if (!r) {
      plA_resolve(S->isa, opc, &M->msg);
      raise_here(L, M, plB_buf_cstr(&M->msg));
    }
    plA_target tg = M->tgt;
    if (!plA_check_target(r, otext, &tg, 0, &M->msg)) raise_here(L, M, plB_buf_cstr(&M->msg));
    if (opc >= M->ntgt_ok) {
      uint32_t nn = M->ntgt_ok ? M->ntgt_ok : 64;
      while (nn <= opc) nn *= 2;
      uint8_t *p = realloc(M->tgt_ok, nn);
      if (!p) return luaL_error(L, "out of memory");
      M->tgt_ok = p;
      uint64_t *q = realloc(M->sig_ok, nn * sizeof *q);
      if (!q) return luaL_error(L, "out of memory");
      M->sig_ok = q;
      uint8_t *v = realloc(M->sig_ver, nn);
      if (!v) return luaL_error(L, "out of memory");
      M->sig_ver = v;
      memset(v + M->ntgt_ok, 0, nn - M->ntgt_ok);
      memset(p + M->ntgt_ok, 0, nn - M->ntgt_ok);
      memset(q + M->ntgt_ok, 0, (nn - M->ntgt_ok) * sizeof *q);
      M->ntgt_ok = nn;
    }
    M->tgt_ok[opc] = 1;
  }
  if (n > MAXARGS) raise_here(L, M, "too many operands");
  plI_opnd ops[MAXARGS];
  uint32_t npre = pre ? pre[0] : 0, p = 1; /* operands the DSL read already, and where they are */
  for (int i = 0; i < n; i++) {
    int idx = base + 1 + i;
    if ((uint32_t)i < npre && p + 2 < OPBUF_N) {
      uint32_t tag = pre[p];
      if (tag == 1) { /* a register */
        memset(&ops[i], 0, sizeof ops[i]);
        ops[i].kind = PLO_REG;
        ops[i].id = regid_pre(L, M, pre[p + 1], i + 1);
        p += 2;
        continue;
      }
      uint32_t c = pre[p + 1];
      if (tag == 2 && c >= 1 && c <= 128 && p + 2 + c <= OPBUF_N) { /* a vector of registers */
        plI_module *m = M->m;
        const uint32_t *ids = pre + p + 2;
        for (uint32_t k = 0; k < c; k++) (void)regid_pre(L, M, ids[k], i + 1);
        if (m->vregs.n + c > m->vregs.cap &&
            !plB_vec_grow((void **)&m->vregs.p, &m->vregs.cap, m->vregs.n + c, sizeof *m->vregs.p))
          return luaL_error(L, "out of memory");
        memset(&ops[i], 0, sizeof ops[i]);
        ops[i].kind = PLO_VEC;
        ops[i].flags = PLOF_REGS;
        ops[i].n = (uint16_t)c;
        ops[i].id = m->vregs.n;
        memcpy(m->vregs.p + m->vregs.n, ids, c * sizeof *ids);
        m->vregs.n += c;
        p += 2 + c;
        continue;
      }
      npre = 0; /* anything else: this operand and the rest from their Lua values */
    }
    /* registers, vectors of them, addresses: no expected type */
    if (lua_type(L, idx) == LUA_TTABLE) {
      lua_rawgeti(L, idx, 0);
      lua_Number kv = lua_tonumber(L, -1);
      int list = kv == 0 && lua_type(L, -1) == LUA_TNIL;
      lua_pop(L, 1);
      if (kv > 0) {
        /* 0: not a register of this module */
        uint32_t id = kv <= M->m->regs.n ? (uint32_t)kv : 0;
        if (id == 0 || M->m->regs.p[id - 1].func != (uint32_t)M->func ||
            (id < M->ndead && M->dead[id]))
          id = regid_of(L, M, kv, i + 1);
        memset(&ops[i], 0, sizeof ops[i]);
        ops[i].kind = PLO_REG;
        ops[i].id = id;
        continue;
      }
      if (list) {
        vector_operand(L, M, idx, PLT_NONE, i + 1, otext, &ops[i], 0, 0, r, n);
        continue;
      }
      /* kinds whose conversion does not look at the expected type */
      int k = kv < 0 && kv > -1000 ? (int)-kv : 0;
      if (!list && (k == K_ADDR || k == K_SYM || k == K_LABEL || k == K_SREG || k == K_SINK) &&
          kv == -(lua_Number)k) {
        convert_table(L, M, idx, kv, PLT_NONE, i + 1, otext, &ops[i], 0);
        continue;
      }
      convert_table(L, M, idx, kv, i < r->nops ? plA_optype_n(r, i, n) : PLT_NONE, i + 1, otext,
                    &ops[i], 0);
      continue;
    }
    convert(L, M, idx, i < r->nops ? plA_optype_n(r, i, n) : PLT_NONE, i + 1, otext, &ops[i], 0);
  }
  /* the operand check depends only on operand kinds, flags and register types: an instruction
  ** with the same signature as the last accepted one of its opcode needs no second look */
  uint64_t sig = 1469598103934665603ull ^ (uint64_t)n;
  for (int i = 0; i < n; i++) sig = opsig(M, &ops[i], sig);
  if (sig == 0) sig = 1;
  /* PLA_VALUES: the check reads values too */
  if (M->sig_ok[opc] != sig || (r->flags & PLA_VALUES)) {
    int need = plI_check_ops(r, M->m, otext, ops, n, NULL);
    if (!need) {
      M->msg.n = 0;
      plI_check_ops(r, M->m, otext, ops, n, &M->msg);
      raise_here(L, M, plB_buf_cstr(&M->msg));
    }
    M->sig_ok[opc] = sig;
    M->sig_ver[opc] = (uint8_t)(need > 255 ? 255 : need);
  }
  uint32_t f = 0, l = 0;
  if (!S->check) anchor_from(L, M, &f, &l, lvl0);
  if (otext[0] == 't' && strncmp(otext, "tcgen05.", 8) == 0)
    cta_group_rule(L, M, otext, f, l, lvl0);
  /* the operand form may need more */
  int need = M->sig_ver[opc] > r->ptx_min ? M->sig_ver[opc] : r->ptx_min;
  if (need > M->maxptx) {
    M->maxptx = need;
    M->maxptx_file = f;
    M->maxptx_line = (int)l;
    M->maxptx_opc = opc;
  }
  plI_insn(M->m, M->func, opc, ops, n, M->guard, M->negguard, f, l);
  M->guard = 0;
  check_ir(L, M);
  M->ninsn++;
  return 0;
}

static int l_emit(lua_State *L) { /* m:emit(opcode id, operands...) */
  LMod *M = checkmod(L, 1);
  luaL_checkinteger(L, 2);
  return emit(L, M, 2, 1, NULL);
}

/* core.emit(opcode id, operands...): into the module made current by m:activate() -- the fast
** path */
static int l_cemit(lua_State *L) {
  LMod *M = shared(L)->cur;
  if (!M) {
    lua_Debug ar;
    if (user_frame(L, shared(L), &ar))
      return luaL_error(
          L, "%s:%d: error: no kernel is being traced (instructions go inside a kernel body)",
          srcname(ar.source), ar.currentline);
    return luaL_error(L, "error: no kernel is being traced");
  }
  return emit(L, M, 1, 2, NULL); /* level 1 is init.lua's chain call or emit(): never the user's */
}

/* core.emitv(opcode id, operands...): core.emit, with the operands the DSL already read into the
** operand buffer (core.opbuf) taken from there; the buffer is consumed (emptied) by the call */
static int l_cemitv(lua_State *L) {
  Shared *S = shared(L);
  uint32_t pre[OPBUF_N];
  uint32_t np = S->opbuf[0];
  S->opbuf[0] = 0;
  if (!S->cur || np == 0) return l_cemit(L);
  /* a copy: converting the other operands may run Lua (tostring of a cdata) that refills the
  ** buffer */
  uint32_t len = 1;
  for (uint32_t i = 0; i < np && len + 2 <= OPBUF_N; i++) {
    uint32_t tag = S->opbuf[len];
    len += tag == 1 ? 2 : tag == 2 && S->opbuf[len + 1] <= 128 ? 2 + S->opbuf[len + 1] : 1;
  }
  if (len > OPBUF_N) len = OPBUF_N;
  memcpy(pre, S->opbuf, len * sizeof pre[0]);
  pre[0] = np;
  /* level 1: init.lua's emit_id (tail-called: no frame of its caller) */
  return emit(L, S->cur, 1, 2, pre);
}

void plL_expand_chunk(lua_State *L, int idx, const char *path) {
  idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  size_t n;
  const char *s = lua_tolstring(L, idx, &n);
  const char *c = s && n > 3 && memcmp(s, "...", 3) == 0 ? memchr(s, ':', n) : NULL;
  if (!c || c - s >= LUA_IDSIZE) {
    lua_pushvalue(L, idx);
    return;
  }
  lua_Debug ar;
  for (int lvl = 0; lua_getstack(L, lvl, &ar); lvl++) {
    if (!lua_getinfo(L, "S", &ar) || !ar.source || ar.source[0] != '@') continue;
    if (strlen(ar.short_src) == (size_t)(c - s) && memcmp(ar.short_src, s, (size_t)(c - s)) == 0) {
      lua_pushstring(L, ar.source + 1);
      lua_pushlstring(L, c, n - (size_t)(c - s));
      lua_concat(L, 2);
      return;
    }
  }
  size_t tail = (size_t)(c - s) - 3, pn = path ? strlen(path) : 0; /* what follows the "..." */
  if (pn >= tail && memcmp(path + pn - tail, s + 3, tail) == 0) {
    lua_pushstring(L, path);
    lua_pushlstring(L, c, n - (size_t)(c - s));
    lua_concat(L, 2);
    return;
  }
  lua_pushvalue(L, idx);
}

/* core.expand_chunk(msg [, path]) -> msg with a chunk name Lua cut short replaced by its whole
** path (from the stack, or path: the file a syntax error is of) */
static int l_expand_chunk(lua_State *L) {
  luaL_checkstring(L, 1);
  plL_expand_chunk(L, 1, luaL_optstring(L, 2, NULL));
  return 1;
}

/* core.opbuf() -> the operand buffer (light userdata), its size in words */
static int l_opbuf(lua_State *L) {
  Shared *S = shared(L);
  lua_pushlightuserdata(L, S->opbuf);
  lua_pushinteger(L, OPBUF_N);
  return 2;
}

static int l_activate(lua_State *L) { /* m:activate() / m:activate(false) */
  LMod *M = checkmod(L, 1);
  Shared *S = shared(L);
  if (lua_isboolean(L, 2) && !lua_toboolean(L, 2)) {
    if (S->cur == M) S->cur = NULL;
  } else
    S->cur = M;
  return 0;
}

/* the predicate register at idx as a guard (its id + 1) */
static uint32_t guard_reg(lua_State *L, LMod *M, int idx) {
  luaL_checktype(L, idx, LUA_TTABLE);
  uint32_t id = regid(L, M, idx, 0);
  if (M->m->regs.p[id - 1].type != PLT_PRED)
    raise_here(L, M, "a guard must be a predicate register");
  return id + 1;
}

/* m:guard(pred reg table, negate): guard the next instruction (the library's own sequences, which
** record that instruction at once) */
static int l_guard(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  uint32_t g = guard_reg(L, M, 2);
  if (M->guard) raise_here(L, M, "two guard predicates for one instruction");
  M->guard = g;
  M->negguard = lua_toboolean(L, 3);
  anchor(L, M, &M->guard_file, &M->guard_line);
  return 0;
}

static uint32_t site_hash(uint32_t file, uint32_t line, uint32_t guard, int neg) {
  uint32_t h = file * 0x9E3779B1u ^ line * 0x85EBCA77u ^ guard * 0xC2B2AE3Du ^ (uint32_t)neg;
  return h ^ (h >> 15);
}

/* the slot of the site (file, line, guard, neg) in M->ghash: the one holding it, or the empty one
** where it goes */
static uint32_t *site_slot(LMod *M, uint32_t file, uint32_t line, uint32_t guard, int neg) {
  uint32_t mask = M->ghcap - 1, i = site_hash(file, line, guard, neg) & mask;
  for (;; i = (i + 1) & mask) {
    uint32_t k = M->ghash[i];
    if (!k) return &M->ghash[i];
    const gsite *t = &M->gsites.p[k - 1];
    if (t->file == file && t->line == line && t->guard == guard && t->neg == neg)
      return &M->ghash[i];
  }
}

static int sites_grow(LMod *M) { /* keep the hash at most half full */
  uint32_t cap = M->ghcap ? M->ghcap * 2 : 64;
  uint32_t *h = calloc(cap, sizeof *h);
  if (!h) return 0;
  free(M->ghash);
  M->ghash = h;
  M->ghcap = cap;
  for (uint32_t i = 0; i < M->gsites.n; i++) {
    const gsite *t = &M->gsites.p[i];
    *site_slot(M, t->file, t->line, t->guard, t->neg) = i + 1;
  }
  return 1;
}

/* m:guard_open(pred reg table, negate) -> site: the ptx.at call site of this guard, which binds
** to nothing yet; its line is kept for the error when nothing is ever called through it */
static int l_guard_open(lua_State *L) {
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  uint32_t g = guard_reg(L, M, 2), f, l;
  int neg = lua_toboolean(L, 3);
  anchor(L, M, &f, &l);
  if ((M->gsites.n + 1) * 2 > M->ghcap && (M->gsites.n >= (1u << 28) || !sites_grow(M)))
    return luaL_error(L, "out of memory");
  uint32_t *slot = site_slot(M, f, l, g, neg);
  if (!*slot) {
    gsite t = { g, f, l, (uint8_t)neg, 0 };
    if (!plB_vec_push(M->gsites, t)) return luaL_error(L, "out of memory");
    *slot = M->gsites.n;
  }
  lua_pushinteger(L, (lua_Integer)*slot);
  return 1;
}

/* m:guard_bind(site): the guard of that ptx.at site waits for the next instruction, which the
** caller records at once (a call made through the guard, its arguments evaluated already) */
static int l_guard_bind(lua_State *L) {
  LMod *M = checkmod(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 1 || (size_t)i > M->gsites.n) raise_here(L, M, "a ptx.at guard of another kernel body");
  if (M->guard) raise_here(L, M, "two guard predicates for one instruction");
  gsite *t = &M->gsites.p[i - 1];
  t->used = 1;
  M->guard = t->guard;
  M->negguard = t->neg;
  M->guard_file = t->file;
  M->guard_line = t->line;
  return 0;
}

/* m:guard_end(n0) -> instructions recorded since m:ninsn() returned n0, and whether the bound
** guard is still waiting (none was recorded); the guard no longer waits either way */
static int l_guard_end(lua_State *L) {
  LMod *M = checkmod(L, 1);
  lua_Number n0 = luaL_checknumber(L, 2);
  lua_pushnumber(L, (lua_Number)M->ninsn - n0);
  lua_pushboolean(L, M->guard != 0);
  M->guard = 0;
  return 2;
}

static int l_ninsn(lua_State *L) { /* m:ninsn() -> instructions recorded into this module so far */
  lua_pushnumber(L, (lua_Number)checkmod(L, 1)->ninsn);
  return 1;
}

/* m:guarded() -> is a ptx.at guard waiting for its instruction? */
static int l_guarded(lua_State *L) {
  lua_pushboolean(L, checkmod(L, 1)->guard != 0);
  return 1;
}

static int l_raw(lua_State *L) { /* m:raw(text): a directive or comment line kept as written */
  LMod *M = checkmod(L, 1);
  needfunc(L, M);
  uint32_t f, l;
  anchor(L, M, &f, &l);
  plI_raw(M->m, M->func, luaL_checkstring(L, 2), f, l);
  check_ir(L, M);
  return 0;
}

/* is the symbol `name` declared where function fi can see it: a module-scope variable, a function,
** or a parameter, result or variable of fi */
static int sym_visible(const plI_module *m, uint32_t fi, uint32_t name) {
  const plI_syminfo *e = plI_sym(m, name);
  if (!e) return 0;
  if (e->global || e->func) return 1;
  const plI_func *f = &m->funcs.p[fi];
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == name) return 1;
  for (uint32_t i = 0; i < f->rets.n; i++)
    if (f->rets.p[i].name == name) return 1;
  for (uint32_t i = 0; i < f->vars.n; i++)
    if (f->vars.p[i].name == name) return 1;
  return 0;
}

/* the name a symbol operand (or an address or tensor address based on a symbol) names, 0 none */
static uint32_t operand_symbol(const plI_module *m, const plI_opnd *o) {
  if (o->kind == PLO_SYM) return o->id;
  if (o->kind == PLO_ADDR && (o->flags & PLOF_BASE_SYM)) return o->id;
  if (o->kind == PLO_TADDR && m->opnds.p[o->id].kind == PLO_SYM) return m->opnds.p[o->id].id;
  return 0;
}

/* every symbol the function's instructions name is declared by the time its body ends (a plan's
** block is declared when the body returns): ptx.sym("nosuch") printed PTX that ptxas rejects
** ("Unknown symbol"). At the first instruction naming an undeclared one. */
static void check_symbols(lua_State *L, LMod *M) {
  plI_module *m = M->m;
  const plI_func *f = &m->funcs.p[M->func];
  for (uint32_t si = 0; si < f->stmts.n; si++) /* text kept as written may declare anything */
    if (f->stmts.p[si].kind == PLS_RAW) return;
  for (uint32_t si = 0; si < f->stmts.n; si++) {
    const plI_stmt *s = &f->stmts.p[si];
    if (s->kind != PLS_INSN) continue;
    for (uint16_t k = 0; k < s->nops; k++) {
      const plI_opnd *o = &m->opnds.p[s->ops + k];
      uint32_t n = o->kind == PLO_VEC && !(o->flags & PLOF_REGS) ? o->n : 1;
      for (uint32_t j = 0; j < n; j++) {
        const plI_opnd *x =
            o->kind == PLO_VEC && !(o->flags & PLOF_REGS) ? &m->opnds.p[o->id + j] : o;
        uint32_t name = operand_symbol(m, x);
        if (!name || sym_visible(m, (uint32_t)M->func, name)) continue;
        lua_pushfstring(
            L,
            "'%s' (operand %d of '%s') is not declared: a symbol names a kernel parameter, a "
            "variable (ptx.shared, ptx.smem_plan, ...) or a function (ptx.func) of this module",
            plI_cstr(m, name), (int)k + 1, plA_opcode_text(M->S->isa, s->opc));
        raise_at(L, M, s->file, s->line, lua_tostring(L, -1));
      }
    }
  }
}

static int l_endfunc(lua_State *L) { /* check what a function body leaves open */
  LMod *M = checkmod(L, 1);
  if (M->func < 0) return 0;
  if (M->guard)
    raise_at(L, M, M->guard_file, M->guard_line, "a guard predicate with no instruction after it");
  /* only an error inside a block leaves it open (ptx.scope closes what it opens) */
  if (M->blocks.n) {
    M->blocks.n = 0;
    M->pend.n = 0;
    M->lundo.n = 0;
    M->m->frames.n = 0;
    M->m->undo.n = 0;
    M->outer.n = 0;
    raise_here(L, M, "a ptx.scope block left open at the end of the function");
  }
  for (uint32_t i = 0; i < M->gsites.n; i++)
    if (!M->gsites.p[i].used)
      raise_at(L, M, M->gsites.p[i].file, M->gsites.p[i].line,
               "nothing was called through this ptx.at guard (it guards the call it prefixes: "
               "write ptx.at(p).instruction(...), not ptx.at(p) on its own)");
  if (M->S->sugar <= 0) check_symbols(L, M);
  for (uint32_t i = 0; i < M->labels.n; i++) {
    labelinfo *li = &M->labels.p[i];
    if (li->used_file && !li->placed) {
      lua_pushfstring(L, "undefined label '%s'", plI_cstr(M->m, i));
      raise_at(L, M, li->used_file == 1 && !plI_cstr(M->m, 1)[0] ? 0 : li->used_file, li->used_line,
               lua_tostring(L, -1));
    }
  }
  M->labels.n = 0;
  M->func = -1;
  return 0;
}

/* ---- nested blocks (ptx.scope)
** ----------------------------------------------------------------- */
static int scope_open(lua_State *L, LMod *M) {
  needfunc(L, M);
  uint32_t f = 0, l = 0;
  if (M->guard)
    raise_here(L, M, "a guard predicate (ptx.at) must be followed by an instruction, not a block");
  if (!M->S->check) anchor(L, M, &f, &l);
  lblock b = { ++M->nserial + 1, M->pend.n, M->lundo.n, M->m->regs.n };
  if (!plB_vec_push(M->blocks, b)) return luaL_error(L, "out of memory");
  plI_scope_open(M->m, M->func, f, l);
  if (M->m->status) M->blocks.n--;
  check_ir(L, M);
  return 0;
}
static int l_scope_open(lua_State *L) {
  return scope_open(L, checkmod(L, 1));
} /* m:scope_open(): `{` */

/* the register ids operand o reads or writes, each given to fn (vectors, pairs, addresses) */
typedef int (*reg_visit)(LMod *M, uint32_t id, void *ud);
static int visit_regs(LMod *M, const plI_opnd *o, reg_visit fn, void *ud, int depth) {
  const plI_module *m = M->m;
  switch (o->kind) {
  case PLO_REG: return fn(M, o->id, ud);
  case PLO_ADDR: return (o->flags & PLOF_BASE_REG) ? fn(M, o->id, ud) : 0;
  case PLO_VEC:
  case PLO_PAIR:
  case PLO_TADDR: {
    uint32_t n = o->kind == PLO_PAIR ? 2 : o->kind == PLO_TADDR ? (uint32_t)o->n + 1 : o->n;
    if (depth > 2 || !plI_elems_ok(m, o, n)) return 0;
    for (uint32_t k = 0; k < n; k++) {
      plI_opnd e = plI_elem(m, o, k);
      int r = visit_regs(M, &e, fn, ud, depth + 1);
      if (r) return r;
    }
    return 0;
  }
  default: return 0;
  }
}

/* the declarations of the block being closed, by name: does one of them hide register id? */
typedef struct hideset {
  const plI_regdecl *d;
  uint32_t *slot;
  uint32_t mask;
  uint32_t reg0;
  const plI_regdecl *hit;
  uint32_t hid;
  uint32_t decl0; /* the block's first declaration */
} hideset;
static const plI_regdecl *hs_find(const hideset *h, uint32_t name) {
  for (uint32_t k = (name * 2654435761u) & h->mask; h->slot[k]; k = (k + 1) & h->mask)
    if (h->d[h->slot[k] - 1].name == name) return &h->d[h->slot[k] - 1];
  return NULL;
}
static int hidden(LMod *M, uint32_t id, void *ud) {
  hideset *h = ud;
  if (id == 0 || id > M->m->regs.n) return 0;
  if (id > h->reg0 && !outer_reg(M, id, h->decl0)) return 0; /* made inside the block: its own */
  const plI_reg *r = &M->m->regs.p[id - 1];
  const plI_regdecl *d = hs_find(h, r->name);
  if (d && d->bare == r->bare &&
      (d->count ? r->index >= 0 && (uint32_t)r->index < d->count : r->index < 0)) {
    h->hit = d;
    h->hid = id;
    return 1;
  }
  /* the same text by another split: a scalar %r12 against a range %r<13>, and the other way */
  char buf[160];
  const char *nm = plI_cstr(M->m, r->name);
  size_t n = strlen(nm);
  if (n + 12 > sizeof buf) return 0;
  if (r->index >= 0) {
    snprintf(buf, sizeof buf, "%s%d", nm, r->index);
    uint32_t sid = plB_find(&M->m->strs, buf, strlen(buf));
    d = sid ? hs_find(h, sid) : NULL;
    if (d && !d->count && d->bare == r->bare) {
      h->hit = d;
      h->hid = id;
      return 1;
    }
    return 0;
  }
  size_t k = n;
  while (k > 0 && nm[k - 1] >= '0' && nm[k - 1] <= '9') k--;
  if (k == n || k == 0 || n - k > 9) return 0;
  uint32_t sid = plB_find(&M->m->strs, nm, k), idx = (uint32_t)strtoul(nm + k, NULL, 10);
  d = sid ? hs_find(h, sid) : NULL;
  if (d && d->count > idx && d->bare == r->bare) {
    h->hit = d;
    h->hid = id;
    return 1;
  }
  return 0;
}

static int scope_close(lua_State *L, LMod *M) {
  needfunc(L, M);
  if (!M->blocks.n || !M->m->frames.n) raise_here(L, M, "no ptx.scope block is open");
  if (M->guard)
    raise_at(L, M, M->guard_file, M->guard_line,
             "a guard predicate (ptx.at) with no instruction after it");
  lblock b = M->blocks.p[M->blocks.n - 1];
  plI_module *m = M->m;
  plI_frame fr = m->frames.p[m->frames.n - 1];
  plI_func *f = &m->funcs.p[M->func];
  /* an enclosing register used inside the block under a name the block declares would print as
  ** the block's own: refused at the instruction's line */
  uint32_t nd = 0;
  for (uint32_t i = fr.decl0; i < f->regdecls.n; i++) nd += f->regdecls.p[i].scope == fr.stmt + 1;
  if (nd) {
    uint32_t cap = 8;
    while (cap < 2 * nd) cap *= 2;
    hideset h = {
      f->regdecls.p, calloc(cap, sizeof(uint32_t)), cap - 1, b.reg0, NULL, 0, fr.decl0
    };
    if (!h.slot) return luaL_error(L, "out of memory");
    for (uint32_t i = fr.decl0; i < f->regdecls.n; i++) {
      if (f->regdecls.p[i].scope != fr.stmt + 1) continue;
      uint32_t k = (f->regdecls.p[i].name * 2654435761u) & h.mask;
      while (h.slot[k]) k = (k + 1) & h.mask;
      h.slot[k] = i + 1;
    }
    for (uint32_t si = fr.stmt + 1; si < f->stmts.n && !h.hit; si++) {
      const plI_stmt *st = &f->stmts.p[si];
      if (st->kind != PLS_INSN) continue;
      if (st->guard) hidden(M, st->guard - 1, &h);
      for (uint16_t k = 0; k < st->nops && !h.hit && st->ops + k < m->opnds.n; k++)
        visit_regs(M, &m->opnds.p[st->ops + k], hidden, &h, 0);
      if (h.hit) {
        plB_buf nb;
        plB_buf_init(&nb);
        plI_regname(m, h.hid, &nb);
        plB_buf db;
        plB_buf_init(&db);
        plB_buf_printf(&db, ".reg .%s %s%s", plB_type_info[h.hit->type].name,
                       h.hit->bare ? "" : "%", plI_cstr(m, h.hit->name));
        if (h.hit->count) plB_buf_printf(&db, "<%u>", h.hit->count);
        lua_pushfstring(L,
                        "%s here is a register from outside this ptx.scope block, but the block "
                        "declares `%s;`, "
                        "which hides it inside the block (it would print as the block's own): give "
                        "one of them another name",
                        plB_buf_cstr(&nb), plB_buf_cstr(&db));
        plB_buf_free(&nb);
        plB_buf_free(&db);
        free(h.slot);
        M->blocks.n = 0;
        M->pend.n = 0;
        M->lundo.n = 0;
        m->frames.n = 0;
        m->undo.n = 0;
        M->outer.n = 0;
        /* recorded without an anchor (--sugar's check): the block's line */
        if (!st->file) raise_here(L, M, lua_tostring(L, -1));
        raise_at(L, M, st->file, st->line, lua_tostring(L, -1));
      }
    }
    free(h.slot);
  }
  /* label uses inside the block: those placed in it are matched; the rest go to the enclosing
  ** block */
  uint32_t w = b.pend0;
  for (uint32_t i = b.pend0; i < M->pend.n; i++) {
    lpend u = M->pend.p[i];
    if (u.name < M->labels.n && M->labels.p[u.name].placed == b.serial) continue;
    M->pend.p[w++] = u;
  }
  M->pend.n = w;
  while (M->lundo.n > b.lundo0) {
    lundo u = M->lundo.p[--M->lundo.n];
    M->labels.p[u.name].placed = u.old;
  }
  M->blocks.n--;
  if (!M->blocks.n) { /* back at the function's top: checked by endfunc as the top's own uses */
    for (uint32_t i = 0; i < M->pend.n; i++) {
      lpend u = M->pend.p[i];
      labelinfo *li = label_slot(L, M, u.name);
      if (!li->used_file) {
        li->used_file = u.file ? u.file : 1;
        li->used_line = u.line;
      }
    }
    M->pend.n = 0;
  }
  /* the block's registers are gone */
  uint32_t nr = m->regs.n;
  if (nr >= M->ndead) {
    uint32_t nn = M->ndead ? M->ndead : 1024;
    while (nn <= nr) nn *= 2;
    uint8_t *p = realloc(M->dead, nn);
    if (!p) return luaL_error(L, "out of memory");
    memset(p + M->ndead, 0, nn - M->ndead);
    M->dead = p;
    M->ndead = nn;
  }
  for (uint32_t id = b.reg0 + 1; id <= nr; id++) M->dead[id] = 1;
  /* but those of enclosing lazy ranges made in it live on; the block's own are dropped */
  uint32_t ko = M->outer.n;
  while (ko > 0 && M->outer.p[ko - 1].id > b.reg0) ko--;
  uint32_t wo = ko;
  for (uint32_t i = ko; i < M->outer.n; i++) {
    louter o = M->outer.p[i];
    if (o.decl >= fr.decl0) continue;
    M->dead[o.id] = 0;
    M->outer.p[wo++] = o;
  }
  M->outer.n = M->blocks.n ? wo : 0; /* back at the top: no block left to outlive */
  uint32_t fl = 0, ll = 0;
  if (!M->S->check) anchor(L, M, &fl, &ll);
  plI_scope_close(m, M->func, fl, ll);
  check_ir(L, M);
  return 0;
}
static int l_scope_close(lua_State *L) {
  return scope_close(L, checkmod(L, 1));
} /* m:scope_close(): `}` */

/* ---- output
** ----------------------------------------------------------------------------------- */
static int l_version(lua_State *L) { /* m:version([v]) -> current, needed by instructions */
  LMod *M = checkmod(L, 1);
  if (!lua_isnoneornil(L, 2)) {
    lua_Number v = luaL_checknumber(L, 2);
    int iv = v >= 1 && v < 10 ? (int)floor(v * 10 + 0.5) : 0;
    if (iv < 10 || iv > 99) raise_here(L, M, "bad PTX version");
    if (iv < M->maxptx && M->maxptx_file) {
      lua_pushfstring(L, "'%s' requires PTX ISA %d.%d, above the requested .version %d.%d",
                      M->maxptx_opc    ? plA_opcode_text(shared(L)->isa, M->maxptx_opc)
                      : M->maxptx_what ? M->maxptx_what
                                       : "?",
                      M->maxptx / 10, M->maxptx % 10, iv / 10, iv % 10);
      raise_at(L, M, M->maxptx_file, (uint32_t)M->maxptx_line, lua_tostring(L, -1));
    }
    int tmin = plA_target_min_version(&M->tgt);
    if (iv < tmin) {
      lua_pushfstring(L, "target %s requires PTX ISA %d.%d or later", plI_cstr(M->m, M->m->target),
                      tmin / 10, tmin % 10);
      raise_here(L, M, lua_tostring(L, -1));
    }
    M->m->version = iv;
  } else
    M->m->version = M->maxptx;
  lua_pushnumber(L, M->m->version / 10.0);
  lua_pushnumber(L, M->maxptx / 10.0);
  return 2;
}

static int anchors_opt(lua_State *L, int i) {
  const char *a = luaL_optstring(L, i, "none");
  if (strcmp(a, "none") == 0) return PLI_ANCHOR_NONE;
  if (strcmp(a, "comment") == 0 || strcmp(a, "comments") == 0) return PLI_ANCHOR_COMMENT;
  if (strcmp(a, "loc") == 0) return PLI_ANCHOR_LOC;
  return luaL_argerror(L, i, "anchors must be 'none', 'comment' or 'loc'");
}

static int l_print(lua_State *L) { /* m:print([anchors [, func index]]) -> text */
  LMod *M = checkmod(L, 1);
  plI_print_opts o = { anchors_opt(L, 2), luaL_optstring(L, 4, NULL),
                       (int)luaL_optinteger(L, 3, -1) };
  plB_buf b;
  plB_buf_init(&b);
  int r = plI_print(M->m, &o, &b);
  if (r) {
    plB_buf_free(&b);
    return luaL_error(L, "out of memory while printing");
  }
  lua_pushlstring(L, b.p ? b.p : "", b.n);
  plB_buf_free(&b);
  return 1;
}

static int file_sink(void *ud, const char *s, size_t n) {
  return fwrite(s, 1, n, (FILE *)ud) == n;
}

/* m:write(file handle [, anchors [, func [, header]]]) -> true | nil, err */
static int l_write(lua_State *L) {
  LMod *M = checkmod(L, 1);
  FILE **fp = (FILE **)luaL_checkudata(L, 2, "FILE*");
  if (!fp || !*fp) return luaL_argerror(L, 2, "closed file");
  plI_print_opts o = { anchors_opt(L, 3), luaL_optstring(L, 5, NULL),
                       (int)luaL_optinteger(L, 4, -1) };
  int r = plI_write(M->m, &o, file_sink, *fp);
  if (r) {
    lua_pushnil(L);
    lua_pushstring(L, r == 2 ? "out of memory" : strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int l_stats(lua_State *L) {
  LMod *M = checkmod(L, 1);
  lua_createtable(L, 0, 5);
  lua_pushnumber(L, (lua_Number)M->ninsn);
  lua_setfield(L, -2, "instructions");
  lua_pushnumber(L, (lua_Number)M->m->regs.n);
  lua_setfield(L, -2, "registers");
  lua_pushnumber(L, (lua_Number)M->m->opnds.n);
  lua_setfield(L, -2, "operands");
  lua_pushnumber(L, (lua_Number)M->m->funcs.n);
  lua_setfield(L, -2, "functions");
  size_t bytes = M->m->opnds.cap * sizeof(plI_opnd) + M->m->vregs.cap * sizeof(uint32_t) +
                 M->m->regs.cap * sizeof(plI_reg);
  for (uint32_t i = 0; i < M->m->funcs.n; i++)
    bytes += M->m->funcs.p[i].stmts.cap * sizeof(plI_stmt);
  lua_pushnumber(L, (lua_Number)bytes);
  lua_setfield(L, -2, "ir_bytes");
  return 1;
}

static int l_regname(lua_State *L) {
  LMod *M = checkmod(L, 1);
  lua_Number v = luaL_checknumber(L, 2);
  if (v < 1 || v > M->m->regs.n) return luaL_argerror(L, 2, "no such register");
  plB_buf b;
  plB_buf_init(&b);
  plI_regname(M->m, (uint32_t)v, &b);
  lua_pushstring(L, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return 1;
}

static int l_tostring(lua_State *L) {
  LMod *M = (LMod *)luaL_checkudata(L, 1, MOD_MT);
  if (!M->m) {
    lua_pushliteral(L, "ptxlua.module (closed)");
    return 1;
  }
  lua_pushfstring(L, "ptxlua.module %s, %d function(s), %d instruction(s)",
                  plI_cstr(M->m, M->m->target), (int)M->m->funcs.n, (int)M->ninsn);
  return 1;
}

static int l_func_count(lua_State *L) {
  lua_pushinteger(L, checkmod(L, 1)->m->funcs.n);
  return 1;
}

static void push_dims(lua_State *L, const uint32_t d[3], const char *key) {
  if (!d[0]) return;
  lua_createtable(L, 3, 0);
  for (int i = 0; i < 3; i++) {
    lua_pushinteger(L, d[i] ? d[i] : 1);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, key);
}

/* m:func_info(name) -> { kind = "entry"|"func", file =, line =, params = { {name =, type =,
** align =, count =}, ... }, reqntid =, maxntid =, reqnctapercluster = {x, y, z} (when declared)
** } | nil: what a launch needs to know of a function of a parsed module (its .param
** declarations) */
static int l_func_info(lua_State *L) {
  LMod *M = checkmod(L, 1);
  const char *name = luaL_checkstring(L, 2);
  const plI_module *m = M->m;
  const plI_func *f = NULL;
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (!m->funcs.p[i].declared_only && strcmp(plI_cstr(m, m->funcs.p[i].name), name) == 0)
      f = &m->funcs.p[i];
  if (!f) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 8);
  lua_pushstring(L, f->kind == PLF_ENTRY ? "entry" : "func");
  lua_setfield(L, -2, "kind");
  if (f->file) {
    lua_pushstring(L, plI_cstr(m, f->file));
    lua_setfield(L, -2, "file");
  }
  lua_pushinteger(L, (lua_Integer)f->line);
  lua_setfield(L, -2, "line");
  lua_createtable(L, (int)f->params.n, 0);
  for (uint32_t i = 0; i < f->params.n; i++) {
    const plI_var *v = &f->params.p[i];
    lua_createtable(L, 0, 4);
    lua_pushstring(L, plI_cstr(m, v->name));
    lua_setfield(L, -2, "name");
    lua_pushstring(L, plB_type_info[v->type].name);
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, (lua_Integer)v->align);
    lua_setfield(L, -2, "align");
    lua_pushnumber(L, v->count == UINT64_MAX ? -1 : (lua_Number)v->count);
    lua_setfield(L, -2, "count");
    lua_rawseti(L, -2, (int)i + 1);
  }
  lua_setfield(L, -2, "params");
  push_dims(L, f->reqntid, "reqntid");
  push_dims(L, f->maxntid, "maxntid");
  push_dims(L, f->reqnctapercluster, "reqnctapercluster");
  return 1;
}

/* m:reanchor(file, starts, lines [, files [, bytes]]): every statement, function, parameter and
** variable whose line L lies in [starts[i], starts[i+1]) is anchored at files[i] (default: file)
** line lines[i] instead (starts ascending; lines before starts[1] are left as they are). The
** PTX-in documents (ptxlua.verbatim, ptxlua.sugar) put the parsed module's anchors on the script
** lines that hold the statements, so that the emulator reports errors there. */
typedef struct remap {
  const uint32_t *st, *ln, *fl;
  uint32_t n;
} remap;
/* the anchor of line `line`: 1 and *file, *line set when a range holds it */
static int remap_at(const remap *r, uint32_t *file, uint32_t *line) {
  uint32_t lo = 0, hi = r->n; /* the last i with st[i] <= line */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (r->st[mid] <= *line)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo) return 0;
  *file = r->fl[lo - 1];
  *line = r->ln[lo - 1];
  return 1;
}
static void remap_vars(plI_var *v, uint32_t nv, const remap *r) {
  for (uint32_t i = 0; i < nv; i++) remap_at(r, &v[i].file, &v[i].line);
}
static int l_reanchor(lua_State *L) {
  LMod *M = checkmod(L, 1);
  const char *file = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  int hasfiles = lua_istable(L, 5);
  size_t n = lua_objlen(L, 3);
  if (lua_objlen(L, 4) != n) return luaL_argerror(L, 4, "as many lines as starts expected");
  if (n == 0) return 0;
  if (n > UINT32_MAX / 4) return luaL_argerror(L, 3, "too many entries");
  plI_module *m = M->m;
  uint32_t fid = plI_str(m, file);
  uint32_t *st = malloc(n * 3 * sizeof *st);
  if (!st || !fid) {
    free(st);
    return luaL_error(L, "out of memory");
  }
  uint32_t *ln = st + n, *fl = st + 2 * n;
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, 3, (int)i + 1);
    lua_rawgeti(L, 4, (int)i + 1);
    lua_Number a = lua_tonumber(L, -2), b = lua_tonumber(L, -1);
    lua_pop(L, 2);
    if (!(a >= 1 && a <= UINT32_MAX && b >= 0 && b <= UINT32_MAX) ||
        (i && (uint32_t)a < st[i - 1])) {
      free(st);
      return luaL_argerror(L, 3, "ascending line numbers expected");
    }
    st[i] = (uint32_t)a;
    ln[i] = (uint32_t)b;
    fl[i] = fid;
    if (hasfiles) {
      lua_rawgeti(L, 5, (int)i + 1);
      const char *f = lua_tostring(L, -1);
      if (f && !(fl[i] = plI_str(m, f))) {
        lua_pop(L, 1);
        free(st);
        return luaL_error(L, "out of memory");
      }
      lua_pop(L, 1);
    }
  }
  remap r = { st, ln, fl, (uint32_t)n };
  /* bytes (optional): the text offset each range starts at; a statement with a source span is then
  ** placed by the offset of its first token, so statements that share a PTX line (nvcc's inline asm
  ** "{ cvt...; }") each land on the script line that holds them */
  uint32_t *bo = NULL;
  if (lua_istable(L, 6) && lua_objlen(L, 6) == n && (bo = malloc(n * sizeof *bo))) {
    for (size_t i = 0; i < n && bo; i++) {
      lua_rawgeti(L, 6, (int)i + 1);
      lua_Number b = lua_tonumber(L, -1);
      lua_pop(L, 1);
      if (!(b >= 0 && b <= UINT32_MAX) || (i && (uint32_t)b < bo[i - 1])) {
        free(bo);
        bo = NULL;
        break;
      }
      bo[i] = (uint32_t)b;
    }
  }
  remap rb = { bo, ln, fl, (uint32_t)n };
  for (uint32_t fi = 0; fi < m->funcs.n; fi++) {
    plI_func *f = &m->funcs.p[fi];
    remap_at(&r, &f->file, &f->line);
    for (uint32_t si = 0; si < f->stmts.n; si++) {
      if (bo && f->vtext.n == f->stmts.n) {
        uint32_t tok = f->vtext.p[si].tok;
        if (remap_at(&rb, &f->stmts.p[si].file, &tok)) {
          f->stmts.p[si].line = tok;
          continue;
        }
      }
      remap_at(&r, &f->stmts.p[si].file, &f->stmts.p[si].line);
    }
    remap_vars(f->params.p, f->params.n, &r);
    remap_vars(f->rets.p, f->rets.n, &r);
    remap_vars(f->vars.p, f->vars.n, &r);
  }
  remap_vars(m->globals.p, m->globals.n, &r);
  free(st);
  free(bo);
  return 0;
}

static uint32_t count_lines(const char *s, size_t n) {
  uint32_t k = 0;
  for (const char *p = s, *e = s + n; p && (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) k++;
  return k;
}

/* ---- ptxlua.sugar: layout markers and the laid-out text
** ------------------------------------------ */
/* a marker statement of kind k with text at idx in the body being traced (sugar.text and kin are
** these functions themselves: the caller is the script's line) */
static int sugar_mark(lua_State *L, int k, int idx) {
  Shared *S = shared(L);
  size_t n;
  const char *s = lua_tolstring(L, idx, &n);
  LMod *M = S->cur;
  if (!s || !M || S->sugar <= 0 || M->func < 0) {
    lua_Debug ar;
    const char *why = !s ? "expects a string" : "belongs inside a sugared kernel body";
    if (user_frame(L, S, &ar))
      return luaL_error(L, "%s:%d: error: ptxlua.sugar: this call %s", srcname(ar.source),
                        ar.currentline, why);
    return luaL_error(L, "error: ptxlua.sugar: this call %s", why);
  }
  uint32_t f = 0, l = 0;
  if (!S->check) anchor(L, M, &f, &l);
  plI_module *m = M->m;
  uint32_t id = plB_intern(&m->strs, s, n);
  if (!id) return luaL_error(L, "out of memory");
  plI_stmt st = { PLS_RAW, (uint8_t)k, 0, id, 0, 0, f, l };
  if (!plB_vec_push(m->funcs.p[M->func].stmts, st)) return luaL_error(L, "out of memory");
  if (k == PLP_MK_DECL &&
      m->funcs.p[M->func].regdecls.n) /* the declaration just made is laid out here */
    m->funcs.p[M->func].regdecls.p[m->funcs.p[M->func].regdecls.n - 1].laid = 1;
  return 0;
}
static int l_sugar_text(lua_State *L) {
  return sugar_mark(L, PLP_MK_TEXT, 1);
}
static int l_sugar_eol(lua_State *L) {
  return sugar_mark(L, PLP_MK_EOL, 1);
}
static int l_sugar_indent(lua_State *L) {
  return sugar_mark(L, PLP_MK_INDENT, 1);
}
static int l_sugar_gap(lua_State *L) {
  return sugar_mark(L, PLP_MK_GAP, 1);
}
static int l_sugar_mark(lua_State *L) { /* core.sugar_mark("decl" | "open" | "close", text) */
  const char *k = luaL_checkstring(L, 1);
  int kind = !strcmp(k, "decl")    ? PLP_MK_DECL
             : !strcmp(k, "open")  ? PLP_MK_OPEN
             : !strcmp(k, "close") ? PLP_MK_CLOSE
                                   : 0;
  if (!kind) return luaL_argerror(L, 1, "'decl', 'open' or 'close' expected");
  return sugar_mark(L, kind, 2);
}
/* sugar.open([text]) / sugar.close([text]): a nested block's `{` and `}` in a sugared body (the
** flat form of ptx.scope: a Lua `do ... end` between them), each line as written when text is
** given */
static LMod *sugar_cur(lua_State *L) {
  Shared *S = shared(L);
  if (!S->cur || S->sugar <= 0 || S->cur->func < 0) {
    lua_Debug ar;
    if (user_frame(L, S, &ar))
      luaL_error(L, "%s:%d: error: ptxlua.sugar: this call belongs inside a sugared kernel body",
                 srcname(ar.source), ar.currentline);
    luaL_error(L, "error: ptxlua.sugar: this call belongs inside a sugared kernel body");
  }
  return S->cur;
}
static int l_sugar_open(lua_State *L) {
  LMod *M = sugar_cur(L);
  if (!lua_isnoneornil(L, 1)) sugar_mark(L, PLP_MK_OPEN, 1);
  return scope_open(L, M);
}
static int l_sugar_close(lua_State *L) {
  LMod *M = sugar_cur(L);
  scope_close(L, M);
  if (!lua_isnoneornil(L, 1)) sugar_mark(L, PLP_MK_CLOSE, 1);
  return 0;
}
/* core.sugar_check(on): no anchors (--sugar's own check) */
static int l_sugar_check(lua_State *L) {
  shared(L)->check = lua_toboolean(L, 1);
  return 0;
}
static int l_sugar_mode(lua_State *L) { /* core.sugar_mode(on): markers are taken while on */
  Shared *S = shared(L);
  S->sugar += lua_toboolean(L, 1) ? 1 : -1;
  if (S->sugar < 0) S->sugar = 0;
  return 0;
}

/* m:sugar_layout(kernel name, head | nil, tail, docline, docfile, pl, off, starts, lines, files,
** bytes) -> text, pl, off: the traced sugared function laid out (sugar.c); its pieces'
** first PTX lines (counted from pl) and bytes (from off), script lines and files (nil: docfile)
** appended to the four tables */
static int l_sugar_layout(lua_State *L) {
  LMod *M = checkmod(L, 1);
  const char *name = luaL_checkstring(L, 2);
  size_t nh = 0, nt;
  const char *head = lua_isnil(L, 3) ? NULL : luaL_checklstring(L, 3, &nh);
  const char *tail = luaL_checklstring(L, 4, &nt);
  uint32_t docline = (uint32_t)luaL_checkinteger(L, 5);
  const char *docfile = luaL_checkstring(L, 6);
  lua_Number pl = luaL_checknumber(L, 7), off = luaL_checknumber(L, 8);
  for (int i = 9; i <= 12; i++) luaL_checktype(L, i, LUA_TTABLE);
  plI_module *m = M->m;
  uint32_t fi = 0;
  while (fi < m->funcs.n && strcmp(plI_cstr(m, m->funcs.p[fi].name), name) != 0) fi++;
  if (fi == m->funcs.n) return luaL_error(L, "ptxlua.sugar: no function '%s' was traced", name);
  plB_buf out;
  plB_buf_init(&out);
  plP_map map = { 0 };
  int rc = plP_sugar_layout(m, fi, head, nh, tail, nt, docline, &out, &map);
  if (rc) {
    plB_buf_free(&out);
    free(map.p);
    return luaL_error(L, "out of memory");
  }
  int n0 = (int)lua_objlen(L, 9);
  uint32_t dfile = plB_find(&m->strs, docfile, strlen(docfile));
  for (uint32_t i = 0; i < map.n; i++) {
    const plP_mapent *e = &map.p[i];
    lua_pushnumber(L, pl + e->line - 1);
    lua_rawseti(L, 9, n0 + (int)i + 1);
    lua_pushnumber(L, e->sline);
    lua_rawseti(L, 10, n0 + (int)i + 1);
    if (e->sfile && e->sfile != dfile) {
      lua_pushstring(L, plI_cstr(m, e->sfile));
      lua_rawseti(L, 11, n0 + (int)i + 1);
    }
    lua_pushnumber(L, off + e->off);
    lua_rawseti(L, 12, n0 + (int)i + 1);
  }
  lua_pushlstring(L, out.p ? out.p : "", out.n);
  lua_pushnumber(L, pl + (lua_Number)count_lines(out.p, out.n));
  lua_pushnumber(L, off + (lua_Number)out.n);
  plB_buf_free(&out);
  free(map.p);
  return 3;
}

/* m:sugar_canon(kernel name, with_head) -> the traced function's lines for --sugar's check */
static int l_sugar_canon(lua_State *L) {
  LMod *M = checkmod(L, 1);
  const char *name = luaL_checkstring(L, 2);
  plI_module *m = M->m;
  uint32_t fi = 0;
  while (fi < m->funcs.n && strcmp(plI_cstr(m, m->funcs.p[fi].name), name) != 0) fi++;
  if (fi == m->funcs.n) return luaL_error(L, "ptxlua.sugar: no function '%s' was traced", name);
  plB_buf out;
  plB_buf_init(&out);
  if (plP_sugar_canon(m, fi, lua_toboolean(L, 3), &out)) {
    plB_buf_free(&out);
    return luaL_error(L, "out of memory");
  }
  lua_pushlstring(L, out.p ? out.p : "", out.n);
  plB_buf_free(&out);
  return 1;
}

/* ---- module-level functions
** ------------------------------------------------------------------- */
static int l_opcode(lua_State *L) { /* core.opcode(text) -> id (resolution is lazy) */
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  uint32_t id = plA_opcode(shared(L)->isa, s, n);
  if (!id) return luaL_error(L, "out of memory");
  lua_pushinteger(L, id);
  return 1;
}

/* core.check_opcode(text [, target]) -> true | false, msg */
static int l_check_opcode(lua_State *L) {
  Shared *S = shared(L);
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  uint32_t id = plA_opcode(S->isa, s, n);
  plB_buf b;
  plB_buf_init(&b);
  const plA_res *r = id ? plA_resolve(S->isa, id, &b) : NULL;
  int ok = r != NULL;
  if (ok && !lua_isnoneornil(L, 2)) {
    plA_target t;
    if (!plA_target_parse(luaL_checkstring(L, 2), &t)) {
      plB_buf_free(&b);
      return luaL_argerror(L, 2, "unknown target");
    }
    ok = plA_check_target(r, s, &t, 0, &b);
  }
  lua_pushboolean(L, ok);
  if (!ok)
    lua_pushstring(L, plB_buf_cstr(&b));
  else {
    lua_pushinteger(L, r->ptx_min);
  }
  plB_buf_free(&b);
  return 2;
}

/* core.lint(text [, name]) -> { {line, col, msg}, ... } in file order, or nil and the parse
** error */
static void lint_push(void *ud, int line, int col, const char *msg) {
  lua_State *L = ud;
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, line);
  lua_setfield(L, -2, "line");
  lua_pushinteger(L, col);
  lua_setfield(L, -2, "col");
  lua_pushstring(L, msg);
  lua_setfield(L, -2, "msg");
  lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
}
static int l_lint(lua_State *L) {
  Shared *S = shared(L);
  size_t n;
  const char *text = luaL_checklstring(L, 1, &n);
  const char *name = luaL_optstring(L, 2, "<ptx>");
  plB_buf err;
  plB_buf_init(&err);
  plI_module *m = plP_parse(S->isa, text, n, name, &err);
  if (!m) {
    lua_pushnil(L);
    lua_pushstring(L, plB_buf_cstr(&err));
    plB_buf_free(&err);
    return 2;
  }
  plB_buf_free(&err);
  lua_newtable(L);
  plP_lint_each(m, lint_push, L);
  plI_free(m);
  return 1;
}

/* core.canonical(text) -> the opcode text with its modifiers in its form's order, or nil */
static int l_canonical(lua_State *L) {
  Shared *S = shared(L);
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  uint32_t id = plA_opcode(S->isa, s, n);
  if (!id || !plA_resolve(S->isa, id, NULL)) return 0;
  lua_pushstring(L, plA_canonical(S->isa, id));
  return 1;
}

/* core.types() -> { name = { bits =, class = "p" | "b" | "u" | "s" | "f", decl = name } }: the PTX
** types of src/base/types.h (the declaration type: the register type a value of it lives in) */
static int l_types(lua_State *L) {
  static const char CLS[] = { '?', 'p', 'b', 'u', 's', 'f' };
  lua_createtable(L, 0, PLT__COUNT);
  for (int t = PLT_NONE + 1; t < PLT__COUNT; t++) {
    const plB_typeinfo *ti = &plB_type_info[t];
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, ti->bits);
    lua_setfield(L, -2, "bits");
    lua_pushlstring(L, &CLS[ti->cls], 1);
    lua_setfield(L, -2, "class");
    lua_pushstring(L, plB_type_info[ti->decl].name);
    lua_setfield(L, -2, "decl");
    lua_setfield(L, -2, ti->name);
  }
  return 1;
}

/* core.forms() -> { {pattern, operands, ptx, sm, flags}, ... } */
static int l_forms(lua_State *L) {
  int n = plA_form_count();
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    const char *p, *o;
    int v, s, f;
    plA_form_info(i, &p, &o, &v, &s, &f);
    lua_createtable(L, 5, 0);
    lua_pushstring(L, p);
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, o);
    lua_rawseti(L, -2, 2);
    lua_pushinteger(L, v);
    lua_rawseti(L, -2, 3);
    lua_pushinteger(L, s);
    lua_rawseti(L, -2, 4);
    lua_pushinteger(L, f);
    lua_rawseti(L, -2, 5);
    lua_rawseti(L, -2, i + 1);
  }
  lua_createtable(L, 0, plA_set_count());
  for (int i = 0; i < plA_set_count(); i++) {
    const char *nm, *alts;
    plA_set_info(i, &nm, &alts);
    lua_pushstring(L, alts);
    lua_setfield(L, -2, nm);
  }
  return 2;
}

/* core.internal_source(prefix): frames to skip for anchors */
static int l_internal(lua_State *L) {
  Shared *S = shared(L);
  const char *p = luaL_checkstring(L, 1);
  for (int i = 0; i < S->nprefix; i++)
    if (strcmp(S->prefix[i], p) == 0) return 0;
  if (S->nprefix == 8 || strlen(p) >= sizeof S->prefix[0])
    return luaL_error(L, "too many internal sources");
  strcpy(S->prefix[S->nprefix++], p);
  memset(S->fc, 0, sizeof S->fc);
  return 0;
}

static int l_target_info(lua_State *L) { /* core.target(name) -> sm, arch_a, min version | nil */
  plA_target t;
  if (!plA_target_parse(luaL_checkstring(L, 1), &t)) return 0;
  lua_pushinteger(L, t.sm);
  lua_pushboolean(L, t.arch_a == 1);
  lua_pushnumber(L, plA_target_min_version(&t) / 10.0);
  return 3;
}

static int l_sreg(lua_State *L) { /* core.sreg("envreg3") -> type name, ptx min, sm min | nil */
  int t = 0, pv = 0, sm = 0;
  if (!plA_sreg(luaL_checkstring(L, 1), &t, &pv, &sm) || t <= 0 || t >= PLT__COUNT) return 0;
  lua_pushstring(L, plB_type_info[t].name);
  lua_pushinteger(L, pv);
  lua_pushinteger(L, sm);
  return 3;
}

static int l_shared_gc(lua_State *L) {
  Shared *S = (Shared *)lua_touserdata(L, 1);
  if (S && S->isa) {
    plA_unref(S->isa);
    S->isa = NULL;
  }
  return 0;
}

static const luaL_Reg mod_methods[] = { { "func", l_func },
                                        { "param", l_param },
                                        { "directive", l_directive },
                                        { "reg", l_reg },
                                        { "reg_lazy", l_reg_lazy },
                                        { "reg_elem", l_reg_elem },
                                        { "pool", l_pool },
                                        { "var", l_var },
                                        { "place", l_place },
                                        { "emit", l_emit },
                                        { "guard", l_guard },
                                        { "guarded", l_guarded },
                                        { "raw", l_raw },
                                        { "guard_open", l_guard_open },
                                        { "guard_bind", l_guard_bind },
                                        { "guard_end", l_guard_end },
                                        { "ninsn", l_ninsn },
                                        { "endfunc", l_endfunc },
                                        { "scope_open", l_scope_open },
                                        { "scope_close", l_scope_close },
                                        { "sugar_layout", l_sugar_layout },
                                        { "sugar_canon", l_sugar_canon },
                                        { "version", l_version },
                                        { "print", l_print },
                                        { "write", l_write },
                                        { "stats", l_stats },
                                        { "func_count", l_func_count },
                                        { "regname", l_regname },
                                        { "activate", l_activate },
                                        { "func_info", l_func_info },
                                        { "reanchor", l_reanchor },
                                        { NULL, NULL } };
static const luaL_Reg core_funcs[] = { { "module", l_module },
                                       { "parse", l_parse },
                                       { "opcode", l_opcode },
                                       { "check_opcode", l_check_opcode },
                                       { "lint", l_lint },
                                       { "canonical", l_canonical },
                                       { "forms", l_forms },
                                       { "internal_source", l_internal },
                                       { "target", l_target_info },
                                       { "emit", l_cemit },
                                       { "emitv", l_cemitv },
                                       { "opbuf", l_opbuf },
                                       { "sreg", l_sreg },
                                       { "expand_chunk", l_expand_chunk },
                                       { "types", l_types },
                                       { "sugar_text", l_sugar_text },
                                       { "sugar_eol", l_sugar_eol },
                                       { "sugar_indent", l_sugar_indent },
                                       { "sugar_gap", l_sugar_gap },
                                       { "sugar_mark", l_sugar_mark },
                                       { "sugar_mode", l_sugar_mode },
                                       { "sugar_check", l_sugar_check },
                                       { "sugar_open", l_sugar_open },
                                       { "sugar_close", l_sugar_close },
                                       { NULL, NULL } };

static void setfuncs(lua_State *L, const luaL_Reg *r) { /* each with the Shared upvalue (at -2) */
  for (; r->name; r++) {
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, r->func, 1);
    lua_setfield(L, -2, r->name);
  }
}

#if defined(_WIN32)
#define PL_EXPORT __declspec(dllexport)
#else
#define PL_EXPORT __attribute__((visibility("default")))
#endif

PL_EXPORT int luaopen_ptxlua_core(lua_State *L) {
  Shared *S = (Shared *)lua_newuserdata(L, sizeof *S);
  memset(S, 0, sizeof *S);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, l_shared_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  S->isa = plA_new();
  if (!S->isa) return luaL_error(L, "out of memory");
  lua_newtable(L);
  S->fc_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  /* module metatable */
  luaL_newmetatable(L, MOD_MT); /* S, mt */
  lua_pushvalue(L, -2);         /* S, mt, S */
  lua_createtable(L, 0, 16);    /* S, mt, S, methods */
  setfuncs(L, mod_methods);
  lua_remove(L, -2); /* S, mt, methods */
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, l_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, "ptxlua.module");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);            /* S */
  lua_createtable(L, 0, 8); /* S, core */
  setfuncs(L, core_funcs);
  lua_pushinteger(L, plA_form_count());
  lua_setfield(L, -2, "nforms");
  lua_createtable(L, 0, 12); /* core.K: the operand kinds */
#define PL_OPKIND_SET(n, v) \
  lua_pushinteger(L, -(v)); \
  lua_setfield(L, -2, #n);
  PL_OPKINDS(PL_OPKIND_SET)
#undef PL_OPKIND_SET
  lua_setfield(L, -2, "K");
  lua_remove(L, -2);
  int plL_open_emu(lua_State * L, int core); /* core_emu.c: the emulator's functions */
  plL_open_emu(L, lua_gettop(L));
  /* core_smem.c: the shared-memory planner and layouts */
  int plL_open_smem(lua_State * L, int core);
  plL_open_smem(L, lua_gettop(L));
  int plL_open_rt(lua_State * L, int core); /* core_cuda.c: assembling and the CUDA driver */
  plL_open_rt(L, lua_gettop(L));
  return 1;
}

plI_module *plL_tomodule(lua_State *L, int idx) {
  LMod *M = (LMod *)luaL_testudata_compat(L, idx);
  return M ? M->m : NULL;
}
