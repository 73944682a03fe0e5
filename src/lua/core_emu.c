/* core_emu.c -- the emulator's door in ptxlua.core: device memory and launchable kernels as
** userdata. Thin and checked, like core.c: values are converted here, policy lives in
** lua/ptxlua/emu.lua. */
#include <lua.h>
#include <lauxlib.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include "emu.h"
#include "open.h"
#include "driver.h"
#include "smem.h"
#include "num.h"

#define MEM_MT "ptxlua.emu_mem"
#define EMU_MT "ptxlua.emu"

typedef struct LMem {
  plX_mem *m;
} LMem;
typedef struct LEmu {
  plX_emu *e;
} LEmu;

static LMem *checkmem(lua_State *L, int i) {
  LMem *M = (LMem *)luaL_checkudata(L, i, MEM_MT);
  if (!M->m) luaL_argerror(L, i, "device memory is closed");
  return M;
}
static LEmu *checkemu(lua_State *L, int i) {
  LEmu *E = (LEmu *)luaL_checkudata(L, i, EMU_MT);
  if (!E->e) luaL_argerror(L, i, "emulator is closed");
  return E;
}

static int typearg(lua_State *L, int i) {
  size_t n;
  const char *s = luaL_checklstring(L, i, &n);
  if (*s == '.') s++, n--;
  int t = plB_type_from_name(s, n);
  if (!t || t == PLT_PRED || plB_type_info[t].bits < 8 || plB_type_info[t].bits > 64) {
    lua_pushfstring(L, "unsupported element type '%s'", s);
    luaL_argerror(L, i, lua_tostring(L, -1));
  }
  return t;
}

/* a Lua number as the bits of type t (floats rounded to nearest, integers wrapped) */
static uint64_t tobits(lua_State *L, int idx, int t) {
  lua_Number v = lua_tonumber(L, idx);
  int fmt = plX_fp_format(t);
  if (fmt >= 0) return plX_fp_round(fmt, v);
  if (v != floor(v) || !isfinite(v))
    luaL_error(L, "%f is not an integer (element type %s)", v, plB_type_info[t].name);
  if (v < -9223372036854775808.0)
    luaL_error(L, "%f does not fit element type %s", v, plB_type_info[t].name);
  if (v < 0) return (uint64_t)(int64_t)v;
  return v >= 18446744073709551616.0 ? ~0ull : (uint64_t)v;
}

static void pushval(lua_State *L, uint64_t bits, int t) {
  int fmt = plX_fp_format(t);
  int nb = plB_type_info[t].bits;
  uint64_t v = nb >= 64 ? bits : bits & ((1ull << nb) - 1);
  if (fmt >= 0) {
    lua_pushnumber(L, plX_fp_value(fmt, v));
    return;
  }
  if (plB_type_info[t].cls == PLT_CS) {
    int64_t s = nb >= 64 ? (int64_t)v : (int64_t)(v << (64 - nb)) >> (64 - nb);
    lua_pushnumber(L, (lua_Number)s);
  } else
    lua_pushnumber(L, (lua_Number)v);
}

/* ---- device memory
** ------------------------------------------------------------------------------ */
static int l_mem_new(lua_State *L) {
  LMem *M = (LMem *)lua_newuserdata(L, sizeof *M);
  M->m = NULL;
  luaL_getmetatable(L, MEM_MT);
  lua_setmetatable(L, -2);
  M->m = plX_mem_new();
  if (!M->m) return luaL_error(L, "out of memory");
  return 1;
}

static int l_mem_gc(lua_State *L) {
  LMem *M = (LMem *)luaL_checkudata(L, 1, MEM_MT);
  plX_mem_free(M->m);
  M->m = NULL;
  return 0;
}

