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

/* A signaled IBV_WR_RDMA_WRITE of the `num_sge` elements of `sges`, in order, to `remote_addr`/`rkey`. */
int nfsbench_ibv_post_write_sgl(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sges, int num_sge,
                                uint64_t remote_addr, uint32_t rkey);

/* ibv_alloc_mw(pd, IBV_MW_TYPE_2) and ibv_dealloc_mw (static inline). */
struct ibv_mw *nfsbench_ibv_alloc_mw_type2(struct ibv_pd *pd);
int nfsbench_ibv_dealloc_mw(struct ibv_mw *mw);

/* ibv_inc_rkey (static inline): the next key of an rkey's index. */
uint32_t nfsbench_ibv_inc_rkey(uint32_t rkey);

/* A signaled IBV_WR_BIND_MW of type-2 `mw` under `rkey` (the window's next key) over `length` bytes at
 * `addr` of `mr` (registered with IBV_ACCESS_MW_BIND), with `access` (ibv_access_flags). Once posted,
 * `mw->rkey` is `rkey` (the key the next binding is posted under). */
int nfsbench_ibv_post_bind_mw(struct ibv_qp *qp, uint64_t wr_id, struct ibv_mw *mw, uint32_t rkey,
                              struct ibv_mr *mr, uint64_t addr, uint64_t length, unsigned int access);

/* A signaled IBV_WR_LOCAL_INV of `rkey`. */
int nfsbench_ibv_post_local_inv(struct ibv_qp *qp, uint64_t wr_id, uint32_t rkey);

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
