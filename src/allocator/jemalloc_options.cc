// jemalloc's options for the executables that link it (tenure_use_server_allocator).
//
// One arena per CPU instead of jemalloc's default of four per CPU. The server's threads free
// each other's allocations (an HTTP thread's request, kept by the store, freed by the history's
// trim on the writer thread), and with eight arenas on two cores each arena kept its own
// partly used pages: at 10,000 renewed Leases tenure serve's RSS grew by 5.0 to 7.0 KiB per
// Lease, with one arena per CPU by 2.7 KiB, at the same CPU and renewal rate
// (docs/performance.md, "Round 10"). MALLOC_CONF still overrides it.
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's.
const char* malloc_conf = "percpu_arena:percpu";
}
