#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Converts Debian's dataset-fashion-mnist (MNIST idx files, gzip) into the ann-benchmarks
fashion-mnist-784-euclidean split as .npy: base = the 60,000 training images, queries = the
10,000 test images, 784 uint8 pixels each. Standard library only.

usage: fashion_mnist.py DIR_WITH_IDX_GZ OUT_DIR   (writes OUT_DIR/base.npy and OUT_DIR/queries.npy)
"""
import gzip
import os
import struct
import sys


def read_idx_images(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n, rows, cols = struct.unpack_from(">IIII", data, 0)
    if magic != 0x803:
        raise ValueError(f"{path}: not an idx3 image file (magic {magic:#x})")
    body = data[16:]
    if len(body) != n * rows * cols:
        raise ValueError(f"{path}: truncated: {len(body)} bytes for {n} images of {rows}x{cols}")
    return n, rows * cols, body


def write_npy_u8(path, n, d, body):
    head = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d, %d), }" % (n, d)
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode("latin1") + body)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name, idx in (("base", "train-images-idx3-ubyte.gz"), ("queries", "t10k-images-idx3-ubyte.gz")):
        n, d, body = read_idx_images(os.path.join(src, idx))
        write_npy_u8(os.path.join(out, name + ".npy"), n, d, body)
        print(f"{name}: {n} x {d} -> {out}/{name}.npy")


if __name__ == "__main__":
    main()