static int l_mem_alloc(lua_State *L) { /* mem:alloc(bytes [, name]) -> device address */
  LMem *M = checkmem(L, 1);
  lua_Number n = luaL_checknumber(L, 2);
  if (n < 1 || n != floor(n) || n > 1099511627776.0)
    return luaL_argerror(L, 2, "a positive byte count expected");
  uint64_t a = plX_mem_alloc(M->m, (uint64_t)n, luaL_optstring(L, 3, NULL));
  if (!a) return luaL_error(L, "out of memory (device buffer of %f bytes)", n);
  lua_pushnumber(L, (lua_Number)a);
  return 1;
}

static uint8_t *buffer(lua_State *L, LMem *M, int i, uint64_t *size) {
  uint8_t *p = plX_mem_host(M->m, plL_checku64(L, i), size);
  if (!p) luaL_argerror(L, i, "not the address of a device buffer");
  return p;
}

static int l_mem_free(lua_State *L) {
  LMem *M = checkmem(L, 1);
  if (plX_mem_release(M->m, plL_checku64(L, 2)))
    return luaL_argerror(L, 2, "not the address of a device buffer");
  return 0;
}

/* mem:write(addr, type, values [, first index (0-based)]): values a table, or a number for all */
static int l_mem_write(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  uint8_t *p = buffer(L, M, 2, &size);
  int t = typearg(L, 3);
  uint32_t es = plB_type_info[t].bits / 8;
  lua_Number f0 = luaL_optnumber(L, 5, 0);
  if (f0 < 0 || f0 != floor(f0)) return luaL_argerror(L, 5, "a non-negative index expected");
  uint64_t first = (uint64_t)f0;
  uint64_t n = size / es;
  if (lua_type(L, 4) == LUA_TNUMBER) {
    uint64_t b = tobits(L, 4, t);
    for (uint64_t i = first; i < n; i++) memcpy(p + i * es, &b, es);
    return 0;
  }
  luaL_checktype(L, 4, LUA_TTABLE);
  size_t len = lua_objlen(L, 4);
  if (first + len > n)
    return luaL_error(L, "%d values do not fit a buffer of %d %s elements", (int)len, (int)n,
                      plB_type_info[t].name);
  for (size_t i = 0; i < len; i++) {
    lua_rawgeti(L, 4, (int)i + 1);
    if (!lua_isnumber(L, -1)) return luaL_error(L, "value %d is not a number", (int)i + 1);
    uint64_t b = tobits(L, -1, t);
    memcpy(p + (first + i) * es, &b, es);
    lua_pop(L, 1);
  }
  return 0;
}

