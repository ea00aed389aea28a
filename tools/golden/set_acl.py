#!/usr/bin/env python3
"""set_acl.py PATH N — give PATH a POSIX access ACL with N named-user entries (uids 2000..).

Writes the system.posix_acl_access extended attribute directly (the kernel's binary format), so no
`acl` package is needed; on an NFSv3 mount the Linux client turns this into an NFS_ACL SETACL call.
With a few hundred entries the call outgrows the RPC-over-RDMA inline size.
"""
import os
import struct
import sys

ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ, ACL_MASK, ACL_OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
UNDEFINED_ID = 0xFFFFFFFF

path, n = sys.argv[1], int(sys.argv[2])
entries = [(ACL_USER_OBJ, 6, UNDEFINED_ID)]
entries += [(ACL_USER, 4, 2000 + i) for i in range(n)]
entries += [(ACL_GROUP_OBJ, 4, UNDEFINED_ID), (ACL_MASK, 6, UNDEFINED_ID), (ACL_OTHER, 4, UNDEFINED_ID)]
value = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)  # version 2
os.setxattr(path, "system.posix_acl_access", value)
