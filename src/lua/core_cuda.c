/* core_cuda.c -- the runtime's functions in ptxlua.core: assembling (compile.c) and the CUDA
** driver (driver.c). Thin and checked; the policy (argument packing, devices, arrays) is in
** ptxlua/cuda.lua. Driver failures return nil, message; argument mistakes raise. */
#include <lua.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include "compile.h"
#include "driver.h"
#include "num.h"

static int nil_err(lua_State *L, const char *msg) {
  lua_pushnil(L);
  lua_pushstring(L, msg);
  return 2;
}

/* core.compile(ptx, arch [, { no_cache =, ptxas =, options =, key = }]) -> result table | nil,
** err */
static int l_compile(lua_State *L) {
  size_t n;
  const char *ptx = luaL_checklstring(L, 1, &n);
  plC_opts o = { luaL_checkstring(L, 2), 0, NULL, NULL };
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "no_cache");
    if (lua_toboolean(L, -1)) o.flags |= PLC_NO_CACHE;
    lua_pop(L, 1);
    lua_getfield(L, 3, "ptxas");
    if (lua_toboolean(L, -1)) o.flags |= PLC_FORCE_PTXAS;
    lua_pop(L, 1);
    /* kept alive by the table */
    lua_getfield(L, 3, "options");
    o.extra = lua_tostring(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 3, "key");
    o.key_extra = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  plC_result r;
  char err[2048];
  if (plC_compile(ptx, n, &o, &r, err, sizeof err)) return nil_err(L, err);
  lua_createtable(L, 0, 8);
  lua_pushboolean(L, r.ok);
  lua_setfield(L, -2, "ok");
  if (r.ok) {
    lua_pushlstring(L, (const char *)r.cubin, r.cubin_len);
    lua_setfield(L, -2, "cubin");
  }
  lua_pushstring(L, r.log ? r.log : "");
  lua_setfield(L, -2, "log");
  lua_pushstring(L, r.via);
  lua_setfield(L, -2, "via");
  lua_pushboolean(L, r.cached);
  lua_setfield(L, -2, "cached");
  lua_pushstring(L, r.key);
  lua_setfield(L, -2, "key");
  lua_createtable(L, r.nf, 0);
  for (int i = 0; i < r.nf; i++) {
    plC_func *f = &r.f[i];
    lua_createtable(L, 0, 8);
    lua_pushstring(L, f->name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, f->regs);
    lua_setfield(L, -2, "registers");
    lua_pushinteger(L, f->barriers);
    lua_setfield(L, -2, "barriers");
    lua_pushnumber(L, (lua_Number)f->smem);
    lua_setfield(L, -2, "smem_static");
    lua_pushnumber(L, (lua_Number)f->stack);
    lua_setfield(L, -2, "stack_frame");
    lua_pushnumber(L, (lua_Number)f->spill_st);
    lua_setfield(L, -2, "spill_stores");
    lua_pushnumber(L, (lua_Number)f->spill_ld);
    lua_setfield(L, -2, "spill_loads");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "funcs");
  lua_createtable(L, r.nd, 0);
  for (int i = 0; i < r.nd; i++) {
    plC_diag *d = &r.d[i];
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, d->line);
    lua_setfield(L, -2, "ptx_line");
    lua_pushboolean(L, d->error);
    lua_setfield(L, -2, "error");
    lua_pushstring(L, d->func);
    lua_setfield(L, -2, "func");
    lua_pushstring(L, d->msg);
    lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "diagnostics");
  plC_result_free(&r);
  return 1;
}

/* core.ptx_anchor(ptx, line) -> file, line | nil; core.ptx_func_at(ptx, line) -> name */
static int l_anchor(lua_State *L) {
  const char *ptx = luaL_checkstring(L, 1);
  char file[1024];
  int line;
  if (!plC_anchor_of(ptx, (int)luaL_checkinteger(L, 2), file, sizeof file, &line)) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushstring(L, file);
  lua_pushinteger(L, line);
  return 2;
}
static int l_func_at(lua_State *L) {
  char name[256];
  plC_func_at(luaL_checkstring(L, 1), (int)luaL_checkinteger(L, 2), name, sizeof name);
  lua_pushstring(L, name);
  return 1;
}

