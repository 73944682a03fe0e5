// The other translation unit of calls.cu under -rdc: what it declares extern.
__device__ int external_counter;
__device__ float external_scale(float v) { return v * 0.5f + (float)external_counter; }
