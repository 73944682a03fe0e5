/* core_smem.c -- the shared-memory functions of ptxlua.core: the planner, swizzles, wgmma
** descriptors. Thin and checked: errors come back as nil, message, for the DSL to raise at the
** script's line. 64-bit descriptors cross as two 32-bit halves (lo, hi): Lua numbers hold 53
** bits. */
#include <lua.h>
#include <lauxlib.h>
#include <stddef.h>
#include <string.h>
#include "smem.h"
#include "num.h"

static int swarg(lua_State *L, int idx) {
  if (lua_isnoneornil(L, idx)) return PLSM_SW_NONE;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    int v = (int)lua_tointeger(L, idx);
    int sw = v == 0     ? 0
             : v == 32  ? PLSM_SW_32B
             : v == 64  ? PLSM_SW_64B
             : v == 128 ? PLSM_SW_128B
                        : -1;
    if (sw < 0) luaL_argerror(L, idx, "swizzle must be none, 32B, 64B or 128B");
    return sw;
  }
  int sw = plB_sm_swizzle_parse(luaL_checkstring(L, idx));
  if (sw < 0) luaL_argerror(L, idx, "swizzle must be none, 32B, 64B or 128B");
  return sw;
}

static int fail(lua_State *L, const char *msg) {
  lua_pushnil(L);
  lua_pushstring(L, msg);
  return 2;
}

static int l_swizzle(lua_State *L) { /* smem_swizzle(mode, offset) -> offset */
  int sw = swarg(L, 1);
  lua_pushnumber(L, plB_sm_swizzle(sw, (uint32_t)plL_checkrange(L, 2, 0, UINT32_MAX)));
  return 1;
}
/* smem_swizzle_info(mode) -> bytes, and-mask, shift, repeat, B, M, S */
static int l_swizzle_info(lua_State *L) {
  int sw = swarg(L, 1), B, M, S;
  plB_sm_swizzle_bms(sw, &B, &M, &S);
  lua_pushinteger(L, plB_sm_swizzle_bytes(sw));
  lua_pushnumber(L, plB_sm_swizzle_mask(sw));
  lua_pushinteger(L, S);
  lua_pushnumber(L, plB_sm_swizzle_repeat(sw));
  lua_pushinteger(L, B);
  lua_pushinteger(L, M);
  lua_pushinteger(L, S);
  return 7;
}

/* the swizzle argument of a tcgen05 descriptor: the plan's modes and "128B_32B" */
static int swarg_tc(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING && !strcmp(lua_tostring(L, idx), "128B_32B"))
    return PLSM_SW_128B_32B;
  return swarg(L, idx);
}
static const char *swname(int sw) {
  return sw == PLSM_SW_128B_32B ? "128B_32B" : plB_sm_swizzle_name(sw);
}

/* the target argument: none (nil) for the wgmma layout of the calls that predate it */
static int smarg(lua_State *L, int idx) {
  if (lua_isnoneornil(L, idx)) return 0;
  return (int)plL_checkrange(L, idx, 1, 1000);
}

static void push_fields(lua_State *L, const plB_sm_desc *d) {
  lua_createtable(L, 0, 7);
  lua_pushnumber(L, d->start);
  lua_setfield(L, -2, "start");
  lua_pushnumber(L, d->lbo);
  lua_setfield(L, -2, "lbo");
  lua_pushnumber(L, d->sbo);
  lua_setfield(L, -2, "sbo");
  lua_pushinteger(L, d->base_offset);
  lua_setfield(L, -2, "base_offset");
  lua_pushstring(L, swname(d->swizzle));
  lua_setfield(L, -2, "swizzle");
  if (d->tcgen05) { /* the tcgen05 layout's own fields */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "tcgen05");
    lua_pushinteger(L, d->lbo_mode);
    lua_setfield(L, -2, "lbo_mode");
  }
}

/* sm 0: the wgmma layout (plB_sm_desc_encode); else the target's */
static int push_desc(lua_State *L, const plB_sm_desc *d, int sm) {
  char err[256];
  uint64_t v;
  int ok = sm ? plB_sm_desc_encode_sm(sm, d, &v, err, sizeof err)
              : plB_sm_desc_encode(d, &v, err, sizeof err);
  if (!ok) return fail(L, err);
  lua_pushnumber(L, (lua_Number)(uint32_t)v);
  lua_pushnumber(L, (lua_Number)(uint32_t)(v >> 32));
  plB_sm_desc f = *d;
  f.tcgen05 = sm && plB_sm_desc_layout(sm) == 100;
  push_fields(L, &f);
  return 3;
}

