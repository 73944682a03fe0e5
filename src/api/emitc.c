/* emitc.c -- ptxlua_emit_c (`ptxlua FILE.lua --emit-c DIR`): ahead-of-time export. Each kernel is
** traced with the engine's templates and target, assembled through the cache (nvJitLink or ptxas)
** and written with a typed launcher as C that needs only the CUDA driver at run time: DIR/NAME.h
** (the API) and DIR/NAME.c (the cubins as byte arrays, the driver through dlopen and
** cuGetProcAddress). Nothing is written until every kernel has assembled; both files are written
** to temporaries and renamed into place together. docs/interop.md, "Ahead of time: --emit-c". */
#include <lua.h>
#include <lauxlib.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "engine.h"
#include "dlpack.h"
#include "tmap.h"
#include "types.h"
#include "util.h"

/* one parameter as the launcher takes it */
typedef struct eparam {
  char name[64];   /* the script's name */
  char cname[72];  /* the prototype's: a C or C++ keyword, or a name the launcher uses, gets '_' */
  int kind;        /* PTXLUA_PARAM_POINTER, _SCALAR, _TENSORMAP, _BYTES (an array) */
  char dtype[16];  /* pointer: the element type; else the parameter's type */
  int addr_int;    /* read from PTX: a .u64 that may be a pointer or an integer */
  long count;      /* an array's element count */
  char shape[200]; /* a pointer's declared shape ("n, 4"), "" if none */
  /* a tensormap that declares the tensor it views: the launcher builds it (view), from the tensor
  ** argument of parameter `src` (this one: the tensor's pointer, named tname, takes its place in
  ** the launcher; else the pointer parameter it views, or the first map over the same tensor) */
  plE_view *view;
  int src;
  char tname[72];
} eparam;

typedef struct ekernel {
  char name[256], file[1024], target[32], templates[1024];
  int line;
  unsigned grid[3], block[3], cluster[3], smem;
  int has_grid, has_block, cluster_attr;
  int np;
  eparam *p;
  int views; /* maps the launcher builds */
  unsigned char *cubin;
  size_t len;
} ekernel;

static int is_cident(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return 0;
  return 1;
}

/* names a prototype's parameter cannot take: C11 and C++ keywords, the launcher's own names */
static int taken(const char *s) {
  static const char *const W[] = { "alignas",
                                   "alignof",
                                   "and",
                                   "and_eq",
                                   "asm",
                                   "auto",
                                   "bitand",
                                   "bitor",
                                   "bool",
                                   "break",
                                   "case",
                                   "catch",
                                   "char",
                                   "char8_t",
                                   "char16_t",
                                   "char32_t",
                                   "class",
                                   "compl",
                                   "concept",
                                   "const",
                                   "consteval",
                                   "constexpr",
                                   "constinit",
                                   "const_cast",
                                   "continue",
                                   "co_await",
                                   "co_return",
                                   "co_yield",
                                   "decltype",
                                   "default",
                                   "delete",
                                   "do",
                                   "double",
                                   "dynamic_cast",
                                   "else",
                                   "enum",
                                   "explicit",
                                   "export",
                                   "extern",
                                   "false",
                                   "float",
                                   "for",
                                   "friend",
                                   "goto",
                                   "if",
                                   "inline",
                                   "int",
                                   "long",
                                   "mutable",
                                   "namespace",
                                   "new",
                                   "noexcept",
                                   "not",
                                   "not_eq",
                                   "nullptr",
                                   "operator",
                                   "or",
                                   "or_eq",
                                   "private",
                                   "protected",
                                   "public",
                                   "register",
                                   "reinterpret_cast",
                                   "requires",
                                   "restrict",
                                   "return",
                                   "short",
                                   "signed",
                                   "sizeof",
                                   "static",
                                   "static_assert",
                                   "static_cast",
                                   "struct",
                                   "switch",
                                   "template",
                                   "this",
                                   "thread_local",
                                   "throw",
                                   "true",
                                   "try",
                                   "typedef",
                                   "typeid",
                                   "typename",
                                   "union",
                                   "unsigned",
                                   "using",
                                   "virtual",
                                   "void",
                                   "volatile",
                                   "wchar_t",
                                   "while",
                                   "xor",
                                   "xor_eq",
                                   "stream",
                                   "grid",
                                   "block",
                                   "a_",
                                   "NULL",
                                   "main" };
  for (size_t i = 0; i < sizeof W / sizeof *W; i++)
    if (strcmp(s, W[i]) == 0) return 1;
  /* reserved spellings: a leading underscore and a capital, or two underscores */
  return s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'));
}

/* text for a comment: no comment end, nothing unprintable */
static void put_comment_text(plB_buf *b, const char *s) {
  for (; *s; s++) {
    if (s[0] == '*' && s[1] == '/')
      plB_buf_puts(b, "* ");
    else if ((unsigned char)*s < 32 || (unsigned char)*s > 126)
      plB_buf_putc(b, '?');
    else
      plB_buf_putc(b, *s);
  }
}

/* the C type of a value of PTX type `t` (NULL: none of its width; passed as bytes) */
static const char *scalar_ctype(const char *t) {
  static const char *const N[][2] = { { "f32", "float" },    { "f64", "double" },
                                      { "u8", "uint8_t" },   { "s8", "int8_t" },
                                      { "u16", "uint16_t" }, { "s16", "int16_t" },
                                      { "u32", "uint32_t" }, { "s32", "int32_t" },
                                      { "u64", "uint64_t" }, { "s64", "int64_t" } };
  for (size_t i = 0; i < sizeof N / sizeof *N; i++)
    if (strcmp(t, N[i][0]) == 0) return N[i][1];
  int id = plB_type_from_name(t, strlen(t));
  switch (id ? plB_type_info[id].bits : 0) { /* .bN, f16, bf16, ...: their bits */
  case 8: return "uint8_t";
  case 16: return "uint16_t";
  case 32: return "uint32_t";
  case 64: return "uint64_t";
  default: return NULL;
  }
}

static unsigned type_bytes(const char *t) {
  int id = plB_type_from_name(t, strlen(t));
  unsigned b = id ? plB_type_info[id].bits / 8u : 1u;
  return b ? b : 1u;
}

/* the declaration of parameter p in a prototype */
static void put_decl(plB_buf *b, const eparam *p) {
  if (p->kind == PTXLUA_PARAM_POINTER) {
    const char *t = scalar_ctype(p->dtype);
    if (p->addr_int)
      plB_buf_printf(b, "CUdeviceptr %s", p->cname);
    else if (t && strcmp(p->dtype, "f16") && strcmp(p->dtype, "bf16") && p->dtype[0] != 'b')
      plB_buf_printf(b, "%s *%s", t, p->cname);
    else
      plB_buf_printf(b, "void *%s", p->cname);
  } else if (p->kind == PTXLUA_PARAM_TENSORMAP) {
    plB_buf_printf(b, "const CUtensorMap *%s", p->cname);
  } else if (p->kind == PTXLUA_PARAM_BYTES) {
    const char *t = scalar_ctype(p->dtype);
    if (t)
      plB_buf_printf(b, "const %s %s[%ld]", t, p->cname, p->count);
    else
      plB_buf_printf(b, "const uint8_t %s[%ld]", p->cname, p->count * (long)type_bytes(p->dtype));
  } else {
    const char *t = scalar_ctype(p->dtype);
    if (t)
      plB_buf_printf(b, "%s %s", t, p->cname);
    else
      plB_buf_printf(b, "const void *%s", p->cname); /* its bytes */
  }
}

/* does the launcher pass the parameter's own pointer (an array, a map, bytes) rather than &it? */
static int by_pointer(const eparam *p) {
  return p->kind == PTXLUA_PARAM_TENSORMAP || p->kind == PTXLUA_PARAM_BYTES ||
         (p->kind == PTXLUA_PARAM_SCALAR && !scalar_ctype(p->dtype));
}

