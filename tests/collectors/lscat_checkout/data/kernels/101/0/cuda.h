// This kernel folder's own cuda.h (a few LS-CAT kernel folders hold one): <cuda.h> must still be CUDA's.
#error "the kernel folder's cuda.h was taken for CUDA's"
