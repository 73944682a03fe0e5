/* ir.c -- building the trace IR: functions, registers, variables, statements.
** Errors are sticky (DynASM-style): the first one is kept in m->err, later calls are no-ops. */
#include "ir.h"
#include "isa.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

plI_module *plI_new(struct plA_ctx *isa) {
  plI_module *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  plB_strtab_init(&m->strs);
  plB_buf_init(&m->err);
  m->isa = isa;
  if (isa) plA_ref(isa);
  m->version = 0;
  m->address_size = 64;
  return m;
}

static void free_func(plI_func *f) {
  plB_vec_free(f->params);
  plB_vec_free(f->rets);
  plB_vec_free(f->regdecls);
  plB_vec_free(f->vars);
  plB_vec_free(f->stmts);
  plB_vec_free(f->vtext);
}

static void sym_free(plI_module *m);
void plI_free(plI_module *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->funcs.n; i++) free_func(&m->funcs.p[i]);
  plB_vec_free(m->funcs);
  plB_vec_free(m->globals);
  plB_vec_free(m->regs);
  plB_vec_free(m->opnds);
  plB_vec_free(m->vregs);
  free(m->declmap);
  plB_strtab_free(&m->strs);
  plB_buf_free(&m->err);
  plB_buf_free(&m->vsrc);
  plB_vec_free(m->vpieces);
  plB_vec_free(m->frames);
  plB_vec_free(m->undo);
  sym_free(m);
  if (m->isa) plA_unref(m->isa);
  free(m);
}

int plI_fail(plI_module *m, int code, const char *fmt, ...) {
  if (!m) return code ? code : 1;
  if (m->status) return m->status;
  m->status = code ? code : 1;
  va_list ap;
  va_start(ap, fmt);
  plB_buf_vprintf(&m->err, fmt, ap);
  va_end(ap);
  return m->status;
}

uint32_t plI_str(plI_module *m, const char *s) {
  if (!m) return 0;
  if (!s) {
    plI_fail(m, 1, "a name is missing (NULL)");
    return 0;
  }
  uint32_t id = plB_intern(&m->strs, s, strlen(s));
  if (!id) plI_fail(m, 2, "out of memory");
  return id;
}

int plI_func_new(plI_module *m, const char *name, int kind, int linkage) {
  if (!m || m->status) return -1; /* sticky: after an error, building is a no-op */
  plI_func f;
  memset(&f, 0, sizeof f);
  f.name = plI_str(m, name);
  f.kind = (uint8_t)kind;
  f.linkage = (uint8_t)linkage;
  if (!f.name) return -1;
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (m->funcs.p[i].name == f.name && !m->funcs.p[i].declared_only) {
      plI_fail(m, 1, "function '%s' is defined twice", name);
      return -1;
    }
  if (!plB_vec_push(m->funcs, f)) {
    plI_fail(m, 2, "out of memory");
    return -1;
  }
  m->cur = m->funcs.n - 1;
  return (int)m->cur;
}

int plI_param(plI_module *m, int func, const char *name, int type, uint32_t align, uint64_t count,
              int ret) {
  if (!m || m->status) return -1;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no such function"), -1;
  plI_func *f = &m->funcs.p[func];
  plI_var v;
  memset(&v, 0, sizeof v);
  v.name = plI_str(m, name);
  v.space = PLV_PARAM;
  v.type = (uint8_t)type;
  v.align = align;
  v.count = count;
  if (!v.name) return -1;
  for (uint32_t i = 0; i < f->params.n; i++)
    if (f->params.p[i].name == v.name)
      return plI_fail(m, 1, "parameter '%s' declared twice", name), -1;
  if (ret ? !plB_vec_push(f->rets, v) : !plB_vec_push(f->params, v))
    return plI_fail(m, 2, "out of memory"), -1;
  m->nvars++;
  return 0;
}

/* --- register names --------------------------------------------------------------------- */