/* mem:read(addr, type [, first, count]) -> { values } */
static int l_mem_read(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  uint8_t *p = buffer(L, M, 2, &size);
  int t = typearg(L, 3);
  uint32_t es = plB_type_info[t].bits / 8;
  uint64_t n = size / es;
  lua_Number f0 = luaL_optnumber(L, 4, 0);
  if (f0 < 0 || f0 != floor(f0)) return luaL_argerror(L, 4, "a non-negative index expected");
  uint64_t first = (uint64_t)f0;
  lua_Number c0 = luaL_optnumber(L, 5, (lua_Number)(first < n ? n - first : 0));
  if (c0 < 0 || c0 != floor(c0)) return luaL_argerror(L, 5, "a non-negative count expected");
  uint64_t count = (uint64_t)c0;
  if (first + count > n)
    return luaL_error(L, "elements %d..%d are outside the buffer (%d elements)", (int)first,
                      (int)(first + count - 1), (int)n);
  lua_createtable(L, (int)count, 0);
  for (uint64_t i = 0; i < count; i++) {
    uint64_t b = 0;
    memcpy(&b, p + (first + i) * es, es);
    pushval(L, b, t);
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

static int l_mem_size(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  buffer(L, M, 2, &size);
  lua_pushnumber(L, (lua_Number)size);
  return 1;
}

/* mem:bytes(addr) -> string; mem:bytes(addr, string) writes */
static int l_mem_bytes(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  uint8_t *p = buffer(L, M, 2, &size);
  if (lua_isnoneornil(L, 3)) {
    lua_pushlstring(L, (const char *)p, (size_t)size);
    return 1;
  }
  size_t n;
  const char *s = luaL_checklstring(L, 3, &n);
  if (n > size) return luaL_argerror(L, 3, "longer than the buffer");
  memcpy(p, s, n);
  return 0;
}

/* mem:fill_random(addr, type, seed): deterministic values, [-1, 1) for floats and [0, 100) for
** integers (the Park-Miller generator: the same values on every machine) */
static int l_mem_random(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  uint8_t *p = buffer(L, M, 2, &size);
  int t = typearg(L, 3);
  uint64_t st = (uint64_t)luaL_optnumber(L, 4, 12345) % 2147483647u;
  if (st == 0) st = 1;
  uint32_t es = plB_type_info[t].bits / 8;
  int fmt = plX_fp_format(t);
  for (uint64_t i = 0; i + es <= size; i += es) {
    st = st * 48271u % 2147483647u;
    double u = (double)st / 2147483647.0;
    uint64_t b = fmt >= 0 ? plX_fp_round(fmt, u * 2 - 1) : (uint64_t)floor(u * 100);
    memcpy(p + i, &b, es);
  }
  return 0;
}

/* mem:stats(addr, type) -> { n, min, max, sum, nan, inf } over the finite values */
static int l_mem_stats(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  uint8_t *p = buffer(L, M, 2, &size);
  int t = typearg(L, 3);
  uint32_t es = plB_type_info[t].bits / 8;
  int fmt = plX_fp_format(t), cls = plB_type_info[t].cls, nb = plB_type_info[t].bits;
  double mn = INFINITY, mx = -INFINITY, sum = 0;
  uint64_t nan = 0, inf = 0, n = size / es;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t b = 0;
    memcpy(&b, p + i * es, es);
    double v;
    if (fmt >= 0)
      v = plX_fp_value(fmt, b);
    else if (cls == PLT_CS)
      v = (double)(nb >= 64 ? (int64_t)b : (int64_t)(b << (64 - nb)) >> (64 - nb));
    else
      v = (double)b;
    if (v != v) {
      nan++;
      continue;
    }
    if (isinf(v)) {
      inf++;
      continue;
    }
    if (v < mn) mn = v;
    if (v > mx) mx = v;
    sum += v;
  }
  lua_createtable(L, 0, 6);
  lua_pushnumber(L, (lua_Number)n);
  lua_setfield(L, -2, "n");
  lua_pushnumber(L, mn);
  lua_setfield(L, -2, "min");
  lua_pushnumber(L, mx);
  lua_setfield(L, -2, "max");
  lua_pushnumber(L, sum);
  lua_setfield(L, -2, "sum");
  lua_pushnumber(L, (lua_Number)nan);
  lua_setfield(L, -2, "nan");
  lua_pushnumber(L, (lua_Number)inf);
  lua_setfield(L, -2, "inf");
  return 1;
}

/* mem:hash(addr) -> a 64-bit FNV-1a hash of the buffer's bytes, as a hex string */
static int l_mem_hash(lua_State *L) {
  LMem *M = checkmem(L, 1);
  uint64_t size;
  uint8_t *p = buffer(L, M, 2, &size);
  uint64_t h = 1469598103934665603ull;
  for (uint64_t i = 0; i < size; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  char out[24];
  snprintf(out, sizeof out, "%016llx", (unsigned long long)h);
  lua_pushstring(L, out);
  return 1;
}

/* core.fp_bits(x, type) -> the bits of the Lua number x in a floating-point type (f16, bf16, tf32,
** f32, e4m3, e5m2), rounded to nearest even as the emulator rounds (one rounding, from the
** exact value); a NaN is the canonical quiet one of the format (sign 0, the top fraction bit) */
static int l_fp_bits(lua_State *L) {
  double x = luaL_checknumber(L, 1);
  int t = typearg(L, 2);
  int f = plX_fp_format(t);
  if (f < 0 || f == PLX_FP_F64)
    return luaL_argerror(L, 2, "a floating-point type of at most 32 bits expected");
  uint64_t b;
  if (x != x) {
    static const uint64_t QNAN[] = { 0x7e00, 0x7fc0, 0x7fc00000, 0x7fc00000, 0, 0x7f, 0x7e };
    b = QNAN[f];
  } else
    b = plX_fp_round(f, x);
  lua_pushnumber(L, (lua_Number)b);
  return 1;
}

/* core.emu_pack(type, number) -> the bytes of a parameter value */
static int l_pack(lua_State *L) {
  int t = typearg(L, 1);
  luaL_checknumber(L, 2);
  uint64_t b = tobits(L, 2, t);
  lua_pushlstring(L, (const char *)&b, plB_type_info[t].bits / 8);
  return 1;
}

/* ---- kernels
** -------------------------------------------------------------------------------------- */
/* core.emu(module, kernel name, mem) -> emulator (keeps the module and the memory alive) */
static int l_emu_new(lua_State *L) {
  plI_module *m = plL_tomodule(L, 1);
  if (!m) return luaL_argerror(L, 1, "a ptxlua.module expected");
  const char *name = luaL_checkstring(L, 2);
  LMem *M = checkmem(L, 3);
  int fi = -1;
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (strcmp(plI_cstr(m, m->funcs.p[i].name), name) == 0 && !m->funcs.p[i].declared_only)
      fi = (int)i;
  if (fi < 0) return luaL_error(L, "error: the module has no kernel '%s'", name);
  LEmu *E = (LEmu *)lua_newuserdata(L, sizeof *E);
  E->e = NULL;
  luaL_getmetatable(L, EMU_MT);
  lua_setmetatable(L, -2);
  lua_createtable(L, 2, 0); /* what the emulator points into */
  lua_pushvalue(L, 1);
  lua_rawseti(L, -2, 1);
  lua_pushvalue(L, 3);
  lua_rawseti(L, -2, 2);
  lua_setfenv(L, -2);
  E->e = plX_new(m, fi, M->m);
  if (!E->e) return luaL_error(L, "out of memory");
  return 1;
}

static int l_emu_gc(lua_State *L) {
  LEmu *E = (LEmu *)luaL_checkudata(L, 1, EMU_MT);
  plX_free(E->e);
  E->e = NULL;
  return 0;
}

static int l_emu_error(lua_State *L) { /* emu:error() -> message | nil */
  LEmu *E = checkemu(L, 1);
  if (!plX_status(E->e)) return 0;
  lua_pushstring(L, plX_error(E->e));
  return 1;
}

static int l_emu_params(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  int n = plX_param_count(E->e);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    plX_param p;
    plX_param_info(E->e, i, &p);
    lua_createtable(L, 0, 5);
    lua_pushstring(L, p.name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, plB_type_info[p.type].name);
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, (lua_Integer)p.size);
    lua_setfield(L, -2, "size");
    lua_pushinteger(L, (lua_Integer)p.offset);
    lua_setfield(L, -2, "offset");
    lua_pushinteger(L, (lua_Integer)p.align);
    lua_setfield(L, -2, "align");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int result(lua_State *L, plX_emu *e) {
  if (!plX_status(e)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushnil(L);
  lua_pushstring(L, plX_error(e));
  return 2;
}

/* emu:set_param(i (1-based), bytes) -> true | nil, err */
static int l_emu_set_param(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  int i = (int)plL_checkrange(L, 2, 1, 1 << 20);
  size_t n;
  const char *s = luaL_checklstring(L, 3, &n);
  plX_set_param(E->e, i - 1, s, n);
  return result(L, E->e);
}

static void dim3_upto(lua_State *L, int i, uint32_t d[3], lua_Number max) {
  luaL_checktype(L, i, LUA_TTABLE);
  for (int k = 0; k < 3; k++) {
    lua_rawgeti(L, i, k + 1);
    lua_Number v = lua_isnil(L, -1) ? 1 : lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (v < 1 || v != floor(v) || v > max)
      luaL_argerror(L, i, "dimensions must be positive integers");
    d[k] = (uint32_t)v;
  }
}
static void dim3(lua_State *L, int i, uint32_t d[3]) {
  dim3_upto(L, i, d, 2147483647.0);
}

/* core.launch_check(grid, block [, cluster]) -> nil | the reason the device would refuse it */
static int l_launch_check(lua_State *L) {
  uint32_t g[3], b[3], c[3];
  dim3_upto(L, 1, g, 4294967295.0);
  dim3_upto(L, 2, b, 4294967295.0);
  int has_c = !lua_isnoneornil(L, 3);
  if (has_c) dim3_upto(L, 3, c, 4294967295.0);
  char err[256];
  if (!plX_geometry_check(g, b, has_c ? c : NULL, err, sizeof err)) return 0;
  lua_pushstring(L, err);
  return 1;
}

/* emu:launch(grid, block, dynamic smem bytes) -> true | nil, err */
static int l_emu_launch(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  uint32_t g[3], b[3];
  dim3(L, 2, g);
  dim3(L, 3, b);
  lua_Number dyn = luaL_optnumber(L, 4, 0);
  if (dyn < 0 || dyn != floor(dyn) || dyn > 4294967295.0)
    return luaL_argerror(L, 4, "a byte count expected");
  plX_set_launch(E->e, g, b, (uint32_t)dyn);
  return result(L, E->e);
}

/* emu:cluster({x, y, z} | nil) -> true | nil, err (after launch: nil keeps the kernel's default) */
static int l_emu_cluster(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  if (lua_isnoneornil(L, 2)) {
    plX_set_cluster(E->e, NULL);
    return result(L, E->e);
  }
  uint32_t c[3];
  dim3(L, 2, c);
  plX_set_cluster(E->e, c);
  return result(L, E->e);
}

static int u64list(lua_State *L, int i, uint64_t *out, int max, const char *what) {
  if (lua_isnoneornil(L, i)) return 0;
  luaL_checktype(L, i, LUA_TTABLE);
  int n = (int)lua_objlen(L, i);
  if (n > max) return luaL_error(L, "tensor map: more than %d %s", max, what);
  for (int k = 0; k < n; k++) {
    lua_rawgeti(L, i, k + 1);
    lua_Number v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!(v >= 0 && v < 18446744073709551616.0 && v == floor(v)))
      return luaL_error(L, "tensor map: %s[%d] must be a non-negative integer", what, k + 1);
    out[k] = (uint64_t)v;
  }
  return n;
}

/* mem:tensormap(dtype, addr, dims, strides (rank-1, bytes), box, element_strides|nil, swizzle)
** -> 128 bytes | nil, err */
static int l_mem_tensormap(lua_State *L) {
  LMem *M = checkmem(L, 1);
  int dt = plB_tmap_dtype(luaL_checkstring(L, 2));
  if (dt < 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "tensor map: element type '%s' (u8 .. f64, bf16, tf32)", lua_tostring(L, 2));
    return 2;
  }
  uint64_t addr = plL_checku64(L, 3);
  uint64_t dims[5], strides[5], box64[5], es64[5] = { 1, 1, 1, 1, 1 };
  int rank = u64list(L, 4, dims, 5, "dims");
  int ns = u64list(L, 5, strides, 4, "strides");
  int nb = u64list(L, 6, box64, 5, "box sizes");
  int ne = lua_isnoneornil(L, 7) ? rank : u64list(L, 7, es64, 5, "element strides");
  int sw = plB_sm_swizzle_parse(luaL_optstring(L, 8, "none"));
  if (sw < 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "tensor map: swizzle '%s' (none, 32B, 64B, 128B)", lua_tostring(L, 8));
    return 2;
  }
  if (rank < 1 || ns != rank - 1 || nb != rank || ne != rank) {
    lua_pushnil(L);
    lua_pushfstring(
        L,
        "tensor map: %d dims need %d strides, %d box sizes and %d element strides (got %d, %d, %d)",
        rank, rank > 0 ? rank - 1 : 0, rank, rank, ns, nb, ne);
    return 2;
  }
  uint32_t box[5], es[5];
  for (int i = 0; i < rank; i++) {
    box[i] = box64[i] > 0xffffffffu ? 0xffffffffu : (uint32_t)box64[i];
    es[i] = es64[i] > 0xffffffffu ? 0xffffffffu : (uint32_t)es64[i];
  }
  uint8_t out[128];
  char err[256];
  if (plX_tensormap(M->m, out, dt, rank, addr, dims, strides, box, es, sw, err, sizeof err)) {
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushlstring(L, (const char *)out, 128);
  return 1;
}

/* mem:tensormap_im2col(dtype, addr, dims, strides, lower, upper, channels_per_pixel,
** pixels_per_column, element_strides|nil, interleave, swizzle, l2_promotion, oob_fill) -> 128
** bytes | nil, err */
static int l_mem_tensormap_im2col(lua_State *L) {
  LMem *M = checkmem(L, 1);
  int dt = plB_tmap_dtype(luaL_checkstring(L, 2));
  if (dt < 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "tensor map: element type '%s' (u8 .. f64, bf16, tf32)", lua_tostring(L, 2));
    return 2;
  }
  uint64_t addr = plL_checku64(L, 3);
  uint64_t dims[5], strides[5], es64[5] = { 1, 1, 1, 1, 1 };
  int32_t lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
  int rank = u64list(L, 4, dims, 5, "dims");
  int ns = u64list(L, 5, strides, 4, "strides");
  int nc[2];
  for (int c = 0; c < 2; c++) {
    int i = 6 + c;
    luaL_checktype(L, i, LUA_TTABLE);
    nc[c] = (int)lua_objlen(L, i);
    if (nc[c] > 3) return luaL_error(L, "tensor map: more than 3 pixel box corner coordinates");
    for (int k = 0; k < nc[c]; k++) {
      lua_rawgeti(L, i, k + 1);
      lua_Number v = lua_tonumber(L, -1);
      lua_pop(L, 1);
      if (v != floor(v) || v < -2147483648.0 || v > 2147483647.0)
        return luaL_error(L, "tensor map: %s_corner[%d] must be an integer", c ? "upper" : "lower",
                          k + 1);
      (c ? hi : lo)[k] = (int32_t)v;
    }
  }
  lua_Number cpp = luaL_checknumber(L, 8), ppc = luaL_checknumber(L, 9);
  int ne = lua_isnoneornil(L, 10) ? rank : u64list(L, 10, es64, 5, "element strides");
  int il = plB_tmap_interleave(luaL_optstring(L, 11, "none"));
  int sw = plB_sm_swizzle_parse(luaL_optstring(L, 12, "none"));
  int l2 = plB_tmap_l2promotion(luaL_optstring(L, 13, "128B"));
  int oob = plB_tmap_oobfill(luaL_optstring(L, 14, "zero"));
  const char *bad = il < 0    ? "interleave (none, 16B, 32B)"
                    : sw < 0  ? "swizzle (none, 32B, 64B, 128B)"
                    : l2 < 0  ? "l2_promotion (none, 64B, 128B, 256B)"
                    : oob < 0 ? "oob_fill (zero, nan)"
                              : NULL;
  if (bad) {
    lua_pushnil(L);
    lua_pushfstring(L, "tensor map: unknown %s", bad);
    return 2;
  }
  if (rank < 3 || rank > 5) {
    lua_pushnil(L);
    lua_pushfstring(L, "tensor map: an im2col map has rank 3, 4 or 5 (NWC, NHWC, NDHWC), not %d",
                    rank);
    return 2;
  }
  if (ns != rank - 1 || nc[0] != rank - 2 || nc[1] != rank - 2 || ne != rank) {
    lua_pushnil(L);
    lua_pushfstring(L,
                    "tensor map: an im2col map of %d dims needs %d strides, %d lower and %d upper "
                    "corner coordinates and %d element "
                    "strides (got %d, %d, %d, %d)",
                    rank, rank - 1, rank - 2, rank - 2, rank, ns, nc[0], nc[1], ne);
    return 2;
  }
  if (cpp != floor(cpp) || ppc != floor(ppc) || cpp < 0 || ppc < 0 || cpp > 4294967295.0 ||
      ppc > 4294967295.0) {
    lua_pushnil(L);
    lua_pushstring(
        L, "tensor map: channels_per_pixel and pixels_per_column must be non-negative integers");
    return 2;
  }
  uint32_t es[5];
  for (int i = 0; i < rank; i++) es[i] = es64[i] > 0xffffffffu ? 0xffffffffu : (uint32_t)es64[i];
  uint8_t out[128];
  char err[256];
  if (plX_tensormap_im2col(M->m, out, dt, rank, addr, dims, strides, lo, hi, (uint32_t)cpp,
                           (uint32_t)ppc, es, il, sw, l2, oob, err, sizeof err)) {
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushlstring(L, (const char *)out, 128);
  return 1;
}

/* emu:options{uninit_regs=, uninit_shared=, races=, tmem_lanes=, limit=, sample=, clc=,
** trace={cta, thread}}; limit: warp instructions (0: none; nil: PLX_LIMIT_DEFAULT), sample: the
** clusters to run (nil, 0: all), clc: "all" (nil), "none" or "alternate" (plX_set_clc) */
static int l_emu_options(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  unsigned f = 0;
  lua_getfield(L, 2, "uninit_regs");
  if (lua_toboolean(L, -1)) f |= PLX_CHECK_UNINIT_REGS;
  lua_pop(L, 1);
  lua_getfield(L, 2, "uninit_shared");
  if (lua_toboolean(L, -1)) f |= PLX_CHECK_UNINIT_SHARED;
  lua_pop(L, 1);
  lua_getfield(L, 2, "races");
  if (lua_toboolean(L, -1)) f |= PLX_CHECK_RACES;
  lua_pop(L, 1);
  lua_getfield(L, 2, "tmem_lanes");
  if (lua_toboolean(L, -1)) f |= PLX_CHECK_TMEM_LANES;
  lua_pop(L, 1);
  plX_set_checks(E->e, f);
  lua_getfield(L, 2, "limit");
  plX_set_limit(E->e, lua_isnil(L, -1) ? PLX_LIMIT_DEFAULT : plL_checku64(L, -1));
  lua_pop(L, 1);
  lua_getfield(L, 2, "sample");
  plX_set_sample(E->e, lua_isnil(L, -1) ? 0 : plL_checku64(L, -1));
  lua_pop(L, 1);
  lua_getfield(L, 2, "clc"); /* cluster launch control: "all" (nil), "none", "alternate" */
  {
    const char *c = lua_isnil(L, -1) ? "all" : luaL_checkstring(L, -1);
    int mode = !strcmp(c, "all")         ? PLX_CLC_ALL
               : !strcmp(c, "none")      ? PLX_CLC_NONE
               : !strcmp(c, "alternate") ? PLX_CLC_ALTERNATE
                                         : -1;
    if (mode < 0)
      return luaL_error(L, "clc must be \"all\", \"none\" or \"alternate\" (got '%s')", c);
    plX_set_clc(E->e, mode);
  }
  lua_pop(L, 1);
  lua_getfield(L, 2, "trace");
  if (lua_istable(L, -1)) { /* { cta, thread [, whole warp] } */
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    lua_rawgeti(L, -3, 3);
    plX_set_trace(E->e, plL_checki64(L, -3), plL_checki64(L, -2), lua_toboolean(L, -1));
    lua_pop(L, 3);
  } else
    plX_set_trace(E->e, -1, -1, 0);
  lua_pop(L, 1);
  return 0;
}

/* emu:region(var, name, offset, stage_bytes, bytes, stages) -> true | nil: an allocation of a
** shared-memory plan, which copies into shared memory must stay inside (plX_add_region) */
static int l_emu_region(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  const char *var = luaL_checkstring(L, 2), *name = luaL_checkstring(L, 3);
  uint64_t v[4];
  for (int i = 0; i < 4; i++) {
    v[i] = plL_checku64(L, 4 + i);
    if (v[i] > 0xffffffffu) {
      lua_pushnil(L);
      return 1;
    }
  }
  int rc = plX_add_region(E->e, var, name, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2],
                          (uint32_t)v[3]); /* offset, stride, bytes, stages */
  if (rc)
    lua_pushnil(L);
  else
    lua_pushboolean(L, 1);
  return 1;
}

