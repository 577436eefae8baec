//! Counting what is allocated, so that `--max-memory` limits live heap bytes rather than RSS
//! read from /proc every few thousand steps (too late and too coarse to hold a limit).
//!
//! The binary installs [`Counting`] as its global allocator; tests and benches may too:
//! `#[global_allocator] static A: tracepor::alloc::Counting = tracepor::alloc::Counting;`.
//! Library users who do not get `None` from [`current`] and [`peak`], and searches fall back to
//! RSS.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// [`System`], counting live bytes and their high-water mark.
pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[inline]
fn grow(n: usize) {
    let now = CURRENT.fetch_add(n, Relaxed) + n;
    // A plain load first: the peak rarely moves, and fetch_max is a locked write.
    if now > PEAK.load(Relaxed) {
        PEAK.fetch_max(now, Relaxed);
    }
}

#[inline]
fn shrink(n: usize) {
    CURRENT.fetch_sub(n, Relaxed);
}

// SAFETY: every call is passed to System unchanged; only counters are updated besides.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrink(layout.size());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size > layout.size() {
                grow(new_size - layout.size());
            } else {
                shrink(layout.size() - new_size);
            }
        }
        p
    }
}

/// Whether [`Counting`] is the global allocator: by the time anyone asks, something was
/// allocated through it.
#[inline]
pub fn installed() -> bool {
    PEAK.load(Relaxed) > 0
}

/// Live heap bytes, when counted.
#[inline]
pub fn current() -> Option<u64> {
    installed().then(|| CURRENT.load(Relaxed) as u64)
}

/// Most live heap bytes since the start or the last [`reset_peak`], when counted.
pub fn peak() -> Option<u64> {
    installed().then(|| PEAK.load(Relaxed) as u64)
}

/// Starts a new high-water mark of counted bytes from what is live now (one run of `compare`
/// after another). The kernel's resident high-water mark (VmHWM) is left alone: it is what
/// `/usr/bin/time` and every other outside measurement reads, and resetting it would make them
/// report the last run's peak instead of the process's.
pub fn reset_peak() {
    if installed() {
        PEAK.store(CURRENT.load(Relaxed), Relaxed);
    }
}

/// The default for `--max-memory`: half of physical memory (MemTotal in /proc/meminfo), or
/// half of the cgroup's limit (memory.max, cgroup v2) when that is lower. None when neither
/// can be read.
pub fn default_limit_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let total = meminfo.as_deref().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: u64 = line["MemTotal:".len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().and_then(|s| s.trim().parse::<u64>().ok());
    let physical = match (total, cgroup) {
        (Some(t), Some(c)) => t.min(c),
        (t, c) => t.or(c)?,
    };
    Some(physical / 2)
}