/* declmap[string id] = (func << 32 | decl index) + 1: the declaration of that name visible now
** (the innermost: a nested block's declaration hides an enclosing one until the block closes) */
static int visible(const plI_module *m, uint32_t scope) {
  if (!scope) return 1;
  for (uint32_t i = m->frames.n; i-- > 0;)
    if (m->frames.p[i].stmt + 1 == scope) return 1;
  return 0;
}
static int declmap_get(plI_module *m, uint32_t func, uint32_t name) {
  if (name >= m->declmap_n) return -1;
  uint64_t e = m->declmap[name];
  if (!e) return -1; /* never declared anywhere */
  if ((uint32_t)((e - 1) >> 32) == func) return (int)((e - 1) & 0xffffffffu);
  /* the entry is another function's (it declared the name later): look in this one's list, for
  ** the innermost declaration still in scope */
  const plI_func *f = &m->funcs.p[func];
  for (uint32_t i = f->regdecls.n; i-- > 0;)
    if (f->regdecls.p[i].name == name && visible(m, f->regdecls.p[i].scope)) {
      m->declmap[name] = (((uint64_t)func << 32) | i) + 1;
      return (int)i;
    }
  return -1;
}
static int declmap_set(plI_module *m, uint32_t func, uint32_t name, uint32_t decl) {
  if (name >= m->declmap_n) {
    uint32_t n = m->declmap_n ? m->declmap_n : 256;
    while (n <= name) n *= 2;
    uint64_t *p = realloc(m->declmap, n * sizeof *p);
    if (!p) return 0;
    memset(p + m->declmap_n, 0, (n - m->declmap_n) * sizeof *p);
    m->declmap = p;
    m->declmap_n = n;
  }
  if (m->frames.n) { /* inside a nested block: what the name meant before, for its close */
    plI_undo u = { name, m->declmap[name] };
    if (!plB_vec_push(m->undo, u)) return 0;
  }
  m->declmap[name] = (((uint64_t)func << 32) | decl) + 1;
  return 1;
}

static int valid_regname(const char *s) {
  if (!*s) return 0;
  if (!(isalpha((unsigned char)*s) || *s == '_' || *s == '$')) return 0;
  for (s++; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '$')) return 0;
  return 1;
}

/* a scalar "f12" collides with a range or pool "f" */
static int collides(plI_module *m, uint32_t func, const char *name) {
  size_t n = strlen(name), k = n;
  while (k > 0 && isdigit((unsigned char)name[k - 1])) k--;
  if (k == n || k == 0) return 0;
  uint32_t base = plB_find(&m->strs, name, k);
  if (!base) return 0;
  int d = declmap_get(m, func, base);
  const plI_regdecl *rd = d >= 0 ? &m->funcs.p[func].regdecls.p[d] : NULL;
  return rd && rd->count > 0 && rd->scope == plI_scope_cur(m); /* in another block it hides */
}

