/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Types shared by the files of the bam module.
 *
 * Locking: one mutex per controller (bam_ctrl.lock) guards the controller's list of open
 * files, each file's list of pins, and the dead / bus-master flags. The per-process
 * accounting has its own mutex (bam_acct_lock in bam_dma.c), always taken inside
 * bam_ctrl.lock. A GPU pin also has a lock of its own, taken by the NVIDIA free callback,
 * which must never wait for bam_ctrl.lock (the NVIDIA driver holds its own locks then).
 */
#ifndef BAM_INTERNAL_H
#define BAM_INTERNAL_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>

#include "uapi/bam_ioctl.h"

/* One NVMe controller bound to bam; freed when its device's last reference goes. */
struct bam_ctrl {
	struct device dev;      /* /dev/bamN; its refcount owns this struct */
	struct cdev cdev;       /* an open file holds a reference to dev through this */
	struct pci_dev *pdev;   /* referenced for the lifetime of this struct */
	int minor;
	struct mutex lock;      /* guards everything below */
	struct list_head files; /* struct bam_file.node, every open file */
	u64 pinned_bytes;       /* pinned through this controller */
	bool dead;              /* unbound: every call fails with -ENODEV */
	bool bus_master;        /* pci_set_master() done */
};

/* Per-process pin accounting, shared by all bam files a process opened. */
struct bam_acct;

/* One open file of /dev/bamN. */
struct bam_file {
	struct list_head node;  /* in bam_ctrl.files */
	struct bam_ctrl *ctrl;
	struct file *filp;
	struct pid *owner;      /* thread group that opened the file; only it may pin */
	struct bam_acct *acct;  /* the owner's accounting */
	struct list_head pins;  /* struct bam_pin.node */
	u64 next_handle;        /* handles are never reused within a file */
	u64 pinned_bytes;
	u32 n_pins;
};

enum bam_pin_kind {
	BAM_PIN_HOST,
	BAM_PIN_GPU,
};

/* A pinned, DMA-mapped range: host pages or GPU pages. */
struct bam_pin {
	struct list_head node;  /* in bam_file.pins */
	u64 handle;
	enum bam_pin_kind kind;
	u32 page_size;          /* bytes per entry of dma_addrs */
	u64 n_pages;
	u64 bytes;              /* charged to the owner's accounting */
	u64 *dma_addrs;         /* n_pages bus addresses */
	/* BAM_PIN_HOST */
	struct page **pages;
	struct sg_table sgt;
	unsigned long n_pinned; /* pages held by pin_user_pages_fast */
	bool sgt_mapped;
	/* BAM_PIN_GPU: owned by bam_gpu.c */
	void *gpu;
};

/* Module parameters (bam_main.c). */
extern unsigned long bam_max_pinned_bytes;

/* bam_bar.c */
int bam_mmap(struct file *filp, struct vm_area_struct *vma);
void bam_bar_zap(struct bam_file *f);

/* bam_dma.c: pins and their accounting */
struct bam_acct *bam_acct_get(struct pid *owner);
void bam_acct_put(struct bam_acct *acct);
u64 bam_acct_pinned(struct bam_acct *acct);
int bam_acct_charge(struct bam_acct *acct, u64 bytes);
void bam_acct_uncharge(struct bam_acct *acct, u64 bytes);
long bam_ioctl_pin_host(struct bam_file *f, void __user *uarg);
long bam_ioctl_get_mapping(struct bam_file *f, void __user *uarg);
long bam_ioctl_unpin(struct bam_file *f, void __user *uarg);
void bam_pin_insert(struct bam_file *f, struct bam_pin *pin);
void bam_pin_free(struct bam_ctrl *ctrl, struct bam_pin *pin);
void bam_file_release_pins(struct bam_file *f);
int bam_pin_remove_handle(struct bam_file *f, u64 handle);
void bam_ensure_bus_master(struct bam_ctrl *ctrl);
int bam_copy_in_owned(struct bam_file *f, void *arg, const void __user *uarg, size_t size);
int bam_charge_range(struct bam_file *f, u64 vaddr, u64 length, u64 align);

/* bam_gpu.c, only when built with NVIDIA_SRC_DIR */
#ifdef BAM_HAVE_NVIDIA_P2P
#define BAM_GPU_PIN_SUPPORTED 1
long bam_ioctl_pin_gpu(struct bam_file *f, void __user *uarg);
bool bam_gpu_pin_revoked(struct bam_pin *pin);
void bam_gpu_pin_release(struct bam_ctrl *ctrl, struct bam_pin *pin);
#else
#define BAM_GPU_PIN_SUPPORTED 0
static inline long bam_ioctl_pin_gpu(struct bam_file *f, void __user *uarg)
{
	return -EOPNOTSUPP;
}
static inline bool bam_gpu_pin_revoked(struct bam_pin *pin)
{
	return false;
}
static inline void bam_gpu_pin_release(struct bam_ctrl *ctrl, struct bam_pin *pin)
{
}
#endif

#endif /* BAM_INTERNAL_H */
