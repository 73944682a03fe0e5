// mma.sync through inline PTX (m16n8k16, bf16 in, f32 accumulate) (tests/spec/parse_spec.lua)
extern "C" __global__ void mma16816(const unsigned *a, const unsigned *b, float *c) {
  unsigned t = threadIdx.x;
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a[t * 4]), "r"(a[t * 4 + 1]), "r"(a[t * 4 + 2]), "r"(a[t * 4 + 3]), "r"(b[t * 2]), "r"(b[t * 2 + 1]));
  c[t * 4] = d0; c[t * 4 + 1] = d1; c[t * 4 + 2] = d2; c[t * 4 + 3] = d3;
}