/* smem_desc_tile(addr, elt_bytes, mn, k, kmajor, mode [, sm]) -> lo, hi, fields | nil, message */
static int l_desc_tile(lua_State *L) {
  char err[256];
  plB_sm_desc d;
  int sm = smarg(L, 7);
  uint32_t addr = (uint32_t)plL_checkrange(L, 1, 0, UINT32_MAX);
  int elt = (int)luaL_checkinteger(L, 2), mn = (int)luaL_checkinteger(L, 3),
      k = (int)luaL_checkinteger(L, 4);
  int kmajor = lua_toboolean(L, 5);
  int ok =
      sm ? plB_sm_desc_tile_sm(sm, addr, elt, mn, k, kmajor, swarg_tc(L, 6), &d, err, sizeof err)
         : plB_sm_desc_tile(addr, elt, mn, k, kmajor, swarg(L, 6), &d, err, sizeof err);
  if (!ok) return fail(L, err);
  return push_desc(L, &d, sm);
}
/* smem_desc_encode(start, lbo, sbo, base_offset, mode [, sm [, lbo_mode]]) -> lo, hi, fields |
** nil, message */
static int l_desc_encode(lua_State *L) {
  int sm = smarg(L, 6);
  plB_sm_desc d;
  memset(&d, 0, sizeof d);
  d.start = (uint32_t)plL_checkrange(L, 1, 0, UINT32_MAX);
  d.lbo = (uint32_t)plL_checkrange(L, 2, 0, UINT32_MAX);
  d.sbo = (uint32_t)plL_checkrange(L, 3, 0, UINT32_MAX);
  d.base_offset = (int)luaL_optinteger(L, 4, 0);
  d.swizzle = sm ? swarg_tc(L, 5) : swarg(L, 5);
  d.lbo_mode = (int)luaL_optinteger(L, 7, 0);
  return push_desc(L, &d, sm);
}
static uint64_t halves(lua_State *L, int i) {
  return (uint64_t)plL_checkrange(L, i, 0, UINT32_MAX) |
         ((uint64_t)plL_checkrange(L, i + 1, 0, UINT32_MAX) << 32);
}
/* smem_desc_check(lo, hi, mode) -> true | nil, message */
static int l_desc_check(lua_State *L) {
  char err[256];
  if (!plB_sm_desc_check(halves(L, 1), swarg(L, 3), err, sizeof err)) return fail(L, err);
  lua_pushboolean(L, 1);
  return 1;
}
/* smem_desc_decode(lo, hi [, sm]) -> fields (| nil, message with sm: a reserved or fixed bit
** wrong) */
static int l_desc_decode(lua_State *L) {
  plB_sm_desc d;
  int sm = smarg(L, 3);
  if (sm) {
    char err[256];
    if (!plB_sm_desc_decode_sm(sm, halves(L, 1), &d, err, sizeof err)) return fail(L, err);
  } else {
    plB_sm_desc_decode(halves(L, 1), &d);
  }
  push_fields(L, &d);
  return 1;
}
/* smem_desc_layout(sm) -> 90, 100 or 0 */
static int l_desc_layout(lua_State *L) {
  lua_pushinteger(L, plB_sm_desc_layout((int)luaL_checkinteger(L, 1)));
  return 1;
}