/* lazy: a range whose registers are made one by one on first use (plI_reg_elem); returns its
** declaration's index + 1 instead of a register id */
static uint32_t new_decl(plI_module *m, int func, const char *name, int type, uint32_t count,
                         int pool, int bare, int lazy) {
  if (!m || m->status) return 0;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no current function"), 0;
  if (!name || !valid_regname(name))
    return plI_fail(m, 1, "bad register name '%s'", name ? name : "(null)"), 0;
  if (type <= PLT_NONE || type >= PLT__COUNT || (plB_type_info[type].bits < 8 && type != PLT_PRED))
    return plI_fail(m, 1, "bad register type"), 0;
  uint32_t sid = plI_str(m, name);
  if (!sid) return 0;
  plI_func *f = &m->funcs.p[func];
  uint32_t scope = plI_scope_cur(m);
  const char *pc = bare ? "" : "%";
  int prev = declmap_get(m, (uint32_t)func, sid);
  /* a name declared again in the same block is ptxas's "Duplicate definition"; in a nested block
  ** it hides the enclosing declaration until the block closes */
  if (prev >= 0 && f->regdecls.p[prev].scope == scope)
    return plI_fail(m, 1, "register name '%s%s' is already declared", pc, name), 0;
  size_t nl = strlen(name);
  if (count && !pool && isdigit((unsigned char)name[nl - 1]))
    /* ptxas takes the digits before <N> for part of the numbering: %v1<2> makes no %v10, %v11 */
    return plI_fail(m, 1,
                    "register range name '%s' ends in a digit: ptxas declares no usable "
                    "register by %s%s<%u> (%s%s0 is not '%s%s' followed by 0 for it); end the name "
                    "with a letter or '_' ('%s_')",
                    name, pc, name, count, pc, name, pc, name, name),
           0;
  if (collides(m, (uint32_t)func, name))
    return plI_fail(m, 1, "register name '%s%s' collides with a register range", pc, name), 0;
  if (count || pool) { /* a range %name<N>: no scalar of this block may be called name<digits> */
    uint32_t i0 = m->frames.n ? m->frames.p[m->frames.n - 1].decl0 : 0;
    for (uint32_t i = i0; i < f->regdecls.n; i++) {
      const plI_regdecl *d = &f->regdecls.p[i];
      if (d->scope != scope) continue;
      const char *dn = plI_cstr(m, d->name);
      size_t k = strlen(name);
      if (d->count == 0 && strncmp(dn, name, k) == 0 && dn[k]) {
        const char *q = dn + k;
        while (isdigit((unsigned char)*q)) q++;
        if (!*q)
          return plI_fail(m, 1, "register range '%s%s' collides with register '%s%s'", pc, name, pc,
                          dn),
                 0;
      }
    }
  }
  plI_regdecl d = { .name = sid,
                    .count = count,
                    .type = plB_type_info[type].decl,
                    .pool = (uint8_t)(pool != 0),
                    .bare = (uint8_t)(bare != 0),
                    .scope = scope };
  if (!plB_vec_push(f->regdecls, d) || !declmap_set(m, (uint32_t)func, sid, f->regdecls.n - 1))
    return plI_fail(m, 2, "out of memory"), 0;
  if (lazy) return f->regdecls.n;
  uint32_t first = m->regs.n;
  for (uint32_t i = 0; i < (count ? count : 1); i++) {
    plI_reg r = { sid, count ? (int32_t)i : -1, (uint8_t)type, (uint8_t)(bare != 0),
                  (uint32_t)func };
    if (!plB_vec_push(m->regs, r)) return plI_fail(m, 2, "out of memory"), 0;
  }
  return first + 1; /* register ids are 1-based */
}

uint32_t plI_reg_scalar(plI_module *m, int func, const char *name, int type) {
  return new_decl(m, func, name, type, 0, 0, 0, 0);
}
uint32_t plI_reg_bare(plI_module *m, int func, const char *name, int type, uint32_t count) {
  if (!m || m->status) return 0;
  if (count > (1u << 24)) return plI_fail(m, 1, "bad register range size %u", count), 0;
  return new_decl(m, func, name, type, count, 0, 1, 0);
}
uint32_t plI_reg_range(plI_module *m, int func, const char *name, int type, uint32_t count) {
  if (!m || m->status) return 0;
  if (count == 0 || count > (1u << 24))
    return plI_fail(m, 1, "bad register range size %u", count), 0;
  return new_decl(m, func, name, type, count, 0, 0, 0);
}
uint32_t plI_reg_range_lazy(plI_module *m, int func, const char *name, int type, uint32_t count,
                            int bare) {
  if (!m || m->status) return 0;
  if (count == 0 || count > (1u << 24))
    return plI_fail(m, 1, "bad register range size %u", count), 0;
  return new_decl(m, func, name, type, count, 0, bare, 1);
}
uint32_t plI_reg_elem(plI_module *m, int func, uint32_t decl, int type, uint32_t index) {
  if (!m || m->status) return 0;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no current function"), 0;
  const plI_func *f = &m->funcs.p[func];
  if (decl == 0 || decl > f->regdecls.n || index >= f->regdecls.p[decl - 1].count)
    return plI_fail(m, 1, "no register %u in that range", index), 0;
  if (type <= PLT_NONE || type >= PLT__COUNT) return plI_fail(m, 1, "bad register type"), 0;
  const plI_regdecl *d = &f->regdecls.p[decl - 1];
  plI_reg r = { d->name, (int32_t)index, (uint8_t)type, d->bare, (uint32_t)func };
  if (!plB_vec_push(m->regs, r)) return plI_fail(m, 2, "out of memory"), 0;
  return m->regs.n;
}

