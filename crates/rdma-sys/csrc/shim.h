/* nfsbench rdma-sys: out-of-line wrappers for the parts of rdma-core that are `static inline` or
 * macros in the headers (the data path of libibverbs, ibv_reg_mr, rdma_get_{local,peer}_addr), so
 * that Rust can call them. Each work request carries a single scatter/gather element: that is all
 * RPC-over-RDMA needs, and it keeps the unions of ibv_send_wr on the C side. */
#ifndef NFSBENCH_RDMA_SHIM_H
#define NFSBENCH_RDMA_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* A signaled IBV_WR_SEND of `length` bytes at `addr` (lkey `lkey`). */
int nfsbench_ibv_post_send(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t length,
                           uint32_t lkey);

/* A signaled IBV_WR_RDMA_WRITE (write != 0) or IBV_WR_RDMA_READ of `length` bytes between local
 * `addr`/`lkey` and remote `remote_addr`/`rkey`. */
int nfsbench_ibv_post_rdma(struct ibv_qp *qp, int write, uint64_t wr_id, uint64_t addr,
                           uint32_t length, uint32_t lkey, uint64_t remote_addr, uint32_t rkey);

/* One receive of `length` bytes at `addr`. */
int nfsbench_ibv_post_recv(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t length,
                           uint32_t lkey);

/* ibv_poll_cq: up to `num_entries` completions into `wc`; the count, or negative on error. */
int nfsbench_ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);

/* ibv_req_notify_cq. */
int nfsbench_ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* ibv_reg_mr (a macro in recent rdma-core). */
struct ibv_mr *nfsbench_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);

/* rdma_get_local_addr / rdma_get_peer_addr. */
struct sockaddr *nfsbench_rdma_get_local_addr(struct rdma_cm_id *id);
struct sockaddr *nfsbench_rdma_get_peer_addr(struct rdma_cm_id *id);

#endif
