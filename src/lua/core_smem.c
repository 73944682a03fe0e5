/* core_smem.c -- the shared-memory functions of ptxlua.core: the planner, swizzles, wgmma descriptors.
** Thin and checked: errors come back as nil, message, for the DSL to raise at the script's line.
** 64-bit descriptors cross as two 32-bit halves (lo, hi): Lua numbers hold 53 bits. */
#include <lua.h>
#include <lauxlib.h>
#include <string.h>
#include "smem.h"
#include "num.h"

static int swarg(lua_State *L, int idx) {
  if (lua_isnoneornil(L, idx)) return PLSM_SW_NONE;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    int v = (int)lua_tointeger(L, idx);
    int sw = v == 0 ? 0 : v == 32 ? PLSM_SW_32B : v == 64 ? PLSM_SW_64B : v == 128 ? PLSM_SW_128B : -1;
    if (sw < 0) luaL_argerror(L, idx, "swizzle must be none, 32B, 64B or 128B");
    return sw;
  }
  int sw = plB_sm_swizzle_parse(luaL_checkstring(L, idx));
  if (sw < 0) luaL_argerror(L, idx, "swizzle must be none, 32B, 64B or 128B");
  return sw;
}

static int fail(lua_State *L, const char *msg) { lua_pushnil(L); lua_pushstring(L, msg); return 2; }

static int l_swizzle(lua_State *L) {  /* smem_swizzle(mode, offset) -> offset */
  int sw = swarg(L, 1);
  lua_pushnumber(L, plB_sm_swizzle(sw, (uint32_t)plL_checkrange(L, 2, 0, UINT32_MAX)));
  return 1;
}
static int l_swizzle_info(lua_State *L) {  /* smem_swizzle_info(mode) -> bytes, and-mask, shift, repeat, B, M, S */
  int sw = swarg(L, 1), B, M, S;
  plB_sm_swizzle_bms(sw, &B, &M, &S);
  lua_pushinteger(L, plB_sm_swizzle_bytes(sw));
  lua_pushnumber(L, plB_sm_swizzle_mask(sw));
  lua_pushinteger(L, S);
  lua_pushnumber(L, plB_sm_swizzle_repeat(sw));
  lua_pushinteger(L, B); lua_pushinteger(L, M); lua_pushinteger(L, S);
  return 7;
}

static int push_desc(lua_State *L, const plB_sm_desc *d) {
  char err[256];
  uint64_t v;
  if (!plB_sm_desc_encode(d, &v, err, sizeof err)) return fail(L, err);
  lua_pushnumber(L, (lua_Number)(uint32_t)v);
  lua_pushnumber(L, (lua_Number)(uint32_t)(v >> 32));
  lua_createtable(L, 0, 5);
  lua_pushnumber(L, d->start); lua_setfield(L, -2, "start");
  lua_pushnumber(L, d->lbo); lua_setfield(L, -2, "lbo");
  lua_pushnumber(L, d->sbo); lua_setfield(L, -2, "sbo");
  lua_pushinteger(L, d->base_offset); lua_setfield(L, -2, "base_offset");
  lua_pushstring(L, plB_sm_swizzle_name(d->swizzle)); lua_setfield(L, -2, "swizzle");
  return 3;
}

