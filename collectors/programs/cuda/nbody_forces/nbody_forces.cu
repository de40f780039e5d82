// nbody_forces: softened gravitational acceleration on each of n = XSIZE bodies from all others, one thread per body.
// Written for mirtune (collectors/programs/cuda); see ../harness.cuh for the conventions.
#include "harness_device.cuh"

__global__ void nbody_forces(const float4 *pos, float3 *acc, int n)
{
    long i = global_linear();
    if (i >= n)
        return;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
        float inv = rsqrtf(r2);
        float f = q.w * inv * inv * inv;
        ax += f * dx;
        ay += f * dy;
        az += f * dz;
    }
    acc[i] = make_float3(ax, ay, az);
}
