#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write partition tables no partitioning tool writes: broken EBR chains,
more logical partitions than libfdisk reads, overlapping and out-of-range
entries, GPT headers past the usual limits, hybrid MBRs, tables for the
other sector size, truncated images; and the layouts of util-linux's
tests/ts/blkid/images-pt that no tool here writes (gen-*: a BSD disklabel
with absolute offsets, alone and in a DOS partition; an SGI label with a
partition inside its volume header; IBM DASD CDL and LDL volume labels).
Every image is a sparse file.

    mkbroken.py DIR          write every scenario into DIR as NAME.img
    mkbroken.py -l           list the scenarios
    mkbroken.py -s FILE...   a checksum of each sparse FILE's content (its
                             size and every block that is not all zeros),
                             without reading its holes

Written for alignprobe's tests from the on-disk formats (the MBR/EBR
layout, UEFI's GPT header and entry array, the 4.4BSD disklabel, the SGI
disk label, IBM's DASD volume label records), not from any tool's code.
"""
import hashlib
import os
import struct
import sys
import uuid
import zlib

MIB = 1 << 20
LINUX_GUID = uuid.UUID("0fc63daf-8483-4772-8e79-3d69d8477de4")
DISK_GUID = uuid.UUID("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")


def sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)


def put(path, off, data):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(data)


def mbr_entry(ptype, start, size, boot=0):
    # CHS fields as 0xfe/0xff/0xff ("beyond CHS"), LBA fields in use
    return struct.pack("<B3sB3sII", boot, b"\xfe\xff\xff", ptype, b"\xfe\xff\xff",
                       start & 0xffffffff, size & 0xffffffff)


def boot_sector(entries, disk_id=0x1234abcd):
    b = bytearray(512)
    struct.pack_into("<I", b, 440, disk_id)
    for i, e in enumerate(entries):
        b[446 + 16 * i:446 + 16 * (i + 1)] = e
    b[510:512] = b"\x55\xaa"
    return bytes(b)


def write_mbr(path, entries, ss=512):
    put(path, 0, boot_sector(entries))


def write_chain(path, ext_start, logicals, ss=512, link_override=None):
    """An extended partition's EBR chain: logicals is a list of
    (ebr_lba, start_offset_from_ebr, size); the link of EBR i points to
    EBR i+1 (relative to ext_start), or to link_override[i] when given."""
    for i, (ebr, off, size) in enumerate(logicals):
        ents = [mbr_entry(0x83, off, size)]
        if link_override and i in link_override:
            ents.append(mbr_entry(0x05, link_override[i], 2048))
        elif i + 1 < len(logicals):
            nxt = logicals[i + 1][0]
            ents.append(mbr_entry(0x05, nxt - ext_start, 2048))
        put(path, ebr * ss, boot_sector(ents, disk_id=0))


def gpt_image(path, size, parts, ss=512, nentries=128, entry_size=128,
              entries_lba=2, first=None, last=None, hybrid=None, primary=True,
              backup=True, header_size=92, pmbr=True):
    """A GPT (protective MBR, primary and backup). parts: (start, end)."""
    nsec = size // ss
    sparse(path, size)
    arr = bytearray(nentries * entry_size)
    for i, (s, e) in enumerate(parts):
        if entry_size < 128 or (i + 1) * entry_size > len(arr):
            break
        u = uuid.UUID(int=0x11111111222243338444555555555500 + i)
        ent = LINUX_GUID.bytes_le + u.bytes_le + struct.pack("<QQQ", s, e, 0)
        ent += ("p%d" % (i + 1)).encode("utf-16-le").ljust(72, b"\0")
        arr[i * entry_size:i * entry_size + 128] = ent
    arr = bytes(arr)
    asec = (len(arr) + ss - 1) // ss
    if first is None:
        first = entries_lba + asec
    if last is None:
        last = nsec - 2 - asec
    if pmbr:
        ents = [mbr_entry(0xee, 1, min(nsec - 1, 0xffffffff))]
        if hybrid:
            ents = [mbr_entry(t, s, n) for (t, s, n) in hybrid] + ents
        write_mbr(path, ents)

    def header(my, alt, elba):
        h = bytearray(struct.pack("<8sIIIIQQQQ16sQIII", b"EFI PART", 0x10000, header_size,
                                  0, 0, my, alt, first, last, DISK_GUID.bytes_le, elba,
                                  nentries, entry_size, zlib.crc32(arr) & 0xffffffff))
        h = h.ljust(max(header_size, 92), b"\0")
        struct.pack_into("<I", h, 16, zlib.crc32(bytes(h[:header_size])) & 0xffffffff)
        return bytes(h)
    if primary:
        put(path, ss, header(1, nsec - 1, entries_lba))
        put(path, entries_lba * ss, arr)
    if backup:
        belba = nsec - 1 - asec
        put(path, belba * ss, arr)
        put(path, (nsec - 1) * ss, header(nsec - 1, 1, belba))


def dos_logicals(path, n, misaligned_tail=0, size=4 * MIB):
    """An extended partition holding n logical partitions of 4 KiB each,
    every EBR 4 KiB before its partition; the last misaligned_tail start
    one sector late."""
    sparse(path, size)
    ext = 2048
    logs = []
    for i in range(n):
        ebr = ext + i * 32
        off = 8 + (1 if i >= n - misaligned_tail else 0)
        logs.append((ebr, off, 8))
    write_mbr(path, [mbr_entry(0x05, ext, n * 32 + 32)])
    write_chain(path, ext, logs)


# ---- the scenarios ----

def s_ebr_64_logicals(p):
    dos_logicals(p, 64, misaligned_tail=4, size=4 * MIB)


# libfdisk reads 60 partitions, the 4 primary slots included: 56 logicals
def s_ebr_57_logicals(p):
    dos_logicals(p, 57, size=4 * MIB)


def s_ebr_56_logicals(p):
    dos_logicals(p, 56, misaligned_tail=1, size=4 * MIB)


def s_ebr_link_far(p):
    sparse(p, 64 * MIB)
    write_mbr(p, [mbr_entry(0x05, 2048, 40960)])
    write_chain(p, 2048, [(2048, 2048, 2048), (8192, 2048, 2048)],
                link_override={0: 10 ** 9})


def s_ebr_loop(p):
    sparse(p, 64 * MIB)
    write_mbr(p, [mbr_entry(0x05, 2048, 40960)])
    # EBR 2 links back to EBR 1
    write_chain(p, 2048, [(2048, 2048, 2048), (8192, 2048, 2048)],
                link_override={1: 0})


def s_ebr_self_loop(p):
    sparse(p, 64 * MIB)
    write_mbr(p, [mbr_entry(0x05, 2048, 40960)])
    write_chain(p, 2048, [(2048, 2048, 2048)], link_override={0: 0})


def s_ebr_link_outside_ext(p):
    # the link stays on the disk but leaves the extended partition
    sparse(p, 64 * MIB)
    write_mbr(p, [mbr_entry(0x05, 2048, 20480)])
    write_chain(p, 2048, [(2048, 2048, 2048), (100000, 2048, 2048)])


def s_ext_empty(p):
    # an extended partition whose first EBR is all zeros: no logicals (valid)
    sparse(p, 64 * MIB)
    write_mbr(p, [mbr_entry(0x83, 2048, 2048), mbr_entry(0x05, 8192, 40960)])


def s_ext_past_end(p):
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x05, 2048, 10 ** 9)])
    write_chain(p, 2048, [(2048, 2048, 2048)])


def s_dos_overlap(p):
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x83, 2048, 8192), mbr_entry(0x83, 8192, 8192)])


def s_dos_past_end(p):
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x83, 2048, 8192), mbr_entry(0x83, 16384, 100000)])


def s_dos_start_past_end(p):
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x83, 2048, 8192), mbr_entry(0x83, 3 * 10 ** 9, 2048)])


def s_dos_zero_start(p):
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x83, 0, 8192)])


def s_dos_two_extended(p):
    sparse(p, 64 * MIB)
    write_mbr(p, [mbr_entry(0x05, 2048, 20480), mbr_entry(0x05, 40960, 20480)])
    write_chain(p, 2048, [(2048, 2048, 2048)])
    write_chain(p, 40960, [(40960, 2048, 2048)])


def s_gpt_entries_65536(p):
    gpt_image(p, 64 * MIB, [(2048, 4095)], nentries=65536)


def s_gpt_entries_2_18(p):
    gpt_image(p, 96 * MIB, [(2048, 4095)], nentries=1 << 18)


def s_gpt_entries_2_19(p):
    gpt_image(p, 160 * MIB, [(2048, 4095)], nentries=1 << 19)


def s_gpt_entry_size_8(p):
    gpt_image(p, 16 * MIB, [(2048, 4095)], nentries=128, entry_size=8)


def s_gpt_entry_size_1024(p):
    # a legal, unusual entry size (a multiple of 128): read and judged
    gpt_image(p, 16 * MIB, [(2048, 4095)], nentries=128, entry_size=1024)


def s_gpt_entries_zero(p):
    gpt_image(p, 16 * MIB, [], nentries=0)


def s_gpt_header_size_big(p):
    gpt_image(p, 16 * MIB, [(2048, 4095)], header_size=600)


def s_gpt_overlap(p):
    gpt_image(p, 16 * MIB, [(2048, 8191), (8000, 12287)])


def s_gpt_outside_usable(p):
    gpt_image(p, 16 * MIB, [(2048, 4095), (8192, 32767)])


def s_gpt_past_end(p):
    gpt_image(p, 16 * MIB, [(2048, 4095), (8192, 10 ** 9)], last=10 ** 9)


def s_gpt_end_before_start(p):
    gpt_image(p, 16 * MIB, [(8192, 4095)])


def s_gpt_hybrid(p):
    gpt_image(p, 16 * MIB, [(2048, 6143), (6144, 10239)],
              hybrid=[(0x83, 2048, 4096)])


def s_gpt_hybrid_misaligned(p):
    # the MBR half of a hybrid names a start the GPT does not have
    gpt_image(p, 16 * MIB, [(2048, 6143)], hybrid=[(0x83, 2049, 4095)])


def s_gpt_no_backup(p):
    gpt_image(p, 16 * MIB, [(2048, 4095)], backup=False)


def s_gpt_truncated(p):
    gpt_image(p, 16 * MIB, [(2048, 4095)])
    os.truncate(p, 8 * MIB)


def s_dos_truncated(p):
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x83, 2048, 30000)])
    os.truncate(p, 8 * MIB)


def s_truncated_mbr(p):
    # the first 300 bytes of an MBR, nothing else
    sparse(p, 16 * MIB)
    write_mbr(p, [mbr_entry(0x83, 2048, 8192)])
    os.truncate(p, 300)


def s_gpt_4k_read_512(p):
    # a GPT for 4096-byte sectors (LBA 1 at byte 4096)
    sparse(p, 32 * MIB)
    gpt_image(p, 32 * MIB, [(256, 2303)], ss=4096)


def s_dos_4k_read_512(p):
    # an MBR for 4096-byte sectors: 1 MiB is sector 256, the partition fills the disk
    sparse(p, 32 * MIB)
    write_mbr(p, [mbr_entry(0x83, 256, 32 * 256 - 256)])


def lvm_crc(data, crc=0xf597a6cf):
    # LVM2's label CRC: the reflected CRC-32 polynomial, LVM's initial
    # value, no final inversion
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1))
    return crc & 0xffffffff


def s_whole_lvm2_pv(p):
    """An LVM2 physical volume on the whole disk: its label in sector 1
    (LABELONE, the PV header, one data area from 1 MiB)."""
    sparse(p, 16 * MIB)
    lab = bytearray(512)
    lab[0:8] = b"LABELONE"
    struct.pack_into("<QII8s", lab, 8, 1, 0, 32, b"LVM2 001")
    struct.pack_into("<32sQ", lab, 32, b"abcdefghijklmnopqrstuvwxyz012345", 16 * MIB)
    struct.pack_into("<QQQQ", lab, 72, MIB, 0, 0, 0)          # data area, end of list
    struct.pack_into("<QQQQ", lab, 104, 4096, MIB - 4096, 0, 0)  # metadata area
    struct.pack_into("<I", lab, 16, lvm_crc(bytes(lab[20:])))
    put(p, 512, bytes(lab))


# ---- layouts of util-linux's tests/ts/blkid/images-pt that no tool here
# writes: a BSD disklabel with absolute offsets (alone, as a partition's
# image, and nested in a DOS partition), an SGI label with a partition in
# its volume header, IBM DASD volume labels ----

BSD_MAGIC = 0x82564557


def bsd_label(parts, nsec, secpercyl=256):
    """A 4.4BSD disklabel (sector 1 of its slice, little-endian): the
    header, d_magic again, the XOR checksum of the label's 16-bit words
    and 8 partition entries. parts: {index: (offset, size, fstype)}."""
    lab = bytearray(148 + 16 * 8)
    struct.pack_into("<I", lab, 0, BSD_MAGIC)
    struct.pack_into("<IIIIII", lab, 40, 512, 32, secpercyl // 32,
                     (nsec + secpercyl - 1) // secpercyl, secpercyl, nsec)
    struct.pack_into("<HH", lab, 72, 3600, 1)            # rpm, interleave
    struct.pack_into("<I", lab, 132, BSD_MAGIC)
    npart = max(parts) + 1
    struct.pack_into("<HII", lab, 138, npart, 8192, 8192)  # bbsize, sbsize
    for i, (off, size, fstype) in parts.items():
        struct.pack_into("<IIIBBH", lab, 148 + 16 * i, size, off,
                         2048 if fstype else 0, fstype, 8 if fstype else 0, 0)
    end = 148 + 16 * npart
    csum = 0
    for (w,) in struct.iter_unpack("<H", bytes(lab[:end])):
        csum ^= w
    struct.pack_into("<H", lab, 136, csum)
    return bytes(lab)


# the slice 7680-16383 of a 16384-sector disk: c the whole slice (unused),
# e and f 4.2BSD file systems overlapping by 256 sectors; offsets absolute
BSD_SLICE = (7680, 8704)
BSD_PARTS = {2: (7680, 8704, 0), 4: (7936, 4864, 7), 5: (12544, 3584, 7)}


def s_gen_bsd(p):
    """The slice alone (an image of the DOS partition): its absolute
    offsets end past this smaller disk. corpus.sh copies it into the
    FreeBSD partition of a DOS table sfdisk writes (gen-dos-bsd)."""
    sparse(p, BSD_SLICE[1] * 512)
    put(p, 512, bsd_label(BSD_PARTS, 16384))


# the same slice with a misaligned 'a' (a sector past 4 KiB) and 'e' aligned,
# no overlap: corpus.sh copies it into gen-dos-bsd-misaligned
BSD_PARTS_MISALIGNED = {0: (7681, 255, 7), 2: (7680, 8704, 0), 4: (7936, 4864, 7)}


def s_gen_bsd_misaligned(p):
    """A slice image like gen-bsd's, partition a at an odd start."""
    sparse(p, BSD_SLICE[1] * 512)
    put(p, 512, bsd_label(BSD_PARTS_MISALIGNED, 16384))


