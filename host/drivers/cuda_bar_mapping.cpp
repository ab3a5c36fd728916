// SPDX-License-Identifier: Apache-2.0
// gpu_mapping.hpp for CUDA builds: BAR0 and DMA memory registered with cudaHostRegister so that
// GPU threads write doorbells and queue entries themselves.
#include <bam/detail/cuda_try.hpp>
#include <bam/host/memory/cuda_memory.hpp>
#include <bam/host/memory/gpu_mapping.hpp>

#include <cuda_runtime_api.h>

namespace bam::host {

gpu_host_mapping::gpu_host_mapping(std::byte* host, std::size_t bytes, bool io_memory) {
  if (!cuda_device_present()) return;
  // BAR0 is I/O memory: CUDA maps it uncached into the GPU's address space (doorbell stores go
  // straight to the controller). DMA memory is ordinary locked memory shared by all contexts.
  const unsigned flags =
      io_memory ? cudaHostRegisterIoMemory | cudaHostRegisterMapped : cudaHostRegisterMapped | cudaHostRegisterPortable;
  BAM_CUDA_TRY(cudaHostRegister(host, bytes, flags));
  void* device = nullptr;
  try {
    BAM_CUDA_TRY(cudaHostGetDevicePointer(&device, host, 0));
  } catch (...) {
    cudaHostUnregister(host);
    throw;
  }
  host_ = host;
  device_ = static_cast<std::byte*>(device);
}

gpu_host_mapping::~gpu_host_mapping() {
  if (host_ != nullptr) cudaHostUnregister(host_);
}

}  // namespace bam::host
