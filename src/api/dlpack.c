/* dlpack.c -- a DLPack tensor against a kernel's declaration of a pointer parameter: the device
** its memory is on, its element type, its shape, its strides and alignment. The launch API
** (launch.c) calls plE_tensor_check for every tensor argument before anything runs; the message
** names what the tensor is and what the kernel declares, both shapes in full. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "dlpack.h"

/* ---- element types
** ------------------------------------------------------------------------------ */
void plE_dtype_name(DLDataType dt, char *out, size_t n) {
  const char *base = NULL;
  switch (dt.code) {
  case kDLInt: base = "s"; break;
  case kDLUInt: base = "u"; break;
  case kDLFloat: base = "f"; break;
  case kDLBfloat: base = "bf"; break;
  case kDLComplex: base = "c"; break;
  case 6: base = "bool"; break; /* kDLBool (DLPack 0.8): one byte a value */
  default: break;
  }
  if (!base) {
    snprintf(out, n, "?(code %u, %u bits)", dt.code, dt.bits);
    return;
  }
  if (dt.code == 6)
    snprintf(out, n, "bool");
  else if (dt.lanes > 1)
    snprintf(out, n, "%s%ux%u", base, dt.bits, dt.lanes);
  else
    snprintf(out, n, "%s%u", base, dt.bits);
}

/* bits of one element of a declared type ("f32" 32, "f16x2" 32, "bf16" 16); 0 if unknown */
static unsigned decl_bits(const char *t, char *base, size_t bn) {
  size_t i = 0;
  while (t[i] >= 'a' && t[i] <= 'z') i++;
  if (i == 0 || i >= bn) return 0;
  memcpy(base, t, i);
  base[i] = 0;
  unsigned bits = 0, lanes = 1;
  if (sscanf(t + i, "%u", &bits) != 1) return 0;
  const char *x = strchr(t + i, 'x');
  if (x && sscanf(x + 1, "%u", &lanes) != 1) return 0;
  return bits * lanes;
}

void plE_decl_parse(plE_tensor_decl *d) {
  char base[8];
  static const char *const NARROW8[] = { "e4m3", "e5m2", "ue8m0", "ue4m3" };
  for (size_t i = 0; i < sizeof NARROW8 / sizeof *NARROW8; i++)
    if (strcmp(d->dtype, NARROW8[i]) == 0) { /* codes of a byte: DLPack 0.6 has no such type */
      d->bits = 8;
      d->code = -1;
      return;
    }
  /* packed: e2m1 two a byte, e2m3 and e3m2 four in three bytes (a 4- or 6-bit DLPack tensor) */
  if (strcmp(d->dtype, "e2m1") == 0 || strcmp(d->dtype, "e2m3") == 0 ||
      strcmp(d->dtype, "e3m2") == 0) {
    d->bits = d->dtype[1] == '2' && d->dtype[3] == '1' ? 4 : 6;
    d->code = -1;
    return;
  }
  d->bits = d->dtype[0] ? decl_bits(d->dtype, base, sizeof base) : 0;
  d->code = -1;
  if (!d->bits) return;
  if (strcmp(base, "s") == 0)
    d->code = kDLInt;
  else if (strcmp(base, "u") == 0)
    d->code = kDLUInt;
  else if (strcmp(base, "f") == 0)
    d->code = kDLFloat;
  else if (strcmp(base, "bf") == 0)
    d->code = kDLBfloat;
  else if (strcmp(base, "b") != 0)
    d->bits = 0; /* pred, ...: no tensor has it */
}

/* the declared element type takes the tensor's: the same kind and width; .bN any N-bit type;
** a bool tensor (one byte a value) an 8-bit integer type */
static int dtype_ok(const plE_tensor_decl *d, DLDataType dt) {
  unsigned tbits = (unsigned)dt.bits * (dt.lanes ? dt.lanes : 1);
  if (!d->bits || d->bits != tbits) return 0;
  if (d->code < 0) return 1;
  if (dt.code == 6) return d->code == kDLInt || d->code == kDLUInt;
  return dt.code == d->code;
}

