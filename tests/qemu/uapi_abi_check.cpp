// SPDX-License-Identifier: Apache-2.0
// Compile-time check that kmod/uapi/bam_ioctl.h is clean C++20 and that its layout is the one
// the module was built with (bam_main.c asserts the same sizes on the kernel side).
#include <cstddef>

#include "bam_ioctl.h"

static_assert(sizeof(bam_ioc_get_info) == 96);
static_assert(offsetof(bam_ioc_get_info, bar0_len) == 16);
static_assert(offsetof(bam_ioc_get_info, pinned_bytes_file) == 64);
static_assert(offsetof(bam_ioc_get_info, max_pinned_bytes) == 88);
static_assert(sizeof(bam_ioc_pin_host) == 48);
static_assert(offsetof(bam_ioc_pin_host, handle) == 24);
static_assert(sizeof(bam_ioc_pin_gpu) == 56);
static_assert(offsetof(bam_ioc_pin_gpu, handle) == 32);
static_assert(sizeof(bam_ioc_get_mapping) == 56);
static_assert(offsetof(bam_ioc_get_mapping, n_copied) == 32);
static_assert(sizeof(bam_ioc_unpin) == 8);
static_assert(BAM_IOC_GET_INFO != BAM_IOC_PIN_HOST);
static_assert(BAM_IOCTL_ABI_MAJOR == 1);
