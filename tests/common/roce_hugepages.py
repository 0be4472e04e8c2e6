# SPDX-License-Identifier: BSD-3-Clause
"""Hugepages for a test: reserve what is missing (root), mount a hugetlbfs of
our own, and give back exactly what we added (other programs may hold pages)."""

import os
import subprocess
import tempfile


def meminfo():
    """HugePages_Total, HugePages_Free and Hugepagesize (kB) from /proc/meminfo."""
    vals = {}
    with open('/proc/meminfo') as f:
        for line in f:
            key, _, rest = line.partition(':')
            vals[key] = int(rest.split()[0])
    return vals['HugePages_Total'], vals['HugePages_Free'], vals['Hugepagesize']


class Hugepages:
    """need_mb of free hugepages and a hugetlbfs mount of our own, undone by close().

    options: hugetlbfs mount options (e.g. 'size=4M,uid=10001'); the mount is a
    fresh temporary directory named with prefix.
    """

    NR = '/proc/sys/vm/nr_hugepages'

    def __init__(self, need_mb, prefix, options=None):
        self.need_mb = need_mb
        self.prefix = prefix
        self.options = options
        self.added = 0
        self.dir = None
        self.mounted = False

    def setup(self):
        """None if ready, else why this machine cannot do it."""
        if os.geteuid() != 0:
            return 'needs root to reserve hugepages and mount hugetlbfs'
        total, free, size_kb = meminfo()
        need = max(1, self.need_mb * 1024 // size_kb)
        if free < need:
            try:
                with open(self.NR, 'w') as f:
                    f.write(str(total + need - free))
            except OSError as e:
                return 'cannot reserve hugepages: %s' % e
            self.added = need - free
            free = meminfo()[1]
            if free < need:
                return 'the kernel gave %d of %d hugepages of %d kB' % (free, need, size_kb)
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        r = subprocess.run(['mount', '-t', 'hugetlbfs'] +
                           (['-o', self.options] if self.options else []) + ['nodev', self.dir],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            return 'cannot mount hugetlbfs: %s' % r.stderr.strip()
        self.mounted = True
        return None

    def wipe(self):
        """Remove the hugepage files the EAL left (it keeps them after exit)."""
        if self.dir is not None:
            for name in os.listdir(self.dir):
                os.unlink(os.path.join(self.dir, name))

    def close(self):
        if self.mounted:
            self.wipe()
            subprocess.run(['umount', self.dir], check=False)
        if self.dir is not None:
            os.rmdir(self.dir)
        if self.added:
            # Give back only what we added: other programs may hold pages.
            total = meminfo()[0]
            with open(self.NR, 'w') as f:
                f.write(str(max(0, total - self.added)))