/* ---- tcgen05.mma instruction descriptors ---- */
static int opt_type(lua_State *L, int t, const char *field, int dflt) {
  lua_getfield(L, t, field);
  int r = dflt;
  if (!lua_isnil(L, -1)) {
    const char *s = lua_tostring(L, -1);
    r = s ? plB_tc_type_parse(s) : -1;
    if (r < 0) {
      lua_pop(L, 1);
      return luaL_error(L, "%s: unknown element type %s", field, s ? s : "(not a string)");
    }
  }
  lua_pop(L, 1);
  return r;
}
static int opt_int(lua_State *L, int t, const char *field, int dflt) {
  lua_getfield(L, t, field);
  int r = dflt;
  if (lua_isboolean(L, -1))
    r = lua_toboolean(L, -1);
  else if (!lua_isnil(L, -1)) {
    if (!lua_isnumber(L, -1)) {
      lua_pop(L, 1);
      return luaL_error(L, "%s: a number expected", field);
    }
    lua_Number x = lua_tonumber(L, -1);
    if (x != (lua_Number)(int)x) {
      lua_pop(L, 1);
      return luaL_error(L, "%s: an integer expected", field);
    }
    r = (int)x;
  }
  lua_pop(L, 1);
  return r;
}
static int kindarg(lua_State *L, int idx) {
  const char *s = luaL_checkstring(L, idx);
  int k = plB_tc_kind_parse(s);
  if (k < 0)
    luaL_argerror(L, idx, "kind must be f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4");
  return k;
}
/* tc_idesc{ kind =, cta_group =, ws =, d =, a =, b =, m =, n =, sparse =, selector =, saturate =,
** neg_a =, neg_b =, trans_a =, trans_b =, max_shift =, scale =, sfa_id =, sfb_id =, k96 = }
** -> value | nil, message */
static int l_tc_idesc(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  plB_tc_idesc d;
  memset(&d, 0, sizeof d);
  lua_getfield(L, 1, "kind");
  d.kind = kindarg(L, -1);
  lua_pop(L, 1);
  d.cta_group = opt_int(L, 1, "cta_group", 1);
  d.ws = opt_int(L, 1, "ws", 0);
  d.d = opt_type(L, 1, "d", PLTC_T_NONE);
  d.a = opt_type(L, 1, "a", PLTC_T_NONE);
  d.b = opt_type(L, 1, "b", PLTC_T_NONE);
  d.m = opt_int(L, 1, "m", 0);
  d.n = opt_int(L, 1, "n", 0);
  d.sparse = opt_int(L, 1, "sparse", 0);
  d.selector = opt_int(L, 1, "selector", 0);
  d.saturate = opt_int(L, 1, "saturate", 0);
  d.neg_a = opt_int(L, 1, "neg_a", 0);
  d.neg_b = opt_int(L, 1, "neg_b", 0);
  d.trans_a = opt_int(L, 1, "trans_a", 0);
  d.trans_b = opt_int(L, 1, "trans_b", 0);
  d.max_shift = opt_int(L, 1, "max_shift", 0);
  d.scale = opt_type(L, 1, "scale", PLTC_T_NONE);
  d.sfa_id = opt_int(L, 1, "sfa_id", 0);
  d.sfb_id = opt_int(L, 1, "sfb_id", 0);
  d.k96 = opt_int(L, 1, "k96", 0);
  char err[256];
  uint32_t v;
  if (!plB_tc_idesc_encode(&d, &v, err, sizeof err)) return fail(L, err);
  lua_pushnumber(L, v);
  return 1;
}
/* tc_idesc_decode(value, kind [, cta_group [, ws]]) -> fields | nil, message */
static int l_tc_idesc_decode(lua_State *L) {
  uint32_t v = (uint32_t)plL_checkrange(L, 1, 0, UINT32_MAX);
  int kind = kindarg(L, 2);
  int cg = (int)luaL_optinteger(L, 3, 1);
  int ws = lua_toboolean(L, 4);
  plB_tc_idesc d;
  char err[256];
  if (!plB_tc_idesc_decode(v, kind, cg, ws, &d, err, sizeof err)) return fail(L, err);
  lua_createtable(L, 0, 20);
  lua_pushstring(L, plB_tc_kind_name(d.kind));
  lua_setfield(L, -2, "kind");
  static const struct {
    const char *name;
    size_t off;
  } I[] = {
    { "cta_group", offsetof(plB_tc_idesc, cta_group) },
    { "m", offsetof(plB_tc_idesc, m) },
    { "n", offsetof(plB_tc_idesc, n) },
    { "sparse", offsetof(plB_tc_idesc, sparse) },
    { "selector", offsetof(plB_tc_idesc, selector) },
    { "saturate", offsetof(plB_tc_idesc, saturate) },
    { "neg_a", offsetof(plB_tc_idesc, neg_a) },
    { "neg_b", offsetof(plB_tc_idesc, neg_b) },
    { "trans_a", offsetof(plB_tc_idesc, trans_a) },
    { "trans_b", offsetof(plB_tc_idesc, trans_b) },
    { "max_shift", offsetof(plB_tc_idesc, max_shift) },
    { "sfa_id", offsetof(plB_tc_idesc, sfa_id) },
    { "sfb_id", offsetof(plB_tc_idesc, sfb_id) },
    { "k96", offsetof(plB_tc_idesc, k96) },
  };
  for (size_t i = 0; i < sizeof I / sizeof I[0]; i++) {
    lua_pushinteger(L, *(const int *)((const char *)&d + I[i].off));
    lua_setfield(L, -2, I[i].name);
  }
  lua_pushboolean(L, d.ws);
  lua_setfield(L, -2, "ws");
  lua_pushstring(L, plB_tc_type_name(d.d));
  lua_setfield(L, -2, "d");
  lua_pushstring(L, plB_tc_type_name(d.a));
  lua_setfield(L, -2, "a");
  lua_pushstring(L, plB_tc_type_name(d.b));
  lua_setfield(L, -2, "b");
  if (d.kind >= PLTC_MXF8F6F4) {
    lua_pushstring(L, plB_tc_type_name(d.scale));
    lua_setfield(L, -2, "scale");
  }
  return 1;
}
static int l_limit(lua_State *L) {
  lua_pushnumber(L, plB_sm_limit((int)luaL_checkinteger(L, 1)));
  return 1;
}

