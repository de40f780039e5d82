// Every thread waits for a flag that nothing sets: a kernel that never ends.
__global__ void spin_wait(volatile int *flag, int *out)
{
    while (*flag == 0) {
    }
    out[threadIdx.x] = *flag;
}
