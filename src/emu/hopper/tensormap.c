/* hopper/tensormap.c -- the emulator's tensor maps (plX_tensormap, plX_tensormap_im2col),
** tensormap.replace and the tensormap proxy's fences. */
#include "state.h"
#include "fail.h"
#include "mem.h"
#include "hooks.h"
#include "hopper.h"
#include "smem.h"
#include "tmap.h"
#include <stdio.h>
#include <string.h>

/* ---- the tensor map
** -------------------------------------------------------------------------------- 128 bytes,
** little-endian: 0 magic "PLXTMAP1"; 8 global address (u64); 16 rank, 17 dtype (PLB_TM_*), 18
** swizzle (PLSM_SW_*), 19 element bytes (u8); 20 checksum (u32, FNV-1a of bytes 24..127); 24
** dims (u32 x 5); 48 strides in bytes of dims 1..4 (u64 x 4); 80 box (u16 x 5); 90 element
** strides (u8 x 5); 95 mode (0 tile, 1 im2col); 96 interleave, 97 L2 promotion, 98 OOB fill (u8,
** the driver's enums); im2col only: 100 pixel box lower corner, 106 upper corner (s16 x 3, the
** spatial dimensions W, H, D innermost first), 112 channels per pixel, 114 pixels per column
** (u16); the rest zero. A tile map leaves bytes 95.. zero, as it did before the im2col fields. */
static const uint8_t TM_MAGIC[8] = { 'P', 'L', 'X', 'T', 'M', 'A', 'P', '1' };

/* the packed sub-byte element types (PLB_TM_16U4_ALIGN8B ..): the driver encodes them, the
** emulator does not copy them -- its TMA unit models byte-sized elements only, not the dense or
** 16-byte-slotted shared-memory layouts of 4- and 6-bit values -- and says so */
static int packed_refused(int dt, char *err, size_t n) {
  static const char *const NAME[] = { "16u4_align8b", "16u4_align16b", "16u6_align16b" };
  if (dt < PLB_TM_16U4_ALIGN8B || dt > PLB_TM_16U6_ALIGN16B) return 0;
  if (err && n)
    snprintf(err, n,
             "tensor map: packed %d-bit elements (%s) are not emulated (the TMA unit's sub-byte "
             "shared-memory layouts are not modelled); run the map on a CUDA device",
             dt == PLB_TM_16U6_ALIGN16B ? 6 : 4, NAME[dt - PLB_TM_16U4_ALIGN8B]);
  return 1;
}

int plX__h_tm_esize(int dt) {
  static const int S[] = { 1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4 };
  return dt >= 0 && dt < 13 ? S[dt] : 0;
}

static uint32_t fnv(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

#define ERR(...) (err && n ? (void)snprintf(err, n, __VA_ARGS__) : (void)0)

/* what both kinds of map share: dims, element strides and byte strides checked (st[] gets the
** byte stride of every dimension), the tensor inside one device array, then the header, dims,
** strides and element strides written; 0 ok */
static int tm_dims(plX_mem *m, int es, int rank, uint64_t addr, const uint64_t *dims,
                   const uint64_t *strides, const uint32_t *estr, uint64_t st[5], char *err,
                   size_t n) {
  if (addr % 16) {
    ERR("tensor map: the global address 0x%llx is not a multiple of 16 bytes",
        (unsigned long long)addr);
    return -1;
  }
  st[0] = (uint64_t)es;
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 0 || dims[i] > ((uint64_t)1 << 32)) {
      ERR("tensor map: dims[%d] = %llu outside 1..2^32", i + 1, (unsigned long long)dims[i]);
      return -1;
    }
    uint32_t e1 = estr ? estr[i] : 1;
    if (e1 == 0 || e1 > 8) {
      ERR("tensor map: element_strides[%d] = %u outside 1..8", i + 1, e1);
      return -1;
    }
    if (i > 0) {
      uint64_t s = strides[i - 1];
      if (s % 16 || s >= ((uint64_t)1 << 40)) {
        ERR("tensor map: strides[%d] = %llu must be a multiple of 16 below 2^40", i,
            (unsigned long long)s);
        return -1;
      }
      if (s < dims[i - 1] * st[i - 1]) {
        ERR("tensor map: strides[%d] = %llu bytes is less than the %llu bytes of the dimension "
            "below it",
            i, (unsigned long long)s, (unsigned long long)(dims[i - 1] * st[i - 1]));
        return -1;
      }
      st[i] = s;
    }
  }
  return 0;
}

