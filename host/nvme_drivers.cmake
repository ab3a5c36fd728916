# SPDX-License-Identifier: Apache-2.0
# User-space NVMe drivers for real controllers — VFIO, uio_pci_generic and the bam kernel module
# bindings, their DMA memory, and host-side block I/O — included from host/CMakeLists.txt.
# CUDA builds map BAR0 and DMA memory into the GPU (cuda_bar_mapping.cpp) and take VRAM for
# memory_kind::device (cuda_vram.cpp); CPU-only builds use the identity mapping.
target_sources(bam_host PRIVATE
  posix_io.cpp
  pci_function.cpp
  locked_pages.cpp
  mapped_bar.cpp
  pinned_memory.cpp
  vfio_memory.cpp
  vfio_device.cpp
  physical_memory.cpp
  uio_device.cpp
  kmod_memory.cpp
  kmod_device.cpp
  nvme_binding.cpp
  block_io.cpp)
if(BAM_ENABLE_CUDA)
  target_sources(bam_host PRIVATE cuda_bar_mapping.cpp cuda_vram.cpp)
else()
  target_sources(bam_host PRIVATE gpu_mapping_cpu.cpp)
endif()
