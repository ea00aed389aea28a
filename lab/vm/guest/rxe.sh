# lab/vm/guest/rxe.sh — source inside the lab VM: Soft-RoCE (rdma_rxe) with guest-only addresses.
#
#   . lab/vm/guest/rxe.sh        # then: rxe0 is ACTIVE, $RXE_IP is the address to use
#
# rxe does not work on `lo`, so it sits on a NIC-less device whose address exists only inside the
# guest: nothing leaves the VM. Two layouts:
#
#   default      rxe0 on a dummy device ($RXE_NETDEV, default dummy0) with $RXE_IP (10.99.0.1).
#                Client and server share rxe0; rxe then hands packets over internally, so there is
#                nothing to capture.
#   RXE_PAIR=1   rxe0 on nfsb0 ($RXE_IP) and rxe1 on nfsb1 ($RXE_PEER_IP, 10.99.0.2), the two ends of
#                a veth pair. Policy routing sends locally generated traffic between the two addresses
#                through the pair (instead of through lo), so a client connecting to $RXE_IP uses rxe1
#                and RoCEv2 (UDP 4791) between the two devices can be captured on nfsb0
#                ($RXE_NETDEV).
#
# Environment (optional): RXE_IP, RXE_PEER_IP, RXE_PAIR. Sets RXE_NETDEV. Safe to source twice;
# returns non-zero (without changing the caller's shell options) on failure.

RXE_IP=${RXE_IP:-10.99.0.1}
RXE_PEER_IP=${RXE_PEER_IP:-10.99.0.2}
RXE_PAIR=${RXE_PAIR:-0}
if [ "$RXE_PAIR" = 1 ]; then RXE_NETDEV=nfsb0; else RXE_NETDEV=${RXE_NETDEV:-dummy0}; fi

rxe_add() {  # rxe_add RDMADEV NETDEV: create the rxe device and wait for its port to become ACTIVE
  local i
  [ -d "/sys/class/infiniband/$1" ] || rdma link add "$1" type rxe netdev "$2" || return 1
  for i in $(seq 50); do
    rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
    sleep 0.1
  done
  echo "rxe.sh: $1 did not become ACTIVE" >&2
  return 1
}

rxe_up() {
  local m i
  for m in rdma_rxe ib_uverbs rdma_ucm; do modprobe "$m" || return 1; done
  if [ "$RXE_PAIR" != 1 ]; then
    if ! ip link show "$RXE_NETDEV" >/dev/null 2>&1; then
      ip link add "$RXE_NETDEV" type dummy || return 1
      ip addr add "$RXE_IP/24" dev "$RXE_NETDEV" || return 1
    fi
    ip link set "$RXE_NETDEV" up || return 1
    rxe_add rxe0 "$RXE_NETDEV"
    return
  fi
  if ! ip link show nfsb0 >/dev/null 2>&1; then
    ip link add nfsb0 mtu 9000 type veth peer name nfsb1 mtu 9000 || return 1
    ip addr add "$RXE_IP/24" dev nfsb0 || return 1
    ip addr add "$RXE_PEER_IP/24" dev nfsb1 || return 1
    ip link set nfsb0 up && ip link set nfsb1 up || return 1
    # Packets from one local address to another arrive on a device: accept them.
    for i in all default nfsb0 nfsb1; do
      sysctl -qw "net.ipv4.conf.$i.accept_local=1" "net.ipv4.conf.$i.rp_filter=0" || return 1
    done
    # Locally generated traffic to either address leaves through the other end of the pair. The
    # `local` table normally wins first (priority 0), so it moves behind these two rules.
    ip route add "$RXE_IP" dev nfsb1 src "$RXE_PEER_IP" table 100 || return 1
    ip route add "$RXE_PEER_IP" dev nfsb0 src "$RXE_IP" table 101 || return 1
    ip rule add pref 10 to "$RXE_IP" iif lo lookup 100 || return 1
    ip rule add pref 11 to "$RXE_PEER_IP" iif lo lookup 101 || return 1
    ip rule add pref 1000 lookup local && ip rule del pref 0 || return 1
  fi
  ip link set nfsb0 up && ip link set nfsb1 up || return 1
  rxe_add rxe0 nfsb0 && rxe_add rxe1 nfsb1
}

rxe_up || { echo "rxe.sh: Soft-RoCE setup failed" >&2; false; }