static int tm_place(plX_mem *m, uint8_t out[128], int dtype, int es, int rank, uint64_t addr,
                    const uint64_t *dims, const uint64_t *st, const uint32_t *estr, int sw,
                    char *err, size_t n) {
  uint64_t extent = (uint64_t)es;
  for (int i = 0; i < rank; i++) extent += (dims[i] - 1) * st[i];
  int32_t cache = -1;
  plX_buf *b = m ? plX__find(m, addr, &cache) : NULL;
  if (!b) {
    ERR("tensor map: the global address 0x%llx is not in a device array of this emulator",
        (unsigned long long)addr);
    return -1;
  }
  if (addr - b->addr + extent > b->size) {
    ERR("tensor map: the tensor (%llu bytes from 0x%llx) runs past the end of buffer '%s' (%llu "
        "bytes)",
        (unsigned long long)extent, (unsigned long long)addr, b->name ? b->name : "?",
        (unsigned long long)b->size);
    return -1;
  }
  memset(out, 0, 128);
  memcpy(out, TM_MAGIC, 8);
  memcpy(out + 8, &addr, 8);
  out[16] = (uint8_t)rank;
  out[17] = (uint8_t)dtype;
  out[18] = (uint8_t)sw;
  out[19] = (uint8_t)es;
  for (int i = 0; i < rank; i++) {
    uint32_t d32 = (uint32_t)(dims[i] - 1); /* dims - 1: 2^32 fits */
    memcpy(out + 24 + 4 * i, &d32, 4);
    if (i > 0) memcpy(out + 48 + 8 * (i - 1), &st[i], 8);
    out[90 + i] = (uint8_t)(estr ? estr[i] : 1);
  }
  return 0;
}

static void tm_seal(uint8_t out[128]) {
  uint32_t h = fnv(out + 24, 104);
  memcpy(out + 20, &h, 4);
}

int plX_tensormap(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr,
                  const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                  const uint32_t *estr, int sw, char *err, size_t n) {
  if (packed_refused(dtype, err, n)) return -1;
  int es = plX__h_tm_esize(dtype);
  if (!es) {
    ERR("tensor map: unknown element type %d", dtype);
    return -1;
  }
  if (rank < 1 || rank > 5) {
    ERR("tensor map: rank %d outside 1..5", rank);
    return -1;
  }
  if (sw < 0 || sw > 3) {
    ERR("tensor map: bad swizzle mode %d", sw);
    return -1;
  }
  uint64_t st[5];
  if (tm_dims(m, es, rank, addr, dims, strides, estr, st, err, n)) return -1;
  for (int i = 0; i < rank; i++)
    if (box[i] == 0 || box[i] > 256) {
      ERR("tensor map: box[%d] = %u outside 1..256", i + 1, box[i]);
      return -1;
    }
  if (((uint64_t)box[0] * (uint64_t)es) % 16) {
    ERR("tensor map: the inner box (%u elements of %d bytes) must be a multiple of 16 bytes",
        box[0], es);
    return -1;
  }
  if (sw && (uint64_t)box[0] * (uint64_t)es > (uint64_t)plB_sm_swizzle_bytes(sw)) {
    ERR("tensor map: the inner box (%u bytes) exceeds the %d-byte span of swizzle %s",
        box[0] * (uint32_t)es, plB_sm_swizzle_bytes(sw), plB_sm_swizzle_name(sw));
    return -1;
  }
  if (tm_place(m, out, dtype, es, rank, addr, dims, st, estr, sw, err, n)) return -1;
  for (int i = 0; i < rank; i++) {
    uint16_t b16 = (uint16_t)box[i];
    memcpy(out + 80 + 2 * i, &b16, 2);
  }
  tm_seal(out);
  return 0;
}