uint32_t plI_reg_pool(plI_module *m, int func, const char *prefix, int type) {
  if (!m || m->status) return 0;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no current function"), 0;
  if (!prefix || !valid_regname(prefix))
    return plI_fail(m, 1, "bad register name '%s'", prefix ? prefix : "(null)"), 0;
  /* a nested block has pools of its own, declared at its top: the prefix with one '_' per level
  ** of nesting (%r_1 in a block, %r__1 in a block inside it), so that they never hide the
  ** enclosing code's %r1 and sibling blocks reuse the same names, as inline asm does */
  char nested[64 + 64 + 1];
  if (m->frames.n) {
    size_t k = strlen(prefix);
    if (k > 64) return plI_fail(m, 1, "bad register name '%s'", prefix), 0;
    memcpy(nested, prefix, k);
    memset(nested + k, '_', m->frames.n);
    nested[k + m->frames.n] = 0;
    prefix = nested;
  }
  uint32_t sid = plB_find(&m->strs, prefix, strlen(prefix));
  int d = sid ? declmap_get(m, (uint32_t)func, sid) : -1;
  /* an enclosing block's */
  if (d >= 0 && m->funcs.p[func].regdecls.p[d].scope != plI_scope_cur(m)) d = -1;
  if (d < 0) {
    /* pools are numbered from 1, as nvcc does: %f<N> declares %f0..%f(N-1) and %f0 stays unused */
    uint32_t id = new_decl(m, func, prefix, type, 2, 1, 0, 0);
    if (!id) return 0;
    m->regs.p[id - 1].type = 0xff; /* %prefix0: never handed out */
    return id + 1;
  }
  plI_regdecl *dc = &m->funcs.p[func].regdecls.p[d];
  uint32_t idx = dc->count;
  if (!dc->pool)
    return plI_fail(m, 1,
                    "register name '%%%s' is taken by a named register; unnamed .%s registers are "
                    "named %%%sN",
                    prefix, plB_type_info[type].name, prefix),
           0;
  if (dc->type != plB_type_info[type].decl)
    return plI_fail(m, 1, "register pool '%%%s' holds another type", prefix), 0;
  dc->count++;
  plI_reg r = { dc->name, (int32_t)idx, (uint8_t)type, 0, (uint32_t)func };
  if (!plB_vec_push(m->regs, r)) return plI_fail(m, 2, "out of memory"), 0;
  return m->regs.n;
}

/* one variable at the end of the layout so far: its alignment, then its size */
static uint64_t lay_var(uint64_t off, const plI_var *v) {
  uint32_t bits = v->type < PLT__COUNT ? plB_type_info[v->type].bits : 8;
  uint32_t elt = bits >= 8 ? bits / 8 : 1;
  uint64_t a = v->align ? v->align : elt;
  uint64_t n = v->count == UINT64_MAX ? 0 : v->count ? v->count : 1;
  off = (off + a - 1) / a * a;
  return off + n * elt;
}
uint64_t plI_var_end(uint64_t off, const plI_var *v) {
  return v ? lay_var(off, v) : off;
}
uint64_t plI_space_bytes(const plI_module *m, uint32_t func, int space, const plI_var *extra) {
  if (!m || func >= m->funcs.n) return 0;
  const plI_func *f = &m->funcs.p[func];
  uint64_t off = 0;
  if (space == PLV_PARAM) {
    for (uint32_t i = 0; i < f->params.n; i++) off = lay_var(off, &f->params.p[i]);
  } else {
    for (uint32_t i = 0; i < f->vars.n; i++)
      if (f->vars.p[i].space == space && f->vars.p[i].linkage != PLK_EXTERN)
        off = lay_var(off, &f->vars.p[i]);
  }
  return extra ? lay_var(off, extra) : off;
}

