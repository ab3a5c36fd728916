// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bam_bar.c - mapping the controller's BAR0 (registers and doorbells) into user space.
 *
 * The mapping is uncached and shared; the offset is a byte offset into BAR0 (page aligned)
 * and the mapping may not reach past the BAR. On unbind every mapping of every open file is
 * zapped, so a later access raises SIGBUS instead of reaching a device bam no longer owns.
 *
 * Known gap: an mmap racing with unbind can install its mapping after the zap (the VMA is
 * linked after ->mmap returns); the window is a few instructions and needs root to hit,
 * since only root may open /dev/bamN by default.
 */
#include <linux/mm.h>

#include "bam_internal.h"
#include "bam_log.h"

/*
 * Called with the caller's mmap_lock held: ctrl->lock is not taken here, because the ioctls
 * touch user memory (and so may take mmap_lock) while holding it.
 */
int bam_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct bam_file *f = filp->private_data;
	struct pci_dev *pdev = f->ctrl->pdev;
	unsigned long bar_pages = PAGE_ALIGN(pci_resource_len(pdev, 0)) >> PAGE_SHIFT;
	unsigned long n_pages = vma_pages(vma);
	int ret = 0;

	if (READ_ONCE(f->ctrl->dead)) {
		ret = -ENODEV;
		goto out;
	}
	if (!(vma->vm_flags & VM_SHARED)) {
		bam_dbg("BAR0 mappings must be MAP_SHARED\n");
		ret = -EINVAL;
		goto out;
	}
	if (vma->vm_pgoff >= bar_pages || n_pages > bar_pages - vma->vm_pgoff) {
		bam_dbg("pages [%lu, %lu) are outside the %lu pages of BAR0\n", vma->vm_pgoff,
			vma->vm_pgoff + n_pages, bar_pages);
		ret = -EINVAL;
		goto out;
	}

	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	ret = io_remap_pfn_range(vma, vma->vm_start,
				 (pci_resource_start(pdev, 0) >> PAGE_SHIFT) + vma->vm_pgoff,
				 n_pages << PAGE_SHIFT, vma->vm_page_prot);
	if (ret)
		bam_dbg("io_remap_pfn_range: %d\n", ret);

out:
	return ret;
}

/* Remove every BAR mapping made through this file (called on unbind). */
void bam_bar_zap(struct bam_file *f)
{
	unmap_mapping_range(f->filp->f_mapping, 0, 0, 1);
}
