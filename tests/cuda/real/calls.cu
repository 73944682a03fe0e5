// Calls as nvcc writes them: function pointers and virtual functions (indirect calls through a
// .callprototype), recursion, device printf, malloc/free, assert, a dynamically sized local array
// (alloca), extern device functions and variables across translation units (-rdc), and
// __noinline__ helpers returning structs.
#include <cstdio>
#include <cassert>

struct Pair { float a; int b; };
__device__ __noinline__ Pair make_pair(float a, int b) { return Pair{a * 2.f, b + 1}; }
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

typedef float (*unary_fn)(float);
__device__ float twice(float x) { return 2.f * x; }
__device__ float square(float x) { return x * x; }
__device__ unary_fn table[2] = {twice, square};

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w, float h) : w(w), h(h) {}
  __device__ float area() const override { return w * h; }
};
struct Circle : Shape {
  float r;
  __device__ Circle(float r) : r(r) {}
  __device__ float area() const override { return 3.14159f * r * r; }
};

#if defined(RDC)
extern __device__ float external_scale(float);   // defined in another translation unit
extern __device__ int external_counter;
#endif

__global__ void calls(float *x, int *y, int n, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Pair p = make_pair(x[i], y[i]);
  unary_fn f = table[which & 1];
  float v = f(p.a) + (float)fib(p.b & 7);
  Shape *s = (i & 1) ? (Shape *)new Rect(v, 2.f) : (Shape *)new Circle(v);
  v += s->area();
  delete s;
  float *scratch = (float *)malloc(sizeof(float) * 4);
  if (scratch) { scratch[0] = v; v = scratch[0] + 1.f; free(scratch); }
  assert(v == v);
  if (i == 0) printf("calls: n=%d v=%f which=%d\n", n, v, which);
#if defined(RDC)
  v = external_scale(v);
  atomicAdd(&external_counter, 1);
#endif
  x[i] = v;
}

__global__ void local_array(const int *in, int *out, int n) {
  int buf[64];                                      // indexed at run time: .local memory
  for (int k = 0; k < 64; k++) buf[k] = in[(threadIdx.x + k) % n];
  int acc = 0;
  for (int k = 0; k < n && k < 64; k++) acc += buf[(k * 7 + threadIdx.x) & 63];
  out[threadIdx.x] = acc;
}