void plI_regname(const plI_module *m, uint32_t id, plB_buf *b) {
  if (!b) return;
  if (!m || id == 0 || id > m->regs.n) {
    plB_buf_puts(b, "%<bad>");
    return;
  }
  const plI_reg *r = &m->regs.p[id - 1];
  if (!r->bare) plB_buf_putc(b, '%');
  plB_buf_puts(b, plI_cstr(m, r->name));
  if (r->index >= 0) plB_buf_printf(b, "%d", r->index);
}

/* a variable as its declaration reads (".shared .align 4 .f32 tile[1024]"), for the messages of
** a name declared twice */
static void var_text(const plI_module *m, const plI_var *v, char *buf, size_t n) {
  static const char *const SPACE[] = { ".global", ".shared", ".const", ".local", ".param" };
  char cnt[32] = "";
  if (v->count == UINT64_MAX)
    snprintf(cnt, sizeof cnt, "[]");
  else if (v->count)
    snprintf(cnt, sizeof cnt, "[%llu]", (unsigned long long)v->count);
  char al[24] = "";
  if (v->align) snprintf(al, sizeof al, ".align %u ", v->align);
  static const char *const LINK[] = { "", ".visible ", ".extern ", ".weak ", ".common " };
  snprintf(buf, n, "%s%s %s.%s %.100s%s", v->linkage < 5 ? LINK[v->linkage] : "",
           v->space < 5 ? SPACE[v->space] : ".?", al,
           v->type < PLT__COUNT ? plB_type_info[v->type].name : "?", plI_cstr(m, v->name), cnt);
}

/* name declared twice: what the first declaration was, and the second, for plI_fail */
static int dup_fail(plI_module *m, const plI_var *first, const plI_var *now, const char *where) {
  char a[200], b[200];
  var_text(m, first, a, sizeof a);
  var_text(m, now, b, sizeof b);
  return plI_fail(m, 1, "'%s' is declared twice %s: first %s, then %s", plI_cstr(m, now->name),
                  where, a, b);
}