int plX_tensormap_im2col(plX_mem *m, uint8_t out[128], int dtype, int rank, uint64_t addr,
                         const uint64_t *dims, const uint64_t *strides, const int32_t *lower,
                         const int32_t *upper, uint32_t cpp, uint32_t ppc, const uint32_t *estr,
                         int interleave, int sw, int l2, int oob, char *err, size_t n) {
  if (packed_refused(dtype, err, n)) return -1;
  int es = plX__h_tm_esize(dtype);
  if (!es) {
    ERR("tensor map: unknown element type %d", dtype);
    return -1;
  }
  if (rank < 3 || rank > 5) {
    ERR("tensor map: an im2col map has rank 3, 4 or 5 (NWC, NHWC, NDHWC), not %d", rank);
    return -1;
  }
  if (sw < 0 || sw > 3) {
    ERR("tensor map: bad swizzle mode %d", sw);
    return -1;
  }
  if (interleave < 0 || interleave > 2) {
    ERR("tensor map: bad interleave mode %d", interleave);
    return -1;
  }
  if (l2 < 0 || l2 > 3) {
    ERR("tensor map: bad L2 promotion %d", l2);
    return -1;
  }
  if (oob < 0 || oob > 1) {
    ERR("tensor map: bad OOB fill %d", oob);
    return -1;
  }
  if (oob && (dtype < PLB_TM_F16 || dtype == PLB_TM_F64)) {
    ERR("tensor map: the NaN OOB fill needs a 16- or 32-bit floating-point element type");
    return -1;
  }
  if (interleave) {
    ERR("tensor map: interleaved layouts (interleave %s) are not emulated",
        interleave == 1 ? "16B" : "32B");
    return -1;
  }
  uint64_t st[5];
  if (tm_dims(m, es, rank, addr, dims, strides, estr, st, err, n)) return -1;
  /* the corners' range: [-lim, lim - 1] */
  int32_t lim = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  static const char *const SP[] = { "W", "H", "D" };
  for (int i = 0; i < rank - 2; i++) {
    if (lower[i] < -lim || lower[i] >= lim || upper[i] < -lim || upper[i] >= lim) {
      ERR("tensor map: pixel box corner of %s (lower %d, upper %d) outside %d..%d for rank %d",
          SP[i], (int)lower[i], (int)upper[i], -lim, lim - 1, rank);
      return -1;
    }
    if ((int64_t)dims[i + 1] + upper[i] - lower[i] < 1) {
      ERR("tensor map: the pixel box along %s is empty (from %d to %lld)", SP[i], (int)lower[i],
          (long long)dims[i + 1] - 1 + upper[i]);
      return -1;
    }
  }
  if (cpp == 0 || cpp > 256) {
    ERR("tensor map: channels_per_pixel = %u outside 1..256", cpp);
    return -1;
  }
  if (ppc == 0 || ppc > 1024) {
    ERR("tensor map: pixels_per_column = %u outside 1..1024", ppc);
    return -1;
  }
  if (((uint64_t)cpp * (uint64_t)es) % 16) {
    ERR("tensor map: a pixel's channels (%u elements of %d bytes) must be a multiple of 16 bytes",
        cpp, es);
    return -1;
  }
  if (sw && (uint64_t)cpp * (uint64_t)es > (uint64_t)plB_sm_swizzle_bytes(sw)) {
    ERR("tensor map: a pixel's channels (%u bytes) exceed the %d-byte span of swizzle %s",
        cpp * (uint32_t)es, plB_sm_swizzle_bytes(sw), plB_sm_swizzle_name(sw));
    return -1;
  }
  if (tm_place(m, out, dtype, es, rank, addr, dims, st, estr, sw, err, n)) return -1;
  out[95] = 1;
  out[96] = (uint8_t)interleave;
  out[97] = (uint8_t)l2;
  out[98] = (uint8_t)oob;
  for (int i = 0; i < rank - 2; i++) {
    int16_t lo = (int16_t)lower[i], hi = (int16_t)upper[i];
    memcpy(out + 100 + 2 * i, &lo, 2);
    memcpy(out + 106 + 2 * i, &hi, 2);
  }
  uint16_t c16 = (uint16_t)cpp, p16 = (uint16_t)ppc;
  memcpy(out + 112, &c16, 2);
  memcpy(out + 114, &p16, 2);
  tm_seal(out);
  return 0;
}
#undef ERR