# FreeBSD 10's convention: offsets relative to the slice, 'c' at 0
BSD_PARTS_RELATIVE = {2: (0, 8704, 0), 4: (256, 4864, 7), 5: (5120, 3584, 7)}


def s_gen_bsd_relative(p):
    """A slice image whose label has relative offsets (e at 7936, f at
    12800 on the disk)."""
    sparse(p, BSD_SLICE[1] * 512)
    put(p, 512, bsd_label(BSD_PARTS_RELATIVE, 16384))


# two FreeBSD slices, 7680-11775 and 11776-16383, each with a label:
# corpus.sh copies them into gen-dos-bsd-two (libfdisk reads the first only)
def s_gen_bsd_first(p):
    """The first slice's label (absolute offsets)."""
    sparse(p, 4096 * 512)
    put(p, 512, bsd_label({2: (7680, 4096, 0), 4: (7936, 2048, 7)}, 16384))


def s_gen_bsd_second(p):
    """The second slice's label (absolute offsets)."""
    sparse(p, 4608 * 512)
    put(p, 512, bsd_label({2: (11776, 4608, 0), 4: (12032, 2048, 7)}, 16384))


def s_gen_sgi(p):
    """An SGI disk label (big-endian: magic, boot file, 16 partition
    entries of blocks, first block and type at 312, a checksum that makes
    its 32-bit words sum to 0) for a 32130000-sector disk, truncated to
    10 MiB: Linux partitions at 63 (inside the volume header, which no
    tool here writes any more) and 1606500, the volume header (9) and the
    volume (11)."""
    nsec = 32130000
    lab = bytearray(512)
    struct.pack_into(">IHH16s", lab, 0, 0x0BE5A941, 0, 1, b"/unix")
    for i, (first, nblks, ptype) in {0: (63, 1606437, 0x83), 1: (1606500, nsec - 1606500, 0x83),
                                     8: (0, 4096, 0), 10: (0, nsec, 6)}.items():
        struct.pack_into(">III", lab, 312 + 12 * i, nblks, first, ptype)
    total = sum(w for (w,) in struct.iter_unpack(">I", bytes(lab)))
    struct.pack_into(">I", lab, 504, -total & 0xffffffff)
    sparse(p, 10 * MIB)
    put(p, 0, bytes(lab))