int plI_var_new(plI_module *m, int func, const char *name, int space, int linkage, int type,
                uint32_t align, uint64_t count, const char *init) {
  if (!m || m->status) return -1;
  plI_var v;
  memset(&v, 0, sizeof v);
  v.name = plI_str(m, name);
  v.space = (uint8_t)space;
  v.linkage = (uint8_t)linkage;
  v.type = (uint8_t)type;
  v.align = align;
  v.count = count;
  v.init = init ? plI_str(m, init) : 0;
  if (!v.name) return -1;
  if (align & (align - 1))
    return plI_fail(m, 1, "alignment %u of '%s' is not a power of two", align, name), -1;
  char where[200];
  if (func < 0) {
    for (uint32_t i = 0; i < m->globals.n; i++)
      if (m->globals.p[i].name == v.name)
        return dup_fail(m, &m->globals.p[i], &v, "at module scope"), -1;
    /* a variable of the function being traced would hide it there: its instructions naming the
    ** symbol would reach the function's own (ptxas accepts the shadowing, silently) */
    if (m->cur < m->funcs.n) {
      const plI_func *f = &m->funcs.p[m->cur];
      snprintf(where, sizeof where, "in %.100s (at module scope, hidden by the kernel's own)",
               plI_cstr(m, f->name));
      for (uint32_t i = 0; i < f->vars.n; i++)
        if (f->vars.p[i].name == v.name) return dup_fail(m, &f->vars.p[i], &v, where), -1;
    }
    if (!plB_vec_push(m->globals, v)) return plI_fail(m, 2, "out of memory"), -1;
    m->nvars++;
    return (int)m->globals.n - 1;
  }
  if ((uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no such function"), -1;
  plI_func *f = &m->funcs.p[func];
  snprintf(where, sizeof where, "in %.100s", plI_cstr(m, f->name));
  for (uint32_t i = 0; i < f->vars.n; i++)
    if (f->vars.p[i].name == v.name) return dup_fail(m, &f->vars.p[i], &v, where), -1;
  /* ptxas: "Duplicate definition": a parameter's name is taken in the whole body */
  for (uint32_t i = 0; i < f->params.n + f->rets.n; i++) {
    const plI_var *p = i < f->params.n ? &f->params.p[i] : &f->rets.p[i - f->params.n];
    if (p->name == v.name) {
      char b[200];
      var_text(m, &v, b, sizeof b);
      return plI_fail(m, 1,
                      "'%s' is already a parameter of %s: the variable %s needs another name "
                      "(ptxas: duplicate definition)",
                      name, plI_cstr(m, f->name), b),
             -1;
    }
  }
  if (!plB_vec_push(f->vars, v)) return plI_fail(m, 2, "out of memory"), -1;
  m->nvars++;
  return (int)f->vars.n - 1;
}

/* --- the symbol index ------------------------------------------------------------------- */
struct plI_symidx {
  uint32_t nvars, nfuncs; /* what it was made for */
  uint32_t cap;           /* slots: a power of two, at most half full */
  uint32_t *slots;        /* index into info + 1, 0 empty */
  plI_syminfo *info;
  uint32_t n;
};

static plI_syminfo *sym_slot(struct plI_symidx *x, uint32_t name, int add) {
  uint32_t mask = x->cap - 1, i = (name * 0x9E3779B1u) & mask;
  for (;; i = (i + 1) & mask) {
    uint32_t k = x->slots[i];
    if (!k) break;
    if (x->info[k - 1].name == name) return &x->info[k - 1];
  }
  if (!add) return NULL;
  plI_syminfo *e = &x->info[x->n++];
  memset(e, 0, sizeof *e);
  e->name = name;
  e->param_fn = e->fdef0 = e->flast = -1;
  x->slots[i] = x->n;
  return e;
}

static int sym_build(plI_module *m) {
  struct plI_symidx *x = m->symidx;
  if (!x && !(x = m->symidx = calloc(1, sizeof *x))) return 0;
  uint32_t want = m->nvars + m->funcs.n, cap = 16;
  while (cap < 2 * want + 2) cap *= 2;
  free(x->slots);
  free(x->info);
  x->slots = calloc(cap, sizeof *x->slots);
  x->info = malloc((want + 1) * sizeof *x->info);
  x->cap = cap;
  x->n = 0;
  x->nvars = x->nfuncs = UINT32_MAX;
  if (!x->slots || !x->info) return 0;
  for (uint32_t i = 0; i < m->globals.n; i++) {
    plI_syminfo *e = sym_slot(x, m->globals.p[i].name, 1);
    if (!e->global) e->gspace = m->globals.p[i].space;
    e->global = 1;
    if (m->globals.p[i].space < 8) e->vspaces |= (uint8_t)(1u << m->globals.p[i].space);
  }
  for (uint32_t f = 0; f < m->funcs.n; f++) {
    const plI_func *fn = &m->funcs.p[f];
    plI_syminfo *fe = sym_slot(x, fn->name, 1);
    fe->func = 1;
    fe->flast = (int32_t)f;
    if (!fn->declared_only && fe->fdef0 < 0) fe->fdef0 = (int32_t)f;
    for (uint32_t i = 0; i < fn->params.n; i++) {
      plI_syminfo *e = sym_slot(x, fn->params.p[i].name, 1);
      e->params |= 1;
      e->param_fn = (int32_t)f;
    }
    for (uint32_t i = 0; i < fn->rets.n; i++) sym_slot(x, fn->rets.p[i].name, 1)->params |= 2;
    for (uint32_t i = 0; i < fn->vars.n; i++) {
      plI_syminfo *e = sym_slot(x, fn->vars.p[i].name, 1);
      e->local = 1;
      if (fn->vars.p[i].space < 8) e->vspaces |= (uint8_t)(1u << fn->vars.p[i].space);
    }
  }
  x->nvars = m->nvars;
  x->nfuncs = m->funcs.n;
  return 1;
}

static void sym_free(plI_module *m) {
  if (!m->symidx) return;
  free(m->symidx->slots);
  free(m->symidx->info);
  free(m->symidx);
  m->symidx = NULL;
}

const plI_syminfo *plI_sym(const plI_module *cm, uint32_t name) {
  plI_module *m = (plI_module *)cm; /* the index is a cache: lookups do not change the module */
  struct plI_symidx *x = m->symidx;
  if ((!x || x->nvars != m->nvars || x->nfuncs != m->funcs.n) && !sym_build(m)) return NULL;
  return sym_slot(m->symidx, name, 0);
}

uint32_t plI_opnd_push(plI_module *m, const plI_opnd *o) {
  if (!m || !o || m->status) return UINT32_MAX;
  if (!plB_vec_push(m->opnds, *o)) {
    plI_fail(m, 2, "out of memory");
    return UINT32_MAX;
  }
  return m->opnds.n - 1;
}

static int push_stmt(plI_module *m, int func, plI_stmt *s) {
  if (!m || m->status) return -1;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no current function"), -1;
  plI_func *f = &m->funcs.p[func];
  if (!plB_vec_push(f->stmts, *s)) return plI_fail(m, 2, "out of memory"), -1;
  return (int)f->stmts.n - 1;
}

int plI_insn(plI_module *m, int func, uint32_t opc, const plI_opnd *ops, int nops, uint32_t guard,
             int negguard, uint32_t file, uint32_t line) {
  if (!m || m->status) return -1;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no current function"), -1;
  if (nops < 0 || nops > 0xffff) return plI_fail(m, 1, "too many operands"), -1;
  if (nops && !ops) return plI_fail(m, 1, "operands missing (NULL)"), -1;
  plI_stmt s = {
    PLS_INSN, (uint8_t)(negguard ? PLOF_NEG : 0), (uint16_t)nops, opc, m->opnds.n, guard, file, line
  };
  if (nops && m->opnds.n + (uint32_t)nops > m->opnds.cap &&
      !plB_vec_grow((void **)&m->opnds.p, &m->opnds.cap, m->opnds.n + (uint32_t)nops,
                    sizeof *m->opnds.p))
    return plI_fail(m, 2, "out of memory"), -1;
  if (nops) memcpy(m->opnds.p + m->opnds.n, ops, (size_t)nops * sizeof *ops);
  m->opnds.n += (uint32_t)nops;
  return push_stmt(m, func, &s);
}

int plI_label(plI_module *m, int func, uint32_t name, uint32_t file, uint32_t line) {
  plI_stmt s = { PLS_LABEL, 0, 0, name, 0, 0, file, line };
  return push_stmt(m, func, &s);
}

int plI_raw(plI_module *m, int func, const char *text, uint32_t file, uint32_t line) {
  if (!m || m->status) return -1;
  uint32_t id = plI_str(m, text);
  if (!id) return -1;
  plI_stmt s = { PLS_RAW, 0, 0, id, 0, 0, file, line };
  return push_stmt(m, func, &s);
}

/* --- nested blocks -------------------------------------------------------------------------- */

int plI_scope_open(plI_module *m, int func, uint32_t file, uint32_t line) {
  if (!m || m->status) return -1;
  if (func < 0 || (uint32_t)func >= m->funcs.n) return plI_fail(m, 1, "no current function"), -1;
  /* as the parser */
  if (m->frames.n >= 64) return plI_fail(m, 1, "blocks nested deeper than 64"), -1;
  int s = plI_raw(m, func, "{", file, line);
  if (s < 0) return -1;
  plI_frame fr = { (uint32_t)s, m->undo.n, m->funcs.p[func].regdecls.n, m->regs.n };
  if (!plB_vec_push(m->frames, fr)) return plI_fail(m, 2, "out of memory"), -1;
  return s;
}

int plI_scope_close(plI_module *m, int func, uint32_t file, uint32_t line) {
  if (!m || m->status) return -1;
  if (!m->frames.n) return plI_fail(m, 1, "no block is open"), -1;
  plI_frame fr = m->frames.p[m->frames.n - 1];
  while (m->undo.n > fr.undo) { /* the block's names go: what they meant before comes back */
    plI_undo u = m->undo.p[--m->undo.n];
    m->declmap[u.name] = u.old;
  }
  m->frames.n--;
  return plI_raw(m, func, "}", file, line);
}