static int tm_checks(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, const plX_tmap *t,
                     const uint8_t raw[128]);
/* the tensor map at generic address a (a kernel parameter, or global memory) for lane l */
int plX__h_tm_read(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, plX_tmap *t) {
  uint8_t raw[128];
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  if (a % 64)
    return plX__fail_lanef(e, in, w, l, "the tensor map address 0x%llx is not 64-byte aligned",
                           (unsigned long long)a);
  plX_ins tmp = *in;
  tmp.space = XS_GENERIC;
  tmp.cache = -1;
  for (int h = 0; h < 2; h++) {
    uint8_t *p = plX__mem(e, &tmp, XS_GENERIC, a + 64 * (uint64_t)h, 64, tid, 0);
    if (!p) return e->status;
    memcpy(raw + 64 * h, p, 64);
  }
  uint32_t h;
  memcpy(&h, raw + 20, 4);
  if (memcmp(raw, TM_MAGIC, 8) || h != fnv(raw + 24, 104))
    return plX__fail_lanef(e, in, w, l,
                           "the 128 bytes at 0x%llx are not a tensor map of this emulator (make it "
                           "with dev:tensormap(array, {...}))",
                           (unsigned long long)a);
  memset(t, 0, sizeof *t);
  memcpy(&t->addr, raw + 8, 8);
  t->rank = raw[16];
  t->dtype = raw[17];
  t->sw = raw[18];
  t->esize = raw[19];
  t->strides[0] = (uint64_t)t->esize;
  for (int i = 0; i < t->rank && i < 5; i++) {
    uint32_t d32;
    memcpy(&d32, raw + 24 + 4 * i, 4);
    t->dims[i] = (uint64_t)d32 + 1;
    if (i > 0) memcpy(&t->strides[i], raw + 48 + 8 * (i - 1), 8);
    uint16_t b16;
    memcpy(&b16, raw + 80 + 2 * i, 2);
    t->box[i] = b16;
    t->es[i] = raw[90 + i];
  }
  t->mode = raw[95];
  t->oob = raw[98];
  if (t->mode == 1) {
    for (int i = 0; i < 3; i++) {
      int16_t lo, hi;
      memcpy(&lo, raw + 100 + 2 * i, 2);
      memcpy(&hi, raw + 106 + 2 * i, 2);
      t->lo[i] = lo;
      t->hi[i] = hi;
    }
    uint16_t c16, p16;
    memcpy(&c16, raw + 112, 2);
    memcpy(&p16, raw + 114, 2);
    t->cpp = c16;
    t->ppc = p16;
  }
  /* fields the copies rely on (a map left half-filled by tensormap.replace, or forged bytes with a
  ** valid checksum): refused, never trusted */
  char why[96];
  why[0] = 0;
  if (t->rank < (t->mode == 1 ? 3 : 1) || t->rank > 5)
    snprintf(why, sizeof why, "rank %d outside %d..5", t->rank, t->mode == 1 ? 3 : 1);
  else if (t->mode > 1)
    snprintf(why, sizeof why, "mode byte %d", t->mode);
  else if (t->esize != plX__h_tm_esize(t->dtype))
    snprintf(why, sizeof why, "element type %d with %d-byte elements", t->dtype, t->esize);
  else if (t->sw == 4)
    snprintf(why, sizeof why, "swizzle mode 4 (96B, sm_103a's alone: not emulated)");
  else if (t->sw > 4)
    snprintf(why, sizeof why, "swizzle mode %d outside 0..4", t->sw);
  else if (t->oob > 1 || (t->oob && t->esize != 2 && t->esize != 4))
    snprintf(why, sizeof why,
             "fill mode %d with %d-byte elements (the NaN fill is for 16- and 32-bit floats)",
             t->oob, t->esize);
  for (int i = 0; !why[0] && i < t->rank; i++) {
    if (t->es[i] < 1 || t->es[i] > 8)
      snprintf(why, sizeof why, "element stride %d = %u outside 1..8", i, t->es[i]);
    else if (t->mode == 0 && (t->box[i] < 1 || t->box[i] > 256))
      snprintf(why, sizeof why, "box_dim %d = %u outside 1..256", i, t->box[i]);
  }
  if (!why[0] && t->mode == 1 && (t->cpp < 1 || t->cpp > 256 || t->ppc < 1 || t->ppc > 1024))
    snprintf(why, sizeof why, "%u channels per pixel, %u pixels per column", t->cpp, t->ppc);
  if (why[0])
    return plX__fail_lanef(e, in, w, l, "the tensor map at 0x%llx is not usable: %s",
                           (unsigned long long)a, why);
  /* tensormap.replace: consistency, fences */
  return tm_checks(e, in, w, l, a, t, raw);
}