static int l_emu_run(lua_State *L) { /* emu:run() -> true | nil, "file:line: error: ..." */
  LEmu *E = checkemu(L, 1);
  plX_run(E->e);
  return result(L, E->e);
}

static int l_emu_clear(lua_State *L) {
  plX_clear(checkemu(L, 1)->e);
  return 0;
}

static int l_emu_stats(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  plX_stats s;
  plX_get_stats(E->e, &s);
  lua_createtable(L, 0, 3);
  lua_pushnumber(L, (lua_Number)s.thread_insns);
  lua_setfield(L, -2, "thread_insns");
  lua_pushnumber(L, (lua_Number)s.warp_insns);
  lua_setfield(L, -2, "warp_insns");
  lua_pushnumber(L, (lua_Number)s.ctas);
  lua_setfield(L, -2, "ctas");
  lua_pushnumber(L, (lua_Number)s.canceled);
  lua_setfield(L, -2, "canceled");
  return 1;
}

static int l_emu_trace(lua_State *L) {
  LEmu *E = checkemu(L, 1);
  size_t n;
  const char *s = plX_trace_text(E->e, &n);
  lua_pushlstring(L, s, n);
  return 1;
}

/* ---- registration
** ------------------------------------------------------------------------------- */
static const luaL_Reg mem_methods[] = { { "alloc", l_mem_alloc },
                                        { "free", l_mem_free },
                                        { "write", l_mem_write },
                                        { "read", l_mem_read },
                                        { "size", l_mem_size },
                                        { "bytes", l_mem_bytes },
                                        { "fill_random", l_mem_random },
                                        { "stats", l_mem_stats },
                                        { "hash", l_mem_hash },
                                        { "tensormap", l_mem_tensormap },
                                        { "tensormap_im2col", l_mem_tensormap_im2col },
                                        { NULL, NULL } };
