# Stage 2 of the lab VM's boot, run by busybox sh as PID 1 inside the final root (see boot/init).
# Runs the user's command with stdout+stderr on ttyS0 (run.sh's stdout), records its exit status in the
# control share, flushes the shares and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
B=/run/busybox
CTL=/run/nfsbench-vm

$B ip link set lo up
$B hostname nfsbench-vm
# No network leaves the guest: resolve our own name locally and fail DNS at once (empty resolv.conf
# means "ask 127.0.0.1:53", which refuses immediately) instead of waiting for unreachable servers.
echo "127.0.1.1 nfsbench-vm" >> /etc/hosts
: > /etc/resolv.conf
$B stty -F /dev/ttyS0 raw -echo     # no CR/LF translation on the way out

(
  [ -f $CTL/env ] && . $CTL/env
  cd "$(cat $CTL/cwd)" 2>/dev/null || { echo "nfsbench-vm: cannot cd to $(cat $CTL/cwd); staying in /"; cd /; }
  exec /bin/bash $CTL/cmd
) </dev/null >/dev/ttyS0 2>&1
echo $? > $CTL/rc

$B sync
# Unmount the read-write shares and then the control share so that every write reaches the host
# before the power goes.
while IFS= read -r d; do [ -n "$d" ] && { $B umount "$d" 2>/dev/null || $B umount -l "$d"; }; done < $CTL/rwdirs
$B umount $CTL
$B poweroff -f