/* ---- what the DSL says of a kernel
** --------------------------------------------------------------- */
static const char *INFO_LUA =
    "local name, defines = ...\n"
    "local k\n"
    "for _, kk in ipairs(require('ptxlua').kernels()) do if kk.name == name then k = kk end end\n"
    "local g, b, c = k:launch_dims(defines)\n"
    "local t = k:resolve(defines)\n"
    "local tl = {}\n"
    "for n, v in pairs(t) do\n"
    "  local tv = type(v)\n"
    "  if n ~= 'kernel' and (tv == 'number' or tv == 'string' or tv == 'boolean') then\n"
    "    tl[#tl + 1] = n .. '=' .. tostring(v)\n"
    "  end\n"
    "end\n"
    "table.sort(tl)\n"
    "local info = require('ptxlua.tensors').c_info(k, defines)\n"
    "local ps = {}\n"
    "for i, p in ipairs(k.params) do\n"
    "  local sh = ''\n"
    "  if p.pointer and type(p.shape) == 'table' then\n"
    "    local s = {}\n"
    "    for d, x in ipairs(p.shape) do s[d] = tostring(x) end\n"
    "    sh = table.concat(s, ', ')\n"
    "  end\n"
    "  ps[i] = { p[1], p.pointer and 1 or p.tensormap and 3 or (p.count and p.count > 0) and 4 or "
    "2,\n"
    "            p.pointer and (p.elem or p.ptype) or p.ptype, (p.ptx and p.pointer) and 1 or 0,\n"
    "            p.count or 0, sh, info[i] or false }\n"
    "end\n"
    "return k.file or '', k.line or 0, g or false, b or false, c or false, table.concat(tl, ' '),\n"
    "       ps, k:dynamic_smem_for(defines)\n";