def ebcdic(text, n):
    return text.ljust(n).encode("cp500")


def s_gen_dasd_cdl(p):
    """An IBM DASD of 4096-byte blocks in the compatible disk layout: the
    volume label in block 2, its key "VOL1" then the 80-byte VOL1 record
    (volser, security byte, the VTOC's CCHHR: cylinder 0, head 1, record
    1), the IPL records before it."""
    sparse(p, 20 * MIB)
    put(p, 0, b"\xe5" * 8192)
    vol1 = bytearray(ebcdic("VOL1" + "GEN001", 80))
    vol1[10] = 0x40
    vol1[11:16] = struct.pack(">HHB", 0, 1, 1)
    put(p, 2 * 4096, ebcdic("VOL1", 4) + bytes(vol1))


def s_gen_dasd_ldl(p):
    """The Linux disk layout: an LNX1 label in block 2 (volser, the LDL
    version "2" in column 80, then the count of formatted blocks)."""
    sparse(p, 20 * MIB)
    lnx1 = bytearray(ebcdic("LNX1" + "GEN002", 79) + ebcdic("2", 1))
    put(p, 2 * 4096, bytes(lnx1) + struct.pack(">Q", 20 * MIB // 4096))


SCENARIOS = {k[2:].replace("_", "-"): v for k, v in sorted(globals().items())
             if k.startswith("s_")}


def sparse_sum(path):
    """The file's content as a digest of its size and of every 64 KiB block
    that is not all zeros (with its offset): what a full checksum tells,
    without reading holes. Holes and unwritten extents read as zeros, so
    where the file system says data lies may change (reading an unwritten
    extent can turn it into "data" for SEEK_DATA); the digest does not."""
    blk = 1 << 16
    zero = bytes(blk)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        h.update(b"size %d\n" % size)
        off = 0
        while off < size:
            try:
                start = os.lseek(f.fileno(), off, os.SEEK_DATA)
            except OSError:
                break           # only a hole is left
            end = os.lseek(f.fileno(), start, os.SEEK_HOLE)
            pos = start - start % blk
            f.seek(pos)
            while pos < end:
                b = f.read(blk)
                if not b:
                    break
                if b != zero[:len(b)]:
                    h.update(b"%d\n" % pos)
                    h.update(b)
                pos += len(b)
            off = max(end, pos)
    return h.hexdigest()


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "-l":
        print("\n".join(SCENARIOS))
        return 0
    if len(sys.argv) >= 2 and sys.argv[1] == "-s":
        for p in sys.argv[2:]:
            print(sparse_sum(p), p)
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for name, fn in SCENARIOS.items():
        path = os.path.join(d, name + ".img")
        if os.path.exists(path):
            os.unlink(path)
        fn(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