static int l_toolkit(lua_State *L) {
  const plC_toolkit *t = plC_toolkit_get();
  lua_createtable(L, 0, 6);
  lua_pushstring(L, t->ptxas);
  lua_setfield(L, -2, "ptxas");
  lua_pushstring(L, t->ptxas_version);
  lua_setfield(L, -2, "ptxas_version");
  lua_pushstring(L, t->nvjitlink);
  lua_setfield(L, -2, "nvjitlink");
  lua_pushfstring(L, "%d.%d", t->nvj_major, t->nvj_minor);
  lua_setfield(L, -2, "nvjitlink_version");
  return 1;
}

#define ERRBUF     \
  char err[16384]; \
  err[0] = 0
#define TRY(call) \
  if ((call) != 0) return nil_err(L, err)

/* core.cuda_arch(target, major, minor) -> the arch to assemble for | nil, why */
static int l_arch(lua_State *L) {
  char arch[64], err[256];
  if (plC_cubin_arch(luaL_checkstring(L, 1), (int)luaL_checkinteger(L, 2),
                     (int)luaL_checkinteger(L, 3), arch, sizeof arch, err, sizeof err))
    return nil_err(L, err);
  lua_pushstring(L, arch);
  return 1;
}

static int l_init(lua_State *L) {
  ERRBUF;
  TRY(plC_init(err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}

static int l_native_arch(lua_State *L) { /* -> "sm_90a" | nil, why */
  ERRBUF;
  char arch[32];
  TRY(plC_native_arch(arch, sizeof arch, err, sizeof err));
  lua_pushstring(L, arch);
  return 1;
}

static int l_device(lua_State *L) { /* -> { ctx, name, cc_major, cc_minor, sm_count, driver } */
  ERRBUF;
  plC_device d;
  TRY(plC_device_open((int)luaL_checkinteger(L, 1), &d, err, sizeof err));
  int v = 0;
  plC_driver_version(&v, err, sizeof err);
  lua_createtable(L, 0, 6);
  lua_pushlightuserdata(L, d.ctx);
  lua_setfield(L, -2, "ctx");
  lua_pushinteger(L, d.dev);
  lua_setfield(L, -2, "dev");
  lua_pushstring(L, d.name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, d.cc_major);
  lua_setfield(L, -2, "cc_major");
  lua_pushinteger(L, d.cc_minor);
  lua_setfield(L, -2, "cc_minor");
  lua_pushinteger(L, d.sm_count);
  lua_setfield(L, -2, "sm_count");
  lua_pushinteger(L, v);
  lua_setfield(L, -2, "driver");
  return 1;
}

static void *checkptr(lua_State *L, int i) {
  if (!lua_islightuserdata(L, i)) luaL_argerror(L, i, "a driver handle expected");
  return lua_touserdata(L, i);
}

static int l_current(lua_State *L) {
  ERRBUF;
  TRY(plC_make_current(checkptr(L, 1), err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}

static int l_module(lua_State *L) { /* (image, is_ptx) -> module */
  ERRBUF;
  size_t n;
  const char *img = luaL_checklstring(L, 1, &n);
  void *m = NULL;
  TRY(plC_module_load(img, n, lua_toboolean(L, 2), &m, err, sizeof err));
  lua_pushlightuserdata(L, m);
  return 1;
}
static int l_unload(lua_State *L) {
  plC_module_unload(checkptr(L, 1));
  return 0;
}
static int l_function(lua_State *L) {
  ERRBUF;
  void *f = NULL;
  TRY(plC_function(checkptr(L, 1), luaL_checkstring(L, 2), &f, err, sizeof err));
  lua_pushlightuserdata(L, f);
  return 1;
}
/* core.cuda_func_cluster(fn) -> x, y, z of the cluster the function was compiled for (0s: none) */
static int l_func_cluster(lua_State *L) {
  ERRBUF;
  unsigned c[3];
  TRY(plC_function_cluster(checkptr(L, 1), c, err, sizeof err));
  for (int i = 0; i < 3; i++) lua_pushinteger(L, c[i]);
  return 3;
}
static int l_set_smem(lua_State *L) {
  ERRBUF;
  TRY(plC_set_dynamic_smem(checkptr(L, 1), (int)luaL_checkinteger(L, 2), err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}

static void dims3(lua_State *L, int i, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  if (lua_isnoneornil(L, i)) return;
  luaL_checktype(L, i, LUA_TTABLE);
  for (int k = 0; k < 3; k++) {
    lua_rawgeti(L, i, k + 1);
    if (lua_isnumber(L, -1)) d[k] = (unsigned)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
}

/* (fn, grid, block, cluster, smem, stream|nil, { bytes of each parameter }) */
static int l_launch(lua_State *L) {
  ERRBUF;
  void *fn = checkptr(L, 1);
  unsigned g[3], b[3], c[3];
  dims3(L, 2, g);
  dims3(L, 3, b);
  dims3(L, 4, c);
  unsigned smem = (unsigned)luaL_optinteger(L, 5, 0);
  void *stream = lua_islightuserdata(L, 6) ? lua_touserdata(L, 6) : NULL;
  luaL_checktype(L, 7, LUA_TTABLE);
  int np = (int)lua_objlen(L, 7);
  if (np > 256) return luaL_error(L, "too many parameters (%d)", np);
  void *params[256];
  _Alignas(64) uint8_t store[64 * 128]; /* on the stack: a module must not use static TLS */
  size_t off = 0;
  for (int i = 0; i < np; i++) {
    lua_rawgeti(L, 7, i + 1);
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (!s) return luaL_error(L, "parameter %d: bytes expected", i + 1);
    off = (off + 63) & ~(size_t)63;
    if (off + n > sizeof store) return luaL_error(L, "parameters too large");
    memcpy(store + off, s, n);
    params[i] = store + off;
    off += n;
    lua_pop(L, 1);
  }
  TRY(plC_launch(fn, g, b, c, smem, stream, params, err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}

static int l_alloc(lua_State *L) {
  ERRBUF;
  uint64_t p = 0;
  TRY(plC_alloc(&p, (size_t)plL_checku64(L, 1), err, sizeof err));
  lua_pushnumber(L, (lua_Number)p);
  return 1;
}
static int l_free(lua_State *L) {
  plC_free(plL_checku64(L, 1));
  return 0;
}
static int l_htod(lua_State *L) {
  ERRBUF;
  size_t n;
  const char *s = luaL_checklstring(L, 2, &n);
  TRY(plC_htod(plL_checku64(L, 1), s, n, err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_dtoh(lua_State *L) {
  ERRBUF;
  size_t n = (size_t)plL_checku64(L, 2);
  if (n > ((size_t)1 << 40)) return luaL_argerror(L, 2, "more bytes than a device holds");
  char *buf = malloc(n ? n : 1);
  if (!buf) return luaL_error(L, "out of memory");
  if (plC_dtoh(buf, plL_checku64(L, 1), n, err, sizeof err)) {
    free(buf);
    return nil_err(L, err);
  }
  lua_pushlstring(L, buf, n);
  free(buf);
  return 1;
}
/* host memory by address (LuaJIT ffi buffers: tonumber(ffi.cast("uintptr_t", p))), no Lua
** string: core.cuda_htod_ptr(dst, host, n), core.cuda_dtoh_ptr(host, src, n),
** core.cuda_dtod(dst, src, n) */
static void *hostptr(lua_State *L, int i) {
  lua_Number v = luaL_checknumber(L, i);
  if (v <= 0) luaL_argerror(L, i, "a host address expected");
  return (void *)(uintptr_t)v;
}
static int l_htod_ptr(lua_State *L) {
  ERRBUF;
  TRY(plC_htod(plL_checku64(L, 1), hostptr(L, 2), (size_t)plL_checku64(L, 3), err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_dtoh_ptr(lua_State *L) {
  ERRBUF;
  TRY(plC_dtoh(hostptr(L, 1), plL_checku64(L, 2), (size_t)plL_checku64(L, 3), err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_dtod(lua_State *L) {
  ERRBUF;
  TRY(plC_dtod(plL_checku64(L, 1), plL_checku64(L, 2), (size_t)plL_checku64(L, 3), err,
               sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_sync(lua_State *L) {
  ERRBUF;
  TRY(plC_sync(err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_event(lua_State *L) {
  ERRBUF;
  void *e = NULL;
  TRY(plC_event_create(&e, err, sizeof err));
  lua_pushlightuserdata(L, e);
  return 1;
}
static int l_record(lua_State *L) {
  ERRBUF;
  TRY(plC_event_record(checkptr(L, 1), lua_islightuserdata(L, 2) ? lua_touserdata(L, 2) : NULL, err,
                       sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_elapsed(lua_State *L) {
  ERRBUF;
  float ms = 0;
  TRY(plC_event_elapsed(&ms, checkptr(L, 1), checkptr(L, 2), err, sizeof err));
  lua_pushnumber(L, ms);
  return 1;
}
static int l_event_free(lua_State *L) {
  plC_event_destroy(checkptr(L, 1));
  return 0;
}
static int l_stream(lua_State *L) {
  ERRBUF;
  void *s = NULL;
  TRY(plC_stream_create(&s, err, sizeof err));
  lua_pushlightuserdata(L, s);
  return 1;
}
static int l_stream_sync(lua_State *L) {
  ERRBUF;
  TRY(plC_stream_sync(checkptr(L, 1), err, sizeof err));
  lua_pushboolean(L, 1);
  return 1;
}
static int l_stream_free(lua_State *L) {
  plC_stream_destroy(checkptr(L, 1));
  return 0;
}

static int u64list(lua_State *L, int i, uint64_t *out, int max) {
  luaL_checktype(L, i, LUA_TTABLE);
  int n = (int)lua_objlen(L, i);
  if (n > max) luaL_argerror(L, i, "too many entries");
  for (int k = 0; k < n; k++) {
    lua_rawgeti(L, i, k + 1);
    out[k] = plL_checku64(L, -1);
    lua_pop(L, 1);
  }
  return n;
}

/* (dtype, addr, dims, strides_bytes (rank-1), box, elem_strides|nil, swizzle) -> 128 bytes */
static int l_tensormap(lua_State *L) {
  ERRBUF;
  int dt = plB_tmap_dtype(luaL_checkstring(L, 1));
  if (dt < 0)
    return luaL_argerror(L, 1, "a tensor map element type expected (u8 .. f64, bf16, tf32)");
  uint64_t addr = plL_checku64(L, 2);
  uint64_t dims[5], strides[5], boxv[5], es[5] = { 1, 1, 1, 1, 1 };
  int rank = u64list(L, 3, dims, 5);
  int ns = u64list(L, 4, strides, 4);
  int nb = u64list(L, 5, boxv, 5);
  if (!lua_isnoneornil(L, 6)) u64list(L, 6, es, 5);
  int sw = plB_tmap_swizzle(luaL_optstring(L, 7, "none"));
  if (sw < 0) return luaL_argerror(L, 7, "swizzle must be none, 32B, 64B or 128B");
  if (rank < 1 || ns != rank - 1 || nb != rank)
    return luaL_error(L, "tensor map: %d dims need %d strides and %d box sizes (got %d, %d)", rank,
                      rank - 1, rank, ns, nb);
  uint32_t box[5], est[5];
  for (int i = 0; i < rank; i++) {
    box[i] = (uint32_t)boxv[i];
    est[i] = (uint32_t)es[i];
  }
  uint8_t out[128];
  TRY(plC_tensormap(out, dt, rank, addr, dims, strides, box, est, sw, err, sizeof err));
  lua_pushlstring(L, (const char *)out, 128);
  return 1;
}

/* (dtype, addr, dims, strides_bytes (rank-1), lower, upper (rank-2 each), channels_per_pixel,
** pixels_per_column, elem_strides|nil, interleave, swizzle, l2_promotion, oob_fill) -> 128 bytes
** (cuTensorMapEncodeIm2col) */
static int l_tensormap_im2col(lua_State *L) {
  ERRBUF;
  int dt = plB_tmap_dtype(luaL_checkstring(L, 1));
  if (dt < 0)
    return luaL_argerror(L, 1, "a tensor map element type expected (u8 .. f64, bf16, tf32)");
  uint64_t addr = plL_checku64(L, 2);
  uint64_t dims[5], strides[5], es[5] = { 1, 1, 1, 1, 1 };
  int rank = u64list(L, 3, dims, 5);
  int ns = u64list(L, 4, strides, 4);
  int32_t lh[2][3] = { { 0, 0, 0 }, { 0, 0, 0 } };
  int nc[2];
  for (int c = 0; c < 2; c++) {
    luaL_checktype(L, 5 + c, LUA_TTABLE);
    nc[c] = (int)lua_objlen(L, 5 + c);
    if (nc[c] > 3) return luaL_argerror(L, 5 + c, "at most 3 pixel box corner coordinates");
    for (int k = 0; k < nc[c]; k++) {
      lua_rawgeti(L, 5 + c, k + 1);
      lh[c][k] = (int32_t)luaL_checkinteger(L, -1);
      lua_pop(L, 1);
    }
  }
  uint32_t cpp = (uint32_t)luaL_checkinteger(L, 7), ppc = (uint32_t)luaL_checkinteger(L, 8);
  if (!lua_isnoneornil(L, 9)) u64list(L, 9, es, 5);
  int il = plB_tmap_interleave(luaL_optstring(L, 10, "none"));
  int sw = plB_tmap_swizzle(luaL_optstring(L, 11, "none"));
  int l2 = plB_tmap_l2promotion(luaL_optstring(L, 12, "128B"));
  int oob = plB_tmap_oobfill(luaL_optstring(L, 13, "zero"));
  if (il < 0) return luaL_argerror(L, 10, "interleave must be none, 16B or 32B");
  if (sw < 0) return luaL_argerror(L, 11, "swizzle must be none, 32B, 64B or 128B");
  if (l2 < 0) return luaL_argerror(L, 12, "l2_promotion must be none, 64B, 128B or 256B");
  if (oob < 0) return luaL_argerror(L, 13, "oob_fill must be zero or nan");
  if (rank < 3 || rank > 5 || ns != rank - 1 || nc[0] != rank - 2 || nc[1] != rank - 2)
    return luaL_error(L,
                      "tensor map: an im2col map has 3 to 5 dims, rank - 1 strides and rank - 2 "
                      "corner coordinates each (got %d, %d, %d, %d)",
                      rank, ns, nc[0], nc[1]);
  uint32_t est[5];
  for (int i = 0; i < rank; i++) est[i] = (uint32_t)es[i];
  uint8_t out[128];
  TRY(plC_tensormap_im2col(out, dt, rank, addr, dims, strides, lh[0], lh[1], cpp, ppc, est, il, sw,
                           l2, oob, err, sizeof err));
  lua_pushlstring(L, (const char *)out, 128);
  return 1;
}

static const luaL_Reg funcs[] = { { "compile", l_compile },
                                  { "ptx_anchor", l_anchor },
                                  { "ptx_func_at", l_func_at },
                                  { "toolkit", l_toolkit },
                                  { "cuda_init", l_init },
                                  { "cuda_arch", l_arch },
                                  { "cuda_native_arch", l_native_arch },
                                  { "cuda_device", l_device },
                                  { "cuda_current", l_current },
                                  { "cuda_module", l_module },
                                  { "cuda_unload", l_unload },
                                  { "cuda_function", l_function },
                                  { "cuda_set_smem", l_set_smem },
                                  { "cuda_func_cluster", l_func_cluster },
                                  { "cuda_launch", l_launch },
                                  { "cuda_alloc", l_alloc },
                                  { "cuda_free", l_free },
                                  { "cuda_htod", l_htod },
                                  { "cuda_dtoh", l_dtoh },
                                  { "cuda_htod_ptr", l_htod_ptr },
                                  { "cuda_dtoh_ptr", l_dtoh_ptr },
                                  { "cuda_dtod", l_dtod },
                                  { "cuda_sync", l_sync },
                                  { "cuda_event", l_event },
                                  { "cuda_record", l_record },
                                  { "cuda_elapsed", l_elapsed },
                                  { "cuda_event_free", l_event_free },
                                  { "cuda_stream", l_stream },
                                  { "cuda_stream_sync", l_stream_sync },
                                  { "cuda_stream_free", l_stream_free },
                                  { "cuda_tensormap", l_tensormap },
                                  { "cuda_tensormap_im2col", l_tensormap_im2col },
                                  { NULL, NULL } };

/* adds the functions above to the core table at index `core` */
int plL_open_rt(lua_State *L, int core) {
  for (const luaL_Reg *r = funcs; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, core, r->name);
  }
  return 0;
}