static const luaL_Reg emu_methods[] = {
  { "params", l_emu_params },    { "set_param", l_emu_set_param },
  { "launch", l_emu_launch },    { "options", l_emu_options },
  { "run", l_emu_run },          { "error", l_emu_error },
  { "clear", l_emu_clear },      { "stats", l_emu_stats },
  { "trace_text", l_emu_trace }, { "cluster", l_emu_cluster },
  { "region", l_emu_region },    { NULL, NULL }
};

static void newmt(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc) {
  luaL_newmetatable(L, name);
  lua_newtable(L);
  for (const luaL_Reg *r = methods; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, -2, r->name);
  }
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
}

/* adds emu_mem, emu, emu_pack to the core table at index `core` */
int plL_open_emu(lua_State *L, int core) {
  core = core < 0 ? lua_gettop(L) + core + 1 : core;
  newmt(L, MEM_MT, mem_methods, l_mem_gc);
  newmt(L, EMU_MT, emu_methods, l_emu_gc);
  lua_pushcfunction(L, l_mem_new);
  lua_setfield(L, core, "emu_mem");
  lua_pushcfunction(L, l_emu_new);
  lua_setfield(L, core, "emu");
  lua_pushcfunction(L, l_pack);
  lua_setfield(L, core, "emu_pack");
  lua_pushcfunction(L, l_fp_bits);
  lua_setfield(L, core, "fp_bits");
  lua_pushcfunction(L, l_launch_check);
  lua_setfield(L, core, "launch_check");
  lua_pushnumber(L, (lua_Number)PLX_LIMIT_DEFAULT);
  lua_setfield(L, core, "emu_limit_default");
  return 0;
}
