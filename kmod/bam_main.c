// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bam_main.c - module init/exit, the PCI driver, the character devices and the ioctl dispatcher.
 *
 * The PCI driver has no static id table: it binds only the NVMe controllers an administrator
 * hands it (new_id or driver_override, see README.md), and probe refuses anything whose class
 * is not NVMe. Each bound controller gets /dev/bamN.
 */
#include <linux/build_bug.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "bam_internal.h"
#include "bam_log.h"

#define BAM_MAX_CTRLS 256

bool bam_dbg_enabled;
module_param_named(dbg, bam_dbg_enabled, bool, 0644);
MODULE_PARM_DESC(dbg, "log debug messages, including rejected ioctl arguments (default 0)");

static ushort dev_mode = 0600;
module_param(dev_mode, ushort, 0444);
MODULE_PARM_DESC(dev_mode, "permission bits of /dev/bamN (default 0600: root only)");

unsigned long bam_max_pinned_bytes = 64UL << 30;
module_param_named(max_pinned_bytes, bam_max_pinned_bytes, ulong, 0644);
MODULE_PARM_DESC(max_pinned_bytes,
		 "most bytes one process may pin through bam, host and GPU together (default 64 GiB)");

static dev_t bam_devt;
static struct class *bam_class;
static DEFINE_IDA(bam_minors);

static_assert(sizeof(struct bam_ioc_get_info) == 96);
static_assert(sizeof(struct bam_ioc_pin_host) == 48);
static_assert(sizeof(struct bam_ioc_pin_gpu) == 56);
static_assert(sizeof(struct bam_ioc_get_mapping) == 56);
static_assert(sizeof(struct bam_ioc_unpin) == 8);

/* ---- files -------------------------------------------------------------------------------- */

static int bam_open(struct inode *inode, struct file *filp)
{
	struct bam_ctrl *ctrl = container_of(inode->i_cdev, struct bam_ctrl, cdev);
	struct bam_file *f = NULL;
	int ret = 0;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	f->ctrl = ctrl;
	f->filp = filp;
	f->owner = get_pid(task_tgid(current));
	f->next_handle = 1;
	INIT_LIST_HEAD(&f->pins);
	f->acct = bam_acct_get(f->owner);
	if (!f->acct) {
		ret = -ENOMEM;
		goto out;
	}

	mutex_lock(&ctrl->lock);
	if (ctrl->dead) {
		mutex_unlock(&ctrl->lock);
		ret = -ENODEV;
		goto out;
	}
	list_add_tail(&f->node, &ctrl->files);
	mutex_unlock(&ctrl->lock);
	filp->private_data = f;
	bam_dbg("%s opened by pid %d\n", dev_name(&ctrl->dev), task_tgid_nr(current));

out:
	if (ret && f) {
		if (f->acct)
			bam_acct_put(f->acct);
		put_pid(f->owner);
		kfree(f);
	}
	return ret;
}

/* Last close: every pin of the file is unmapped and released. */
static int bam_release(struct inode *inode, struct file *filp)
{
	struct bam_file *f = filp->private_data;
	struct bam_ctrl *ctrl = f->ctrl;

	mutex_lock(&ctrl->lock);
	bam_file_release_pins(f);
	list_del(&f->node);
	mutex_unlock(&ctrl->lock);

	bam_acct_put(f->acct);
	put_pid(f->owner);
	kfree(f);
	return 0;
}

static long bam_ioctl_get_info(struct bam_file *f, void __user *uarg)
{
	struct bam_ctrl *ctrl = f->ctrl;
	struct pci_dev *pdev = ctrl->pdev;
	struct bam_ioc_get_info info;
	long ret = 0;

	memset(&info, 0, sizeof(info));
	mutex_lock(&ctrl->lock);
	if (ctrl->dead) {
		mutex_unlock(&ctrl->lock);
		ret = -ENODEV;
		goto out;
	}
	info.abi_major = BAM_IOCTL_ABI_MAJOR;
	info.abi_minor = BAM_IOCTL_ABI_MINOR;
	info.flags = BAM_GPU_PIN_SUPPORTED ? BAM_INFO_F_GPU_PIN : 0;
	info.page_size = PAGE_SIZE;
	info.bar0_len = pci_resource_len(pdev, 0);
	info.vendor_id = pdev->vendor;
	info.device_id = pdev->device;
	info.subsystem_vendor_id = pdev->subsystem_vendor;
	info.subsystem_device_id = pdev->subsystem_device;
	info.class_code = pdev->class;
	info.pci_domain = pci_domain_nr(pdev->bus);
	info.pci_bus = pdev->bus->number;
	info.pci_devfn = pdev->devfn;
	info.n_pins = f->n_pins;
	info.pinned_bytes_file = f->pinned_bytes;
	info.pinned_bytes_process = bam_acct_pinned(f->acct);
	info.pinned_bytes_device = ctrl->pinned_bytes;
	info.max_pinned_bytes = READ_ONCE(bam_max_pinned_bytes);
	mutex_unlock(&ctrl->lock);

	if (copy_to_user(uarg, &info, sizeof(info))) {
		bam_dbg("cannot write the result to %#lx\n", (unsigned long)uarg);
		ret = -EFAULT;
		goto out;
	}

out:
	return ret;
}

