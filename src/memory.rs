//! What the binary asks of the C allocator.
//!
//! glibc's malloc gives a thread that finds the others' arenas busy an arena of
//! its own, up to eight per core, and each arena keeps what its threads freed for
//! their next allocations. A run moves records between a pool of async threads,
//! the blocking threads of every transform and rayon's: over a long crawl the
//! arenas multiply and the memory they keep grows with the run, not with what it
//! holds. Measured with `cargo bench --bench crawl_scale -- --streaming 1 16 64`
//! on 2 cores: peak 41, 66 and 96 MB at 1x, 16x and 64x with glibc's default, 32,
//! 46 and 60 MB with two arenas, in about the same wall time; the live heap
//! (valgrind's massif) peaks at 7 MB at 1x and 16 MB at 16x.

/// One arena per core, unless `MALLOC_ARENA_MAX` says otherwise (the user's
/// setting wins). Call it first thing, before any other thread starts.
pub fn one_arena_per_core() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
            return;
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: `mallopt` sets one of the allocator's parameters; no other thread
        // runs yet, and glibc reads M_ARENA_MAX only when a thread needs an arena.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}
