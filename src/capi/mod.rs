//! The C ABI (feature `capi`), for engines written in other languages: C and C++,
//! C# through `DllImport`, Godot through a GDExtension. The header is
//! `include/throng.h`; the README's "From C, C++, C# and Godot" section says how to
//! build and link the library.
//!
//! # Conventions
//! - Every function returns a [`ThrongStatus`]; results come back through pointers
//!   the caller passes. On an error nothing is written and nothing in the world
//!   changes; [`throng_last_error`] gives the message, on the calling thread.
//! - Null pointers, stale agent handles, unknown groups and non-finite numbers are
//!   refused with a status, never undefined behaviour (within what a pointer can be
//!   checked for: a non-null pointer must point at what the function says).
//! - Agent handles are `uint64_t` (the slot in the low 32 bits, its generation in
//!   the high 32, mixed with the world's tag: a despawned agent's handle stays
//!   stale after its slot is reused, and another world's handle names no agent:
//!   while that world lives, the message says the handle belongs to another world).
//!   A world restored from a snapshot takes the snapshot's world: the handles of
//!   the world it was taken from name the same agents in it.
//!   Group and path ids are `uint32_t`, in the order they were added.
//! - Bulk reads copy into caller-owned arrays, in row order, the same order for
//!   every column of one read; `throng_world_ids` says which agent each row is.
//!   A read with a null array and a capacity of 0 only reports the length needed.
//!
//! # Ownership and threads
//! A `ThrongWorld*` from [`world::throng_world_new`], [`world::throng_world_from_profile`]
//! or [`world::throng_world_from_snapshot`] belongs to the caller until
//! [`world::throng_world_free`]. A world is not locked: use it from one thread at a
//! time (any thread). Different worlds may be used on different threads at once.
//! Stepping runs the world's steering on its own thread pool
//! (`ThrongWorldConfig::threads`) or, with 0 threads, on a pool shared by the
//! process; results are bitwise identical for any thread count.
//!
//! # Panics
//! No panic crosses the boundary: every entry point catches it and returns
//! [`ThrongStatus::Panic`]. A world in which a panic was caught may be half-updated,
//! so it is marked poisoned and refuses every later call but `throng_world_free`
//! ([`ThrongStatus::Poisoned`]). The library must be built with unwinding panics
//! (Cargo's default), or a panic aborts the process instead.

// Raw pointers from C are read only through the helpers below, each with the
// checks a pointer can be given (null, alignment) and a SAFETY note on what the
// caller promises beyond them.
#![allow(unsafe_code)]

// Worlds first, then groups and agents: the header follows this order.
pub mod world;

pub mod groups;

pub mod agents;

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::ThrongError;
use crate::scenario::Scenario;
use crate::{AgentId, World};

/// What a call did: `THRONG_STATUS_OK` (0) or why it did nothing.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThrongStatus {
    /// Done.
    Ok = 0,
    /// A required pointer was null.
    NullPointer = 1,
    /// A value was out of range or not finite, a parameter invalid, a string not
    /// UTF-8, a profile or scene invalid.
    InvalidArgument = 2,
    /// The agent handle names no live agent (never spawned, or despawned).
    UnknownAgent = 3,
    /// The group id names no group of this world.
    UnknownGroup = 4,
    /// A fixed capacity of the engine would be exceeded (groups, agents).
    Capacity = 5,
    /// The agents would not fit in the memory available (see the message's
    /// estimate).
    OutOfMemory = 6,
    /// The bytes are not a snapshot this version can read.
    InvalidSnapshot = 7,
    /// The caller's buffer is smaller than the result; the length needed was written.
    BufferTooSmall = 8,
    /// A panic was caught (a bug in the library; the message says where).
    Panic = 9,
    /// An earlier call on this world panicked; only `throng_world_free` is accepted.
    Poisoned = 10,
}

/// A failed call: its status and message.
#[derive(Debug)]
pub(crate) struct Failure {
    status: ThrongStatus,
    message: String,
}

impl Failure {
    pub(crate) fn new(status: ThrongStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(ThrongStatus::InvalidArgument, message)
    }
}