/* ---- tensormap.replace and the tensormap proxy
** ------------------------------------------------------ tensormap.replace.tile.FIELD rewrites
** one field of a map in global or shared memory (a generic-proxy write); the checksum is
** recomputed, and 128 zero bytes count as an empty map to fill field by field. Values the PTX
** ISA rules out are errors at the line; combinations (an inner box that is not a multiple of 16
** bytes, a box wider than its swizzle, a tensor past its array) are legal in between and checked
** when a TMA uses the map (tm_checks). Each result is remembered (plX_tmimg): a TMA through a
** map in global memory holding those bytes needs a fence.proxy.tensormap::generic.release (or
** tensormap.cp_fenceproxy) after the change, by the writer or by a thread of its CTA after a
** barrier, and a fence.proxy.tensormap::generic.acquire of that map by the TMA's thread after
** that. */
static const char *const TM_FIELD[] = {
  "global_address", "rank",     "box_dim",           "global_dim",   "global_stride",
  "element_stride", "elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity",
  "fill_mode"
};

static const plX_tmimg *tm_image(plX_emu *e, const uint8_t raw[128]) {
  for (uint32_t i = e->H.tmi.n; i-- > 0;)
    if (!memcmp(e->H.tmi.p[i].b + 20, raw + 20, 4) && !memcmp(e->H.tmi.p[i].b, raw, 128))
      return &e->H.tmi.p[i];
  return NULL;
}