typedef long (*bam_ioctl_fn)(struct bam_file *f, void __user *uarg);

static const struct {
	unsigned int cmd;
	bam_ioctl_fn fn;
} bam_ioctls[] = {
	{ BAM_IOC_GET_INFO, bam_ioctl_get_info },
	{ BAM_IOC_PIN_HOST, bam_ioctl_pin_host },
	{ BAM_IOC_PIN_GPU, bam_ioctl_pin_gpu },
	{ BAM_IOC_GET_MAPPING, bam_ioctl_get_mapping },
	{ BAM_IOC_UNPIN, bam_ioctl_unpin },
};

/*
 * Unknown magic or number: -ENOTTY. A known number whose encoded size or direction differs
 * from ours: -EINVAL, so a caller built against another ABI version hears it plainly.
 */
static long bam_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct bam_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;
	long ret = -ENOTTY;
	size_t i;

	if (_IOC_TYPE(cmd) != BAM_IOCTL_MAGIC) {
		bam_dbg("cmd %#x: not a bam ioctl\n", cmd);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(bam_ioctls); i++) {
		if (_IOC_NR(cmd) != _IOC_NR(bam_ioctls[i].cmd))
			continue;
		if (cmd != bam_ioctls[i].cmd) {
			bam_dbg("cmd %#x: call %u with size %u, expected %#x\n", cmd, _IOC_NR(cmd),
				_IOC_SIZE(cmd), bam_ioctls[i].cmd);
			ret = -EINVAL;
			goto out;
		}
		ret = bam_ioctls[i].fn(f, uarg);
		goto out;
	}
	bam_dbg("cmd %#x: unknown call %u\n", cmd, _IOC_NR(cmd));

out:
	return ret;
}

static const struct file_operations bam_fops = {
	.owner = THIS_MODULE,
	.open = bam_open,
	.release = bam_release,
	.unlocked_ioctl = bam_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = bam_mmap,
	.llseek = noop_llseek,
};

/* ---- devices ------------------------------------------------------------------------------ */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static char *bam_devnode(const struct device *dev, umode_t *mode)
#else
static char *bam_devnode(struct device *dev, umode_t *mode)
#endif
{
	if (mode)
		*mode = dev_mode;
	return NULL;
}

static void bam_ctrl_free(struct device *dev)
{
	struct bam_ctrl *ctrl = container_of(dev, struct bam_ctrl, dev);

	ida_free(&bam_minors, ctrl->minor);
	pci_dev_put(ctrl->pdev);
	mutex_destroy(&ctrl->lock);
	kfree(ctrl);
}

static int bam_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	resource_size_t bar_len = pci_resource_len(pdev, 0);
	struct bam_ctrl *ctrl;
	int minor;
	int ret;

	if (pdev->class != PCI_CLASS_STORAGE_EXPRESS) {
		bam_info("%s: class %06x is not an NVMe controller\n", pci_name(pdev), pdev->class);
		return -ENODEV;
	}
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) || !bar_len ||
	    !PAGE_ALIGNED(pci_resource_start(pdev, 0))) {
		bam_info("%s: BAR0 is not a page-aligned memory BAR\n", pci_name(pdev));
		return -ENODEV;
	}

	ret = pci_enable_device_mem(pdev);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, 0, "bam");
	if (ret)
		goto err_disable;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		bam_err("%s: no 64-bit DMA\n", pci_name(pdev));
		goto err_release;
	}

	ctrl = kzalloc(sizeof(*ctrl), GFP_KERNEL);
	if (!ctrl) {
		ret = -ENOMEM;
		goto err_release;
	}
	minor = ida_alloc_max(&bam_minors, BAM_MAX_CTRLS - 1, GFP_KERNEL);
	if (minor < 0) {
		kfree(ctrl);
		ret = minor;
		goto err_release;
	}
	ctrl->minor = minor;
	ctrl->pdev = pci_dev_get(pdev);
	mutex_init(&ctrl->lock);
	INIT_LIST_HEAD(&ctrl->files);

	/* From here on ctrl is freed through put_device (bam_ctrl_free). */
	device_initialize(&ctrl->dev);
	ctrl->dev.class = bam_class;
	ctrl->dev.parent = &pdev->dev;
	ctrl->dev.devt = MKDEV(MAJOR(bam_devt), minor);
	ctrl->dev.release = bam_ctrl_free;
	ret = dev_set_name(&ctrl->dev, "bam%d", minor);
	if (ret)
		goto err_put;
	cdev_init(&ctrl->cdev, &bam_fops);
	ctrl->cdev.owner = THIS_MODULE;
	pci_set_drvdata(pdev, ctrl);
	ret = cdev_device_add(&ctrl->cdev, &ctrl->dev);
	if (ret)
		goto err_put;

	bam_info("%s: bound as %s (%04x:%04x, BAR0 %pa bytes)\n", pci_name(pdev),
		 dev_name(&ctrl->dev), pdev->vendor, pdev->device, &bar_len);
	return 0;