static unsigned elem_bits(DLDataType dt) {
  return (unsigned)dt.bits * (dt.lanes ? dt.lanes : 1);
}

/* ---- shapes
** -------------------------------------------------------------------------------------- */
int plE_dim_value(const plE_dim *x, const int64_t *pv, const unsigned char *have, double *v) {
  if (x->kind == PLE_DIM_FIXED) {
    *v = (double)x->value;
    return 0;
  }
  if (x->kind == PLE_DIM_PARAM) {
    if (!pv || !have[x->param]) return -1;
    *v = (double)pv[x->param];
    return 0;
  }
  if (x->kind != PLE_DIM_EXPR) return -1;
  double st[PLE_MAXOPS];
  int sp = 0;
  for (int i = 0; i < x->nops; i++) { /* Lua's arithmetic on doubles, as the script would do it */
    int op = x->op[i];
    if (op == PLE_OP_NUM) {
      st[sp++] = x->arg[i];
      continue;
    }
    if (op == PLE_OP_PARAM) {
      int j = (int)x->arg[i];
      if (!pv || !have[j]) return -1;
      st[sp++] = (double)pv[j];
      continue;
    }
    if (op == PLE_OP_NEG) {
      if (sp < 1) return -1;
      st[sp - 1] = -st[sp - 1];
      continue;
    }
    if (sp < 2) return -1;
    double a = st[sp - 2], b = st[sp - 1], r;
    switch (op) {
    case PLE_OP_ADD: r = a + b; break;
    case PLE_OP_SUB: r = a - b; break;
    case PLE_OP_MUL: r = a * b; break;
    case PLE_OP_DIV: r = a / b; break;
    case PLE_OP_MOD: r = a - floor(a / b) * b; break;
    case PLE_OP_POW: r = pow(a, b); break;
    default: return -1;
    }
    st[sp - 2] = r;
    sp--;
  }
  if (sp != 1) return -1;
  *v = st[0];
  return 0;
}