static int tm_checks(plX_emu *e, plX_ins *in, plX_warp *w, int l, uint64_t a, const plX_tmap *t,
                     const uint8_t raw[128]) {
  const plX_tmimg *img = e->H.tmi.n ? tm_image(e, raw) : NULL;
  char why[200];
  why[0] = 0;
  if (t->mode == 0) {
    uint64_t inner = (uint64_t)t->box[0] * (uint64_t)t->esize;
    if (raw[96])
      snprintf(why, sizeof why, "interleave_layout %d (interleaved layouts are not emulated)",
               raw[96]);
    else if (raw[99])
      snprintf(why, sizeof why, "swizzle_atomicity %d (only the 16-byte atomicity is emulated)",
               raw[99]);
    else if (t->addr % 16)
      snprintf(why, sizeof why, "the global address 0x%llx is not a multiple of 16",
               (unsigned long long)t->addr);
    else if (inner % 16)
      snprintf(why, sizeof why,
               "the inner box (%u elements of %d bytes) is not a multiple of 16 bytes", t->box[0],
               t->esize);
    else if (t->sw && inner > (uint64_t)plB_sm_swizzle_bytes(t->sw))
      snprintf(why, sizeof why, "the inner box (%llu bytes) exceeds the %d-byte span of swizzle %s",
               (unsigned long long)inner, plB_sm_swizzle_bytes(t->sw), plB_sm_swizzle_name(t->sw));
    for (int i = 1; !why[0] && i < t->rank; i++) {
      uint64_t st = t->strides[i];
      if (st % 16 || st >= ((uint64_t)1 << 40))
        snprintf(why, sizeof why, "global_stride %d = %llu is not a multiple of 16 below 2^40",
                 i - 1, (unsigned long long)st);
      else if (st < t->dims[i - 1] * t->strides[i - 1])
        snprintf(
            why, sizeof why,
            "global_stride %d = %llu bytes is less than the %llu bytes of the dimension below it",
            i - 1, (unsigned long long)st,
            (unsigned long long)(t->dims[i - 1] * t->strides[i - 1]));
    }
    if (!why[0]) {
      uint64_t extent = (uint64_t)t->esize;
      for (int i = 0; i < t->rank; i++) extent += (t->dims[i] - 1) * t->strides[i];
      int32_t cache = -1;
      plX_buf *b = plX__find(e->mem, t->addr, &cache);
      if (!b)
        snprintf(why, sizeof why, "its global address 0x%llx is in no device array",
                 (unsigned long long)t->addr);
      else if (t->addr - b->addr + extent > b->size)
        snprintf(
            why, sizeof why,
            "the tensor (%llu bytes from 0x%llx) runs past the end of buffer '%s' (%llu bytes)",
            (unsigned long long)extent, (unsigned long long)t->addr, b->name ? b->name : "?",
            (unsigned long long)b->size);
    }
  }
  if (why[0]) {
    if (img)
      return plX__fail_lanef(e, in, w, l,
                             "the tensor map at 0x%llx, as the tensormap.replace of line %s left "
                             "it, is not usable: %s",
                             (unsigned long long)a, line_of(e, img->pc), why);
    return plX__fail_lanef(e, in, w, l, "the tensor map at 0x%llx is not usable: %s",
                           (unsigned long long)a, why);
  }
  /* unmodified, or a kernel parameter */
  if (!img || a < X_GL_BASE) return 0;
  plB_buf b;
  plB_buf_init(&b);
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  const plX_tmacq *q = NULL;
  for (uint32_t i = 0; i < e->H.tacq.n; i++) {
    const plX_tmacq *x = &e->H.tacq.p[i];
    if (x->addr == a && x->cta == e->C->cta_linear && x->tid == tid) q = x;
  }
  plB_buf_printf(
      &b,
      "a TMA through the tensor map at 0x%llx, which the tensormap.replace of line %s modified, ",
      (unsigned long long)a, line_of(e, img->pc));
  if (!img->rel)
    plB_buf_puts(&b, "with no fence.proxy.tensormap::generic.release (or tensormap.cp_fenceproxy) "
                     "after the change: the tensormap proxy may still see the old map");
  else if (!q || q->seq < img->rel)
    plB_buf_puts(&b, "without a fence.proxy.tensormap::generic.acquire [map], 128 by this thread "
                     "after its release: the tensormap proxy may still see the old map");
  else {
    plB_buf_free(&b);
    return 0;
  }
  plX__fail_lane(e, in, w, l, plB_buf_cstr(&b));
  plB_buf_free(&b);
  return e->status;
}

/* a tensormap-proxy release by thread tid of the current CTA: the maps it (or, after a barrier,
** its CTA) changed */
void plX__h_tm_release(plX_emu *e, uint32_t tid, const uint8_t *only) {
  plX_cta *c = e->C;
  uint32_t seq = ++e->H.tmseq;
  for (uint32_t i = 0; i < e->H.tmi.n; i++) {
    plX_tmimg *m = &e->H.tmi.p[i];
    if (m->rel || m->cta != c->cta_linear || (only && memcmp(only, m->b, 128))) continue;
    if (m->tid == tid || m->epoch != c->epoch || only) m->rel = seq;
  }
}

int plX__h_tm_acquire(plX_emu *e, const plX_ins *in, uint64_t a, uint32_t tid) {
  plX_hop *H = &e->H;
  uint32_t seq = ++H->tmseq;
  for (uint32_t i = 0; i < H->tacq.n; i++) {
    plX_tmacq *x = &H->tacq.p[i];
    if (x->addr == a && x->cta == e->C->cta_linear && x->tid == tid) {
      x->seq = seq;
      return 0;
    }
  }
  if (H->tacq.n >= 65536) H->tacq.n = 0; /* bounded: forget the oldest */
  plX_tmacq x = { a, e->C->cta_linear, tid, seq };
  if (!plB_vec_push(H->tacq, x)) return plX__fail(e, in->stmt, "out of memory");
  return 0;
}

/* the 128 bytes at a (space) for lane l: two 64-byte halves, checked as memory accesses */
static int tm_bytes(plX_emu *e, plX_ins *in, plX_warp *w, int l, int space, uint64_t a, int write,
                    uint8_t *p[2]) {
  uint32_t tid = (uint32_t)w->idx * 32 + (uint32_t)l;
  plX_ins tmp = *in;
  tmp.cache = -1;
  if (a % 64)
    return plX__fail_lanef(e, in, w, l, "the tensor map address 0x%llx is not 64-byte aligned",
                           (unsigned long long)a);
  for (int h = 0; h < 2; h++) {
    p[h] = plX__mem(e, &tmp, space, a + 64 * (uint64_t)h, 64, tid, write);
    if (!p[h]) return e->status;
  }
  return 0;
}