/* ---- plans: userdata, created closed (empty) and freed by __gc ---- */
#define PLAN_MT "ptxlua.smem_plan"
static plB_sm_plan *checkplan(lua_State *L) {
  return (plB_sm_plan *)luaL_checkudata(L, 1, PLAN_MT);
}

static int l_plan_new(lua_State *L) { /* smem_plan(sm) */
  int sm = (int)luaL_checkinteger(L, 1);
  plB_sm_plan *p = (plB_sm_plan *)lua_newuserdata(L, sizeof *p);
  plB_sm_init(p, sm);
  luaL_getmetatable(L, PLAN_MT);
  lua_setmetatable(L, -2);
  return 1;
}
/* plan:add(name, elt_bytes, elems, stages, align, mode) -> offset, size, stage_bytes, align, pad
** | nil, message */
static int l_plan_add(lua_State *L) {
  plB_sm_plan *p = checkplan(L);
  char err[256];
  int i = plB_sm_add(p, luaL_checkstring(L, 2), (uint32_t)luaL_checkinteger(L, 3),
                     plL_checku64(L, 4), (uint32_t)luaL_optinteger(L, 5, 1),
                     (uint32_t)luaL_optinteger(L, 6, 0), swarg(L, 7), err, sizeof err);
  if (i < 0) return fail(L, err);
  const plB_sm_alloc *a = &p->a[i];
  lua_pushnumber(L, a->offset);
  lua_pushnumber(L, a->size);
  lua_pushnumber(L, a->stage_bytes);
  lua_pushnumber(L, a->align);
  lua_pushnumber(L, a->pad);
  return 5;
}
static int l_plan_total(lua_State *L) { /* plan:total() -> bytes, align, dynamic */
  plB_sm_plan *p = checkplan(L);
  lua_pushnumber(L, p->top);
  lua_pushnumber(L, p->align);
  lua_pushboolean(L, plB_sm_dynamic(p));
  return 3;
}
static int l_plan_format(lua_State *L) {
  plB_sm_plan *p = checkplan(L);
  size_t n = plB_sm_format(p, NULL, 0) + 1;
  char *s = (char *)lua_newuserdata(L, n);
  plB_sm_format(p, s, n);
  lua_pushstring(L, s);
  return 1;
}
static int l_plan_gc(lua_State *L) {
  plB_sm_free(checkplan(L));
  return 0;
}
static int l_plan_tostring(lua_State *L) {
  plB_sm_plan *p = checkplan(L);
  lua_pushfstring(L, "smem plan (%d allocations, %d bytes)", p->n, (int)p->top);
  return 1;
}

int plL_open_smem(lua_State *L, int core) {
  static const luaL_Reg methods[] = {
    { "add", l_plan_add }, { "total", l_plan_total }, { "format", l_plan_format }, { NULL, NULL }
  };
  if (luaL_newmetatable(L, PLAN_MT)) {
    lua_newtable(L);
    luaL_register(L, NULL, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_plan_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_plan_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "smem_plan");
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
  static const luaL_Reg fns[] = { { "smem_swizzle", l_swizzle },
                                  { "smem_swizzle_info", l_swizzle_info },
                                  { "smem_desc_tile", l_desc_tile },
                                  { "smem_desc_encode", l_desc_encode },
                                  { "smem_desc_check", l_desc_check },
                                  { "smem_desc_decode", l_desc_decode },
                                  { "smem_limit", l_limit },
                                  { "smem_plan", l_plan_new },
                                  { "smem_desc_layout", l_desc_layout },
                                  { "tc_idesc", l_tc_idesc },
                                  { "tc_idesc_decode", l_tc_idesc_decode },
                                  { NULL, NULL } };
  for (const luaL_Reg *f = fns; f->name; f++) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, core, f->name);
  }
  return 0;
}