impl From<ThrongError> for Failure {
    fn from(e: ThrongError) -> Self {
        let status = match e {
            ThrongError::UnknownAgent(_) | ThrongError::ForeignAgent(_) => {
                ThrongStatus::UnknownAgent
            }
            ThrongError::UnknownGroup(_) | ThrongError::ForeignGroup(_) => {
                ThrongStatus::UnknownGroup
            }
            ThrongError::Capacity(_) => ThrongStatus::Capacity,
            ThrongError::OutOfMemory { .. } => ThrongStatus::OutOfMemory,
            ThrongError::InvalidSnapshot(_) => ThrongStatus::InvalidSnapshot,
            ThrongError::Panicked(_) => ThrongStatus::Panic,
            ThrongError::NonFinite { .. }
            | ThrongError::NotPositive { .. }
            | ThrongError::Negative { .. }
            | ThrongError::InvalidParameter { .. }
            | ThrongError::Scene(_) => ThrongStatus::InvalidArgument,
        };
        Self::new(status, e.to_string())
    }
}

pub(crate) type CResult<T = ()> = Result<T, Failure>;

thread_local! {
    /// The message of the last failed call on this thread (empty when none failed).
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message with an interior NUL is cut there rather than lost.
    let bytes: Vec<u8> = message.bytes().take_while(|&b| b != 0).collect();
    let text = CString::new(bytes).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// The message of the last call on this thread that did not return
/// `THRONG_STATUS_OK` ("" if none has failed). The text stays valid until the next
/// failing call on this thread; copy it to keep it.
#[no_mangle]
pub extern "C" fn throng_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, e.g. "0.1.0" (a static string).
#[no_mangle]
pub extern "C" fn throng_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| String::from("(no message)"));
    format!("internal error (a panic was caught at the C boundary): {what}")
}

/// Run one entry point: its status, with the message recorded on failure and any
/// panic caught.
pub(crate) fn guard(f: impl FnOnce() -> CResult) -> ThrongStatus {
    let outcome = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|payload| Err(Failure::new(ThrongStatus::Panic, panic_message(&*payload))));
    match outcome {
        Ok(()) => ThrongStatus::Ok,
        Err(failure) => {
            set_last_error(&failure.message);
            failure.status
        }
    }
}

/// A world: agents, groups, scene. Opaque; created by `throng_world_new`,
/// `throng_world_from_profile` or `throng_world_from_snapshot`, freed by
/// `throng_world_free`; used by one thread at a time.
pub struct ThrongWorld {
    engine: Engine,
    /// Set when a panic was caught in a call on this world.
    poisoned: bool,
}

/// A plain world, or one built from a profile (whose moving targets the scenario
/// moves each step).
enum Engine {
    Plain(Box<World>),
    Profile(Box<Scenario>),
}

impl ThrongWorld {
    pub(crate) fn plain(world: World) -> Self {
        Self {
            engine: Engine::Plain(Box::new(world)),
            poisoned: false,
        }
    }

    pub(crate) fn profile(scenario: Scenario) -> Self {
        Self {
            engine: Engine::Profile(Box::new(scenario)),
            poisoned: false,
        }
    }

    pub(crate) fn world(&self) -> &World {
        match &self.engine {
            Engine::Plain(w) => w,
            Engine::Profile(s) => s.world(),
        }
    }

    /// The handle a C caller's bits name in this world ([`World::agent_from_bits`]).
    pub(crate) fn agent(&self, bits: u64) -> AgentId {
        self.world().agent_from_bits(bits)
    }

    pub(crate) fn world_mut(&mut self) -> &mut World {
        match &mut self.engine {
            Engine::Plain(w) => w,
            Engine::Profile(s) => s.world_mut(),
        }
    }

    pub(crate) fn scenario_mut(&mut self) -> Option<&mut Scenario> {
        match &mut self.engine {
            Engine::Plain(_) => None,
            Engine::Profile(s) => Some(s),
        }
    }
}

/// Run an entry point on a world: refuses a null or poisoned world, and poisons it
/// when `f` panics.
pub(crate) fn with_world(
    world: *mut ThrongWorld,
    f: impl FnOnce(&mut ThrongWorld) -> CResult,
) -> ThrongStatus {
    guard(|| {
        // SAFETY: the caller passes null or a pointer from a `throng_world_*`
        // constructor not yet freed, used by one thread at a time (the module's
        // ownership rules), so no other reference to it is alive.
        let w = unsafe { world.as_mut() }
            .ok_or_else(|| Failure::new(ThrongStatus::NullPointer, "world is null"))?;
        if w.poisoned {
            return Err(Failure::new(
                ThrongStatus::Poisoned,
                "an earlier call on this world panicked; free it",
            ));
        }
        match catch_unwind(AssertUnwindSafe(|| f(&mut *w))) {
            Ok(result) => result,
            Err(payload) => {
                w.poisoned = true;
                Err(Failure::new(ThrongStatus::Panic, panic_message(&*payload)))
            }
        }
    })
}

