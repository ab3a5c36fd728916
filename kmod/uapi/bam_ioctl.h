/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * bam_ioctl.h - the user-space ABI of the bam kernel module (/dev/bamN).
 *
 * This is the only header user space and the module share. It compiles as C and C++, in the
 * kernel and in user space. Every struct holds only __u64/__u32 fields with explicit padding,
 * so its layout is the same for 32- and 64-bit callers; user pointers travel as __u64.
 *
 * Versioning: BAM_IOCTL_ABI_MAJOR changes when an existing call changes meaning or layout
 * (user space must refuse a major it does not know); BAM_IOCTL_ABI_MINOR grows when a call is
 * added. A call is never changed in place: a new struct and number (..._V2) are added instead.
 *
 * Errors common to every call:
 *   ENOTTY  wrong magic or unknown call number
 *   EINVAL  known call number with the wrong size or direction (an ABI mismatch), or a reserved
 *           field / flag that is not zero
 *   EFAULT  the argument (or a user pointer inside it) cannot be read or written
 *   ENODEV  the controller was unbound from bam while this file was open
 *   EACCES  a pin call from a process other than the one that opened the file
 */
#ifndef BAM_UAPI_BAM_IOCTL_H
#define BAM_UAPI_BAM_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define BAM_IOCTL_ABI_MAJOR 1
#define BAM_IOCTL_ABI_MINOR 0

#define BAM_IOCTL_MAGIC 0xBA

/* GET_INFO flags. */
#define BAM_INFO_F_GPU_PIN (1U << 0) /* built with NVIDIA_SRC_DIR: PIN_GPU is available */

/* Granularity of PIN_GPU (the NVIDIA driver's GPU page). */
#define BAM_GPU_PAGE_SIZE 65536U

/*
 * GET_INFO: what the module and the controller behind this file are.
 * Counters are in bytes of pinned memory (host pages and GPU pages alike).
 */
struct bam_ioc_get_info {
	// out
	__u32 abi_major;            /* BAM_IOCTL_ABI_MAJOR of the module */
	__u32 abi_minor;            /* BAM_IOCTL_ABI_MINOR of the module */
	__u32 flags;                /* BAM_INFO_F_* */
	__u32 page_size;            /* host page size: PIN_HOST granularity */
	__u64 bar0_len;             /* length of BAR0 in bytes: the most mmap may map */
	__u32 vendor_id;            /* PCI ids of the controller */
	__u32 device_id;
	__u32 subsystem_vendor_id;
	__u32 subsystem_device_id;
	__u32 class_code;           /* 24-bit PCI class code, 0x010802 for NVMe */
	__u32 pci_domain;           /* PCI address: domain:bus:slot.function */
	__u32 pci_bus;
	__u32 pci_devfn;            /* slot << 3 | function */
	__u32 n_pins;               /* live pins of this file */
	__u32 pad0;
	__u64 pinned_bytes_file;    /* pinned through this file */
	__u64 pinned_bytes_process; /* pinned by this process, all bam files together */
	__u64 pinned_bytes_device;  /* pinned through this controller, all processes together */
	__u64 max_pinned_bytes;     /* per-process limit (module parameter max_pinned_bytes) */
};

/*
 * PIN_HOST: pin [vaddr, vaddr + length) of the caller's memory for DMA by this controller.
 * The pages stay pinned and mapped until UNPIN or until the file is closed.
 * Errors: EINVAL  vaddr or length not page aligned, length 0, or the range wraps around;
 *         ENOMEM  the process would exceed max_pinned_bytes (or the kernel is out of memory);
 *         EFAULT  part of the range is not mapped writable memory.
 */
struct bam_ioc_pin_host {
	// in
	__u64 vaddr;     /* page aligned */
	__u64 length;    /* bytes, a non-zero multiple of the page size */
	__u32 flags;     /* must be 0 */
	__u32 pad0;      /* must be 0 */
	// out
	__u64 handle;    /* non-zero; names this pin in GET_MAPPING and UNPIN */
	__u64 n_pages;   /* length / page_size */
	__u32 page_size; /* granularity of the bus addresses GET_MAPPING returns */
	__u32 pad1;
};

/*
 * PIN_GPU: pin GPU memory (cudaMalloc) through nvidia_p2p_get_pages and map it for DMA by this
 * controller. Only when GET_INFO reports BAM_INFO_F_GPU_PIN; otherwise EOPNOTSUPP.
 * Errors: as PIN_HOST, with BAM_GPU_PAGE_SIZE alignment; ENXIO and others from the NVIDIA driver.
 */
struct bam_ioc_pin_gpu {
	// in
	__u64 vaddr;     /* GPU virtual address, BAM_GPU_PAGE_SIZE aligned */
	__u64 length;    /* bytes, a non-zero multiple of BAM_GPU_PAGE_SIZE */
	__u64 p2p_token; /* passed to nvidia_p2p_get_pages; 0 on current drivers */
	__u32 va_space;  /* passed to nvidia_p2p_get_pages; 0 on current drivers */
	__u32 flags;     /* must be 0 */
	// out
	__u64 handle;
	__u64 n_pages;
	__u32 page_size; /* GPU page size of the mapping (BAM_GPU_PAGE_SIZE) */
	__u32 pad0;
};

/*
 * GET_MAPPING: copy the bus (DMA) addresses of pages [first, first + n) of a pin into the user
 * array addrs, where n = min(capacity, n_pages - first). One __u64 per page of page_size bytes.
 * With capacity 0, addrs may be 0: the call then only reports n_pages and page_size.
 * Errors: ENOENT  no pin with this handle on this file;
 *         EINVAL  first > n_pages;
 *         ENXIO   the GPU memory behind a PIN_GPU handle was freed (the handle must be unpinned).
 */
struct bam_ioc_get_mapping {
	// in
	__u64 handle;
	__u64 addrs;     /* user pointer to __u64[capacity] */
	__u64 capacity;  /* entries addrs can hold */
	__u64 first;     /* index of the first page to copy */
	// out
	__u64 n_copied;  /* entries written to addrs */
	__u64 n_pages;   /* pages in the whole pin */
	__u32 page_size;
	__u32 pad0;
};

/*
 * UNPIN: unmap and release a pin.
 * Errors: ENOENT  no pin with this handle on this file.
 */
struct bam_ioc_unpin {
	// in
	__u64 handle;
};

#define BAM_IOC_GET_INFO    _IOWR(BAM_IOCTL_MAGIC, 1, struct bam_ioc_get_info)
#define BAM_IOC_PIN_HOST    _IOWR(BAM_IOCTL_MAGIC, 2, struct bam_ioc_pin_host)
#define BAM_IOC_PIN_GPU     _IOWR(BAM_IOCTL_MAGIC, 3, struct bam_ioc_pin_gpu)
#define BAM_IOC_GET_MAPPING _IOWR(BAM_IOCTL_MAGIC, 4, struct bam_ioc_get_mapping)
#define BAM_IOC_UNPIN       _IOWR(BAM_IOCTL_MAGIC, 5, struct bam_ioc_unpin)

#endif /* BAM_UAPI_BAM_IOCTL_H */