err_put:
	pci_set_drvdata(pdev, NULL);
	put_device(&ctrl->dev);
err_release:
	pci_release_region(pdev, 0);
err_disable:
	pci_disable_device(pdev);
	return ret;
}

/*
 * Unbind: no new opens; every pin of every open file is released and every BAR mapping
 * zapped (a later access gets SIGBUS); calls on files still open fail with -ENODEV.
 * The bam_ctrl itself lives on until the last of those files is closed.
 */
static void bam_remove(struct pci_dev *pdev)
{
	struct bam_ctrl *ctrl = pci_get_drvdata(pdev);
	struct bam_file *f;

	cdev_device_del(&ctrl->cdev, &ctrl->dev);

	mutex_lock(&ctrl->lock);
	WRITE_ONCE(ctrl->dead, true);
	list_for_each_entry(f, &ctrl->files, node) {
		bam_file_release_pins(f);
		bam_bar_zap(f);
	}
	if (ctrl->bus_master)
		pci_clear_master(pdev);
	mutex_unlock(&ctrl->lock);

	pci_set_drvdata(pdev, NULL);
	pci_release_region(pdev, 0);
	pci_disable_device(pdev);
	bam_info("%s: %s unbound\n", pci_name(pdev), dev_name(&ctrl->dev));
	put_device(&ctrl->dev);
}

/*
 * No id table on purpose: bam binds only what new_id or driver_override hands it. It must be
 * NULL, not an empty table: new_id refuses ids when a table exists and none of its entries
 * carries the same driver_data.
 */
static struct pci_driver bam_pci_driver = {
	.name = "bam",
	.id_table = NULL,
	.probe = bam_probe,
	.remove = bam_remove,
};

/* ---- module ------------------------------------------------------------------------------- */

static int __init bam_init(void)
{
	int ret;

	if (dev_mode & ~0777) {
		bam_err("dev_mode %#o has bits outside 0777\n", dev_mode);
		return -EINVAL;
	}
	ret = alloc_chrdev_region(&bam_devt, 0, BAM_MAX_CTRLS, "bam");
	if (ret)
		return ret;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	bam_class = class_create("bam");
#else
	bam_class = class_create(THIS_MODULE, "bam");
#endif
	if (IS_ERR(bam_class)) {
		ret = PTR_ERR(bam_class);
		goto err_region;
	}
	bam_class->devnode = bam_devnode;
	ret = pci_register_driver(&bam_pci_driver);
	if (ret)
		goto err_class;
	bam_info("ABI %d.%d, GPU pinning %s\n", BAM_IOCTL_ABI_MAJOR, BAM_IOCTL_ABI_MINOR,
		 BAM_GPU_PIN_SUPPORTED ? "built in" : "not built");
	return 0;

err_class:
	class_destroy(bam_class);
err_region:
	unregister_chrdev_region(bam_devt, BAM_MAX_CTRLS);
	return ret;
}

static void __exit bam_exit(void)
{
	pci_unregister_driver(&bam_pci_driver);
	class_destroy(bam_class);
	unregister_chrdev_region(bam_devt, BAM_MAX_CTRLS);
	ida_destroy(&bam_minors);
}

module_init(bam_init);
module_exit(bam_exit);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("bam: NVMe BAR mapping and DMA pinning for GPU-driven NVMe queues");
MODULE_VERSION(__stringify(BAM_IOCTL_ABI_MAJOR) "." __stringify(BAM_IOCTL_ABI_MINOR));