fn null(name: &str) -> Failure {
    Failure::new(ThrongStatus::NullPointer, format!("{name} is null"))
}

fn check_aligned<T>(p: *const T, name: &str) -> CResult {
    if p.is_aligned() {
        Ok(())
    } else {
        Err(Failure::invalid(format!(
            "{name} is not aligned for its type"
        )))
    }
}

/// Write `value` through an output pointer.
pub(crate) fn write_out<T>(p: *mut T, name: &str, value: T) -> CResult {
    if p.is_null() {
        return Err(null(name));
    }
    check_aligned(p, name)?;
    // SAFETY: non-null and aligned; the caller promises it points at writable
    // memory for one `T` (the function's documented output).
    unsafe { p.write(value) };
    Ok(())
}

/// Check an output pointer before any work, so that a call with a null output
/// changes nothing.
pub(crate) fn check_out<T>(p: *mut T, name: &str) -> CResult {
    if p.is_null() {
        return Err(null(name));
    }
    check_aligned(p, name)
}

/// Read a struct the caller passes by pointer.
pub(crate) fn read_in<T: Copy>(p: *const T, name: &str) -> CResult<T> {
    if p.is_null() {
        return Err(null(name));
    }
    check_aligned(p, name)?;
    // SAFETY: non-null and aligned; the caller promises it points at an
    // initialised `T` (the function's documented input). `T` is a plain `repr(C)`
    // struct of numbers and pointers, valid for any bits.
    Ok(unsafe { p.read() })
}

/// A caller's array of `len` items; null is allowed when `len` is 0.
pub(crate) fn slice_in<'a, T>(p: *const T, len: usize, name: &str) -> CResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(name));
    }
    check_aligned(p, name)?;
    if len.saturating_mul(std::mem::size_of::<T>()) > isize::MAX as usize {
        return Err(Failure::invalid(format!("{name}: {len} items is too many")));
    }
    // SAFETY: non-null, aligned, and the byte length fits `isize`; the caller
    // promises `len` initialised items that nothing writes during the call.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Copy `items` into a caller's array of capacity `cap`, writing the count (or the
/// count needed) to `written`. A null array with capacity 0 asks only the count.
pub(crate) fn copy_out<T: Copy>(
    items: impl ExactSizeIterator<Item = T>,
    out: *mut T,
    cap: usize,
    written: *mut usize,
    name: &str,
) -> CResult {
    check_out(written, "written")?;
    let n = items.len();
    if out.is_null() {
        if cap != 0 {
            return Err(null(name));
        }
        return write_out(written, "written", n);
    }
    check_aligned(out, name)?;
    if cap < n {
        write_out(written, "written", n)?;
        return Err(Failure::new(
            ThrongStatus::BufferTooSmall,
            format!("{name} holds {cap} items; {n} are needed"),
        ));
    }
    for (i, item) in items.enumerate() {
        // SAFETY: `out` is non-null and aligned, and the caller promises `cap`
        // writable items there; `i < n <= cap`.
        unsafe { out.add(i).write(item) };
    }
    write_out(written, "written", n)
}

/// A caller's NUL-terminated UTF-8 string.
pub(crate) fn str_in<'a>(p: *const c_char, name: &str) -> CResult<&'a str> {
    if p.is_null() {
        return Err(null(name));
    }
    // SAFETY: non-null; the caller promises a NUL-terminated string that lives and
    // does not change during the call.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map_err(|e| Failure::invalid(format!("{name} is not UTF-8: {e}")))
}

/// A `float` that must be finite.
pub(crate) fn finite(name: &str, v: f32) -> CResult<f32> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Failure::invalid(format!("{name} must be finite, got {v}")))
    }
}

/// A 2D vector.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThrongVec2 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
}

impl ThrongVec2 {
    pub(crate) fn finite(self, name: &str) -> CResult<glam::Vec2> {
        if self.x.is_finite() && self.y.is_finite() {
            Ok(glam::Vec2::new(self.x, self.y))
        } else {
            Err(Failure::invalid(format!(
                "{name} must be finite, got ({}, {})",
                self.x, self.y
            )))
        }
    }
}

impl From<glam::Vec2> for ThrongVec2 {
    fn from(v: glam::Vec2) -> Self {
        Self { x: v.x, y: v.y }
    }
}

#[cfg(test)]
mod tests;
