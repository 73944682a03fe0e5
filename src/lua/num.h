/* num.h -- Lua numbers (doubles) into C integers for the Lua bindings, checked: NaN, infinities,
** fractions and values outside the target type are an argument error, never a C conversion whose
** result is undefined. */
#ifndef PL_LNUM_H
#define PL_LNUM_H

#include <math.h>
#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>

/* v is an integer in [lo, hi] (hi below 2^64; both exactly representable or rounded inward) */
static inline int plL_int_in(lua_Number v, double lo, double hi) {
  return v >= lo && v <= hi && v == floor(v);
}

/* argument i: an integer in [0, 2^64) (an address, a size) */
static inline uint64_t plL_checku64(lua_State *L, int i) {
  lua_Number v = luaL_checknumber(L, i);
  if (!(v >= 0 && v < 18446744073709551616.0 && v == floor(v)))
    luaL_argerror(L, i, "a non-negative integer expected");
  return (uint64_t)v;
}

/* argument i: an integer in [-2^63, 2^63) */
static inline int64_t plL_checki64(lua_State *L, int i) {
  lua_Number v = luaL_checknumber(L, i);
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == floor(v)))
    luaL_argerror(L, i, "an integer expected");
  return (int64_t)v;
}

/* argument i: an integer in [lo, hi] (an index, a count) */
static inline int64_t plL_checkrange(lua_State *L, int i, int64_t lo, int64_t hi) {
  lua_Number v = luaL_checknumber(L, i);
  if (!(v >= (double)lo && v <= (double)hi && v == floor(v)))
    luaL_argerror(L, i, "an integer out of range");
  return (int64_t)v;
}

#endif