/* an extent's value as an integer: 0, else -1 (unknown, or not a whole number: shown as such) */
static int dim_int(const plE_dim *x, const int64_t *pv, const unsigned char *have, int64_t *out,
                   int *whole) {
  double v;
  *whole = 1;
  if (plE_dim_value(x, pv, have, &v)) return -1;
  if (!(v == floor(v)) || v < -9.0e15 || v > 9.0e15) {
    *whole = 0;
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

static void put_shape(char *out, size_t n, const int64_t *s, int nd) {
  size_t o = (size_t)snprintf(out, n, "[");
  for (int i = 0; i < nd && o < n; i++)
    o += (size_t)snprintf(out + o, n - o, "%s%lld", i ? ", " : "", (long long)s[i]);
  if (o < n) snprintf(out + o, n - o, "]");
}

/* "{M, K} = [64, 32]": the declaration as written and the values it has for this launch */
static void put_decl(char *out, size_t n, const plE_tensor_decl *d, const int64_t *pv,
                     const unsigned char *have) {
  size_t o = (size_t)snprintf(out, n, "{");
  for (int i = 0; i < d->ndim && o < n; i++)
    o += (size_t)snprintf(out + o, n - o, "%s%s", i ? ", " : "", d->dims[i].text);
  int any_name = 0; /* an entry that is not a plain number: show the values */
  for (int i = 0; i < d->ndim; i++)
    any_name |= d->dims[i].text[strspn(d->dims[i].text, "0123456789")] != 0;
  if (!any_name) {
    if (o < n) snprintf(out + o, n - o, "}");
    return;
  }
  if (o < n) o += (size_t)snprintf(out + o, n - o, "} = [");
  for (int i = 0; i < d->ndim && o < n; i++) {
    const char *sep = i ? ", " : "";
    int64_t v;
    int whole;
    if (dim_int(&d->dims[i], pv, have, &v, &whole) == 0)
      o += (size_t)snprintf(out + o, n - o, "%s%lld", sep, (long long)v);
    else if (!whole) {
      double f = 0;
      plE_dim_value(&d->dims[i], pv, have, &f);
      o += (size_t)snprintf(out + o, n - o, "%s%g", sep, f);
    } else
      o += (size_t)snprintf(out + o, n - o, "%s?", sep);
  }
  if (o < n) snprintf(out + o, n - o, "]");
}

int plE_tensor_span(const DLTensor *t, uint64_t *bytes, char *why, size_t n) {
  unsigned eb = elem_bits(t->dtype);
  if (t->ndim < 0 || t->ndim > 64) {
    snprintf(why, n, "a tensor of %d dimensions", t->ndim);
    return -1;
  }
  if (t->ndim && !t->shape) {
    snprintf(why, n, "a tensor of %d dimensions without a shape", t->ndim);
    return -1;
  }
  if (!eb) {
    snprintf(why, n, "a tensor of 0-bit elements");
    return -1;
  }
  uint64_t last = 0, count = 1; /* the offset (elements) of the last element, the count */
  int64_t packed = 1;
  for (int i = t->ndim - 1; i >= 0; i--) {
    int64_t s = t->shape[i];
    if (s < 0) {
      snprintf(why, n, "a tensor with extent %lld in dimension %d", (long long)s, i);
      return -1;
    }
    if (s == 0) {
      *bytes = 0;
      return 0;
    }
    int64_t st = t->strides ? t->strides[i] : packed;
    if (st < 0 && s > 1) {
      snprintf(why, n, "a tensor with a negative stride (%lld in dimension %d)", (long long)st, i);
      return -1;
    }
    if (s > 1) {
      if ((uint64_t)st > ((uint64_t)1 << 48) || (uint64_t)s > ((uint64_t)1 << 48)) {
        snprintf(why, n, "a tensor over 2^48 elements");
        return -1;
      }
      last += (uint64_t)(s - 1) * (uint64_t)st;
    }
    count *= (uint64_t)s;
    if (count > ((uint64_t)1 << 48) || last > ((uint64_t)1 << 48)) {
      snprintf(why, n, "a tensor over 2^48 elements");
      return -1;
    }
    packed *= s;
  }
  *bytes = ((last + 1) * eb + 7) / 8;
  return 0;
}

/* ---- the check
** ----------------------------------------------------------------------------------- */
static const char *devname(const DLDevice *d, char *buf, size_t n) {
  switch ((int)d->device_type) {
  case kDLCPU: return "CPU memory";
  case kDLCUDAHost: return "pinned CPU memory (kDLCUDAHost)";
  case kDLCUDA: snprintf(buf, n, "CUDA memory of device %d", d->device_id); return buf;
  case kDLCUDAManaged:
    snprintf(buf, n, "CUDA managed memory (device %d)", d->device_id);
    return buf;
  default:
    snprintf(buf, n, "memory of DLPack device type %d (device %d)", (int)d->device_type,
             d->device_id);
    return buf;
  }
}

int plE_tensor_check(const plE_tensor_decl *decl, const DLTensor *t, plE_tensor_dev dev,
                     const int64_t *pv, const unsigned char *have, int strided, uint64_t *bytes,
                     char *why, size_t n) {
  char a[256], b[256], dn[96];
  /* the device: the emulator reads CPU memory in place, a GPU its own */
  int type = (int)t->device.device_type;
  if (!dev.cuda && type != kDLCPU && type != kDLCUDAHost) {
    snprintf(why, n,
             "a tensor in %s, where \"emu\" runs on CPU memory (copy it to the CPU, or launch on a "
             "CUDA device)",
             devname(&t->device, dn, sizeof dn));
    return -1;
  }
  if (dev.cuda &&
      !((type == kDLCUDA || type == kDLCUDAManaged) && t->device.device_id == dev.ordinal)) {
    snprintf(why, n, "a tensor in %s, where the kernel runs on cuda:%d",
             devname(&t->device, dn, sizeof dn), dev.ordinal);
    return -1;
  }
  if (decl->dtype[0] && !dtype_ok(decl, t->dtype)) { /* "": any element type */
    plE_dtype_name(t->dtype, a, sizeof a);
    snprintf(why, n, "a tensor of %s, where the kernel declares %s* (a tensor of %s)", a,
             decl->dtype, decl->dtype);
    return -1;
  }
  if (plE_tensor_span(t, bytes, why, n)) return -1;
  /* the shape: rank, then each extent the declaration fixes or names */
  if (decl->ndim >= 0) {
    int bad = t->ndim != decl->ndim;
    for (int i = 0; !bad && i < decl->ndim; i++) {
      int64_t v;
      int whole;
      if (dim_int(&decl->dims[i], pv, have, &v, &whole) == 0)
        bad = t->shape[i] != v;
      else
        bad = !whole; /* "n / 2" of an odd n: no tensor has that extent */
    }
    if (bad) {
      put_shape(a, sizeof a, t->shape, t->ndim);
      put_decl(b, sizeof b, decl, pv, have);
      snprintf(why, n, "a tensor of shape %s, where the kernel declares shape %s", a, b);
      return -1;
    }
  }
  int64_t ts[64], ps[64]; /* the tensor's strides (elements), and packed ones */
  {
    int64_t packed = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
      ps[i] = packed;
      ts[i] = t->strides ? t->strides[i] : packed;
      packed *= t->shape[i];
    }
  }
  if (decl->nstrides > 0 && decl->nstrides == t->ndim) { /* declared strides: the tensor's own */
    int64_t ds[PLE_MAXDIM];
    int bad = 0, known = 1;
    for (int i = 0; i < t->ndim; i++) {
      int whole;
      if (dim_int(&decl->strides[i], pv, have, &ds[i], &whole)) {
        known = 0;
        ds[i] = -1;
        continue;
      }
      if (t->shape[i] != 1 && ts[i] != ds[i]) bad = 1;
    }
    if (bad) {
      put_shape(a, sizeof a, ts, t->ndim);
      size_t o = (size_t)snprintf(b, sizeof b, "{");
      for (int i = 0; i < decl->nstrides && o < sizeof b; i++)
        o += (size_t)snprintf(b + o, sizeof b - o, "%s%s", i ? ", " : "", decl->strides[i].text);
      if (o < sizeof b) o += (size_t)snprintf(b + o, sizeof b - o, "}");
      if (known && o < sizeof b) {
        snprintf(b + o, sizeof b - o, " = ");
        put_shape(b + strlen(b), sizeof b - strlen(b), ds, t->ndim);
      }
      snprintf(why, n, "a tensor with strides %s (elements), where the kernel declares strides %s",
               a, b);
      return -1;
    }
  } else if (strided) { /* a map reads any strides but needs its innermost dimension contiguous */
    int last = t->ndim - 1;
    if (last >= 0 && t->shape[last] != 1 && ts[last] != 1) {
      put_shape(a, sizeof a, ts, t->ndim);
      snprintf(why, n,
               "a tensor with strides %s (elements): a tensor map needs its innermost dimension "
               "contiguous (stride 1)",
               a);
      return -1;
    }
  } else if (t->strides) { /* a pointer carries no strides: the kernel reads it packed, row-major */
    int ok = 1;
    for (int i = t->ndim - 1; i >= 0; i--)
      if (t->shape[i] != 1 && ts[i] != ps[i]) ok = 0;
    if (!ok) {
      put_shape(a, sizeof a, t->strides, t->ndim);
      put_shape(b, sizeof b, ps, t->ndim);
      snprintf(why, n,
               "a tensor with strides %s (elements), where a pointer parameter reads it packed in "
               "row-major "
               "order (strides %s): make it contiguous first",
               a, b);
      return -1;
    }
  }
  uint64_t addr = (uint64_t)(uintptr_t)t->data + t->byte_offset;
  unsigned eb = elem_bits(t->dtype) / 8;
  if (eb > 16) eb = 16;
  if (eb > 1 && *bytes && addr % eb) {
    snprintf(why, n, "a tensor at 0x%llx, not a multiple of its %u-byte elements",
             (unsigned long long)addr, eb);
    return -1;
  }
  return 0;
}