/* smem_desc_tile(addr, elt_bytes, mn, k, kmajor, mode) -> lo, hi, fields | nil, message */
static int l_desc_tile(lua_State *L) {
  char err[256];
  plB_sm_desc d;
  if (!plB_sm_desc_tile((uint32_t)plL_checkrange(L, 1, 0, UINT32_MAX), (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3),
                      (int)luaL_checkinteger(L, 4), lua_toboolean(L, 5), swarg(L, 6), &d, err, sizeof err))
    return fail(L, err);
  return push_desc(L, &d);
}
/* smem_desc_encode(start, lbo, sbo, base_offset, mode) -> lo, hi, fields | nil, message */
static int l_desc_encode(lua_State *L) {
  plB_sm_desc d = {(uint32_t)plL_checkrange(L, 1, 0, UINT32_MAX), (uint32_t)plL_checkrange(L, 2, 0, UINT32_MAX), (uint32_t)plL_checkrange(L, 3, 0, UINT32_MAX),
                 (int)luaL_optinteger(L, 4, 0), swarg(L, 5)};
  return push_desc(L, &d);
}
static uint64_t halves(lua_State *L, int i) {
  return (uint64_t)plL_checkrange(L, i, 0, UINT32_MAX) | ((uint64_t)plL_checkrange(L, i + 1, 0, UINT32_MAX) << 32);
}
/* smem_desc_check(lo, hi, mode) -> true | nil, message */
static int l_desc_check(lua_State *L) {
  char err[256];
  if (!plB_sm_desc_check(halves(L, 1), swarg(L, 3), err, sizeof err)) return fail(L, err);
  lua_pushboolean(L, 1);
  return 1;
}
/* smem_desc_decode(lo, hi) -> fields */
static int l_desc_decode(lua_State *L) {
  plB_sm_desc d;
  plB_sm_desc_decode(halves(L, 1), &d);
  int k = push_desc(L, &d);           /* lo, hi, fields: keep the fields */
  if (k == 3) { lua_replace(L, -3); lua_pop(L, 1); return 1; }
  return k;
}
static int l_limit(lua_State *L) { lua_pushnumber(L, plB_sm_limit((int)luaL_checkinteger(L, 1))); return 1; }

/* ---- plans: userdata, created closed (empty) and freed by __gc ---- */
#define PLAN_MT "ptxlua.smem_plan"
static plB_sm_plan *checkplan(lua_State *L) { return (plB_sm_plan *)luaL_checkudata(L, 1, PLAN_MT); }

static int l_plan_new(lua_State *L) {  /* smem_plan(sm) */
  int sm = (int)luaL_checkinteger(L, 1);
  plB_sm_plan *p = (plB_sm_plan *)lua_newuserdata(L, sizeof *p);
  plB_sm_init(p, sm);
  luaL_getmetatable(L, PLAN_MT);
  lua_setmetatable(L, -2);
  return 1;
}
/* plan:add(name, elt_bytes, elems, stages, align, mode) -> offset, size, stage_bytes, align, pad | nil, message */
static int l_plan_add(lua_State *L) {
  plB_sm_plan *p = checkplan(L);
  char err[256];
  int i = plB_sm_add(p, luaL_checkstring(L, 2), (uint32_t)luaL_checkinteger(L, 3), plL_checku64(L, 4),
                   (uint32_t)luaL_optinteger(L, 5, 1), (uint32_t)luaL_optinteger(L, 6, 0), swarg(L, 7), err, sizeof err);
  if (i < 0) return fail(L, err);
  const plB_sm_alloc *a = &p->a[i];
  lua_pushnumber(L, a->offset); lua_pushnumber(L, a->size); lua_pushnumber(L, a->stage_bytes);
  lua_pushnumber(L, a->align); lua_pushnumber(L, a->pad);
  return 5;
}
static int l_plan_total(lua_State *L) {  /* plan:total() -> bytes, align, dynamic */
  plB_sm_plan *p = checkplan(L);
  lua_pushnumber(L, p->top); lua_pushnumber(L, p->align); lua_pushboolean(L, plB_sm_dynamic(p));
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
static int l_plan_gc(lua_State *L) { plB_sm_free(checkplan(L)); return 0; }
static int l_plan_tostring(lua_State *L) {
  plB_sm_plan *p = checkplan(L);
  lua_pushfstring(L, "smem plan (%d allocations, %d bytes)", p->n, (int)p->top);
  return 1;
}

int plL_open_smem(lua_State *L, int core) {
  static const luaL_Reg methods[] = {
    {"add", l_plan_add}, {"total", l_plan_total}, {"format", l_plan_format}, {NULL, NULL}
  };
  if (luaL_newmetatable(L, PLAN_MT)) {
    lua_newtable(L);
    luaL_register(L, NULL, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_plan_gc); lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_plan_tostring); lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "smem_plan"); lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
  static const luaL_Reg fns[] = {
    {"smem_swizzle", l_swizzle}, {"smem_swizzle_info", l_swizzle_info}, {"smem_desc_tile", l_desc_tile},
    {"smem_desc_encode", l_desc_encode}, {"smem_desc_check", l_desc_check}, {"smem_desc_decode", l_desc_decode},
    {"smem_limit", l_limit}, {"smem_plan", l_plan_new}, {NULL, NULL}
  };
  for (const luaL_Reg *f = fns; f->name; f++) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, core, f->name);
  }
  return 0;
}