int plX__h_exec_tmap(plX_emu *e, plX_warp *w, plX_ins *in, uint32_t em) {
  /* tensormap.cp_fenceproxy: copy, then release */
  if (in->sub == XTM_CP) {
    if ((w->exists & ~w->exited) & ~em)
      return plX__fail_warp(e, in, w,
                            "tensormap.cp_fenceproxy (.sync.aligned) executed by part of a warp",
                            (w->exists & ~w->exited) & ~em);
    LANES(l, em, {
      uint8_t *s[2], *d[2], raw[128];
      if (tm_bytes(e, in, w, l, XS_SHARED, plX__h_src_addr(in, w, l), 0, s)) return e->status;
      memcpy(raw, s[0], 64);
      memcpy(raw + 64, s[1], 64);
      if (tm_bytes(e, in, w, l, in->space, addr_of(in, w, l), 1, d)) return e->status;
      memcpy(d[0], raw, 64);
      memcpy(d[1], raw + 64, 64);
      plX__h_tm_release(e, (uint32_t)w->idx * 32 + (uint32_t)l, raw);
    });
    return 0;
  }
  uint64_t *B = wslot(w, in->b);
  int f = in->sub;
  LANES(l, em, {
    uint64_t a = addr_of(in, w, l);
    int space = in->space;
    if (space == XS_GENERIC && a - X_SH_BASE < X_WIN) {
      space = XS_SHARED;
      a -= X_SH_BASE;
    } else if (space == XS_GENERIC) {
      if (a < X_GL_BASE)
        return plX__fail_lanef(
            e, in, w, l,
            "the generic address 0x%llx is in neither the global nor the shared window",
            (unsigned long long)a);
      space = XS_GLOBAL;
    }
    uint8_t *p[2], raw[128];
    if (tm_bytes(e, in, w, l, space, a, 1, p)) return e->status;
    memcpy(raw, p[0], 64);
    memcpy(raw + 64, p[1], 64);
    uint32_t h;
    memcpy(&h, raw + 20, 4);
    int zero = 1;
    for (int i = 0; i < 128 && zero; i++) zero = raw[i] == 0;
    if (zero) {
      memcpy(raw, TM_MAGIC, 8);
      raw[19] = 1;
    } /* an empty map: every field zero, u8 elements */
    else if (memcmp(raw, TM_MAGIC, 8) || h != fnv(raw + 24, 104))
      return plX__fail_lanef(e, in, w, l,
                             "the 128 bytes at %s 0x%llx are neither a tensor map of this emulator "
                             "(copy one made by dev:tensormap) nor zeros",
                             space == XS_SHARED ? "shared" : "global", (unsigned long long)a);
    if (raw[95])
      return plX__fail_lanef(e, in, w, l, "tensormap.replace.tile on an im2col tensor map");
    uint64_t v = in->sub <= 5 ? B[l] : in->c;
    uint32_t ord = in->c;
    if (f == 4 && ord > 3)
      return plX__fail_lanef(
          e, in, w, l, "global_stride ordinal %u outside 0..3 (the stride of dimension ord + 1)",
          ord);
    if (f >= 2 && f <= 5 && ord > 4)
      return plX__fail_lanef(e, in, w, l, "%s ordinal %u outside 0..4", TM_FIELD[f], ord);
    if (f != 0 && f != 4 && f <= 5) v = (uint32_t)v;
    switch (f) {
    case 0:
      if (v % 16)
        return plX__fail_lanef(e, in, w, l, "global_address 0x%llx is not a multiple of 16",
                               (unsigned long long)v);
      memcpy(raw + 8, &v, 8);
      break;
    case 1:
      if (v > 4)
        return plX__fail_lanef(e, in, w, l,
                               "rank value %llu outside 0..4 (the field holds the rank minus one)",
                               (unsigned long long)v);
      raw[16] = (uint8_t)(v + 1);
      break;
    case 2: {
      if (v == 0 || v > 256)
        return plX__fail_lanef(e, in, w, l, "box_dim %u = %llu outside 1..256", ord,
                               (unsigned long long)v);
      uint16_t b16 = (uint16_t)v;
      memcpy(raw + 80 + 2 * ord, &b16, 2);
      break;
    }
    case 3: {
      if (v == 0)
        return plX__fail_lanef(e, in, w, l, "global_dim %u = 0 (a dimension has 1..2^32 elements)",
                               ord);
      uint32_t d32 = (uint32_t)(v - 1);
      memcpy(raw + 24 + 4 * ord, &d32, 4);
      break;
    }
    case 4:
      if (v % 16 || v >= ((uint64_t)1 << 40))
        return plX__fail_lanef(e, in, w, l,
                               "global_stride %u = %llu is not a multiple of 16 below 2^40", ord,
                               (unsigned long long)v);
      memcpy(raw + 48 + 8 * ord, &v, 8);
      break;
    case 5:
      if (v == 0 || v > 8)
        return plX__fail_lanef(e, in, w, l, "element_stride %u = %llu outside 1..8", ord,
                               (unsigned long long)v);
      raw[90 + ord] = (uint8_t)v;
      break;
    case 6:
      if (v >= 13 && v <= 15)
        return plX__fail_lanef(e, in, w, l,
                               "elemtype %llu (a packed sub-byte type) is not emulated",
                               (unsigned long long)v);
      if (v > 12)
        return plX__fail_lanef(e, in, w, l, "elemtype %llu outside 0..15", (unsigned long long)v);
      raw[17] = (uint8_t)v;
      raw[19] = (uint8_t)plX__h_tm_esize((int)v);
      break;
    case 7:
      if (v > 2)
        return plX__fail_lanef(e, in, w, l, "interleave_layout %llu outside 0..2",
                               (unsigned long long)v);
      raw[96] = (uint8_t)v;
      break;
    case 8:
      if (v == 4)
        return plX__fail_lanef(e, in, w, l,
                               "swizzle_mode 4 (96B, sm_103a's alone) is not emulated");
      if (v > 4)
        return plX__fail_lanef(e, in, w, l, "swizzle_mode %llu outside 0..4",
                               (unsigned long long)v);
      raw[18] = (uint8_t)v;
      break;
    case 9:
      if (v > 3)
        return plX__fail_lanef(e, in, w, l, "swizzle_atomicity %llu outside 0..3",
                               (unsigned long long)v);
      raw[99] = (uint8_t)v;
      break;
    default:
      if (v > 1)
        return plX__fail_lanef(e, in, w, l, "fill_mode %llu outside 0..1", (unsigned long long)v);
      raw[98] = (uint8_t)v;
      break;
    }
    h = fnv(raw + 24, 104);
    memcpy(raw + 20, &h, 4);
    memcpy(p[0], raw, 64);
    memcpy(p[1], raw + 64, 64);
    /* remember the result: a TMA through a copy of it in global memory needs the tensormap-proxy
    ** fences */
    plX_hop *H = &e->H;
    uint64_t loc = (uint64_t)space << 60 | a;
    plX_tmimg *m = NULL;
    for (uint32_t i = 0; i < H->tmi.n && !m; i++)
      if (H->tmi.p[i].loc == loc && (space != XS_SHARED || H->tmi.p[i].cta == e->C->cta_linear))
        m = &H->tmi.p[i];
    if (!m) {
      /* bounded: later changes go unchecked */
      if (H->tmi.n >= 65536) continue;
      plX_tmimg z;
      memset(&z, 0, sizeof z);
      if (!plB_vec_push(H->tmi, z)) return plX__fail(e, in->stmt, "out of memory");
      m = &H->tmi.p[H->tmi.n - 1];
    }
    memcpy(m->b, raw, 128);
    m->cta = e->C->cta_linear;
    m->loc = loc;
    m->tid = (uint32_t)w->idx * 32 + (uint32_t)l;
    m->pc = (uint32_t)(in - e->xf.code);
    m->seq = ++H->tmseq;
    m->epoch = e->C->epoch;
    m->rel = 0;
  });
  return 0;
}
