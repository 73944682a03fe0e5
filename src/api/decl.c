/* decl.c -- what a kernel declares of its tensors and maps, read from the DSL's description
** (lua/ptxlua/tensors.lua, c_info) into the structures the C launch (launch.c) and the --emit-c
** writer (emitc.c) use (dlpack.h). */
#include <lua.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include "dlpack.h"

/* an extent INFO_LUA gives (tensors.lua, c_info) at the top of the stack: { text, value } a
** number, { text, nil, j } scalar parameter j, { text, nil, nil, ops } arithmetic, { text } open */
void plE_read_ext(lua_State *L, plE_dim *x) {
  memset(x, 0, sizeof *x);
  x->kind = PLE_DIM_OPEN;
  if (!lua_istable(L, -1)) {
    snprintf(x->text, sizeof x->text, "?");
    return;
  }
  lua_rawgeti(L, -1, 1);
  snprintf(x->text, sizeof x->text, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
  lua_rawgeti(L, -2, 2);
  lua_rawgeti(L, -3, 3);
  lua_rawgeti(L, -4, 4);
  if (lua_isnumber(L, -3)) {
    x->kind = PLE_DIM_FIXED;
    x->value = (int64_t)lua_tonumber(L, -3);
  } else if (lua_isnumber(L, -2)) {
    x->kind = PLE_DIM_PARAM;
    x->param = (int)lua_tointeger(L, -2);
  } else if (lua_istable(L, -1)) {
    int n = (int)lua_objlen(L, -1) / 2;
    if (n > 0 && n <= PLE_MAXOPS) {
      x->kind = PLE_DIM_EXPR;
      x->nops = n;
      for (int i = 0; i < n; i++) {
        lua_rawgeti(L, -1, 2 * i + 1);
        lua_rawgeti(L, -2, 2 * i + 2);
        x->op[i] = (unsigned char)lua_tointeger(L, -2);
        x->arg[i] = lua_tonumber(L, -1);
        lua_pop(L, 2);
      }
    }
  }
  lua_pop(L, 4);
}

/* a list of extents (field `key` of the table at the top); its length, at most max */
static int read_exts(lua_State *L, const char *key, plE_dim *out, int max) {
  lua_getfield(L, -1, key);
  int n = 0;
  if (lua_istable(L, -1)) {
    n = (int)lua_objlen(L, -1);
    if (n > max) n = max + 1; /* more than a declaration holds: the caller says so */
    for (int i = 0; i < n && i < max; i++) {
      lua_rawgeti(L, -1, i + 1);
      plE_read_ext(L, &out[i]);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return n;
}

static void read_str(lua_State *L, const char *key, char *out, size_t n) {
  lua_getfield(L, -1, key);
  snprintf(out, n, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
  lua_pop(L, 1);
}

/* the tensor table (c_info's `tensor`) at the top into d; dtype the pointer's when it has none */
void plE_read_tensor(lua_State *L, plE_tensor_decl *d, const char *dtype) {
  d->ndim = -1;
  d->nstrides = 0;
  if (lua_istable(L, -1)) {
    read_str(L, "name", d->name, sizeof d->name);
    read_str(L, "dtype", d->dtype, sizeof d->dtype);
    int nd = read_exts(L, "shape", d->dims, PLE_MAXDIM);
    d->ndim = nd > PLE_MAXDIM ? -1 : nd; /* more than the check holds: not checked */
    lua_getfield(L, -1, "shape");
    if (lua_isnil(L, -1)) d->ndim = -1;
    lua_pop(L, 1);
    int ns = read_exts(L, "strides", d->strides, PLE_MAXDIM);
    d->nstrides = ns > PLE_MAXDIM ? 0 : ns;
  }
  if (!d->dtype[0] && dtype) snprintf(d->dtype, sizeof d->dtype, "%s", dtype);
  plE_decl_parse(d);
}

/* a map's declaration: c_info's entry for it at the top of the stack (its `view` and `tensor`) */
void plE_read_view(lua_State *L, plE_view *v) {
  memset(v, 0, sizeof *v);
  lua_getfield(L, -1, "view");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  v->present = 1;
  read_str(L, "err", v->err, sizeof v->err);
  lua_getfield(L, -2, "tensor");
  plE_read_tensor(L, &v->t, NULL);
  lua_pop(L, 1);
  lua_getfield(L, -1, "of_param");
  v->of_param = lua_isnumber(L, -1) ? (int)lua_tointeger(L, -1) : -1;
  lua_pop(L, 1);
  char mode[16];
  read_str(L, "mode", mode, sizeof mode);
  v->im2col = strcmp(mode, "im2col") == 0;
  read_str(L, "tmdtype", v->tmdtype, sizeof v->tmdtype);
  read_str(L, "swizzle", v->swizzle, sizeof v->swizzle);
  read_str(L, "interleave", v->interleave, sizeof v->interleave);
  read_str(L, "l2_promotion", v->l2, sizeof v->l2);
  read_str(L, "oob_fill", v->oob, sizeof v->oob);
  v->nbox = read_exts(L, "box", v->box, 5);
  v->nes = read_exts(L, "element_strides", v->es, 5);
  static const char *const CORNER[2] = { "lower_corner", "upper_corner" };
  for (int c = 0; c < 2; c++) {
    lua_getfield(L, -1, CORNER[c]);
    int n = lua_istable(L, -1) ? (int)lua_objlen(L, -1) : 0;
    v->ncorner = n > 3 ? 4 : n;
    for (int i = 0; i < n && i < 3; i++) {
      lua_rawgeti(L, -1, i + 1);
      (c ? v->upper : v->lower)[i] = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_getfield(L, -1, "channels_per_pixel");
  if ((v->has_cpp = lua_istable(L, -1))) plE_read_ext(L, &v->cpp);
  lua_pop(L, 1);
  lua_getfield(L, -1, "pixels_per_column");
  if ((v->has_ppc = lua_istable(L, -1))) plE_read_ext(L, &v->ppc);
  lua_pop(L, 1);
  lua_pop(L, 1);
}
