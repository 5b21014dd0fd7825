//! Tracy instrumentation. With the `tracy` feature, zones, frame marks and plots
//! go to a Tracy client that listens on localhost only and sends nothing until a
//! profiler connects (`only-localhost`, `ondemand`). Without the feature every
//! macro and function here compiles to nothing.
//!
//! The library never starts the client: the host program calls [`start`]. Until
//! it does, the zones cost one atomic load each.

/// Open a Tracy zone named `$name` for the rest of the enclosing scope.
#[doc(hidden)]
#[macro_export]
macro_rules! zone {
    ($name:literal) => {
        #[cfg(feature = "tracy")]
        let _zone =
            tracy_client::Client::running().map(|c| c.span(tracy_client::span_location!($name), 0));
    };
}

/// Plot `$value` (an `f64`) on the Tracy plot named `$name`.
#[doc(hidden)]
#[macro_export]
macro_rules! plot {
    ($name:literal, $value:expr) => {
        #[cfg(feature = "tracy")]
        if let Some(c) = tracy_client::Client::running() {
            c.plot(tracy_client::plot_name!($name), $value);
        }
    };
}

/// Mark the end of a frame (one tick).
#[inline]
pub fn frame_mark() {
    #[cfg(feature = "tracy")]
    if let Some(client) = tracy_client::Client::running() {
        client.frame_mark();
    }
}

/// The port the Tracy client listens on (Tracy's default).
pub const TRACY_PORT: u16 = 8086;

/// The Tracy version whose protocol the bundled client speaks: connect a profiler
/// (GUI or `tracy-capture`) of this version.
pub const TRACY_PROTOCOL_VERSION: &str = "0.14";

/// Whether a Tracy profiler is connected to this process's client (always false
/// without the `tracy` feature).
#[must_use]
pub fn is_connected() -> bool {
    #[cfg(feature = "tracy")]
    {
        tracy_client::Client::is_connected()
    }
    #[cfg(not(feature = "tracy"))]
    {
        false
    }
}

/// Start the Tracy client (localhost only, on demand). Call once from the host
/// program; without the `tracy` feature this does nothing. Returns whether a
/// client is running.
#[inline]
pub fn start() -> bool {
    #[cfg(feature = "tracy")]
    {
        let _client = tracy_client::Client::start();
        true
    }
    #[cfg(not(feature = "tracy"))]
    {
        false
    }
}