static void get3(lua_State *L, int idx, unsigned d[3], int *has) {
  d[0] = d[1] = d[2] = 1;
  *has = lua_istable(L, idx);
  for (int i = 0; *has && i < 3; i++) {
    lua_rawgeti(L, idx, i + 1);
    d[i] = (unsigned)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
}

static const char *field_str(lua_State *L, int t, int i, char *dst, size_t n) {
  lua_rawgeti(L, t, i);
  snprintf(dst, n, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
  lua_pop(L, 1);
  return dst;
}

static int kernel_error(ptxlua_engine *e, const ekernel *k, const char *msg) {
  char buf[3200];
  if (k->file[0])
    snprintf(buf, sizeof buf, "%s:%d: error: --emit-c: %s", k->file, k->line, msg);
  else
    snprintf(buf, sizeof buf, "error: --emit-c: %s", msg);
  return plE_set_error(e, PTXLUA_ERROR, buf);
}

/* trace (for the target and the cluster the module compiles in), then what the DSL says */
static int describe(ptxlua_engine *e, const char *name, ekernel *k) {
  lua_State *L = plE_lua(e);
  int rc, top = lua_gettop(L);
  snprintf(k->name, sizeof k->name, "%s", name);
  plI_module *m = plE_build(e, name, &rc);
  if (!m) return rc;
  snprintf(k->target, sizeof k->target, "%s", plI_cstr(m, m->target));
  int compiled_cluster = 0;
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (strcmp(plI_cstr(m, m->funcs.p[i].name), name) == 0)
      compiled_cluster = m->funcs.p[i].reqnctapercluster[0] != 0;
  lua_settop(L, top);
  if (luaL_loadbuffer(L, INFO_LUA, strlen(INFO_LUA), "=ptxlua_emit_c")) goto lua_fail;
  lua_pushstring(L, name);
  lua_rawgeti(L, LUA_REGISTRYINDEX, plE_defines_ref(e));
  if (plE_pcall(L, 2, 8)) goto lua_fail;
  snprintf(k->file, sizeof k->file, "%s", lua_tostring(L, top + 1) ? lua_tostring(L, top + 1) : "");
  k->line = (int)lua_tointeger(L, top + 2);
  get3(L, top + 3, k->grid, &k->has_grid);
  get3(L, top + 4, k->block, &k->has_block);
  int has_cluster;
  get3(L, top + 5, k->cluster, &has_cluster);
  /* a cluster the cubin does not fix (.reqnctapercluster) goes on each launch as an attribute */
  k->cluster_attr =
      has_cluster && !compiled_cluster && k->cluster[0] * k->cluster[1] * k->cluster[2] > 1;
  snprintf(k->templates, sizeof k->templates, "%s",
           lua_tostring(L, top + 6) ? lua_tostring(L, top + 6) : "");
  k->smem = (unsigned)lua_tointeger(L, top + 8);
  k->np = (int)lua_objlen(L, top + 7);
  k->p = calloc((size_t)(k->np ? k->np : 1), sizeof *k->p);
  if (!k->p) {
    lua_settop(L, top);
    return plE_set_error(e, PTXLUA_NOMEM, "out of memory");
  }
  for (int i = 0; i < k->np; i++) {
    eparam *p = &k->p[i];
    lua_rawgeti(L, top + 7, i + 1);
    int t = lua_gettop(L);
    field_str(L, t, 1, p->name, sizeof p->name);
    lua_rawgeti(L, t, 2);
    p->kind = (int)lua_tointeger(L, -1);
    lua_rawgeti(L, t, 4);
    p->addr_int = (int)lua_tointeger(L, -1);
    lua_rawgeti(L, t, 5);
    p->count = (long)lua_tointeger(L, -1);
    lua_pop(L, 3);
    field_str(L, t, 3, p->dtype, sizeof p->dtype);
    field_str(L, t, 6, p->shape, sizeof p->shape);
    p->src = -1;
    lua_rawgeti(L, t, 7);
    if (p->kind == PTXLUA_PARAM_TENSORMAP && lua_istable(L, -1)) {
      lua_getfield(L, -1, "view");
      int has = lua_istable(L, -1);
      lua_pop(L, 1);
      if (has) {
        if (!(p->view = calloc(1, sizeof *p->view))) {
          lua_settop(L, top);
          return plE_set_error(e, PTXLUA_NOMEM, "out of memory");
        }
        plE_read_view(L, p->view);
      }
    }
    lua_pop(L, 2);
  }
  lua_settop(L, top);
  return PTXLUA_OK;
lua_fail : {
  const char *msg = lua_tostring(L, -1);
  rc = plE_set_error(e, PTXLUA_ERROR, msg ? msg : "error object is not a string");
  lua_settop(L, top);
  return rc;
}
}

/* the C names: the kernel's, each parameter's (a keyword gets '_', until unique) */
static int name_check(ptxlua_engine *e, const char *prefix, ekernel *k) {
  char msg[1024];
  if (!is_cident(k->name)) {
    snprintf(msg, sizeof msg,
             "kernel '%.200s' is no C identifier, so it cannot name its launcher "
             "(%s_%.200s_launch); rename it",
             k->name, prefix, k->name);
    return kernel_error(e, k, msg);
  }
  for (int i = 0; i < k->np; i++) {
    eparam *p = &k->p[i];
    if (!is_cident(p->name)) {
      snprintf(msg, sizeof msg,
               "parameter %d of kernel %s, '%.60s', is no C identifier (the launcher's "
               "prototype names it); rename it",
               i + 1, k->name, p->name);
      return kernel_error(e, k, msg);
    }
    snprintf(p->cname, sizeof p->cname, "%s", p->name);
    for (;;) {
      int clash = taken(p->cname);
      for (int j = 0; j < i && !clash; j++) clash = strcmp(k->p[j].cname, p->cname) == 0;
      for (int j = i + 1; j < k->np && !clash; j++) clash = strcmp(k->p[j].name, p->cname) == 0;
      if (!clash) break;
      size_t n = strlen(p->cname);
      if (n + 2 > sizeof p->cname) return kernel_error(e, k, "a parameter name too long for C");
      p->cname[n] = '_';
      p->cname[n + 1] = 0;
    }
  }
  /* the maps the launcher builds: from the pointer they view, or a tensor argument of their own
  ** (named for the tensor; one for every map over it) */
  for (int i = 0; i < k->np; i++) {
    eparam *p = &k->p[i];
    plE_view *v = p->view;
    if (!v || !v->present) continue;
    if (v->err[0]) return plE_set_error(e, PTXLUA_ERROR, v->err);
    int rank = v->t.ndim;
    if (rank < 1 || rank > 5 || (!v->im2col && v->nbox != rank) || (v->nes && v->nes != rank) ||
        (v->im2col && (rank < 3 || !v->has_ppc || (v->ncorner && v->ncorner != rank - 2)))) {
      snprintf(msg, sizeof msg,
               "the map %s over tensor %s: a tensor of %d dimensions with %d box entries and %d "
               "element strides%s cannot be encoded",
               p->name, v->t.name, rank, v->nbox, v->nes,
               v->im2col ? " (im2col: rank 3 to 5, pixels_per_column, rank - 2 corners)" : "");
      return kernel_error(e, k, msg);
    }
    if (plB_tmap_dtype(v->tmdtype) < 0 || plB_tmap_swizzle(v->swizzle[0] ? v->swizzle : NULL) < 0 ||
        plB_tmap_interleave(v->interleave[0] ? v->interleave : NULL) < 0 ||
        plB_tmap_l2promotion(v->l2[0] ? v->l2 : NULL) < 0 ||
        plB_tmap_oobfill(v->oob[0] ? v->oob : NULL) < 0) {
      snprintf(msg, sizeof msg,
               "the map %s over tensor %s: element type %s, swizzle '%s', interleave '%s', "
               "l2_promotion '%s' or oob_fill '%s' is none a map takes",
               p->name, v->t.name, v->tmdtype, v->swizzle, v->interleave, v->l2, v->oob);
      return kernel_error(e, k, msg);
    }
    const plE_dim *open = NULL;
    for (int j = 0; j < rank && !open; j++)
      open = v->t.dims[j].kind == PLE_DIM_OPEN ? &v->t.dims[j] : NULL;
    for (int j = 0; j < v->t.nstrides && !open; j++)
      open = v->t.strides[j].kind == PLE_DIM_OPEN ? &v->t.strides[j] : NULL;
    for (int j = 0; j < v->nbox && !open; j++)
      open = v->box[j].kind == PLE_DIM_OPEN ? &v->box[j] : NULL;
    for (int j = 0; j < v->nes && !open; j++)
      open = v->es[j].kind == PLE_DIM_OPEN ? &v->es[j] : NULL;
    if (!open && v->has_cpp && v->cpp.kind == PLE_DIM_OPEN) open = &v->cpp;
    if (!open && v->has_ppc && v->ppc.kind == PLE_DIM_OPEN) open = &v->ppc;
    if (open) {
      snprintf(msg, sizeof msg,
               "the map %s over tensor %s: '%s' is no arithmetic of templates and scalar "
               "parameters, so the launcher cannot compute it",
               p->name, v->t.name, open->text);
      return kernel_error(e, k, msg);
    }
    k->views++;
    if (v->of_param >= 0 && v->of_param < k->np) {
      p->src = v->of_param;
      continue;
    }
    for (int j = 0; j < i && p->src < 0; j++)
      if (k->p[j].view && k->p[j].src == j && strcmp(k->p[j].view->t.name, v->t.name) == 0)
        p->src = j;
    if (p->src >= 0) continue;
    p->src = i;
    snprintf(p->tname, sizeof p->tname, "%s", v->t.name);
    for (;;) {
      int clash = taken(p->tname);
      for (int j = 0; j < k->np && !clash; j++)
        clash = strcmp(k->p[j].cname, p->tname) == 0 || strcmp(k->p[j].name, p->tname) == 0 ||
                (j < i && strcmp(k->p[j].tname, p->tname) == 0);
      if (!clash) break;
      size_t n = strlen(p->tname);
      if (n + 2 > sizeof p->tname) return kernel_error(e, k, "a tensor name too long for C");
      p->tname[n] = '_';
      p->tname[n + 1] = 0;
    }
  }
  return PTXLUA_OK;
}

/* ---- the generated text
** ------------------------------------------------------------------------- */
/* NAME for each "@@" of t */
static void put_t(plB_buf *b, const char *t, const char *name) {
  for (const char *q; (q = strstr(t, "@@")); t = q + 2) {
    plB_buf_add(b, t, (size_t)(q - t));
    plB_buf_puts(b, name);
  }
  plB_buf_puts(b, t);
}

static const char *H_TOP =
    "#ifndef @@_H_PTXLUA\n"
    "#define @@_H_PTXLUA\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#ifdef __cplusplus\n"
    "extern \"C\" {\n"
    "#endif\n"
    "\n"
    "/* the driver's types, as <cuda.h> declares them (a file that includes <cuda.h> too includes "
    "it\n"
    "** first); a cudaStream_t is a CUstream */\n"
    "#if !defined(__cuda_cuda_h__) && !defined(PTXLUA_EMIT_CUDA_TYPES)\n"
    "#define PTXLUA_EMIT_CUDA_TYPES\n"
    "typedef int CUresult; /* 0: CUDA_SUCCESS, else the driver's error code */\n"
    "typedef unsigned long long CUdeviceptr;\n"
    "typedef struct CUstream_st *CUstream; /* NULL: the default stream */\n"
    "#if defined(__cplusplus)\n"
    "typedef struct CUtensorMap_st { alignas(64) unsigned long long opaque[16]; } CUtensorMap;\n"
    "#else\n"
    "typedef struct CUtensorMap_st { _Alignas(64) unsigned long long opaque[16]; } CUtensorMap;\n"
    "#endif\n"
    "#endif\n"
    "\n"
    "/* load the kernels' modules into the calling thread's current CUDA context (device 0's "
    "primary\n"
    "** context, made current, when there is none): the driver is opened with "
    "dlopen(\"libcuda.so.1\")\n"
    "** on the first call. 0 (CUDA_SUCCESS) or the error; once loaded, 0 and nothing done. Call "
    "it\n"
    "** before the first launch, from one thread. */\n"
    "CUresult @@_load(void);\n"
    "/* unload the modules (and release the primary context @@_load retained, if it did) */\n"
    "void @@_unload(void);\n"
    "/* the text of an error these functions returned (why the driver did not load, or the "
    "driver's) */\n"
    "const char *@@_error_string(CUresult r);\n"
    "/* a tiled tensor map over addr (cuTensorMapEncodeTiled after @@_load) for a tensormap\n"
    "** parameter: dtype \"u8\" .. \"f64\", \"bf16\", \"tf32\"; dims innermost first; strides in "
    "bytes\n"
    "** for dims 2..rank (NULL: packed); box the tile a copy moves; swizzle \"none\" (NULL), "
    "\"32B\",\n"
    "** \"64B\", \"128B\"; element strides 1, no interleave, L2 promotion 128B, out-of-bounds "
    "zeros */\n"
    "CUresult @@_tensormap_encode(CUtensorMap *out, CUdeviceptr addr, const char *dtype, int "
    "rank,\n"
    "                             const uint64_t *dims, const uint64_t *strides, const uint32_t "
    "*box,\n"
    "                             const char *swizzle);\n";

static void put_params(plB_buf *b, const ekernel *k) {
  for (int i = 0; i < k->np; i++) {
    plB_buf_puts(b, ", ");
    put_decl(b, &k->p[i]);
  }
}

/* the launcher's parameters: a map it builds gives way to the tensor it is built from (a pointer
** parameter the kernel has already, or a pointer of the tensor's own) */
static int builds(const eparam *p) {
  return p->view && p->view->present;
}
static void tensor_decl(plB_buf *b, const eparam *p) {
  eparam q;
  memset(&q, 0, sizeof q);
  q.kind = PTXLUA_PARAM_POINTER;
  snprintf(q.dtype, sizeof q.dtype, "%s", p->view->t.dtype);
  snprintf(q.cname, sizeof q.cname, "%s", p->tname);
  put_decl(b, &q);
}
static void put_lparams(plB_buf *b, const ekernel *k) {
  for (int i = 0; i < k->np; i++) {
    const eparam *p = &k->p[i];
    if (builds(p) && p->src != i) continue;
    plB_buf_puts(b, ", ");
    if (builds(p))
      tensor_decl(b, p);
    else
      put_decl(b, p);
  }
}
static const char *lname(const eparam *p) {
  return builds(p) ? p->tname : p->cname;
}

static void put_dims(plB_buf *b, const unsigned d[3]) {
  plB_buf_printf(b, "{%u, %u, %u}", d[0], d[1], d[2]);
}

static void header_kernel(plB_buf *b, const char *nm, const ekernel *k) {
  plB_buf_printf(b, "\n/* kernel %s (", k->name);
  put_comment_text(b, k->file[0] ? k->file : "?");
  plB_buf_printf(b, ":%d), %s", k->line, k->target);
  if (k->templates[0]) {
    plB_buf_puts(b, "; templates ");
    put_comment_text(b, k->templates);
  }
  plB_buf_puts(b, "\n**   grid ");
  if (k->has_grid)
    put_dims(b, k->grid);
  else
    plB_buf_puts(b, "(given)");
  plB_buf_puts(b, ", block ");
  if (k->has_block)
    put_dims(b, k->block);
  else
    plB_buf_puts(b, "(given)");
  if (k->cluster[0] * k->cluster[1] * k->cluster[2] > 1) {
    plB_buf_puts(b, ", cluster ");
    put_dims(b, k->cluster);
  }
  plB_buf_printf(b, ", %u bytes of dynamic shared memory\n**   parameters:", k->smem);
  if (!k->np) plB_buf_puts(b, " none");
  for (int i = 0; i < k->np; i++) {
    const eparam *p = &k->p[i];
    plB_buf_printf(b, "%s %s ", i ? "," : "", p->cname);
    if (p->kind == PTXLUA_PARAM_POINTER) {
      plB_buf_printf(b, "%s*", p->dtype);
      if (p->shape[0]) {
        plB_buf_puts(b, " [");
        put_comment_text(b, p->shape);
        plB_buf_puts(b, "]");
      }
    } else if (p->kind == PTXLUA_PARAM_TENSORMAP)
      plB_buf_puts(b, "tensormap (a CUtensorMap)");
    else if (p->kind == PTXLUA_PARAM_BYTES)
      plB_buf_printf(b, "%s[%ld]", p->dtype, p->count);
    else
      plB_buf_puts(b, p->dtype);
  }
  plB_buf_puts(b, " */\n");
  if (k->has_grid)
    plB_buf_printf(b,
                   "#define %s_%s_GRID_X %uu\n#define %s_%s_GRID_Y %uu\n#define %s_%s_GRID_Z %uu\n",
                   nm, k->name, k->grid[0], nm, k->name, k->grid[1], nm, k->name, k->grid[2]);
  if (k->has_block)
    plB_buf_printf(
        b, "#define %s_%s_BLOCK_X %uu\n#define %s_%s_BLOCK_Y %uu\n#define %s_%s_BLOCK_Z %uu\n", nm,
        k->name, k->block[0], nm, k->name, k->block[1], nm, k->name, k->block[2]);
  plB_buf_printf(b, "#define %s_%s_SMEM %uu\n", nm, k->name, k->smem);
  /* the launch with the kernel's own geometry; what it does not declare comes first */
  if (k->views) {
    plB_buf_puts(
        b, "/* the maps it takes, built by the launch (cuTensorMapEncodeTiled / Im2col) from the "
           "tensors:");
    for (int i = 0; i < k->np; i++) {
      const eparam *p = &k->p[i];
      if (!builds(p)) continue;
      const plE_view *v = p->view;
      plB_buf_printf(b, "\n**   %s from %s (", p->cname, lname(&k->p[p->src]));
      put_comment_text(b, v->t.dtype);
      plB_buf_puts(b, " [");
      for (int j = 0; j < v->t.ndim; j++) {
        plB_buf_puts(b, j ? ", " : "");
        put_comment_text(b, v->t.dims[j].text);
      }
      plB_buf_puts(b, v->t.nstrides ? "], strided" : "], packed row-major");
      if (v->im2col)
        plB_buf_puts(b, ", im2col");
      else {
        plB_buf_puts(b, ", box {");
        for (int j = 0; j < v->nbox; j++) {
          plB_buf_puts(b, j ? ", " : "");
          put_comment_text(b, v->box[j].text);
        }
        plB_buf_puts(b, "}");
      }
      plB_buf_printf(b, ", swizzle %s)", v->swizzle[0] ? v->swizzle : "none");
    }
    plB_buf_puts(b, " */\n");
  }
  plB_buf_printf(b, "CUresult %s_%s_launch(CUstream stream", nm, k->name);
  if (!k->has_grid) plB_buf_puts(b, ", const unsigned grid[3]");
  if (!k->has_block) plB_buf_puts(b, ", const unsigned block[3]");
  put_lparams(b, k);
  plB_buf_puts(b, ");\n/* the same with the grid and block given (NULL: the kernel's own) */\n");
  plB_buf_printf(b,
                 "CUresult %s_%s_launch_dims(CUstream stream, const unsigned grid[3], "
                 "const unsigned block[3]",
                 nm, k->name);
  put_lparams(b, k);
  plB_buf_puts(b, ");\n");
  if (k->views) {
    plB_buf_printf(b,
                   "/* the same with every map given, prebuilt (%s_tensormap_encode, or the "
                   "caller's own) */\n",
                   nm);
    plB_buf_printf(b,
                   "CUresult %s_%s_launch_maps(CUstream stream, const unsigned grid[3], "
                   "const unsigned block[3]",
                   nm, k->name);
    put_params(b, k);
    plB_buf_puts(b, ");\n");
  }
}

static const char *C_TOP = "#include \"@@.h\"\n"
                           "#include <dlfcn.h>\n"
                           "#include <stdio.h>\n"
                           "#include <string.h>\n"
                           "\n"
                           "#ifndef PTXLUA_EMIT_LIBCUDA\n"
                           "#define PTXLUA_EMIT_LIBCUDA \"libcuda.so.1\"\n"
                           "#endif\n"
                           "#if defined(__cplusplus)\n"
                           "#define PL_ALIGN64 alignas(64)\n"
                           "#else\n"
                           "#define PL_ALIGN64 _Alignas(64)\n"
                           "#endif\n"
                           "\n"
                           "/* the driver ABI of cuLaunchKernelEx (CUDA 12) */\n"
                           "typedef struct { unsigned x, y, z; } pl_dim;\n"
                           "typedef union { char pad[64]; pl_dim cluster; } pl_attrval;\n"
                           "typedef struct { int id; char pad[4]; pl_attrval value; } pl_attr;\n"
                           "typedef struct {\n"
                           "  unsigned gx, gy, gz, bx, by, bz, smem;\n"
                           "  CUstream stream;\n"
                           "  pl_attr *attrs;\n"
                           "  unsigned nattrs;\n"
                           "} pl_config;\n"
                           "typedef struct {\n"
                           "  const char *name;\n"
                           "  const unsigned char *image;\n"
                           "  unsigned grid[3], block[3], cluster[3], smem;\n"
                           "  int has_grid, has_block, cluster_attr;\n"
                           "} pl_kernel;\n";

static const char *C_DRIVER =
    "\n"
    "static struct {\n"
    "  int loaded, retained, dev;\n"
    "  void *lib;\n"
    "  char why[512];\n"
    "  void *mod[PL_NK], *fn[PL_NK];\n"
    "  CUresult (*GetErrorString)(CUresult, const char **);\n"
    "  CUresult (*Init)(unsigned);\n"
    "  CUresult (*CtxGetCurrent)(void **);\n"
    "  CUresult (*CtxSetCurrent)(void *);\n"
    "  CUresult (*DeviceGet)(int *, int);\n"
    "  CUresult (*PrimaryCtxRetain)(void **, int);\n"
    "  CUresult (*PrimaryCtxRelease)(int);\n"
    "  CUresult (*ModuleLoadData)(void **, const void *);\n"
    "  CUresult (*ModuleUnload)(void *);\n"
    "  CUresult (*ModuleGetFunction)(void **, void *, const char *);\n"
    "  CUresult (*FuncSetAttribute)(void *, int, int);\n"
    "  CUresult (*LaunchKernelEx)(const pl_config *, void *, void **, void **);\n"
    "  CUresult (*TensorMapEncodeTiled)(CUtensorMap *, int, unsigned, void *, const uint64_t *,\n"
    "                                   const uint64_t *, const uint32_t *, const uint32_t *, "
    "int,\n"
    "                                   int, int, int);\n"
    "  CUresult (*TensorMapEncodeIm2col)(CUtensorMap *, int, unsigned, void *, const uint64_t *,\n"
    "                                    const uint64_t *, const int *, const int *, unsigned,\n"
    "                                    unsigned, const uint32_t *, int, int, int, int);\n"
    "} S;\n"
    "\n"
    "/* CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, _SYMBOL_NOT_FOUND: the driver did not load (S.why) "
    "*/\n"
    "enum { PL_NO_DRIVER = 303, PL_NO_SYMBOL = 302, PL_NOT_LOADED = 3, PL_INVALID = 1 };\n"
    "\n"
    "/* the entry points through cuGetProcAddress, the ABI of CUDA 12.0 */\n"
    "static CUresult pl_driver(void) {\n"
    "  typedef CUresult (*getproc2)(const char *, void **, int, unsigned long long, int *);\n"
    "  typedef CUresult (*getproc1)(const char *, void **, int, unsigned long long);\n"
    "  static const char *const NAMES[] = {\"cuGetErrorString\", \"cuInit\", \"cuCtxGetCurrent\",\n"
    "    \"cuCtxSetCurrent\", \"cuDeviceGet\", \"cuDevicePrimaryCtxRetain\",\n"
    "    \"cuDevicePrimaryCtxRelease\", \"cuModuleLoadData\", \"cuModuleUnload\", "
    "\"cuModuleGetFunction\",\n"
    "    \"cuFuncSetAttribute\", \"cuLaunchKernelEx\", \"cuTensorMapEncodeTiled\",\n"
    "    \"cuTensorMapEncodeIm2col\"};\n"
    "  void *const SLOTS[] = {&S.GetErrorString, &S.Init, &S.CtxGetCurrent, &S.CtxSetCurrent,\n"
    "    &S.DeviceGet, &S.PrimaryCtxRetain, &S.PrimaryCtxRelease, &S.ModuleLoadData,\n"
    "    &S.ModuleUnload, &S.ModuleGetFunction, &S.FuncSetAttribute, &S.LaunchKernelEx,\n"
    "    &S.TensorMapEncodeTiled, &S.TensorMapEncodeIm2col};\n"
    "  getproc2 gp2 = NULL;\n"
    "  getproc1 gp1 = NULL;\n"
    "  void *sym;\n"
    "  size_t i;\n"
    "  if (S.lib) return 0;\n"
    "  S.lib = dlopen(PTXLUA_EMIT_LIBCUDA, RTLD_NOW | RTLD_LOCAL);\n"
    "  if (!S.lib) {\n"
    "    const char *e = dlerror();\n"
    "    snprintf(S.why, sizeof S.why, \"no CUDA driver: cannot load %s (%s)\", "
    "PTXLUA_EMIT_LIBCUDA,\n"
    "             e ? e : \"not found\");\n"
    "    return PL_NO_DRIVER;\n"
    "  }\n"
    "  sym = dlsym(S.lib, \"cuGetProcAddress_v2\");\n"
    "  if (sym) memcpy(&gp2, &sym, sizeof sym);\n"
    "  else if ((sym = dlsym(S.lib, \"cuGetProcAddress\"))) memcpy(&gp1, &sym, sizeof sym);\n"
    "  for (i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {\n"
    "    void *fn = NULL;\n"
    "    int st = 0;\n"
    "    CUresult r = gp2 ? gp2(NAMES[i], &fn, 12000, 0, &st) : gp1 ? gp1(NAMES[i], &fn, 12000, 0) "
    ": 1;\n"
    "    if (r || !fn) {\n"
    "      snprintf(S.why, sizeof S.why, \"%s: no %s (a CUDA 12 driver is needed)\", "
    "PTXLUA_EMIT_LIBCUDA,\n"
    "               gp1 || gp2 ? NAMES[i] : \"cuGetProcAddress\");\n"
    "      dlclose(S.lib);\n"
    "      memset(&S, 0, sizeof S);\n"
    "      return PL_NO_SYMBOL;\n"
    "    }\n"
    "    memcpy(SLOTS[i], &fn, sizeof fn);\n"
    "  }\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "static void pl_release(void) {\n"
    "  int k;\n"
    "  for (k = 0; k < PL_NK; k++) {\n"
    "    if (S.mod[k]) S.ModuleUnload(S.mod[k]);\n"
    "    S.mod[k] = S.fn[k] = NULL;\n"
    "  }\n"
    "  if (S.retained) S.PrimaryCtxRelease(S.dev);\n"
    "  S.retained = 0;\n"
    "  S.loaded = 0;\n"
    "}\n"
    "\n"
    "CUresult @@_load(void) {\n"
    "  void *ctx = NULL;\n"
    "  CUresult r;\n"
    "  int k;\n"
    "  if (S.loaded) return 0;\n"
    "  if ((r = pl_driver()) || (r = S.Init(0)) || (r = S.CtxGetCurrent(&ctx))) return r;\n"
    "  if (!ctx) {\n"
    "    if ((r = S.DeviceGet(&S.dev, 0)) || (r = S.PrimaryCtxRetain(&ctx, S.dev))) return r;\n"
    "    S.retained = 1;\n"
    "    if ((r = S.CtxSetCurrent(ctx))) {\n"
    "      pl_release();\n"
    "      return r;\n"
    "    }\n"
    "  }\n"
    "  for (k = 0; k < PL_NK; k++) {\n"
    "    r = S.ModuleLoadData(&S.mod[k], PL_K[k].image);\n"
    "    if (!r) r = S.ModuleGetFunction(&S.fn[k], S.mod[k], PL_K[k].name);\n"
    "    /* dynamic shared memory past the 48 KB default is allowed once, here */\n"
    "    if (!r && PL_K[k].smem) r = S.FuncSetAttribute(S.fn[k], 8, (int)PL_K[k].smem);\n"
    "    if (r) {\n"
    "      pl_release();\n"
    "      return r;\n"
    "    }\n"
    "  }\n"
    "  S.loaded = 1;\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "void @@_unload(void) {\n"
    "  if (S.loaded) pl_release();\n"
    "}\n"
    "\n"
    "const char *@@_error_string(CUresult r) {\n"
    "  const char *s = NULL;\n"
    "  if ((r == PL_NO_DRIVER || r == PL_NO_SYMBOL) && S.why[0]) return S.why;\n"
    "  if (r == PL_NOT_LOADED && !S.loaded) return \"the kernels are not loaded (@@_load)\";\n"
    "  if (S.GetErrorString && S.GetErrorString(r, &s) == 0 && s) return s;\n"
    "  return r ? \"a CUDA error\" : \"no error\";\n"
    "}\n"
    "\n"
    "CUresult @@_tensormap_encode(CUtensorMap *out, CUdeviceptr addr, const char *dtype, int "
    "rank,\n"
    "                             const uint64_t *dims, const uint64_t *strides, const uint32_t "
    "*box,\n"
    "                             const char *swizzle) {\n"
    "  static const char *const T[] = {\"u8\", \"u16\", \"u32\", \"s32\", \"u64\", \"s64\", "
    "\"f16\", \"f32\",\n"
    "                                  \"f64\", \"bf16\", \"f32_ftz\", \"tf32\", \"tf32_ftz\", "
    "\"b8\", \"s8\",\n"
    "                                  \"b16\", \"s16\", \"b32\", \"b64\"};\n"
    "  static const int CODE[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 1, 1, 2, 4};\n"
    "  static const unsigned char SIZE[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};\n"
    "  static const char *const SW[] = {\"none\", \"32B\", \"64B\", \"128B\"};\n"
    "  uint64_t st[4], extent;\n"
    "  uint32_t es[5] = {1, 1, 1, 1, 1};\n"
    "  int dt = -1, sw = swizzle ? -1 : 0, i;\n"
    "  if (!S.TensorMapEncodeTiled) return PL_NOT_LOADED;\n"
    "  for (i = 0; dtype && i < (int)(sizeof T / sizeof T[0]); i++)\n"
    "    if (strcmp(dtype, T[i]) == 0) dt = CODE[i];\n"
    "  for (i = 0; swizzle && i < 4; i++)\n"
    "    if (strcmp(swizzle, SW[i]) == 0) sw = i;\n"
    "  if (!out || !dims || !box || dt < 0 || sw < 0 || rank < 1 || rank > 5) return PL_INVALID;\n"
    "  extent = dims[0] * SIZE[dt];\n"
    "  for (i = 0; i < rank - 1; i++) {\n"
    "    st[i] = strides ? strides[i] : extent;\n"
    "    extent = st[i] * dims[i + 1];\n"
    "  }\n"
    "  return S.TensorMapEncodeTiled(out, dt, (unsigned)rank, (void *)(uintptr_t)addr, dims, st, "
    "box,\n"
    "                                es, 0, sw, 2, 0);\n"
    "}\n"
    "\n"
    "/* the arithmetic of extents, as Lua does it: a % b = a - floor(a / b) * b; a ^ b for a "
    "whole\n"
    "** b >= 0 (else NaN, which pl_whole refuses) */\n"
    "static inline double pl_floor(double x) {\n"
    "  double t = (double)(long long)x;\n"
    "  return t > x ? t - 1.0 : t;\n"
    "}\n"
    "static inline double pl_mod(double a, double b) {\n"
    "  return a - pl_floor(a / b) * b;\n"
    "}\n"
    "static inline double pl_pow(double a, double b) {\n"
    "  double r = 1.0;\n"
    "  if (!(b >= 0.0 && b <= 64.0 && b == pl_floor(b))) return 0.0 / 0.0;\n"
    "  while (b-- > 0.0) r *= a;\n"
    "  return r;\n"
    "}\n"
    "/* an extent a map is built with: a whole number in 1..max, else CUDA_ERROR_INVALID_VALUE */\n"
    "static inline CUresult pl_whole(double v, double max, uint64_t *out) {\n"
    "  if (!(v >= 1.0 && v <= max) || v != (double)(uint64_t)v) return PL_INVALID;\n"
    "  *out = (uint64_t)v;\n"
    "  return 0;\n"
    "}\n"
    "\n"
    "/* one launch of kernel k: the geometry given or its own, its dynamic shared memory */\n"
    "static CUresult pl_launch(int k, CUstream stream, const unsigned *grid, const unsigned "
    "*block,\n"
    "                          void **args) {\n"
    "  const pl_kernel *K = &PL_K[k];\n"
    "  pl_config c;\n"
    "  pl_attr at;\n"
    "  if (!S.loaded) return PL_NOT_LOADED;\n"
    "  if (!grid && !K->has_grid) return PL_INVALID;\n"
    "  if (!block && !K->has_block) return PL_INVALID;\n"
    "  if (!grid) grid = K->grid;\n"
    "  if (!block) block = K->block;\n"
    "  memset(&c, 0, sizeof c);\n"
    "  memset(&at, 0, sizeof at);\n"
    "  c.gx = grid[0];\n"
    "  c.gy = grid[1];\n"
    "  c.gz = grid[2];\n"
    "  c.bx = block[0];\n"
    "  c.by = block[1];\n"
    "  c.bz = block[2];\n"
    "  c.smem = K->smem;\n"
    "  c.stream = stream;\n"
    "  if (K->cluster_attr) { /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */\n"
    "    at.id = 4;\n"
    "    at.value.cluster.x = K->cluster[0];\n"
    "    at.value.cluster.y = K->cluster[1];\n"
    "    at.value.cluster.z = K->cluster[2];\n"
    "    c.attrs = &at;\n"
    "    c.nattrs = 1;\n"
    "  }\n"
    "  return S.LaunchKernelEx(&c, S.fn[k], args, NULL);\n"
    "}\n";

/* extent x as a C expression of type double over the launcher's scalar arguments (Lua's
** arithmetic: / divides, % is pl_mod, ^ pl_pow); 0, else -1 */
static int ext_c(plB_buf *b, const plE_dim *x, const ekernel *k) {
  if (x->kind == PLE_DIM_FIXED) {
    plB_buf_printf(b, "%lld.0", (long long)x->value);
    return 0;
  }
  if (x->kind == PLE_DIM_PARAM) {
    if (x->param < 0 || x->param >= k->np) return -1;
    plB_buf_printf(b, "(double)%s", k->p[x->param].cname);
    return 0;
  }
  if (x->kind != PLE_DIM_EXPR) return -1;
  char st[PLE_MAXOPS][600];
  int sp = 0;
  for (int i = 0; i < x->nops; i++) {
    int op = x->op[i];
    char t[600];
    if (op == PLE_OP_NUM) {
      snprintf(t, sizeof t, "%.17g", x->arg[i]);
      if (!strpbrk(t, ".eni")) strcat(t, ".0");
    } else if (op == PLE_OP_PARAM) {
      int j = (int)x->arg[i];
      if (j < 0 || j >= k->np) return -1;
      snprintf(t, sizeof t, "(double)%s", k->p[j].cname);
    } else if (op == PLE_OP_NEG) {
      if (sp < 1) return -1;
      snprintf(t, sizeof t, "(-%.580s)", st[--sp]);
    } else {
      if (sp < 2) return -1;
      const char *l = st[sp - 2], *r = st[sp - 1];
      static const char *const SYM[] = { "+", "-", "*", "/" };
      if (op >= PLE_OP_ADD && op <= PLE_OP_DIV)
        snprintf(t, sizeof t, "(%.290s %s %.290s)", l, SYM[op - PLE_OP_ADD], r);
      else if (op == PLE_OP_MOD || op == PLE_OP_POW)
        snprintf(t, sizeof t, "pl_%s(%.285s, %.285s)", op == PLE_OP_MOD ? "mod" : "pow", l, r);
      else
        return -1;
      sp -= 2;
    }
    if (sp >= PLE_MAXOPS) return -1;
    snprintf(st[sp++], sizeof st[0], "%s", t);
  }
  if (sp != 1) return -1;
  plB_buf_puts(b, st[0]);
  return 0;
}

/* `dst = extent x` checked whole and in 1..max, in the generated launcher */
static void put_whole(plB_buf *b, const plE_dim *x, const ekernel *k, const char *max,
                      const char *dst) {
  plB_buf_puts(b, "    if ((r_ = pl_whole(");
  if (ext_c(b, x, k)) plB_buf_puts(b, "-1.0"); /* name_check refused what has no C form */
  plB_buf_printf(b, ", %s, &%s)) != 0) return r_;\n", max, dst);
}

/* the map of parameter i built into m_i from the tensor at the launcher's argument `src` */
static void put_build(plB_buf *b, const ekernel *k, int i) {
  const eparam *p = &k->p[i];
  const plE_view *v = p->view;
  const char *src = lname(&k->p[p->src]);
  int rank = v->t.ndim, dt = plB_tmap_dtype(v->tmdtype);
  unsigned bits = (unsigned)plB_tmap_bits(dt); /* 4 and 6 for the packed types */
  plB_buf_printf(b, "  { /* %s: the map over %s */\n", p->cname, src);
  plB_buf_printf(b, "    uint64_t sh_[%d], st_[%d], d_[%d], g_[%d];\n", rank, rank, rank,
                 rank > 1 ? rank - 1 : 1);
  plB_buf_printf(b, "    uint32_t %ses_[5] = {1, 1, 1, 1, 1};\n",
                 v->im2col ? "" : "bx_[5] = {1, 1, 1, 1, 1}, ");
  plB_buf_puts(b, "    uint64_t x_ = 0;\n    int i_;\n");
  char dst[32];
  for (int j = 0; j < rank; j++) {
    snprintf(dst, sizeof dst, "sh_[%d]", j);
    put_whole(b, &v->t.dims[j], k, "4294967296.0", dst);
  }
  if (v->t.nstrides == rank) {
    for (int j = 0; j < rank; j++) {
      snprintf(dst, sizeof dst, "st_[%d]", j);
      put_whole(b, &v->t.strides[j], k, "281474976710656.0", dst);
    }
  } else {
    plB_buf_printf(b, "    st_[%d] = 1;\n", rank - 1);
    plB_buf_printf(b, "    for (i_ = %d; i_ >= 0; i_--) st_[i_] = st_[i_ + 1] * sh_[i_ + 1];\n",
                   rank - 2);
  }
  plB_buf_printf(b, "    for (i_ = 0; i_ < %d; i_++) d_[i_] = sh_[%d - i_];\n", rank, rank - 1);
  if (bits % 8)
    plB_buf_printf(b, "    for (i_ = 1; i_ < %d; i_++) g_[i_ - 1] = st_[%d - i_] * %uu / 8u;\n",
                   rank, rank - 1, bits);
  else
    plB_buf_printf(b, "    for (i_ = 1; i_ < %d; i_++) g_[i_ - 1] = st_[%d - i_] * %uu;\n", rank,
                   rank - 1, bits / 8);
  for (int j = 0; j < v->nes; j++) {
    put_whole(b, &v->es[j], k, "8.0", "x_");
    plB_buf_printf(b, "    es_[%d] = (uint32_t)x_;\n", j);
  }
  int sw = plB_tmap_swizzle(v->swizzle[0] ? v->swizzle : NULL);
  int il = plB_tmap_interleave(v->interleave[0] ? v->interleave : NULL);
  int l2 = plB_tmap_l2promotion(v->l2[0] ? v->l2 : NULL);
  int oob = plB_tmap_oobfill(v->oob[0] ? v->oob : NULL);
  if (!v->im2col) {
    for (int j = 0; j < rank; j++) {
      put_whole(b, &v->box[j], k, "4294967295.0", "x_");
      plB_buf_printf(b, "    bx_[%d] = (uint32_t)x_;\n", j);
    }
    plB_buf_printf(b,
                   "    r_ = S.TensorMapEncodeTiled(&m_%d, %d, %du, (void *)(uintptr_t)%s, d_, g_, "
                   "bx_, es_, 0, %d, 2, 0);\n",
                   i, dt, rank, src, sw);
  } else {
    plB_buf_puts(b, "    {\n      const int lo_[3] = {");
    for (int j = 0; j < 3; j++)
      plB_buf_printf(b, "%s%d", j ? ", " : "", j < v->ncorner ? v->lower[j] : 0);
    plB_buf_puts(b, "}, hi_[3] = {");
    for (int j = 0; j < 3; j++)
      plB_buf_printf(b, "%s%d", j ? ", " : "", j < v->ncorner ? v->upper[j] : 0);
    plB_buf_puts(b, "};\n      uint64_t c_ = d_[0], p_ = 0;\n");
    if (v->has_cpp) put_whole(b, &v->cpp, k, "256.0", "c_");
    put_whole(b, &v->ppc, k, "1024.0", "p_");
    plB_buf_printf(
        b,
        "      r_ = S.TensorMapEncodeIm2col(&m_%d, %d, %du, (void *)(uintptr_t)%s, d_, g_, "
        "lo_, hi_, (unsigned)c_, (unsigned)p_, es_, %d, %d, %d, %d);\n    }\n",
        i, dt, rank, src, il, sw, l2, oob);
  }
  plB_buf_puts(b, "    (void)x_;\n    if (r_) return r_;\n  }\n");
}

static void source_kernel(plB_buf *b, const char *nm, const ekernel *k, int idx) {
  int np = k->np;
  /* the launch with the kernel's own geometry */
  plB_buf_printf(b, "\nCUresult %s_%s_launch(CUstream stream", nm, k->name);
  if (!k->has_grid) plB_buf_puts(b, ", const unsigned grid[3]");
  if (!k->has_block) plB_buf_puts(b, ", const unsigned block[3]");
  put_lparams(b, k);
  plB_buf_printf(b, ") {\n  return %s_%s_launch_dims(stream, %s, %s", nm, k->name,
                 k->has_grid ? "NULL" : "grid", k->has_block ? "NULL" : "block");
  for (int i = 0; i < np; i++)
    if (!builds(&k->p[i]) || k->p[i].src == i) plB_buf_printf(b, ", %s", lname(&k->p[i]));
  plB_buf_puts(b, ");\n}\n\n");
  if (k->views) { /* the maps built, then the launch that takes them */
    plB_buf_printf(b,
                   "CUresult %s_%s_launch_dims(CUstream stream, const unsigned grid[3], "
                   "const unsigned block[3]",
                   nm, k->name);
    put_lparams(b, k);
    plB_buf_puts(b, ") {\n");
    for (int i = 0; i < np; i++)
      if (builds(&k->p[i])) plB_buf_printf(b, "  CUtensorMap m_%d;\n", i);
    plB_buf_puts(b, "  CUresult r_;\n");
    plB_buf_puts(b, "  if (!S.loaded) return PL_NOT_LOADED;\n");
    for (int i = 0; i < np; i++)
      if (builds(&k->p[i]) && k->p[i].src == i)
        plB_buf_printf(b, "  if (!%s) return PL_INVALID;\n", k->p[i].tname);
    for (int i = 0; i < np; i++)
      if (builds(&k->p[i])) put_build(b, k, i);
    plB_buf_printf(b, "  return %s_%s_launch_maps(stream, grid, block", nm, k->name);
    for (int i = 0; i < np; i++) {
      if (builds(&k->p[i]))
        plB_buf_printf(b, ", &m_%d", i);
      else
        plB_buf_printf(b, ", %s", k->p[i].cname);
    }
    plB_buf_puts(b, ");\n}\n\n");
  }
  /* with the geometry given: each argument's address, as cuLaunchKernelEx takes them */
  plB_buf_printf(b,
                 "CUresult %s_%s_launch_%s(CUstream stream, const unsigned grid[3], "
                 "const unsigned block[3]",
                 nm, k->name, k->views ? "maps" : "dims");
  put_params(b, k);
  plB_buf_printf(b, ") {\n  void *a_[%d];\n", np ? np : 1);
  for (int i = 0; i < np; i++) {
    const eparam *p = &k->p[i];
    if (by_pointer(p)) {
      plB_buf_printf(b, "  if (!%s) return PL_INVALID;\n", p->cname);
      plB_buf_printf(b, "  a_[%d] = (void *)%s;\n", i, p->cname);
    } else
      plB_buf_printf(b, "  a_[%d] = &%s;\n", i, p->cname);
  }
  if (!np) plB_buf_puts(b, "  a_[0] = NULL;\n");
  plB_buf_printf(b, "  return pl_launch(%d, stream, grid, block, a_);\n}\n", idx);
}

static void put_image(plB_buf *b, const ekernel *k, int idx) {
  plB_buf_printf(b, "\n/* %s: %zu bytes of cubin (%s) */\n", k->name, k->len, k->target);
  plB_buf_printf(b, "PL_ALIGN64 static const unsigned char PL_IMAGE_%d[%zu] = {", idx, k->len);
  for (size_t i = 0; i < k->len; i++) {
    if (i % 16 == 0) plB_buf_puts(b, "\n ");
    plB_buf_printf(b, " 0x%02x,", k->cubin[i]);
  }
  plB_buf_puts(b, "\n};\n");
}

static void put_banner(plB_buf *b, const char *file, const char *nm, const char *script,
                       const ekernel *ks, int nk) {
  plB_buf_printf(b, "/* %s -- written by ptxlua %s (ptxlua --emit-c) from ", file,
                 ptxlua_version());
  put_comment_text(b, script && *script ? script : "?");
  plB_buf_puts(b, "; do not edit.\n** Kernels:");
  for (int i = 0; i < nk; i++)
    plB_buf_printf(b, "%s %s (%s)", i ? "," : "", ks[i].name, ks[i].target);
  plB_buf_printf(
      b,
      ".\n** Each is a cubin embedded in %s.c with a typed launcher; at run time only the "
      "CUDA driver is\n** needed (libcuda.so.1, opened with dlopen by %s_load; link with "
      "-ldl on glibc before 2.34). */\n",
      nm, nm);
}

/* the generated text with no line over 100 columns: a comment line breaks at a blank (going on
** with "**"), a prototype or call after a ", " (going on indented); nothing else is that long */
static void wrap(plB_buf *out, const plB_buf *in) {
  const char *s = in->p ? in->p : "", *end = s + in->n;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
    int comment = n >= 2 && ((s[0] == '/' && s[1] == '*') || (s[0] == '*' && s[1] == '*'));
    const char *cont = comment ? (s[0] == '/' ? "**   " : "**     ") : "    ";
    while (n > 100) {
      size_t cut = 0;
      for (size_t i = 100; i > 20 && !cut; i--) {
        if (s[i] == ' ' && (comment || s[i - 1] == ',')) cut = i;
      }
      if (!cut) break;
      plB_buf_add(out, s, cut);
      plB_buf_putc(out, '\n');
      plB_buf_puts(out, cont);
      s += cut + 1;
      n -= cut + 1;
      if (n + strlen(cont) <= 100) break;
    }
    plB_buf_add(out, s, n);
    if (nl) plB_buf_putc(out, '\n');
    s += n + (nl ? 1 : 0);
  }
}

/* ---- writing
** ------------------------------------------------------------------------------------ */
static int write_tmp(const char *path, const plB_buf *b, char *tmp, size_t tn, char *err,
                     size_t en) {
  snprintf(tmp, tn, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, en, "error: cannot write %s: %s", path, strerror(errno));
    tmp[0] = 0;
    return PTXLUA_IO;
  }
  FILE *f = fdopen(fd, "wb");
  int bad = !f || fwrite(b->p, 1, b->n, f) != b->n;
  if (f && fclose(f) != 0) bad = 1;
  if (!f) close(fd);
  if (bad) {
    snprintf(err, en, "error: cannot write %s: %s", path, strerror(errno ? errno : EIO));
    unlink(tmp);
    tmp[0] = 0;
    return PTXLUA_IO;
  }
  chmod(tmp, 0644);
  return PTXLUA_OK;
}

/* both files to temporaries, then renamed into place: a failure leaves DIR as it was */
static int write_pair(ptxlua_engine *e, const char *dir, const char *nm, const plB_buf *h,
                      const plB_buf *c) {
  char err[4600], ph[4200], pc[4200], th[4300] = "", tc[4300] = "";
  struct stat st;
  if (stat(dir, &st) != 0) {
    if (errno != ENOENT || mkdir(dir, 0777) != 0) {
      snprintf(err, sizeof err, "error: cannot write to the directory %s: %s", dir,
               strerror(errno));
      return plE_set_error(e, PTXLUA_IO, err);
    }
  } else if (!S_ISDIR(st.st_mode)) {
    snprintf(err, sizeof err, "error: --emit-c %s: not a directory", dir);
    return plE_set_error(e, PTXLUA_IO, err);
  }
  snprintf(ph, sizeof ph, "%s/%s.h", dir, nm);
  snprintf(pc, sizeof pc, "%s/%s.c", dir, nm);
  int rc = write_tmp(ph, h, th, sizeof th, err, sizeof err);
  if (!rc) rc = write_tmp(pc, c, tc, sizeof tc, err, sizeof err);
  if (!rc && rename(th, ph) != 0) {
    snprintf(err, sizeof err, "error: cannot rename into place: %s: %s", ph, strerror(errno));
    rc = PTXLUA_IO;
  } else if (!rc)
    th[0] = 0;
  if (!rc && rename(tc, pc) != 0) {
    snprintf(err, sizeof err, "error: cannot rename into place: %s: %s", pc, strerror(errno));
    rc = PTXLUA_IO;
  } else if (!rc)
    tc[0] = 0;
  if (th[0]) unlink(th);
  if (tc[0]) unlink(tc);
  return rc ? plE_set_error(e, rc, err) : PTXLUA_OK;
}

/* is `name` in the comma-separated list (NULL: every kernel)? */
static int selected(const char *list, const char *name) {
  if (!list) return 1;
  size_t n = strlen(name);
  for (const char *p = list;;) {
    const char *q = strchr(p, ',');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (!q) return 0;
    p = q + 1;
  }
}

PTXLUA_API int ptxlua_emit_c(ptxlua_engine *e, const char *kernels, int flags, const char *dir,
                             const char *name, const char *script) {
  if (!e || !dir || !name) return PTXLUA_MISUSE;
  plE_clear_error(e);
  int rc = plE_check_flags(e, flags, PTXLUA_NO_CACHE);
  if (rc) return rc;
  char msg[1200];
  if (!is_cident(name) || strlen(name) > 200) {
    snprintf(msg, sizeof msg,
             "--emit-c: the name '%.200s' is no C identifier (the generated names start with it)",
             name);
    return plE_set_error(e, PTXLUA_MISUSE, msg);
  }
  int total = ptxlua_kernel_count(e);
  if (total == 0)
    return plE_set_error(e, PTXLUA_MISUSE, "no script is loaded (or it defines no kernel)");
  if (kernels) { /* each listed name must be a kernel of the script */
    for (const char *p = kernels;;) {
      const char *q = strchr(p, ',');
      size_t len = q ? (size_t)(q - p) : strlen(p);
      int found = 0;
      for (int i = 0; i < total && !found; i++) {
        const char *kn = ptxlua_kernel_name(e, i);
        found = kn && strlen(kn) == len && strncmp(kn, p, len) == 0;
      }
      if (!found) {
        snprintf(msg, sizeof msg, "--emit-c: no kernel named '%.*s'", (int)(len > 200 ? 200 : len),
                 p);
        return plE_set_error(e, PTXLUA_MISUSE, msg);
      }
      if (!q) break;
      p = q + 1;
    }
  }
  ekernel *ks = calloc((size_t)total, sizeof *ks);
  if (!ks) return plE_set_error(e, PTXLUA_NOMEM, "out of memory");
  int nk = 0;
  for (int i = 0; i < total && !rc; i++) {
    const char *kn = ptxlua_kernel_name(e, i);
    if (!kn || !selected(kernels, kn)) continue;
    char kname[256];
    snprintf(kname, sizeof kname, "%s", kn); /* the registry's string may move on a rebuild */
    ekernel *k = &ks[nk++];
    rc = describe(e, kname, k);
    if (!rc) rc = name_check(e, name, k);
    void *bin = NULL;
    if (!rc) rc = ptxlua_compile(e, kname, flags & PTXLUA_NO_CACHE, &bin, &k->len);
    k->cubin = bin;
  }
  plB_buf h, c;
  plB_buf_init(&h);
  plB_buf_init(&c);
  if (!rc) {
    char fh[300], fc[300];
    snprintf(fh, sizeof fh, "%s.h", name);
    snprintf(fc, sizeof fc, "%s.c", name);
    put_banner(&h, fh, name, script, ks, nk);
    put_t(&h, H_TOP, name);
    for (int i = 0; i < nk; i++) header_kernel(&h, name, &ks[i]);
    plB_buf_puts(&h, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
    put_banner(&c, fc, name, script, ks, nk);
    put_t(&c, C_TOP, name);
    for (int i = 0; i < nk; i++) put_image(&c, &ks[i], i);
    plB_buf_printf(&c, "\n#define PL_NK %d\nstatic const pl_kernel PL_K[PL_NK] = {\n", nk);
    for (int i = 0; i < nk; i++) {
      const ekernel *k = &ks[i];
      plB_buf_printf(&c, "  {\"%s\", PL_IMAGE_%d, ", k->name, i);
      put_dims(&c, k->grid);
      plB_buf_puts(&c, ", ");
      put_dims(&c, k->block);
      plB_buf_puts(&c, ", ");
      put_dims(&c, k->cluster);
      plB_buf_printf(&c, ", %u, %d, %d, %d},\n", k->smem, k->has_grid, k->has_block,
                     k->cluster_attr);
    }
    plB_buf_puts(&c, "};\n");
    put_t(&c, C_DRIVER, name);
    for (int i = 0; i < nk; i++) source_kernel(&c, name, &ks[i], i);
    plB_buf wh, wc;
    plB_buf_init(&wh);
    plB_buf_init(&wc);
    wrap(&wh, &h);
    wrap(&wc, &c);
    if (h.oom || c.oom || wh.oom || wc.oom)
      rc = plE_set_error(e, PTXLUA_NOMEM, "out of memory");
    else
      rc = write_pair(e, dir, name, &wh, &wc);
    plB_buf_free(&wh);
    plB_buf_free(&wc);
  }
  plB_buf_free(&h);
  plB_buf_free(&c);
  for (int i = 0; i < nk; i++) {
    for (int j = 0; ks[i].p && j < ks[i].np; j++) free(ks[i].p[j].view);
    free(ks[i].p);
    free(ks[i].cubin);
  }
  free(ks);
  return rc;
}
